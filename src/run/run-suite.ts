import path from "node:path";
import { type Config, environmentOf } from "../config/load.js";
import { EXIT, RunStoppedError } from "../errors.js";
import type { RunDocument, RunProvenance } from "../report/document.js";
import { readRows } from "../report/read-rows.js";
import type { Manifest, RowOf, RunKind, StoredRow } from "../report/record.js";
import { RowTally } from "../report/row-tally.js";
import { TOOL_VERSION } from "../version.js";
import { cannotStart, describeFsError, isDiskFull } from "./fs-errors.js";
import { lockRunFolder, type RunLock } from "./lock.js";
import type { RunOptions } from "./options.js";
import { runPool } from "./pool.js";
import { gitCommit, isoUtc, newRunId } from "./provenance.js";
import { writeReports } from "./reports.js";
import { RowWriter } from "./rows.js";
import { createRunFolder, ROWS_FILE, reopenRunFolder, rowsFileOf } from "./run-folder.js";
import type { RunProgress, Suite, SuiteItem } from "./suite.js";
import { shardSuiteName } from "./suite-name.js";

export interface RunSuiteOptions<K extends RunKind> extends RunOptions<K> {
  config: Config;
}

export interface SuiteRun<R> {
  report: R;
  /** What the terminal and every other output render, secrets scrubbed. */
  document: RunDocument;
  runDir: string;
  /** 0 passed, 1 fell short, 130 interrupted. */
  exitCode: number;
}

interface OpenRun {
  runId: string;
  runDir: string;
  lock: RunLock;
  startedAt: Date;
  rows: RowWriter<Manifest>;
  /** Rows of earlier attempts (`--resume`). */
  earlier: StoredRow[];
  resumes: number;
  provenance: Omit<RunProvenance, "resumes" | "merged">;
}

/**
 * The one run lifecycle of every kind: opens (or resumes) the run folder, writes the manifest,
 * runs the missing samples with at most `suite.workers` in flight, appends each row as it
 * finishes, and on the end or an interrupt writes report.json and report.md and closes the
 * manifest. The exit code follows the gate the suite reports. Should anything throw, no sample
 * is left running and the rows file is closed as a crash would leave it (the manifest's
 * `ended_at` stays null).
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
  options.onStart?.(run.runDir);
  try {
    return await complete(suite, run, signal, options);
  } catch (error) {
    run.rows.abandon();
    throw stopped(run.runDir, error, suite.scrubber.scrub);
  } finally {
    run.lock.release();
  }
}

/** A run that cannot go on says where its rows are and how to finish it once the cause is fixed. */
function stopped(runDir: string, error: unknown, scrub: (text: string) => string): unknown {
  const kept =
    ` The rows written so far are kept in ${path.join(runDir, ROWS_FILE)}; then run the same ` +
    `command again with --resume ${runDir} to finish it.`;
  if (isDiskFull(error)) {
    const why = `${describeFsError(error)} while writing the run folder ${runDir}; free some space.`;
    return new RunStoppedError(`${why}${kept}`);
  }
  if (!(error instanceof RunStoppedError)) return error;
  return new RunStoppedError(scrub(`${error.message}${kept}`), error.exitCode);
}

