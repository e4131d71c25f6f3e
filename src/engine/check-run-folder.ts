import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { safeStem } from "../checks/stem.js";
import type { Config } from "../config/load.js";
import { InputError } from "../errors.js";
import type { PreparedCheck } from "../executors/types.js";
import type { CheckResult } from "../report/check-report.js";
import { readRows } from "../report/read-rows.js";
import type { StoredRow as Row } from "../run/record.js";
import { gitCommit } from "./git.js";
import { RowWriter } from "./rows.js";
import type { RunChecksOptions } from "./run-checks.js";
import { createRunFolder } from "./run-folder.js";
import { isoUtc, newRunId } from "./time.js";
import { TOOL_VERSION } from "./version.js";

/** A run folder being written: new, or an interrupted one picked up again (`--resume`). */
export interface OpenRun {
  runId: string;
  runDir: string;
  checksDir: string;
  rows: RowWriter;
  startedAt: Date;
  /** Samples already done in an earlier attempt, by `unitKey`. */
  finished: Map<string, { row: Row; result: CheckResult }>;
  resumes: number;
}

export async function startRun(
  config: Config,
  prepared: readonly PreparedCheck[],
  samples: number,
  options: RunChecksOptions,
): Promise<OpenRun> {
  const startedAt = new Date();
  const runId = newRunId(startedAt);
  const [commit, runDir] = await Promise.all([
    gitCommit(config.projectRoot),
    createRunFolder({
      outputDir: config.outputDir,
      runId,
      flat: options.flatOutput ?? false,
      outputDirFromFlag: config.outputDirFromFlag,
    }),
  ]);
  const checksDir = path.join(runDir, "checks");
  await mkdir(checksDir, { recursive: true });
  const rows = RowWriter.create(path.join(runDir, "rows.jsonl"), {
    tool: "eval-banana",
    version: TOOL_VERSION,
    kind: "checks",
    run_id: runId,
    git_commit: commit,
    project_root: config.projectRoot,
    samples,
    definitions: definitionsOf(prepared),
    command: options.argv ?? null,
    started_at: isoUtc(startedAt),
  });
  return { runId, runDir, checksDir, rows, startedAt, finished: new Map(), resumes: 0 };
}

/**
 * Reopens an interrupted run: the same checks with the same definitions and samples, or an
 * InputError saying what changed. Finished samples are kept; only the missing ones run.
 */
export async function resumeRun(
  runDir: string,
  prepared: readonly PreparedCheck[],
  samples: number,
): Promise<OpenRun> {
  const file = path.join(runDir, "rows.jsonl");
  if (!existsSync(file))
    throw new InputError(`--resume ${runDir}: not a run folder (no rows.jsonl)`);
  const { writer: rows, manifest } = RowWriter.reopen(file);
  const refuse = (why: string) => {
    rows.close({});
    return new InputError(`--resume ${runDir}: ${why}. Start a new run instead.`);
  };
  if (manifest.kind !== "checks") throw refuse("it is not a run of eb run");
  if ((manifest.samples ?? 1) !== samples)
    throw refuse(`it ran ${String(manifest.samples ?? 1)} samples per check, not ${samples}`);
  const before = JSON.stringify(manifest.definitions);
  if (before !== JSON.stringify(definitionsOf(prepared))) {
    throw refuse("the selected checks or their definitions changed since it started");
  }
  const checksDir = path.join(runDir, "checks");
  const finished = new Map<string, { row: Row; result: CheckResult }>();
  for (const row of await readRows(file)) {
    const stem = sampleStem(safeStem(row.id), row.sample ?? 0, samples);
    const result = JSON.parse(await readFile(path.join(checksDir, `${stem}.json`), "utf8"));
    finished.set(unitKey(row.id, row.sample ?? 0), { row, result: result as CheckResult });
  }
  return {
    runId: String(manifest.run_id),
    runDir,
    checksDir,
    rows,
    startedAt: new Date(String(manifest.started_at)),
    finished,
    resumes: Number(manifest.resumes ?? 0) + 1,
  };
}

function definitionsOf(prepared: readonly PreparedCheck[]): Record<string, string> {
  return Object.fromEntries(prepared.map((p) => [p.check.id, p.digest]));
}

export function unitKey(id: string, sample: number): string {
  return `${id}\u0000${sample}`;
}

/** With several samples each gets its own files: `<stem>.sample-<n>.*`. */
export function sampleStem(stem: string, sample: number, samples: number): string {
  return samples === 1 ? stem : `${stem}.sample-${sample}`;
}

export function writeJson(file: string, value: unknown): Promise<void> {
  return writeFile(file, `${JSON.stringify(value, null, 2)}\n`);
}
