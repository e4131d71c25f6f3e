import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { checkDefinitionSha256 } from "../checks/digest.js";
import { requireHarness } from "../checks/harness-gate.js";
import { loadChecks } from "../checks/load.js";
import { readScriptSnapshot } from "../checks/script.js";
import { safeStem } from "../checks/stem.js";
import type { Check } from "../checks/types.js";
import { type Config, type LoadConfigOptions, loadConfig } from "../config/load.js";
import { EXIT, InputError } from "../errors.js";
import { errorOutcome, runDeterministic } from "../executors/deterministic.js";
import { runHarnessJudge, validateHarness } from "../executors/harness-judge.js";
import type { ExecContext, ExecOutcome, PreparedCheck } from "../executors/types.js";
import { type PythonInterpreter, resolvePython } from "../process/python.js";
import {
  boundedStream,
  buildCheckReport,
  type CheckReport,
  type CheckResult,
  mergeSamples,
} from "../report/check-report.js";
import { checkReportMarkdown } from "../report/markdown.js";
import { readRows } from "../report/read-rows.js";
import { type Row, RowTally } from "../report/row-tally.js";
import { summarize } from "../report/run-summary.js";
import { gitCommit } from "./git.js";
import { runPool } from "./pool.js";
import { RowWriter } from "./rows.js";
import { createRunFolder } from "./run-folder.js";
import { isoUtc, newRunId } from "./time.js";
import { TOOL_VERSION } from "./version.js";

export interface RunChecksOptions extends LoadConfigOptions {
  /** An already loaded configuration (otherwise loaded from the other options). */
  config?: Config;
  checkDir?: string | undefined;
  checkId?: string | undefined;
  tags?: readonly string[] | undefined;
  /** Write into `--output-dir` itself instead of a `<run_id>` folder inside it. */
  flatOutput?: boolean;
  /** Abort to stop launching checks and kill the running ones (Ctrl-C). */
  signal?: AbortSignal;
  /** Called as each check finishes (in completion order). */
  onResult?: (result: CheckResult, done: number, total: number) => void;
  /** The command line, for the run manifest. */
  argv?: readonly string[];
  /** Runs of each check (judge reliability); a check's score is its pass fraction. Default 1. */
  samples?: number;
  /** An interrupted run folder to complete: only its missing check × sample pairs run. */
  resume?: string;
}

export interface CheckRun {
  config: Config;
  report: CheckReport;
  runDir: string;
  /** 0 passed, 1 fell short, 130 interrupted. */
  exitCode: number;
}

/**
 * Runs the selected checks and writes the run folder: `rows.jsonl` as checks finish, then
 * `checks/<stem>.json`, `report.json` and `report.md`. Bad input throws InputError before any
 * check runs; a failing, hanging or crashing check becomes an `error` result instead.
 */
export async function runChecks(options: RunChecksOptions = {}): Promise<CheckRun> {
  const config = options.config ?? (await loadConfig(options));
  const checks = await selectRunnableChecks(config, options);
  const prepared = await Promise.all(checks.map(prepareCheck));
  const samples = options.samples ?? config.samples;
  const [python, run] = await Promise.all([
    interpreterFor(checks, config),
    options.resume === undefined
      ? startRun(config, prepared, samples, options)
      : resumeRun(options.resume, prepared, samples),
  ]);
  const { runId, runDir, checksDir, rows } = run;
  const signal = options.signal ?? new AbortController().signal;
  const scratchRoot = await mkdtemp(path.join(os.tmpdir(), "eval-banana-"));
  const bySample: CheckResult[][] = prepared.map(() => []);
  const tally = new RowTally();
  const units = prepared.flatMap((item, index) =>
    Array.from({ length: samples }, (_, sample) => ({ item, index, sample })).filter(
      ({ sample }) => {
        const earlier = run.finished.get(unitKey(item.check.id, sample));
        if (!earlier) return true;
        bySample[index]![sample] = earlier.result;
        tally.add(earlier.row);
        return false;
      },
    ),
  );
  let done = 0;
  try {
    // Units are item-major, so the samples of one check are launched one after another.
    await runPool(
      units,
      config.maxParallelChecks,
      async ({ item, index, sample }, unitIndex) => {
        const stem = sampleStem(safeStem(item.check.id), sample, samples);
        const context: ExecContext = {
          config,
          checksDir,
          stem,
          scratchDir: path.join(scratchRoot, String(unitIndex)),
          python,
          signal,
        };
        const result = await runOne(item, context);
        if (!result) return;
        await writeJson(path.join(checksDir, `${stem}.json`), result);
        const row = rowOf(result, sample);
        rows.append(row);
        tally.add(row);
        bySample[index]![sample] = result;
        options.onResult?.(result, ++done, units.length);
      },
      signal,
    );
  } finally {
    await rm(scratchRoot, { recursive: true, force: true });
  }
  const results: CheckResult[] = [];
  for (const [index, list] of bySample.entries()) {
    const finished = list.filter((result) => result !== undefined);
    if (finished.length === 0) continue;
    if (samples === 1) {
      results.push(finished[0]!);
      continue;
    }
    const merged = mergeSamples(finished);
    await writeJson(path.join(checksDir, `${safeStem(prepared[index]!.check.id)}.json`), merged);
    results.push(merged);
  }
  const completedAt = new Date();
  const report = buildCheckReport(results, {
    runId,
    projectRoot: config.projectRoot,
    outputDir: runDir,
    startedAt: isoUtc(run.startedAt),
    completedAt: isoUtc(completedAt),
    durationMs: completedAt.getTime() - run.startedAt.getTime(),
    passThreshold: config.passThreshold,
    interrupted: signal.aborted,
    summary: summarize(tally, { pricing: config.pricing }),
  });
  await writeJson(path.join(runDir, "report.json"), report);
  await writeFile(path.join(runDir, "report.md"), checkReportMarkdown(report));
  rows.close({
    ended_at: isoUtc(completedAt),
    interrupted: signal.aborted,
    ...(run.resumes > 0 ? { resumes: run.resumes } : {}),
  });
  return { config, report, runDir, exitCode: exitCodeOf(report) };
}

