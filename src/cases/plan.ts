import { existsSync } from "node:fs";
import path from "node:path";
import { type Config, type EvalConfig, environmentOf } from "../config/load.js";
import { InputError } from "../errors.js";
import type { GraderProcesses } from "../graders/types.js";
import { type Cache, createCache, type RunCache } from "../model/cache.js";
import type { ChatRequest, ChatTarget } from "../model/chat.js";
import { createCommandTarget, missingProgram } from "../model/command-target.js";
import { FailureStop } from "../model/failure-stop.js";
import { Limiters } from "../model/limiter.js";
import {
  baseOf,
  checkBatchModels,
  compatibleModel,
  type ProviderAccess,
  providerAccess,
} from "../model/providers/route.js";
import { responseLimitBytes } from "../model/response-limit.js";
import { isRateLimit } from "../model/retry.js";
import type { CaseTarget, ChatResult } from "../model/types.js";
import type { CaseConcurrency, CaseManifest, CaseSettings, TargetInfo } from "../report/record.js";
import { configOf, flagGiven, resumedConfig } from "../run/options.js";
import { manifestOfRun } from "../run/run-folder.js";
import { secretValues, urlCredentials } from "../secrets/collect.js";
import { redactUrl } from "../secrets/redact.js";
import { createScrubber, type Scrubber } from "../secrets/scrubber.js";
import { BATCHES_FILE, type BatchSettings, JUDGE_BATCHES_FILE } from "./batch-settings.js";
import { Budget, metered, type SharedBudget } from "./budget.js";
import { checkGraderPython, graderProcesses } from "./grader-python.js";
import { caseFileCandidates, loadCases, needsJudge } from "./load.js";
import type { RunCasesOptions } from "./options.js";
import { type JudgeFn, makeJudge } from "./sample.js";
import type { Case } from "./schema.js";

/** Everything a run needs, checked before the first call. */
export interface Plan {
  config: Config;
  settings: EvalConfig;
  cases: Case[];
  casesFile: string;
  casesSha256: string;
  target: CaseTarget;
  judge: JudgeFn | null;
  /** Verdicts asked of each judge grader per answer. */
  judgeSamples: number;
  info: TargetInfo;
  cache: RunCache;
  k: number;
  /** Sampling parameters sent to a model target; null for a command. */
  temperature: number | null;
  maxTokens: number | null;
  /** The API key, URL credentials and key-like variables: never written anywhere. */
  scrubber: Scrubber;
  judgeVersions: Set<string>;
  /** Calls in flight per model, shared by the target and the judge. */
  limiters: Limiters;
  /** Cases run at once: the pinned --workers, else max_workers (a command: 8). */
  lanes: number;
  /** What the chat target would take from the cache; null when it reads none. */
  lookup: ((request: ChatRequest, sample: number) => Promise<ChatResult | null>) | null;
  /** `--max-cost`; null: no cap. */
  budget: Budget | null;
  /** `--batch` (or a resumed batch run): the target calls go through the Batch API; else null. */
  batch: BatchSettings | null;
  /** What script and command graders run with. */
  processes: GraderProcesses;
}

/** A command target has no rate limit to adapt to: it runs this many at once unless pinned. */
const COMMAND_WORKERS = 8;
/** Where an adaptive limit starts (slow start doubles it from there). */
const START_WORKERS = 8;

const INTERRUPTED = "interrupted before the sample finished";

/** The settings that change a case run's results (its manifest's and report's). */
export function caseSettings(plan: Plan): CaseSettings {
  return {
    kind: "cases",
    cases_file: plan.casesFile,
    cases_sha256: plan.casesSha256,
    target: plan.info,
    judge_model: plan.judge === null ? null : plan.settings.judge,
    judge_samples: plan.judgeSamples,
    judge_temperature: plan.settings.judgeTemperature,
    k: plan.k,
    temperature: plan.temperature,
    max_tokens: plan.maxTokens,
  };
}

/** What the run kept in flight, for its manifest and report. */
export function concurrencyOf(plan: Plan): CaseConcurrency {
  const pinned = plan.settings.workers;
  return {
    mode: pinned === null ? "adaptive" : "pinned",
    max: pinned ?? plan.settings.maxWorkers,
    models: plan.limiters.records(),
  };
}

