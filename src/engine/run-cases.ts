import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { loadCases, needsJudge } from "../cases/load.js";
import { type CaseRow, type JudgeFn, makeJudge, runCase } from "../cases/run-case.js";
import type { Case } from "../cases/schema.js";
import {
  type Config,
  type EvalConfig,
  type LoadConfigOptions,
  loadConfig,
} from "../config/load.js";
import { EXIT, InputError } from "../errors.js";
import { type Cache, createCache, type WriteBehindCache } from "../model/cache.js";
import type { ChatTarget } from "../model/chat.js";
import { createCommandTarget } from "../model/command-target.js";
import { redactUrl } from "../model/redact.js";
import type { CaseTarget } from "../model/types.js";
import { caseReportMarkdown } from "../report/case-markdown.js";
import { buildCaseReport, type CaseReport, type TargetInfo } from "../report/case-report.js";
import { CaseTally } from "../report/case-tally.js";
import { readRows } from "../report/read-rows.js";
import { gitCommit } from "./git.js";
import { runPool } from "./pool.js";
import { RowWriter } from "./rows.js";
import { createRunFolder } from "./run-folder.js";
import { isoUtc, newRunId } from "./time.js";
import { TOOL_VERSION } from "./version.js";

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

/** Everything a run needs, checked before the first call. */
interface Plan {
  config: Config;
  settings: EvalConfig;
  cases: Case[];
  casesFile: string;
  casesSha256: string;
  target: CaseTarget;
  judge: JudgeFn | null;
  info: TargetInfo;
  cache: WriteBehindCache;
  k: number;
  /** Sampling parameters sent to a model target; null for a command. */
  temperature: number | null;
  maxTokens: number | null;
  apiKey: string | null;
  judgeVersions: Set<string>;
}

const INTERRUPTED = "interrupted before the sample finished";

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
  await writeFile(path.join(runDir, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(path.join(runDir, "report.md"), caseReportMarkdown(report));
  rows.close({
    ...closingFields(manifest, report),
    ...(run.resumes > 0 ? { resumes: run.resumes } : {}),
  });
  return { config: plan.config, report, runDir, exitCode: exitCodeOf(report), warnings };
}

/** What the manifest and the report both say about the run's inputs. */
function describeRun(plan: Plan) {
  return {
    project_root: plan.config.projectRoot,
    cases_file: plan.casesFile,
    cases_sha256: plan.casesSha256,
    target: plan.info,
    judge_model: plan.judge === null ? null : plan.settings.judge,
    judge_model_versions: [...plan.judgeVersions].sort(),
    k: plan.k,
    temperature: plan.temperature,
    max_tokens: plan.maxTokens,
  };
}

interface OpenRun {
  runId: string;
  runDir: string;
  manifest: Record<string, unknown>;
  rows: RowWriter;
  startedAt: Date;
  /** Rows written by earlier attempts of this run (`--resume`). */
  earlier: CaseRow[];
  resumes: number;
}

async function startRun(plan: Plan, options: RunCasesOptions): Promise<OpenRun> {
  const startedAt = new Date();
  const runId = newRunId(startedAt);
  const [commit, runDir] = await Promise.all([
    gitCommit(plan.config.projectRoot),
    createRunFolder({
      outputDir: plan.config.outputDir,
      runId,
      flat: options.flatOutput ?? false,
      outputDirFromFlag: plan.config.outputDirFromFlag,
    }),
  ]);
  const manifest = manifestOf(plan, options, { runId, commit, startedAt });
  const rows = RowWriter.create(path.join(runDir, "rows.jsonl"), manifest, MANIFEST_ROOM);
  return { runId, runDir, manifest, rows, startedAt, earlier: [], resumes: 0 };
}

/** What must not change for `--resume` to finish a run as if it had never stopped. */
const RESUME_KEYS = ["cases_sha256", "target", "judge_model", "k", "temperature", "max_tokens"];

/**
 * Reopens an interrupted run of the same cases, target and settings (else an InputError naming
 * what differs); its rows are kept and only the missing case × sample pairs run.
 */
async function resumeRun(runDir: string, plan: Plan): Promise<OpenRun> {
  const file = path.join(runDir, "rows.jsonl");
  if (!existsSync(file))
    throw new InputError(`--resume ${runDir}: not a run folder (no rows.jsonl)`);
  const { writer: rows, manifest } = RowWriter.reopen(file);
  const now: Record<string, unknown> = describeRun(plan);
  const changed = RESUME_KEYS.filter(
    (key) => JSON.stringify(manifest[key]) !== JSON.stringify(now[key]),
  );
  if (manifest.kind !== "cases" || changed.length > 0) {
    rows.close({});
    const why =
      manifest.kind !== "cases" ? "it is not a run of eb eval" : `${changed.join(", ")} changed`;
    throw new InputError(`--resume ${runDir}: ${why}. Start a new run instead.`);
  }
  return {
    runId: String(manifest.run_id),
    runDir,
    manifest,
    rows,
    startedAt: new Date(String(manifest.started_at)),
    // Written by this program with these exact fields.
    earlier: (await readRows(file)) as unknown as CaseRow[],
    resumes: Number(manifest.resumes ?? 0) + 1,
  };
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

/** Validates everything and builds the targets; throws InputError, makes no call. */
async function planRun(options: RunCasesOptions, signal: AbortSignal): Promise<Plan> {
  const request = checkRequest(options);
  const config = options.config ?? (await loadConfig(options));
  const settings = config.eval;
  const cwd = path.resolve(options.cwd ?? ".");
  const casesFile = displayPath(path.resolve(cwd, options.cases));
  const loaded = await loadCases(casesFile);
  const judgeModel = judgeModelFor(loaded.cases, settings, casesFile);
  const apiKey = endpointKey(options, settings, request.model, judgeModel);
  const cache = createCache(settings.cacheDir);
  const chat =
    apiKey === null
      ? null
      : await chatTarget(settings, apiKey, options.cache === false ? null : cache);
  const race = interrupter(signal);
  const judgeVersions = new Set<string>();
  const judge =
    chat && judgeModel
      ? makeJudge(racing(recording(chat, judgeVersions), race), judgeModel, signal)
      : null;
  const built = await buildTarget(request, { chat, cache, settings, cwd, options });
  return {
    config,
    settings,
    cases: loaded.cases,
    casesFile,
    casesSha256: loaded.sha256,
    target: {
      complete: (input, sample, callSignal) =>
        race(built.target.complete(input, sample, callSignal)),
    },
    judge,
    info: built.info,
    cache,
    k: request.k,
    temperature: built.info.kind === "model" ? request.temperature : null,
    maxTokens: built.info.kind === "model" ? (request.maxTokens ?? null) : null,
    apiKey,
    judgeVersions,
  };
}

interface TargetRequest {
  model?: string;
  command?: string;
  k: number;
  temperature: number;
  maxTokens?: number;
}

function checkRequest(options: RunCasesOptions): TargetRequest {
  const { model, command } = options;
  if ((model === undefined) === (command === undefined)) {
    throw new InputError(
      model === undefined
        ? "no target: pass -m MODEL (a model behind the endpoint) or --target COMMAND (a program)"
        : "-m/--model and --target are mutually exclusive: pass exactly one of them",
    );
  }
  const k = options.k ?? 1;
  if (!Number.isInteger(k) || k < 1) {
    throw new InputError(`-k must be a whole number ≥ 1, got ${k}`);
  }
  const temperature = options.temperature ?? 0;
  if (!Number.isFinite(temperature) || temperature < 0) {
    throw new InputError(`--temperature must be a number ≥ 0, got ${temperature}`);
  }
  const maxTokens = options.maxTokens;
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1)) {
    throw new InputError(`--max-tokens must be a whole number ≥ 1, got ${maxTokens}`);
  }
  if (model === "" || command === "") throw new InputError("the target must not be empty");
  return { model, command, k, temperature, maxTokens };
}

