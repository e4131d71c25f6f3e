import { writeFile } from "node:fs/promises";
import path from "node:path";
import { type CaseRow, runCase } from "../cases/run-case.js";
import type { Config, LoadConfigOptions } from "../config/load.js";
import { EXIT } from "../errors.js";
import { caseReportMarkdown } from "../report/case-markdown.js";
import { buildCaseReport, type CaseReport } from "../report/case-report.js";
import { CaseTally } from "../report/case-tally.js";
import { describeRun, type Plan, planRun } from "./case-plan.js";
import { closingFields, resumeRun, startRun } from "./case-run-folder.js";
import { runPool } from "./pool.js";
import type { RowWriter } from "./rows.js";
import { isoUtc } from "./time.js";

/**
 * Options of one `eb eval` run. Settings of the settings table ([eval] api_base, judge, workers,
 * timeout_seconds, max_retries, cache_dir, pass_threshold; [core] output_dir) come from `flags`
 * (keyed like `"eval.workers"`), EVAL_BANANA_* variables and the config file, as for `eb run`.
 */
export interface RunCasesOptions extends LoadConfigOptions {
  /** An already loaded configuration (otherwise loaded from the other options). */
  config?: Config;
  /** The JSONL case file; a relative path is taken from `cwd`. */
  cases: string;
  /** The model to send the cases to. Exactly one of `model` and `command`. */
  model?: string;
  /** A command line that reads a case as JSON on stdin and prints its output; runs in `cwd`. */
  command?: string;
  /** Samples per case (default 1). */
  k?: number;
  /** Default 0. */
  temperature?: number;
  maxTokens?: number;
  /** Default: EVAL_BANANA_API_KEY, else OPENAI_API_KEY, from `env`. Never written anywhere. */
  apiKey?: string;
  /** Default: on for a model, off for a command (the judge is cached unless this is false). */
  cache?: boolean;
  /** Write into `--output-dir` itself instead of a `<run_id>` folder inside it. */
  flatOutput?: boolean;
  /** An interrupted run folder to finish: only its missing case × sample pairs run. */
  resume?: string;
  /** Abort to stop launching samples and drop the ones in flight (Ctrl-C). */
  signal?: AbortSignal;
  /** Each row as it is written, in completion order. */
  onRow?: (row: CaseRow) => void;
  onProgress?: (progress: Readonly<CaseProgress>) => void;
  /** The command line, for the run manifest (the API key is scrubbed from it). */
  argv?: readonly string[];
}

export interface CaseProgress {
  casesDone: number;
  casesTotal: number;
  samplesDone: number;
  samplesTotal: number;
  passed: number;
  errors: number;
  cached: number;
  /** performance.now() when the first case started. */
  startedAt: number;
}

export interface CaseRun {
  config: Config;
  report: CaseReport;
  runDir: string;
  /** 0 passed, 1 fell short (errors or threshold), 130 interrupted. */
  exitCode: number;
  /** Worth telling the user, but not a reason to fail (e.g. cache writes that failed). */
  warnings: string[];
}

/**
 * Sends every case to the target k times, grades the outputs and writes the run folder:
 * `rows.jsonl` as samples finish, then `report.json` and `report.md`. Bad input (flags, config,
 * case file, missing judge model or API key) throws InputError before any call is made; a failing
 * or hanging call becomes an `error` row instead.
 */
export async function runCases(options: RunCasesOptions): Promise<CaseRun> {
  const signal = options.signal ?? new AbortController().signal;
  const plan = await planRun(options, signal);
  const run =
    options.resume === undefined
      ? await startRun(plan, options)
      : await resumeRun(options.resume, plan);
  const { runId, runDir, manifest, rows, startedAt } = run;
  const tally = await runAll(plan, options, signal, rows, run.earlier);
  const warnings = await plan.cache.flush();
  const completedAt = new Date();
  const report = buildCaseReport(
    tally,
    {
      ...describeRun(plan),
      run_id: runId,
      output_dir: runDir,
      started_at: isoUtc(startedAt),
      completed_at: isoUtc(completedAt),
      duration_ms: completedAt.getTime() - startedAt.getTime(),
      interrupted: signal.aborted,
      pass_threshold: plan.settings.passThreshold,
    },
    { pricing: plan.config.pricing },
  );
  // Every row on disk before a report counts it: a write that failed stops the run here.
  rows.flush();
  await writeFile(path.join(runDir, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(path.join(runDir, "report.md"), caseReportMarkdown(report));
  rows.close({
    ...closingFields(manifest, report),
    ...(run.resumes > 0 ? { resumes: run.resumes } : {}),
  });
  return { config: plan.config, report, runDir, exitCode: exitCodeOf(report), warnings };
}

async function runAll(
  plan: Plan,
  options: RunCasesOptions,
  signal: AbortSignal,
  rows: RowWriter,
  earlier: readonly CaseRow[],
): Promise<CaseTally> {
  const tally = new CaseTally(plan.cases);
  const done = new Map<string, Set<number>>();
  for (const row of earlier) {
    tally.add(row);
    const samples = done.get(row.id) ?? new Set<number>();
    samples.add(row.sample);
    done.set(row.id, samples);
  }
  const progress: CaseProgress = {
    casesDone: 0,
    casesTotal: plan.cases.length,
    samplesDone: earlier.length,
    samplesTotal: plan.cases.length * plan.k,
    passed: 0,
    errors: 0,
    cached: 0,
    startedAt: performance.now(),
  };
  const onRow = (row: CaseRow) => {
    // A sample cut short by an interrupt is not a result: it is neither written nor counted.
    if (signal.aborted) return;
    rows.append(row);
    tally.add(row);
    progress.samplesDone++;
    progress.passed += row.score;
    if (row.status === "error") progress.errors++;
    if (row.cached) progress.cached++;
    options.onRow?.(row);
    options.onProgress?.(progress);
  };
  const runOptions = { k: plan.k, target: plan.target, judge: plan.judge, signal };
  const model = plan.info.kind === "model" ? plan.info.model : plan.info.command;
  await runPool(
    plan.cases,
    plan.settings.workers,
    async (c) => {
      await runCase(c, { ...runOptions, model, done: done.get(c.id) }, onRow);
      if (signal.aborted) return;
      progress.casesDone++;
      options.onProgress?.(progress);
    },
    signal,
  );
  return tally;
}

function exitCodeOf(report: CaseReport): number {
  if (report.interrupted) return EXIT.interrupted;
  return report.run_passed ? EXIT.passed : EXIT.fellShort;
}
