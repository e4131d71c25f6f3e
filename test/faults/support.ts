import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { type CliResult, makeProject, runEb } from "../helpers/project.js";

export const KEY = "sk-test-SECRET";

/** The default cache folder, relative to the project root. */
export const CACHE = ".eval-banana/cache";

/** A row of rows.jsonl, as far as these tests look at it. */
export interface Row {
  id: string;
  sample: number;
  score: number;
  status: "passed" | "failed" | "error";
  marks: Record<string, boolean>;
  reasons?: Record<string, string>;
  error: string | null;
  text: string | null;
  cached: boolean;
}

export interface EvalReport {
  stats: { items: number; samples: number; errors: number; cached: number; pass_rate: number };
  summary: { graders: { name: string; failures: number }[] };
  run_passed: boolean;
  interrupted: boolean;
}

export interface Grader {
  type: string;
  [field: string]: unknown;
}

/** One case line; the content is what the fake server keys its behaviour on. */
export function caseLine(id: string, content: string, graders: Grader[] = []): string {
  const all = graders.length > 0 ? graders : [{ type: "contains", all: ["echo"] }];
  return JSON.stringify({ id, messages: [{ role: "user", content }], graders: all });
}

/** A project whose cases.jsonl holds these lines. */
export function casesProject(lines: readonly string[], files: Record<string, string> = {}) {
  return makeProject({ "cases.jsonl": `${lines.join("\n")}\n`, ...files });
}

/** The run folder every `evalAt` run writes (flat, so the test knows where). */
export const OUT = "out";

/** `eb eval cases.jsonl -m mock` against `baseURL`, writing its run folder to `<root>/out`. */
export function evalAt(
  root: string,
  baseURL: string,
  extra: readonly string[] = [],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 120_000,
): Promise<CliResult> {
  const args = ["eval", "cases.jsonl", "-m", "mock", "--api-base", baseURL];
  return runEb([...args, "--out", OUT, "--flat-output", ...extra], {
    cwd: root,
    env: { EVAL_BANANA_API_KEY: KEY, ...env },
    timeoutMs,
  });
}

export interface RunFiles {
  manifest: Record<string, unknown>;
  rows: Row[];
  report: EvalReport;
}

/** rows.jsonl (every line must parse) and report.json of a run folder. */
export function readRun(runDir: string): RunFiles {
  const lines = readFileSync(path.join(runDir, "rows.jsonl"), "utf8").trimEnd().split("\n");
  const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const manifest = (parsed[0] as { manifest: Record<string, unknown> }).manifest;
  expect(manifest).toBeDefined();
  const report = JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8")) as EvalReport;
  return { manifest, rows: parsed.slice(1) as unknown as Row[], report };
}

/** Every (id, sample) pair exactly once: k rows per case, none twice. */
export function expectAllRows(rows: readonly Row[], ids: readonly string[], k: number): void {
  const seen = rows.map((r) => `${r.id}#${r.sample}`).sort();
  const want = ids.flatMap((id) => Array.from({ length: k }, (_, s) => `${id}#${s}`)).sort();
  expect(seen).toEqual(want);
}

/** Relative paths of every file under `root`. */
export function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

/** Counts how often each key occurs. */
export function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

/** The packs of the cache (no other file, no temp file left). */
export function cachePacks(root: string): string[] {
  const files = filesUnder(path.join(root, CACHE));
  for (const file of files) {
    expect(file, "a leftover temporary file").toMatch(
      /^packs\/\d{8}T\d{9}Z-\w+-\d+-[0-9a-f]{8}\.pack$/,
    );
  }
  return files.map((file) => path.join(root, CACHE, file));
}

/** Every line of every pack is a whole entry (`<key> <JSON>`); returns the distinct keys. */
export function expectWholeEntries(root: string): string[] {
  const keys = new Set<string>();
  for (const pack of cachePacks(root)) {
    const text = readFileSync(pack, "utf8");
    expect(text.endsWith("\n"), `${pack} ends with a torn line`).toBe(true);
    for (const line of text.slice(0, -1).split("\n")) {
      expect(line).toMatch(/^[0-9a-f]{64} \{/);
      expect(() => JSON.parse(line.slice(65))).not.toThrow();
      keys.add(line.slice(0, 64));
    }
  }
  return [...keys];
}