function judgeModelFor(cases: readonly Case[], settings: EvalConfig, file: string): string | null {
  if (!needsJudge(cases)) return null;
  if (settings.judge !== null) return settings.judge;
  const first = cases.find((c) => c.graders.some((g) => g.usesJudge));
  throw new InputError(
    `${file}:${first?.line ?? 1}: case "${first?.id}" has a judge grader but no judge model is set — ` +
      "pass --judge MODEL (or set [eval] judge / EVAL_BANANA_JUDGE); nothing was called",
  );
}

/** The API key when the run calls the endpoint (a model target or a judge), else null. */
function endpointKey(
  options: RunCasesOptions,
  settings: EvalConfig,
  model: string | undefined,
  judge: string | null,
): string | null {
  if (model === undefined && judge === null) return null;
  const env = options.env ?? process.env;
  const key = options.apiKey || env.EVAL_BANANA_API_KEY || env.OPENAI_API_KEY;
  if (!key) throw missingKey(settings.apiBase, model, judge);
  return key;
}

function missingKey(apiBase: string, model: string | undefined, judge: string | null): InputError {
  const who = model !== undefined ? `model "${model}"` : `judge model "${judge}"`;
  return new InputError(
    `no API key for ${who} at ${redactUrl(apiBase)}: set EVAL_BANANA_API_KEY or OPENAI_API_KEY ` +
      "(the key is read only from the environment, never from a flag or a file)",
  );
}

/** The OpenAI client loads only when a run calls the endpoint (it is the heaviest import). */
async function chatTarget(
  settings: EvalConfig,
  apiKey: string,
  cache: Cache | null,
): Promise<ChatTarget> {
  const { createChatTarget } = await import("../model/chat.js");
  return createChatTarget({
    baseURL: settings.apiBase,
    apiKey,
    timeoutMs: settings.timeoutSeconds * 1000,
    maxRetries: settings.maxRetries,
    cache,
  });
}

interface TargetParts {
  chat: ChatTarget | null;
  cache: Cache;
  settings: EvalConfig;
  cwd: string;
  options: RunCasesOptions;
}

