import { writeFile } from "node:fs/promises";
import path from "node:path";
import { type Config, environmentOf } from "../config/load.js";
import { EXIT } from "../errors.js";
import { readRows } from "../report/read-rows.js";
import { RowTally } from "../report/row-tally.js";
import type { RunOptions } from "./options.js";
import { runPool } from "./pool.js";
import { gitCommit, isoUtc, newRunId, TOOL_VERSION } from "./provenance.js";
import type { Manifest, RowOf, RunKind, StoredRow } from "./record.js";
import { RowWriter } from "./rows.js";
import { createRunFolder, ROWS_FILE, reopenRunFolder } from "./run-folder.js";
import type { RunProgress, Suite, SuiteItem } from "./suite.js";

export interface RunSuiteOptions<K extends RunKind> extends RunOptions<K> {
  config: Config;
}

export interface SuiteRun<R> {
  report: R;
  runDir: string;
  /** 0 passed, 1 fell short, 130 interrupted. */
  exitCode: number;
  warnings: string[];
}

interface OpenRun {
  runId: string;
  runDir: string;
  startedAt: Date;
  rows: RowWriter<Manifest>;
  /** Rows of earlier attempts (`--resume`). */
  earlier: StoredRow[];
  resumes: number;
}

/**
 * The one run lifecycle of every kind: opens (or resumes) the run folder, writes the manifest,
 * runs the missing samples with at most `suite.workers` in flight, appends each row as it
 * finishes, and on the end or an interrupt writes report.json and report.md and closes the
 * manifest. The exit code follows the gate the suite reports.
 */
export async function runSuite<K extends RunKind, I extends SuiteItem, R>(
  suite: Suite<K, I, R>,
  options: RunSuiteOptions<K>,
): Promise<SuiteRun<R>> {
  const signal = options.signal ?? new AbortController().signal;
  const run =
    options.resume === undefined
      ? await start(suite, options)
      : await resume(suite, options.resume);
  const tally = new RowTally();
  try {
    await suite.open(run.runDir);
    for (const row of run.earlier) {
      await suite.restore(row, run.runDir);
      tally.add(row);
    }
    await runMissing(suite, run, tally, signal, options);
  } finally {
    await suite.close();
  }
  const completedAt = new Date();
  const interrupted = signal.aborted;
  const finished = await suite.finish({
    runId: run.runId,
    runDir: run.runDir,
    startedAt: run.startedAt,
    completedAt,
    interrupted,
    tally,
  });
  // Every row on disk before a report counts it: a write that failed stops the run here.
  run.rows.flush();
  await writeFile(
    path.join(run.runDir, "report.json"),
    `${JSON.stringify(finished.report, null, 2)}\n`,
  );
  await writeFile(path.join(run.runDir, "report.md"), finished.markdown);
  run.rows.close({
    ended_at: isoUtc(completedAt),
    interrupted,
    ...finished.closing,
    ...(run.resumes > 0 ? { resumes: run.resumes } : {}),
  });
  const exitCode = interrupted ? EXIT.interrupted : finished.passed ? EXIT.passed : EXIT.fellShort;
  return { report: finished.report, runDir: run.runDir, exitCode, warnings: finished.warnings };
}

async function start<K extends RunKind, I extends SuiteItem, R>(
  suite: Suite<K, I, R>,
  options: RunSuiteOptions<K>,
): Promise<OpenRun> {
  const startedAt = new Date();
  const runId = newRunId(startedAt);
  const [commit, runDir] = await Promise.all([
    gitCommit(suite.projectRoot, environmentOf(options)),
    createRunFolder({
      outputDir: options.config.outputDir,
      runId,
      flat: options.flatOutput ?? false,
      outputDirFromFlag: options.config.outputDirFromFlag,
    }),
  ]);
  const manifest: Manifest = {
    tool: "eval-banana",
    version: TOOL_VERSION,
    run_id: runId,
    git_commit: commit,
    project_root: suite.projectRoot,
    ...suite.settings,
    definitions: suite.definitions,
    command: suite.command,
    started_at: isoUtc(startedAt),
    // Filled in when the run ends; null here means the run never got there.
    ended_at: null,
    interrupted: null,
  };
  const rows = RowWriter.create(path.join(runDir, ROWS_FILE), manifest, suite.manifestRoom);
  return { runId, runDir, startedAt, rows, earlier: [], resumes: 0 };
}

async function resume<K extends RunKind, I extends SuiteItem, R>(
  suite: Suite<K, I, R>,
  runDir: string,
): Promise<OpenRun> {
  const { rows, manifest } = reopenRunFolder(runDir, suite.kind, {
    ...suite.settings,
    definitions: suite.definitions,
  });
  return {
    runId: manifest.run_id,
    runDir,
    startedAt: new Date(manifest.started_at),
    rows,
    earlier: await readRows(rows.path),
    resumes: (manifest.resumes ?? 0) + 1,
  };
}

/** The samples still to run, one lane per item or per sample as the suite schedules them. */
async function runMissing<K extends RunKind, I extends SuiteItem, R>(
  suite: Suite<K, I, R>,
  run: OpenRun,
  tally: RowTally,
  signal: AbortSignal,
  options: RunSuiteOptions<K>,
): Promise<void> {
  const done = new Set(run.earlier.map((row) => sampleKey(row.id, row.sample ?? 0)));
  const remaining = new Map<string, number>();
  const lanes: { item: I; samples: number[] }[] = [];
  for (const item of suite.items) {
    const samples = range(suite.samples).filter((s) => !done.has(sampleKey(item.id, s)));
    remaining.set(item.id, samples.length);
    if (samples.length === 0) continue;
    if (suite.schedule === "item") lanes.push({ item, samples });
    else for (const sample of samples) lanes.push({ item, samples: [sample] });
  }
  const progress: RunProgress = {
    itemsDone: [...remaining.values()].filter((left) => left === 0).length,
    itemsTotal: suite.items.length,
    samplesDone: run.earlier.length,
    samplesTotal: suite.items.length * suite.samples,
    passed: 0,
    errors: 0,
    cached: 0,
    startedAt: performance.now(),
  };
  let index = 0;
  const record = (item: I, row: RowOf<K>) => {
    run.rows.append(row);
    tally.add(row);
    progress.samplesDone++;
    progress.passed += row.score;
    if (row.status === "error") progress.errors++;
    if (row.cached) progress.cached++;
    const left = (remaining.get(item.id) ?? 1) - 1;
    remaining.set(item.id, left);
    if (left === 0) progress.itemsDone++;
    options.onSample?.(row, progress);
  };
  await runPool(
    lanes,
    suite.workers,
    async ({ item, samples }) => {
      for (const sample of samples) {
        if (signal.aborted) return;
        const row = await suite.runSample(item, sample, {
          runDir: run.runDir,
          signal,
          index: index++,
        });
        if (row !== null) record(item, row);
      }
    },
    signal,
  );
}

function sampleKey(id: string, sample: number): string {
  return `${id}\u0000${sample}`;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