async function complete<K extends RunKind, I extends SuiteItem, R>(
  suite: Suite<K, I, R>,
  run: OpenRun,
  signal: AbortSignal,
  options: RunSuiteOptions<K>,
): Promise<SuiteRun<R>> {
  const tally = new RowTally({ outcomes: true, output: suite.output });
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
    provenance: { ...run.provenance, resumes: run.resumes, merged: null },
  });
  for (const warning of finished.warnings) options.onWarning?.(suite.scrubber.scrub(warning));
  // Every row on disk before a report counts it: a write that failed stops the run here.
  run.rows.flush();
  const unwritten = await writeReports(run.runDir, finished, suite.scrubber.scrub);
  for (const warning of unwritten) options.onWarning?.(warning);
  const closed = run.rows.close({
    ended_at: isoUtc(completedAt),
    interrupted,
    ...finished.closing,
    ...(run.resumes > 0 ? { resumes: run.resumes } : {}),
  });
  if (!closed) {
    options.onWarning?.(
      `${run.rows.path}: the closing manifest fields did not fit on its first line; report.json has them`,
    );
  }
  const exitCode = interrupted ? EXIT.interrupted : finished.passed ? EXIT.passed : EXIT.fellShort;
  return { report: finished.report, document: finished.document, runDir: run.runDir, exitCode };
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
    suite: shardSuiteName(suite.name, suite.shard?.shard ?? null),
    ...(suite.shard ?? {}),
    items_planned: suite.items.length,
    command: suite.command,
    started_at: isoUtc(startedAt),
    // Filled in when the run ends; null here means the run never got there.
    ended_at: null,
    interrupted: null,
  };
  const lock = lockRunFolder(runDir);
  try {
    const rows = RowWriter.create(path.join(runDir, ROWS_FILE), manifest, suite.manifestRoom);
    const provenance = provenanceOf(manifest, suite.name);
    return { runId, runDir, lock, startedAt, rows, earlier: [], resumes: 0, provenance };
  } catch (error) {
    lock.release();
    throw cannotStart(path.join(runDir, ROWS_FILE), error);
  }
}

/** Where a run came from, as its manifest says, for its reports. */
function provenanceOf(
  manifest: Pick<Manifest, "version" | "git_commit" | "command">,
  suite: string,
): OpenRun["provenance"] {
  const { version, git_commit, command } = manifest;
  return { tool_version: version, git_commit, command: commandText(command), suite };
}

async function resume<K extends RunKind, I extends SuiteItem, R>(
  suite: Suite<K, I, R>,
  runDir: string,
): Promise<OpenRun> {
  rowsFileOf(runDir);
  const lock = lockRunFolder(runDir);
  try {
    const { writer: rows, manifest } = reopenRunFolder(runDir, suite.kind, {
      ...suite.settings,
      definitions: suite.definitions,
      ...(suite.shard ?? {}),
    });
    return {
      runId: manifest.run_id,
      runDir,
      lock,
      startedAt: new Date(manifest.started_at),
      rows,
      earlier: await readRows(rows.path),
      resumes: (manifest.resumes ?? 0) + 1,
      provenance: provenanceOf(manifest, suite.name),
    };
  } catch (error) {
    lock.release();
    // Reopening cuts a torn last line or completes one: a write a full disk can refuse.
    throw cannotStart(path.join(runDir, ROWS_FILE), error);
  }
}

/**
 * The samples still to run, one lane per item or per sample as the suite schedules them. The
 * first sample that throws stops every lane from launching another; the error is rethrown once
 * all of them have settled, so nothing still runs when runSuite gives up.
 */
