import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { BUILTIN_AGENTS } from "../agents/templates.js";
import { didYouMean, InputError, throwProblems } from "../errors.js";
import { isObject } from "../report/json.js";
import { DEFAULT_SCOPE, SCOPES } from "../stats/types.js";
import { describeIssue, findTableLine, tomlErrorMessage } from "./file-messages.js";
import {
  type ConfigFile,
  fileSchema,
  LEGACY_KEYS,
  type Pricing,
  type RunPrices,
} from "./schema.js";
import {
  envName,
  flagName,
  parseText,
  reportFormatsOf,
  SETTINGS,
  type Setting,
  type SettingId,
  type SettingValue,
  type SettingValues,
  settingId,
} from "./settings.js";
import { parseShard, type Shard } from "./shard-spec.js";

export const CONFIG_RELATIVE_PATH = path.join(".eval-banana", "config.toml");

export const DEFAULT_EXCLUDE_DIRS = [
  ".git",
  ".hg",
  ".svn",
  ".venv",
  "venv",
  "node_modules",
  "__pycache__",
  "dist",
  "build",
] as const;

/** The configuration a command runs with: every setting resolved, paths absolute. */
export type Config = Awaited<ReturnType<typeof loadConfig>>;
/** `[eval]`: settings of `eb eval`. */
export type EvalConfig = Config["eval"];
/** `[harness]`: the agent of harness_judge checks (and of eb skill). */
export type HarnessConfig = Config["harness"];

export interface LoadConfigOptions {
  /** Where to start looking for `.eval-banana/config.toml` (default: process.cwd()). */
  cwd?: string;
  noProjectConfig?: boolean;
  /** Values from command-line flags, keyed `section.key` (highest precedence). */
  flags?: SettingValues;
  env?: NodeJS.ProcessEnv;
}

/**
 * The environment a command reads and hands to the processes it starts: the caller's `env`.
 * The library's one fallback to the process's own, for callers that pass none.
 */
export function environmentOf(options: Pick<LoadConfigOptions, "env">): NodeJS.ProcessEnv {
  return options.env ?? process.env;
}

/** Loads the configuration: flags > EVAL_BANANA_* > config file > defaults. */
export async function loadConfig(options: LoadConfigOptions = {}) {
  const cwd = path.resolve(options.cwd ?? ".");
  const configPath = options.noProjectConfig ? null : await findConfigFile(cwd);
  const file = configPath ? await readConfigFile(configPath) : { data: {}, warnings: [] };
  const values: SettingValues = {
    ...fileValues(file.data),
    ...envValues(environmentOf(options)),
    ...flagValues(options.flags ?? {}),
  };
  const projectRoot = configPath ? path.dirname(path.dirname(configPath)) : cwd;
  // Each value passed its setting's schema (flags given as numbers are the caller's word).
  const get = <Id extends SettingId>(id: Id) => (values[id] ?? defaultOf(id)) as SettingValue<Id>;
  return {
    /** Folder holding `.eval-banana/`, or the working directory when there is no config file. */
    projectRoot,
    configPath,
    outputDir: path.resolve(projectRoot, get("core.output_dir")),
    /** True only when `--output-dir` was given (what `--flat-output` requires). */
    outputDirFromFlag: options.flags?.["core.output_dir"] !== undefined,
    passThreshold: get("core.pass_threshold"),
    llmMaxInputChars: get("core.llm_max_input_chars"),
    maxParallelChecks: get("core.max_parallel_checks"),
    checkTimeoutSeconds: get("core.check_timeout_seconds"),
    /** Runs of each check. */
    samples: get("core.samples"),
    /** `--shard I/N`: run only that shard's items; null runs them all. */
    shard: shardOf(get("core.shard")),
    python: get("core.python") ?? null,
    excludeDirs: file.data.discovery?.exclude_dirs ?? [...DEFAULT_EXCLUDE_DIRS],
    harness: {
      agent: get("harness.agent") ?? null,
      model: get("harness.model") ?? null,
      reasoningEffort: get("harness.reasoning_effort") ?? null,
      timeoutSeconds: get("harness.timeout_seconds"),
      env: file.data.harness?.env ?? {},
      envAllowlist: file.data.harness?.env_allowlist ?? null,
    },
    agents: file.data.agents ?? {},
    eval: {
      apiBase: get("eval.api_base"),
      judge: get("eval.judge") ?? null,
      /** Verdicts asked of each judge grader per answer. */
      judgeSamples: get("eval.judge_samples"),
      judgeTemperature: get("eval.judge_temperature"),
      /** Pinned calls in flight per model; null: adaptive, up to maxWorkers. */
      workers: get("eval.workers") ?? null,
      maxWorkers: get("eval.max_workers"),
      /** `--max-cost`: dollars; null: no cap. */
      maxCost: get("eval.max_cost") ?? null,
      timeoutSeconds: get("eval.timeout_seconds"),
      maxRetries: get("eval.max_retries"),
      maxRetryWaitSeconds: get("eval.max_retry_wait_seconds"),
      maxResponseMb: get("eval.max_response_mb"),
      cacheDir: path.resolve(projectRoot, get("eval.cache_dir")),
      passThreshold: get("eval.pass_threshold"),
    },
    /** `[report] formats`: what a run folder holds beside rows.jsonl and report.json. */
    reportFormats: reportFormatsOf(get("report.formats")),
    ...pricesOf(file.data.pricing ?? {}),
    /** `[core] max_cost` (`--max-cost` of eb run): dollars; null: no cap. */
    maxCost: get("core.max_cost") ?? null,
    /** `[report] scope`: the question the paired gate answers. */
    scope: SCOPES.find((scope) => scope === get("report.scope")) ?? DEFAULT_SCOPE,
    /** Things worth telling the user that do not stop the run (legacy keys). */
    warnings: file.warnings,
  };
}