/** Validates everything and builds the targets; throws InputError, makes no call. */
export async function planRun(options: RunCasesOptions, signal: AbortSignal): Promise<Plan> {
  const resumed = options.resume === undefined ? null : manifestOfRun(options.resume, "cases");
  const request = checkRequest(resumed === null ? options : resumedOptions(options, resumed));
  const config = resumedConfig(await configOf(options), options, resumed);
  const settings = resumed === null ? config.eval : resumedSettings(config.eval, options, resumed);
  const cwd = path.resolve(options.cwd ?? ".");
  const casesFile = displayPath(casesPath(options.cases, cwd, resumed));
  const loaded = await loadCases(casesFile);
  const processes = graderProcesses(config, { cwd, casesFile, env: targetEnv(options), signal });
  await checkGraderPython(loaded.cases, casesFile, processes);
  const judgeModel = judgeModelFor(loaded.cases, settings, casesFile);
  const model = request.target.kind === "model" ? request.target.model : undefined;
  if (options.batch) checkBatchModels([model, judgeModel]);
  const endpoint = await openEndpoint(options, { settings, config }, { model, judgeModel }, signal);
  const { scrubber, cache, cached, limiters, budget, chat, race, judge, judgeVersions } = endpoint;
  const built = await buildTarget(request, { chat, cache, settings, cwd, options });
  const stop = endpoint.failureStop("the target");
  return {
    config,
    settings,
    cases: loaded.cases,
    casesFile,
    casesSha256: loaded.sha256,
    target: {
      complete: (input, sample, callSignal) =>
        race(stop.observe(built.target.complete(input, sample, callSignal))),
    },
    judge,
    judgeSamples: settings.judgeSamples,
    info: built.info,
    cache,
    k: request.k,
    temperature: built.info.kind === "model" ? request.temperature : null,
    maxTokens: built.info.kind === "model" ? (request.maxTokens ?? null) : null,
    scrubber,
    judgeVersions,
    limiters,
    lanes: settings.workers ?? (model === undefined ? COMMAND_WORKERS : settings.maxWorkers),
    lookup: cached === null ? null : await cacheLookup(cached, settings.apiBase),
    budget,
    batch: batchOf(options, settings, built.info, endpoint.access),
    processes,
  };
}

/** What calls the endpoint need beyond the settings: the key and whether the cache is read. */
export type EndpointOptions = Pick<RunCasesOptions, "apiKey" | "cache" | "env" | "sharedBudget">;

/** How a run calls the endpoint: the same for `eb eval` and `eb pairwise`. */
export interface Endpoint {
  access: EndpointAccess | null;
  /** The API key, URL credentials and key-like variables: never written anywhere. */
  scrubber: Scrubber;
  cache: RunCache;
  /** The cache the calls read and write; null under --no-cache or when nothing is called. */
  cached: RunCache | null;
  limiters: Limiters;
  budget: Budget | null;
  /**
   * Chat calls through the cache, the adaptive limit per model and the budget. Null when nothing
   * calls the endpoint (a command target without judge).
   */
  chat: ChatTarget | null;
  /** The stop rule for one kind of call ("the target", "the judge"): see FailureStop. */
  failureStop: (who: string) => FailureStop;
  /** Settles a call at once as an error when the run is interrupted. */
  race: Race;
  /** The judge (temperature 0, cached), or null without a judge model. */
  judge: JudgeFn | null;
  /** The judge model's version strings, as its answers name them. */
  judgeVersions: Set<string>;
}

/**
 * The endpoint for a run that calls `model` (the target, if a model) and `judgeModel` (if any):
 * the API key from the environment, the scrubber, cache, limiters and budget. Throws
 * InputError (no key for api.openai.com, a model without a price under --max-cost); calls
 * nothing.
 */
export async function openEndpoint(
  options: EndpointOptions,
  { settings, config }: { settings: EvalConfig; config: Config },
  { model, judgeModel }: { model: string | undefined; judgeModel: string | null },
  signal: AbortSignal,
): Promise<Endpoint> {
  const compatible = [compatibleModel(model) ?? undefined, compatibleModel(judgeModel)] as const;
  const access = endpointAccess(options, settings, ...compatible);
  const { apiKey, cache: reads } = options;
  const env = environmentOf(options);
  const providers = providerAccess([model, judgeModel], { env, apiKey, apiBase: settings.apiBase });
  const calls = access !== null || providers.length > 0;
  const scrubber = caseScrubber(options, settings.apiBase, access?.key ?? apiKey ?? null);
  const cache = createCache(settings.cacheDir, scrubber);
  const limiters = limitersOf(settings);
  const budget = budgetOf(
    settings,
    config.pricing,
    [model ?? null, judgeModel],
    options.sharedBudget,
  );
  const cached = !calls || reads === false ? null : cache;
  const chat = calls
    ? meteredBy(budget, config, await chatTarget(settings, { access, providers, cached, limiters }))
    : null;
  const refusal = access === null ? null : refusalAdvice(access, settings.apiBase);
  const failureStop = (who: string) => new FailureStop(who, signal, refusal);
  const race = interrupter(signal);
  const judgeVersions = new Set<string>();
  const judge =
    chat && judgeModel
      ? makeJudge(
          racing(recording(stopping(chat, failureStop("the judge")), judgeVersions), race),
          settings,
          judgeModel,
          signal,
        )
      : null;
  return {
    access,
    scrubber,
    cache,
    cached,
    limiters,
    budget,
    chat,
    failureStop,
    race,
    judge,
    judgeVersions,
  };
}

