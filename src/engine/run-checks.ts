import { mkdtemp, rm, writeFile } from "node:fs/promises";
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
import { validateHarness } from "../executors/harness-judge.js";
import type { ExecContext, PreparedCheck } from "../executors/types.js";
import { type PythonInterpreter, resolvePython } from "../process/python.js";
import {
  buildCheckReport,
  type CheckReport,
  type CheckResult,
  mergeSamples,
} from "../report/check-report.js";
import { checkReportMarkdown } from "../report/markdown.js";
import { RowTally } from "../report/row-tally.js";
import { summarize } from "../report/run-summary.js";
import { resumeRun, sampleStem, startRun, unitKey, writeJson } from "./check-run-folder.js";
import { runPool } from "./pool.js";
import { rowOf, runOne } from "./run-check.js";
import { isoUtc } from "./time.js";

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
  /** Warnings found while running (e.g. a provider_env variable that is not set). */
  onWarning?: (message: string) => void;
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
  // Asked while the checks load (it never rejects): a version-manager shim takes ~0.1 s.
  const interpreter = resolvePython(config.python, config.projectRoot);
  const checks = await selectRunnableChecks(config, options);
  const prepared = await Promise.all(checks.map(prepareCheck));
  const samples = options.samples ?? config.samples;
  const [python, run] = await Promise.all([
    interpreterFor(checks, interpreter),
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
          env: options.env ?? process.env,
          warn: options.onWarning ?? (() => {}),
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
  // Every row on disk before a report counts it: a write that failed stops the run here.
  rows.flush();
  await writeJson(path.join(runDir, "report.json"), report);
  await writeFile(path.join(runDir, "report.md"), checkReportMarkdown(report));
  rows.close({
    ended_at: isoUtc(completedAt),
    interrupted: signal.aborted,
    ...(run.resumes > 0 ? { resumes: run.resumes } : {}),
  });
  return { config, report, runDir, exitCode: exitCodeOf(report) };
}

/** Loads, selects and pre-flights checks: every reason not to run is found before any runs. */
export async function selectRunnableChecks(
  config: Config,
  options: Pick<RunChecksOptions, "checkDir" | "checkId" | "tags" | "onWarning">,
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
  for (const warning of checks.flatMap((c) => c.warnings)) options.onWarning?.(warning);
  return checks;
}

async function prepareCheck(check: Check): Promise<PreparedCheck> {
  const script = check.type === "deterministic" ? await readScriptSnapshot(check) : null;
  return { check, script, digest: checkDefinitionSha256(check.yamlBytes, script) };
}

/** Only deterministic checks need Python: a judge-only run must not fail for the lack of it. */
async function interpreterFor(
  checks: readonly Check[],
  interpreter: Promise<PythonInterpreter>,
): Promise<PythonInterpreter> {
  if (!checks.some((check) => check.type === "deterministic")) {
    return { executable: "python3", error: null };
  }
  return interpreter;
}

function exitCodeOf(report: CheckReport): number {
  if (report.interrupted) return EXIT.interrupted;
  return report.run_passed ? EXIT.passed : EXIT.fellShort;
}