async function runMissing<K extends RunKind, I extends SuiteItem, R>(
  suite: Suite<K, I, R>,
  run: OpenRun,
  tally: RowTally,
  signal: AbortSignal,
  options: RunSuiteOptions<K>,
): Promise<void> {
  const { lanes, remaining } = suite.draw
    ? drawnPlan(suite, run.earlier)
    : plan(suite, run.earlier);
  const progress = progressOf(suite, run.earlier, remaining);
  const stop = new AbortController();
  const forward = () => stop.abort();
  signal.addEventListener("abort", forward, { once: true });
  if (signal.aborted) stop.abort();
  const failures: unknown[] = [];
  let index = 0;
  const record = (item: I, row: RowOf<K>) => {
    run.rows.append(row, suite.scrubber.scrub);
    tally.add(row);
    progress.samplesDone++;
    progress.passed += row.score;
    if (row.status === "error") progress.errors++;
    if (row.cached) progress.cached++;
    const left = (remaining.get(item.id) ?? 1) - 1;
    remaining.set(item.id, left);
    // Drawn samples have no count to reach: an item is done at its first.
    if (left === 0 || (suite.draw && left === -1)) progress.itemsDone++;
    options.onSample?.(row, progress);
  };
  const lane = async ({ item, samples }: Lane<I>) => {
    for (const sample of samples) {
      if (stop.signal.aborted) return;
      const context = { runDir: run.runDir, signal: stop.signal, index: index++ };
      const row = await suite.runSample(item, sample, context);
      if (row !== null) record(item, row);
    }
  };
  const draw = suite.draw?.bind(suite);
  /** A lane of an adaptive suite: the samples it draws, until the suite says it is done. */
  const drawing = async () => {
    while (!stop.signal.aborted) {
      const next = await draw!(stop.signal);
      if (next === null) return;
      await lane({ item: next.item, samples: [next.sample] });
    }
  };
  const failed = (error: unknown) => {
    failures.push(error);
    stop.abort();
  };
  try {
    if (draw)
      await Promise.all(Array.from({ length: suite.workers }, () => drawing().catch(failed)));
    else await runPool(lanes, suite.workers, (work) => lane(work).catch(failed), stop.signal);
  } finally {
    signal.removeEventListener("abort", forward);
  }
  if (failures.length > 0) throw failures[0];
}

interface Lane<I> {
  item: I;
  samples: number[];
}

function plan<K extends RunKind, I extends SuiteItem, R>(
  suite: Suite<K, I, R>,
  earlier: readonly StoredRow[],
): { lanes: Lane<I>[]; remaining: Map<string, number> } {
  const done = new Set(earlier.map((row) => sampleKey(row.id, row.sample ?? 0)));
  const remaining = new Map<string, number>();
  const lanes: Lane<I>[] = [];
  for (const item of suite.items) {
    const samples = range(suite.samples).filter((s) => !done.has(sampleKey(item.id, s)));
    remaining.set(item.id, samples.length);
    if (samples.length === 0) continue;
    if (suite.schedule === "item") lanes.push({ item, samples });
    else for (const sample of samples) lanes.push({ item, samples: [sample] });
  }
  return { lanes, remaining };
}

/**
 * An adaptive suite's start: no lanes (it draws them), every item with a sample so far done.
 * An item's count starts at 0, so its first drawn sample makes it -1.
 */
function drawnPlan<K extends RunKind, I extends SuiteItem, R>(
  suite: Suite<K, I, R>,
  earlier: readonly StoredRow[],
): { lanes: Lane<I>[]; remaining: Map<string, number> } {
  const seen = new Set(earlier.map((row) => row.id));
  const remaining = new Map(suite.items.map((item) => [item.id, seen.has(item.id) ? -1 : 0]));
  return { lanes: [], remaining };
}

/** Where the run stands before this attempt's first sample: the earlier attempts' rows count. */
function progressOf<K extends RunKind, I extends SuiteItem, R>(
  suite: Suite<K, I, R>,
  earlier: readonly StoredRow[],
  remaining: ReadonlyMap<string, number>,
): RunProgress {
  const cached = earlier.filter((row) => row.cached === true).length;
  return {
    itemsDone: [...remaining.values()].filter((left) => (suite.draw ? left < 0 : left === 0))
      .length,
    itemsTotal: suite.items.length,
    samplesDone: earlier.length,
    samplesTotal: suite.items.length * suite.samples,
    passed: earlier.reduce((sum, row) => sum + row.score, 0),
    errors: earlier.filter((row) => row.status === "error").length,
    cached,
    earlierSamples: earlier.length,
    earlierCached: cached,
    startedAt: performance.now(),
  };
}

/** The command line as a reader would type it. */
export function commandText(command: readonly string[] | null): string | null {
  return command === null ? null : ["eb", ...command].join(" ");
}

function sampleKey(id: string, sample: number): string {
  return `${id}\u0000${sample}`;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