/** A run folder being written: new, or an interrupted one picked up again (`--resume`). */
interface OpenRun {
  runId: string;
  runDir: string;
  checksDir: string;
  rows: RowWriter;
  startedAt: Date;
  /** Samples already done in an earlier attempt, by `unitKey`. */
  finished: Map<string, { row: Row; result: CheckResult }>;
  resumes: number;
}

async function startRun(
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
async function resumeRun(
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

function unitKey(id: string, sample: number): string {
  return `${id}\u0000${sample}`;
}

/** Loads, selects and pre-flights checks: every reason not to run is found before any runs. */
export async function selectRunnableChecks(
  config: Config,
  options: Pick<RunChecksOptions, "checkDir" | "checkId" | "tags">,
): Promise<Check[]> {
  const checks = await loadChecks({
    projectRoot: config.projectRoot,
    excludeDirs: config.excludeDirs,
    checkDir: options.checkDir,
    checkId: options.checkId,
    tags: options.tags,
  });
  if (checks.length === 0) {
    throw new InputError(
      `No checks found under ${options.checkDir ?? config.projectRoot}. ` +
        "Checks are *.yaml files inside eval_checks/ folders; see `eb list`.",
    );
  }
  requireHarness(checks, config.harness.agent);
  await validateHarness(checks, config);
  return checks;
}

async function prepareCheck(check: Check): Promise<PreparedCheck> {
  const script = check.type === "deterministic" ? await readScriptSnapshot(check) : null;
  return { check, script, digest: checkDefinitionSha256(check.yamlBytes, script) };
}

async function interpreterFor(
  checks: readonly Check[],
  config: Config,
): Promise<PythonInterpreter> {
  if (!checks.some((check) => check.type === "deterministic")) {
    return { executable: "python3", error: null };
  }
  return resolvePython(config.python, config.projectRoot);
}

async function runOne(item: PreparedCheck, context: ExecContext): Promise<CheckResult | null> {
  const startedAt = new Date();
  const started = performance.now();
  await mkdir(context.scratchDir, { recursive: true });
  const outcome = await execute(item, context).catch((error: unknown) =>
    errorOutcome(`Internal error while running the check: ${String(error)}`),
  );
  if (outcome.aborted) return null;
  const check = item.check;
  const streamFile = (name: string) => `checks/${context.stem}.${name}.txt`;
  return {
    check_id: check.id,
    check_type: check.type,
    description: check.description,
    source_path: check.sourcePath,
    tags: check.tags,
    status: outcome.status,
    score: outcome.status === "passed" ? 1 : 0,
    started_at: isoUtc(startedAt),
    completed_at: isoUtc(new Date()),
    duration_ms: Math.floor(performance.now() - started),
    reason: outcome.reason,
    error_detail: outcome.errorDetail,
    stdout: boundedStream(outcome.stdout, outcome.stdoutChars, streamFile("stdout")),
    stderr: boundedStream(outcome.stderr, outcome.stderrChars, streamFile("stderr")),
    exit_code: outcome.exitCode,
    details: outcome.details,
    check_definition_sha256: item.digest,
  };
}

function execute(item: PreparedCheck, context: ExecContext): Promise<ExecOutcome> {
  const check = item.check;
  return check.type === "deterministic"
    ? runDeterministic(check, context, item)
    : runHarnessJudge(check, context);
}

/** With several samples each gets its own files: `<stem>.sample-<n>.*`. */
function sampleStem(stem: string, sample: number, samples: number): string {
  return samples === 1 ? stem : `${stem}.sample-${sample}`;
}

function writeJson(file: string, value: unknown): Promise<void> {
  return writeFile(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** The row of one check sample in `rows.jsonl` (DESIGN.md field names). */
function rowOf(result: CheckResult, sample: number): Row {
  return {
    id: result.check_id,
    sample,
    score: result.score,
    status: result.status,
    tags: result.tags,
    marks: result.status === "error" ? {} : { [result.check_type]: result.score === 1 },
    ms: result.duration_ms,
    reason: result.reason,
    error: result.error_detail,
    cached: false,
    cost: null,
    model: typeof result.details.model === "string" ? result.details.model : null,
  };
}

function exitCodeOf(report: CheckReport): number {
  if (report.interrupted) return EXIT.interrupted;
  return report.run_passed ? EXIT.passed : EXIT.fellShort;
}