async function buildTarget(
  request: TargetRequest,
  parts: TargetParts,
): Promise<{ target: CaseTarget; info: TargetInfo }> {
  if (request.command !== undefined) {
    const target = createCommandTarget({
      command: request.command,
      cwd: parts.cwd,
      timeoutMs: parts.settings.timeoutSeconds * 1000,
      cache: parts.options.cache === true ? parts.cache : null,
    });
    return { target, info: { kind: "command", command: request.command } };
  }
  const model = request.model as string;
  const { chatCaseTarget } = await import("../model/chat.js");
  const target = chatCaseTarget(parts.chat as ChatTarget, {
    model,
    temperature: request.temperature,
    ...(request.maxTokens === undefined ? {} : { maxTokens: request.maxTokens }),
  });
  return { target, info: { kind: "model", model, api_base: redactUrl(parts.settings.apiBase) } };
}

function racing(chat: ChatTarget, race: Race): ChatTarget {
  return {
    complete: (request, sample, callSignal) => race(chat.complete(request, sample, callSignal)),
  };
}

/** Notes the model version string of every answer (for the manifest and the report). */
function recording(chat: ChatTarget, versions: Set<string>): ChatTarget {
  return {
    complete: async (request, sample, callSignal) => {
      const result = await chat.complete(request, sample, callSignal);
      versions.add(result.model);
      return result;
    },
  };
}

type Race = <T>(work: Promise<T>) => Promise<T>;

/**
 * The targets cancel a call on abort (the request closed, the command's process group killed),
 * but a killed command may take its grace period to exit; on an interrupt the sample is settled
 * at once as an error (and dropped) so the run ends without waiting for it.
 * One listener for the whole run: a listener per call costs more than the call's own bookkeeping.
 */
function interrupter(signal: AbortSignal): Race {
  const pending = new Set<(error: Error) => void>();
  signal.addEventListener(
    "abort",
    () => {
      for (const reject of pending) reject(new Error(INTERRUPTED));
      pending.clear();
    },
    { once: true },
  );
  return <T>(work: Promise<T>) => {
    if (signal.aborted) return Promise.reject<T>(new Error(INTERRUPTED));
    return new Promise<T>((resolve, reject) => {
      pending.add(reject);
      work.then(resolve, reject).finally(() => pending.delete(reject));
    });
  };
}

interface RunIdentity {
  runId: string;
  commit: string | null;
  startedAt: Date;
}

function manifestOf(
  plan: Plan,
  options: RunCasesOptions,
  identity: RunIdentity,
): Record<string, unknown> {
  const { judge_model_versions: _, ...run } = describeRun(plan);
  return {
    tool: "eval-banana",
    version: TOOL_VERSION,
    kind: "cases",
    run_id: identity.runId,
    git_commit: identity.commit,
    ...run,
    definitions: { [plan.casesFile]: `sha256:${plan.casesSha256}` },
    command: options.argv ? redactArgv(options.argv, plan.apiKey) : null,
    started_at: isoUtc(identity.startedAt),
    // Filled in when the run ends; null here means the run never got there.
    ended_at: null,
    interrupted: null,
    model_versions: [],
    judge_model_versions: [],
  };
}

/** Bytes reserved on the manifest line for what close() adds (the model version lists). */
const MANIFEST_ROOM = 2048;

/** The end-of-run manifest fields, version lists cut to what fits in the reserved room. */
function closingFields(
  manifest: Record<string, unknown>,
  report: CaseReport,
): Record<string, unknown> {
  const target = [...report.model_versions];
  const judge = [...report.judge_model_versions];
  const total = target.length + judge.length;
  const fields = () => {
    const cut = total - target.length - judge.length;
    return {
      ended_at: report.completed_at,
      interrupted: report.interrupted,
      model_versions: target,
      judge_model_versions: judge,
      // The full lists are in report.json.
      ...(cut > 0 ? { versions_not_listed: cut } : {}),
    };
  };
  const size = (extra: object) =>
    Buffer.byteLength(JSON.stringify({ manifest: { ...manifest, ...extra } }));
  const budget = size({}) + MANIFEST_ROOM;
  while (size(fields()) > budget && target.length + judge.length > 0) {
    (judge.length > 0 ? judge : target).pop();
  }
  return fields();
}

/** The command line as recorded: the key (should it appear) and URL credentials removed. */
function redactArgv(argv: readonly string[], apiKey: string | null): string[] {
  return argv.map((arg) => {
    const scrubbed = apiKey && apiKey.length >= 4 ? arg.split(apiKey).join("[redacted]") : arg;
    return redactUrl(scrubbed);
  });
}

/** The case file as messages show it: relative to the working directory when inside it. */
function displayPath(absolute: string): string {
  const relative = path.relative(process.cwd(), absolute);
  return relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : absolute;
}

function exitCodeOf(report: CaseReport): number {
  if (report.interrupted) return EXIT.interrupted;
  return report.run_passed ? EXIT.passed : EXIT.fellShort;
}