/**
 * `--batch`, or a resumed run that recorded batches of either round (resumed without the flag,
 * it would pay for their answers again). Answers reach the run through the cache, and a batch
 * is sent at once, so neither --no-cache nor --max-cost (which meters calls one by one) fits with it.
 */
function batchOf(
  options: RunCasesOptions,
  settings: EvalConfig,
  info: TargetInfo,
  access: EndpointAccess | null,
): BatchSettings | null {
  const { resume } = options;
  const recorded =
    resume !== undefined &&
    [BATCHES_FILE, JUDGE_BATCHES_FILE].some((file) => existsSync(path.join(resume, file)));
  if (!options.batch && !recorded) return null;
  if (info.kind !== "model" || access === null) {
    throw new InputError(
      "--batch sends model calls through the Batch API: pass -m MODEL, not --target",
    );
  }
  if (options.cache === false) {
    throw new InputError("--batch answers the run through the cache: drop --no-cache");
  }
  if (settings.maxCost !== null) {
    throw new InputError(
      "--batch sends every call at once, so --max-cost cannot stop it part way: pass one of them",
    );
  }
  return {
    apiKey: access.key,
    pollMs: options.batchPollMs ?? DEFAULT_POLL_MS,
    onStatus: options.onBatchStatus,
  };
}

/** How often a batch is polled unless --batch-poll-ms says otherwise. */
const DEFAULT_POLL_MS = 30_000;

async function cacheLookup(cache: Cache, apiBase: string): Promise<NonNullable<Plan["lookup"]>> {
  const { routedCachedAnswer } = await import("../model/providers/target.js");
  return (request, sample) => routedCachedAnswer(cache, apiBase, request, sample);
}

/** `--max-cost` prices every call, so each model called needs a price. */
function budgetOf(
  settings: EvalConfig,
  pricing: Config["pricing"],
  models: readonly (string | null)[],
  shared: SharedBudget | undefined,
): Budget | null {
  if (settings.maxCost === null) return null;
  const unpriced = models.filter((m): m is string => m !== null && pricing[m] === undefined);
  if (unpriced.length > 0) {
    const first = unpriced[0];
    throw new InputError(
      `--max-cost needs a price for ${unpriced.map((m) => `"${m}"`).join(" and ")}: add ` +
        `[pricing."${first}"] with input_per_mtok and output_per_mtok (dollars per million ` +
        "tokens) to the config; nothing was called",
    );
  }
  return shared ? shared.of(settings.maxCost) : new Budget(settings.maxCost);
}

function meteredBy(budget: Budget | null, config: Config, chat: ChatTarget): ChatTarget {
  return budget === null ? chat : metered(chat, budget, config.pricing);
}

/** Pinned by [eval] workers (--workers) when given; else adaptive, from 8 up to max_workers. */
function limitersOf(settings: EvalConfig): Limiters {
  const pinned = settings.workers;
  return new Limiters({
    start: pinned ?? START_WORKERS,
    max: pinned ?? settings.maxWorkers,
    adaptive: pinned === null,
    isRateLimit,
  });
}

/**
 * `--resume` finishes the run as it was started: the target, k and sampling parameters the
 * command line leaves out come from its manifest (one it gives that differs is refused later).
 */
function resumedOptions(options: RunCasesOptions, run: CaseManifest): RunCasesOptions {
  const targetGiven = options.model !== undefined || options.command !== undefined;
  return {
    ...options,
    ...(targetGiven ? {} : targetOptions(run.target)),
    k: options.k ?? run.k,
    temperature: options.temperature ?? run.temperature ?? undefined,
    maxTokens: options.maxTokens ?? run.max_tokens ?? undefined,
  };
}