/** The file's `[pricing]` split by what each price is of: tokens, or a judge agent's run. */
function pricesOf(entries: NonNullable<ConfigFile["pricing"]>): {
  /** `[pricing."MODEL"]`: dollars per million input and output tokens. */
  pricing: Pricing;
  /** `[pricing."MODEL"] per_run`: estimated dollars of one harness-judge run. */
  runPrices: RunPrices;
} {
  const pricing: Record<string, Pricing[string]> = {};
  const runPrices: Record<string, number> = {};
  for (const [model, { input_per_mtok, output_per_mtok, per_run }] of Object.entries(entries)) {
    if (input_per_mtok !== undefined && output_per_mtok !== undefined) {
      pricing[model] = { input_per_mtok, output_per_mtok };
    }
    if (per_run !== undefined) runPrices[model] = per_run;
  }
  return { pricing, runPrices };
}

/** The value passed its setting's schema, so it parses. */
function shardOf(value: string | undefined): Shard | null {
  return value === undefined ? null : parseShard(value);
}

function defaultOf(id: SettingId): string | number | undefined {
  const setting: Setting | undefined = SETTINGS.find((s) => settingId(s) === id);
  return setting?.default;
}

/** First `.eval-banana/config.toml` found walking up from `start`. */
export async function findConfigFile(start: string): Promise<string | null> {
  let dir = path.resolve(start);
  for (;;) {
    const candidate = path.join(dir, CONFIG_RELATIVE_PATH);
    const info = await stat(candidate).catch(() => null);
    if (info?.isFile()) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

async function readConfigFile(file: string): Promise<{ data: ConfigFile; warnings: string[] }> {
  const text = await readFile(file, "utf8");
  let raw: Record<string, unknown>;
  try {
    raw = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    throw new InputError(tomlErrorMessage(file, error));
  }
  const warnings = stripLegacyKeys(file, raw);
  const parsed = fileSchema.safeParse(raw);
  const problems = [
    ...(parsed.error?.issues ?? []).flatMap((issue) => describeIssue(file, text, issue)),
    ...customAgentProblems(file, text, raw),
  ];
  if (!parsed.success || problems.length > 0) {
    throw new InputError(
      `Invalid config ${file}:\n${problems.map((p) => `  ${p}`).join("\n")}\n` +
        "Fix these keys (see `eb init` for a commented template).",
    );
  }
  return { data: parsed.data, warnings };
}

/**
 * A custom agent has no built-in template to fall back on, so without `command` it cannot run;
 * said when the config loads, not only once a judge check picks that agent.
 */
function customAgentProblems(file: string, text: string, raw: Record<string, unknown>): string[] {
  const builtins = Object.keys(BUILTIN_AGENTS);
  const agents = isObject(raw.agents) ? Object.entries(raw.agents) : [];
  return agents
    .filter(([name, agent]) => !builtins.includes(name) && isObject(agent) && !("command" in agent))
    .map(([name]) => {
      const near = didYouMean(name, builtins);
      return (
        `${file}${findTableLine(text, ["agents", name])}: [agents.${name}] command is required ` +
        `for a custom agent (a list such as ["my-cli", "run"]); built-in agents are: ` +
        `${builtins.join(", ")}${near === null ? "" : `; ${near}`}`
      );
    });
}

function stripLegacyKeys(file: string, raw: Record<string, unknown>): string[] {
  const warnings: string[] = [];
  for (const legacy of LEGACY_KEYS) {
    const parentPath = legacy.path.slice(0, -1);
    const parent = parentPath.reduce<unknown>(
      (node, key) => (isObject(node) ? node[key] : undefined),
      raw,
    );
    const key = legacy.path.at(-1)!;
    if (!isObject(parent) || !(key in parent)) continue;
    if (legacy.level === "error") throw new InputError(`${file}: ${legacy.message}`);
    warnings.push(`${file}: ${legacy.message}`);
    delete parent[key];
  }
  return warnings;
}

function fileValues(data: ConfigFile): SettingValues {
  const values: SettingValues = {};
  for (const setting of SETTINGS) {
    const section = data[setting.section] as Record<string, unknown> | undefined;
    const value = section?.[setting.key];
    if (typeof value === "string" || typeof value === "number") values[settingId(setting)] = value;
  }
  return values;
}

/**
 * Variables eb no longer reads, and what replaced them: one left set would be ignored in
 * silence, and a gate judged at another threshold than the one asked for.
 */
const RETIRED_VARIABLES: Readonly<Record<string, string>> = {
  EVAL_BANANA_EVAL_PASS_THRESHOLD:
    "EVAL_BANANA_EVAL_PASS_THRESHOLD is no longer read: --pass-threshold is one setting in " +
    "every command, EVAL_BANANA_PASS_THRESHOLD (eb run and eb eval alike); a threshold for " +
    "cases alone goes in [eval] pass_threshold of the config",
};

function envValues(env: NodeJS.ProcessEnv): SettingValues {
  const retired = Object.keys(RETIRED_VARIABLES).filter((name) => (env[name] ?? "") !== "");
  throwProblems(retired.map((name) => RETIRED_VARIABLES[name]!));
  const values: SettingValues = {};
  for (const setting of SETTINGS) {
    const name = envName(setting);
    const raw = env[name];
    // An empty variable is treated as unset: `FOO= eb run` must not silently clear a setting.
    if (raw === undefined || raw === "") continue;
    values[settingId(setting)] = parseOrThrow(setting, raw, `environment variable ${name}`);
  }
  return values;
}

function flagValues(flags: SettingValues): SettingValues {
  const values: SettingValues = {};
  for (const setting of SETTINGS) {
    const raw = flags[settingId(setting)];
    if (raw === undefined) continue;
    values[settingId(setting)] =
      typeof raw === "string" ? parseOrThrow(setting, raw, `option ${flagName(setting)}`) : raw;
  }
  return values;
}

function parseOrThrow(setting: Setting, raw: string, source: string): string | number {
  const parsed = parseText(setting, raw);
  if (parsed.success) return parsed.data;
  const reason = parsed.error.issues[0]?.message ?? "invalid value";
  const expected =
    setting.kind === "string"
      ? ""
      : ` (expected ${setting.kind === "integer" ? "a whole number" : "a number"})`;
  throw new InputError(`${source}=${JSON.stringify(raw)}: ${reason}${expected}`);
}
