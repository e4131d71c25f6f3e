import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { InputError } from "../errors.js";
import { type ManifestSummary, summarizeManifest } from "../run/manifest.js";
import type { StoredRow } from "../run/record.js";
import { RowTally } from "./row-tally.js";

export interface RunRows {
  /** The rows file that was read. */
  file: string;
  /** What the first line's `manifest` says, or null for rows without one (the article's script). */
  manifest: ManifestSummary | null;
  tally: RowTally;
  /** A last line cut short by a crash is skipped, not fatal. */
  truncatedLastLine: boolean;
}

/** Streams a run's rows (a run folder or a rows file) into per-item aggregates. */
export async function readRun(location: string): Promise<RunRows> {
  const file = await rowsFile(location);
  const tally = new RowTally();
  let manifest: ManifestSummary | null = null;
  const { truncatedLastLine } = await forEachLine(file, (parsed) => {
    if ("manifest" in parsed) manifest = summarizeManifest(parsed.manifest);
    else tally.add(parsed);
  });
  return { file, manifest, tally, truncatedLastLine };
}

/** Every row of a rows file, in file order (the manifest and a cut-short last line skipped). */
export async function readRows(file: string): Promise<StoredRow[]> {
  const rows: StoredRow[] = [];
  await forEachLine(file, (parsed) => {
    if (!("manifest" in parsed)) rows.push(parsed);
  });
  return rows;
}

type Line = StoredRow | { manifest: unknown };

/** A bad line is an InputError with file and line, unless it is the last one (a crash cut it). */
async function forEachLine(
  file: string,
  visit: (line: Line) => void,
): Promise<{ truncatedLastLine: boolean }> {
  let lineNumber = 0;
  let pending: { line: number; error: string } | null = null;
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const text of lines) {
    lineNumber++;
    if (pending) throw new InputError(`${file}:${pending.line}: ${pending.error}`);
    if (text.trim() === "") continue;
    const parsed = parseLine(text);
    if (typeof parsed === "string") pending = { line: lineNumber, error: parsed };
    else visit(parsed);
  }
  return { truncatedLastLine: pending !== null };
}

async function rowsFile(location: string): Promise<string> {
  const info = await stat(location).catch(() => null);
  if (!info) throw new InputError(`${location}: no such run folder or rows file`);
  if (info.isFile()) return location;
  const file = path.join(location, "rows.jsonl");
  if (!(await stat(file).catch(() => null))) {
    throw new InputError(`${location} is not a run folder: it has no rows.jsonl`);
  }
  return file;
}

type Parsed = Line | string;

const STATUSES = new Set<unknown>(["passed", "failed", "error"]);

/** Validated by hand, not by a schema: this runs once per row, a million times. */
function parseLine(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "not valid JSON";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return "a row must be a JSON object";
  }
  const record = value as Record<string, unknown>;
  if (isObject(record.manifest)) return { manifest: record.manifest };
  if (typeof record.id !== "string" && typeof record.id !== "number") {
    return 'a row needs an "id" (string)';
  }
  if (typeof record.score !== "number" || record.score < 0 || record.score > 1) {
    return 'a row needs a "score" between 0 and 1';
  }
  if (
    record.sample !== undefined &&
    !(Number.isInteger(record.sample) && Number(record.sample) >= 0)
  ) {
    return 'a row\'s "sample" must be a whole number ≥ 0';
  }
  if (record.status !== undefined && !STATUSES.has(record.status)) {
    return 'a row\'s "status" must be "passed", "failed" or "error"';
  }
  // The other fields are taken as written: a reader of each checks what it uses.
  const row: StoredRow = { ...record, id: String(record.id), score: record.score };
  return row;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