function targetOptions(target: TargetInfo): Pick<RunCasesOptions, "model" | "command"> {
  return target.kind === "model" ? { model: target.model } : { command: target.command };
}

/** The endpoint and judge of the run being resumed, unless a flag names others. */
function resumedSettings(
  settings: EvalConfig,
  options: RunCasesOptions,
  run: CaseManifest,
): EvalConfig {
  return {
    ...settings,
    judge: flagGiven(options, "eval.judge") ? settings.judge : (run.judge_model ?? settings.judge),
    judgeSamples: flagGiven(options, "eval.judge_samples")
      ? settings.judgeSamples
      : run.judge_samples,
    judgeTemperature: flagGiven(options, "eval.judge_temperature")
      ? settings.judgeTemperature
      : run.judge_temperature,
    apiBase: flagGiven(options, "eval.api_base")
      ? settings.apiBase
      : endpointOf(run.target, settings.apiBase),
  };
}

/**
 * The run's endpoint; the configured one when it is the same, since the manifest's has any URL
 * credentials left out.
 */
function endpointOf(target: TargetInfo, configured: string): string {
  if (target.kind !== "model") return configured;
  if (redactUrl(baseOf(target.model, configured)) === target.api_base) return configured;
  return target.api_base;
}

function caseScrubber(options: EndpointOptions, apiBase: string, apiKey: string | null): Scrubber {
  const env = environmentOf(options);
  return createScrubber([
    apiKey,
    ...API_KEY_VARIABLES.map((name) => env[name]),
    ...urlCredentials(apiBase),
    ...secretValues(env),
  ]);
}

/** Where eb reads its API key; a `--target` program does not inherit them. */
const API_KEY_VARIABLES = ["EVAL_BANANA_API_KEY", "OPENAI_API_KEY"];

/** The environment of a `--target` program: eb's own, less eb's API key unless passed on. */
function targetEnv(options: RunCasesOptions): NodeJS.ProcessEnv {
  const env = { ...environmentOf(options) };
  const passed = new Set(options.targetEnv ?? []);
  for (const name of API_KEY_VARIABLES) if (!passed.has(name)) delete env[name];
  return env;
}

interface TargetRequest {
  target: { kind: "model"; model: string } | { kind: "command"; command: string };
  k: number;
  temperature: number;
  maxTokens?: number | undefined;
}

