import { stat } from "node:fs/promises";
import path from "node:path";
import { InputError } from "../errors.js";
import { type ManifestSummary, summarizeManifest } from "./manifest.js";
import { type Line, NOT_JSON, RowReader } from "./parse-row.js";
import type { RunKind, StoredRow } from "./record.js";
import { forEachLineOf } from "./row-lines.js";
import { RowTally, type TallyOptions } from "./row-tally.js";

export interface RunRows {
  /** The rows file that was read. */
  file: string;
  /** What the first line's `manifest` says, or null for rows without one (the article's script). */
  manifest: ManifestSummary | null;
  tally: RowTally;
  /** Fields left out of the statistics (by name, with a count), and a last line cut short. */
  warnings: string[];
}

/**
 * Streams a run's rows (a run folder or a rows file) into per-item aggregates; `visit`, if given,
 * also sees each row (with the run's kind, from the manifest on the first line) in the same pass.
 */
export async function readRun(
  location: string,
  visit?: (row: StoredRow, kind: RunKind | null) => void,
  options: TallyOptions = {},
): Promise<RunRows> {
  const file = await rowsFile(location);
  const tally = new RowTally(options);
  let manifest: ManifestSummary | null = null;
  const warnings = await forEachLine(file, (parsed, _, slot) => {
    if ("manifest" in parsed) {
      manifest = summarizeManifest(parsed.manifest);
      return;
    }
    tally.add(parsed, slot);
    visit?.(parsed, manifest?.kind ?? null);
  });
  return { file, manifest, tally, warnings };
}

/**
 * Every row of a rows file, in file order (the manifest and a cut-short last line skipped).
 * `--resume` reads eb's own rows with it: fields a report would warn about are dropped alike.
 */
export async function readRows(file: string): Promise<StoredRow[]> {
  const rows: StoredRow[] = [];
  await forEachLine(file, (parsed) => {
    if (!("manifest" in parsed)) rows.push(parsed);
  });
  return rows;
}

/**
 * Every row of a rows file with its line as written (the manifest and a cut-short last line
 * skipped): `eb merge` copies the lines as they are and counts the rows. Returns the warnings.
 */
export function forEachRowOf(
  file: string,
  visit: (row: StoredRow, text: string) => void,
): Promise<string[]> {
  return forEachLine(file, (parsed, text) => {
    if (!("manifest" in parsed)) visit(parsed, text);
  });
}

/**
 * A bad line is an InputError with file and line. Only a last line that has no "\n" and is not
 * JSON is forgiven: a crash cut it short (rows are written whole, newline included).
 */
async function forEachLine(
  file: string,
  visit: (line: Line, text: string, slot: number) => void,
): Promise<string[]> {
  const reader = new RowReader();
  let cutShort: number | null = null;
  await forEachLineOf(file, (text, line, ended) => {
    const parsed = reader.read(text, line);
    if (parsed === null) return;
    if (typeof parsed !== "string") visit(parsed, text, reader.slot);
    else if (!ended && parsed === NOT_JSON) cutShort = line;
    else throw new InputError(`${file}:${line}: ${parsed}`);
  });
  const warnings = reader.warnings(file);
  if (cutShort !== null) {
    warnings.push(
      `${file}:${cutShort}: the last line was cut short (as a crash leaves it) and skipped`,
    );
  }
  return warnings;
}

export async function rowsFile(location: string): Promise<string> {
  const info = await stat(location).catch(() => null);
  if (!info) throw new InputError(`${location}: no such run folder or rows file`);
  if (info.isFile()) return location;
  const file = path.join(location, "rows.jsonl");
  if (!(await stat(file).catch(() => null))) {
    throw new InputError(`${location} is not a run folder: it has no rows.jsonl`);
  }
  return file;
}