function checkRequest(options: RunCasesOptions): TargetRequest {
  const target = targetOf(options);
  const unknown = (options.targetEnv ?? []).filter((name) => !API_KEY_VARIABLES.includes(name));
  if (unknown.length > 0) {
    throw new InputError(
      `--target-env ${unknown.join(", ")}: only ${API_KEY_VARIABLES.join(" and ")} are withheld from --target; it inherits every other variable already`,
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
  return { target, k, temperature, maxTokens };
}

function targetOf({ model, command }: RunCasesOptions): TargetRequest["target"] {
  if (model !== undefined && command !== undefined) {
    throw new InputError(
      "-m/--model and --target are mutually exclusive: pass exactly one of them",
    );
  }
  if (model === "" || command === "") throw new InputError("the target must not be empty");
  if (model !== undefined) return { kind: "model", model };
  if (command !== undefined) return { kind: "command", command };
  throw new InputError(
    "no target: pass -m MODEL (a model behind the endpoint) or --target COMMAND (a program)",
  );
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

/** The host whose endpoint always needs a key; any other may be a local one that needs none. */
const KEYED_HOST = "api.openai.com";

/** How the run reaches the endpoint: with the API key (and where it came from), or with none. */
interface EndpointAccess {
  key: string | null;
  /** The variable the key was read from; "option" for the library's `apiKey`; null for none. */
  from: string | null;
}

/**
 * How the run reaches the endpoint, when it calls it (a model target or a judge): with the API
 * key, or with none for a local endpoint (Ollama, vLLM, a proxy) when no key is set.
 */
function endpointAccess(
  options: EndpointOptions,
  settings: EvalConfig,
  model: string | undefined,
  judge: string | null,
): EndpointAccess | null {
  if (model === undefined && judge === null) return null;
  if (options.apiKey) return { key: options.apiKey, from: "option" };
  const env = environmentOf(options);
  const from = API_KEY_VARIABLES.find((name) => env[name]);
  if (from !== undefined) return { key: env[from] ?? null, from };
  if (new URL(settings.apiBase).hostname === KEYED_HOST)
    throw missingKey(settings.apiBase, model, judge);
  return { key: null, from: null };
}

/** What to do when the endpoint refuses the key: which variable to set. */
function refusalAdvice({ from }: EndpointAccess, apiBase: string): string {
  const where = redactUrl(apiBase);
  if (from === null) {
    return `${where} asks for an API key and none was sent: set ${API_KEY_VARIABLES.join(" or ")}`;
  }
  if (from === "option") return `the API key given was refused by ${where}: pass one it accepts`;
  const first = API_KEY_VARIABLES[0];
  const also = from === first ? "" : ` (or ${first}, which is read first)`;
  return `the key in ${from} was refused by ${where}: set ${from}${also} to a key it accepts`;
}

/** The chat calls under a stop rule: a refused key, or a stretch of alike failures, stops the run. */
function stopping(chat: ChatTarget, stop: FailureStop): ChatTarget {
  return {
    complete: (request, sample, callSignal) =>
      stop.observe(chat.complete(request, sample, callSignal)),
  };
}

function missingKey(apiBase: string, model: string | undefined, judge: string | null): InputError {
  const who = model !== undefined ? `model "${model}"` : `judge model "${judge}"`;
  return new InputError(
    `no API key for ${who} at ${redactUrl(apiBase)}: set EVAL_BANANA_API_KEY or OPENAI_API_KEY ` +
      "(the key is read only from the environment, never from a flag or a file; a local " +
      "endpoint given with --api-base needs none)",
  );
}

/** The chat targets load only when a run calls an endpoint; each provider's client at its first call. */
async function chatTarget(
  settings: EvalConfig,
  calls: {
    access: EndpointAccess | null;
    providers: ProviderAccess[];
    cached: Cache | null;
    limiters: Limiters;
  },
): Promise<ChatTarget> {
  const { createRoutedTarget } = await import("../model/providers/target.js");
  const { access, providers, cached: cache, limiters } = calls;
  return createRoutedTarget({
    providers,
    baseURL: settings.apiBase,
    apiKey: access?.key ?? null,
    timeoutMs: settings.timeoutSeconds * 1000,
    maxRetries: settings.maxRetries,
    maxRetryWaitMs: settings.maxRetryWaitSeconds * 1000,
    maxResponseBytes: responseLimitBytes(settings.maxResponseMb),
    cache,
    limiters,
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
  if (request.target.kind === "command") {
    const { command } = request.target;
    const env = targetEnv(parts.options);
    const missing = await missingProgram(command, parts.cwd, env);
    if (missing !== null) {
      throw new InputError(`--target ${JSON.stringify(command)}: ${missing}; nothing ran`);
    }
    const target = createCommandTarget({
      command,
      cwd: parts.cwd,
      env,
      timeoutMs: parts.settings.timeoutSeconds * 1000,
      cache: parts.options.cache === true ? parts.cache : null,
    });
    return { target, info: { kind: "command", command } };
  }
  const { model } = request.target;
  // endpointKey() has already refused a model target without a key.
  if (parts.chat === null) throw missingKey(parts.settings.apiBase, model, null);
  const { chatCaseTarget } = await import("../model/chat.js");
  const target = chatCaseTarget(parts.chat, {
    model,
    temperature: request.temperature,
    ...(request.maxTokens === undefined ? {} : { maxTokens: request.maxTokens }),
  });
  const apiBase = redactUrl(baseOf(model, parts.settings.apiBase));
  return { target, info: { kind: "model", model, api_base: apiBase } };
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

/** The case file as messages show it: relative to the working directory when inside it. */
/**
 * The case file: as given, else (`--resume`) the run's own, wherever caseFileCandidates finds
 * it.
 */
function casesPath(given: string | undefined, cwd: string, resumed: CaseManifest | null): string {
  if (given !== undefined) return path.resolve(cwd, given);
  if (resumed === null) {
    throw new InputError("no case file: eb eval CASES.jsonl -m MODEL (or --target COMMAND)");
  }
  const candidates = caseFileCandidates(resumed.cases_file, resumed.project_root, cwd);
  const found = candidates.find((file) => existsSync(file));
  if (found !== undefined) return found;
  const dirs = candidates.map((file) => path.dirname(file));
  throw new InputError(
    `--resume: the run's case file ${resumed.cases_file} is in none of ${dirs.join(", ")}; ` +
      "pass it as the first argument: eb eval CASES.jsonl --resume RUN",
  );
}

function displayPath(absolute: string): string {
  const relative = path.relative(process.cwd(), absolute);
  return relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : absolute;
}
