import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { parse as parseToml, TomlError } from "smol-toml";
import type { z } from "zod";
import { BUILTIN_AGENTS } from "../agents/templates.js";
import { InputError } from "../errors.js";
import {
  type AgentOverride,
  type ConfigFile,
  fileSchema,
  LEGACY_KEYS,
  type Pricing,
} from "./schema.js";
import {
  envName,
  flagName,
  parseText,
  SETTINGS,
  type Setting,
  type SettingId,
  type SettingValue,
  type SettingValues,
  settingId,
} from "./settings.js";

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

export interface HarnessConfig {
  agent: string | null;
  model: string | null;
  reasoningEffort: string | null;
  timeoutSeconds: number;
  env: Record<string, string>;
  envAllowlist: string[] | null;
}

/** `[eval]`: settings of `eb eval`. */
export interface EvalConfig {
  apiBase: string;
  judge: string | null;
  workers: number;
  timeoutSeconds: number;
  maxRetries: number;
  /** Absolute. */
  cacheDir: string;
  /** Minimum pass rate for exit 0; null = none. */
  passThreshold: number | null;
}

export interface Config {
  /** Folder holding `.eval-banana/`, or the working directory when there is no config file. */
  projectRoot: string;
  configPath: string | null;
  /** Absolute. */
  outputDir: string;
  /** True only when `--output-dir` was given (what `--flat-output` requires). */
  outputDirFromFlag: boolean;
  passThreshold: number;
  llmMaxInputChars: number;
  maxParallelChecks: number;
  checkTimeoutSeconds: number;
  /** Runs of each check. */
  samples: number;
  python: string | null;
  excludeDirs: string[];
  harness: HarnessConfig;
  agents: Record<string, AgentOverride>;
  eval: EvalConfig;
  /** `[pricing."MODEL"]`: dollars per million input and output tokens. */
  pricing: Pricing;
  /** Things worth telling the user that do not stop the run (legacy keys). */
  warnings: string[];
}

export interface LoadConfigOptions {
  /** Where to start looking for `.eval-banana/config.toml` (default: process.cwd()). */
  cwd?: string;
  noProjectConfig?: boolean;
  /** Values from command-line flags, keyed `section.key` (highest precedence). */
  flags?: SettingValues;
  env?: NodeJS.ProcessEnv;
}

/** Loads the configuration: flags > EVAL_BANANA_* > config file > defaults. */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<Config> {
  const cwd = path.resolve(options.cwd ?? ".");
  const configPath = options.noProjectConfig ? null : await findConfigFile(cwd);
  const file = configPath ? await readConfigFile(configPath) : { data: {}, warnings: [] };
  const values: SettingValues = {
    ...fileValues(file.data),
    ...envValues(options.env ?? process.env),
    ...flagValues(options.flags ?? {}),
  };
  const projectRoot = configPath ? path.dirname(path.dirname(configPath)) : cwd;
  // Each value passed its setting's schema (flags given as numbers are the caller's word).
  const get = <Id extends SettingId>(id: Id) => (values[id] ?? defaultOf(id)) as SettingValue<Id>;
  return {
    projectRoot,
    configPath,
    outputDir: path.resolve(projectRoot, get("core.output_dir")),
    outputDirFromFlag: options.flags?.["core.output_dir"] !== undefined,
    passThreshold: get("core.pass_threshold"),
    llmMaxInputChars: get("core.llm_max_input_chars"),
    maxParallelChecks: get("core.max_parallel_checks"),
    checkTimeoutSeconds: get("core.check_timeout_seconds"),
    samples: get("core.samples"),
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
      workers: get("eval.workers"),
      timeoutSeconds: get("eval.timeout_seconds"),
      maxRetries: get("eval.max_retries"),
      cacheDir: path.resolve(projectRoot, get("eval.cache_dir")),
      passThreshold: get("eval.pass_threshold") ?? null,
    },
    pricing: file.data.pricing ?? {},
    warnings: file.warnings,
  };
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
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => describeIssue(file, text, issue));
    throw new InputError(
      `Invalid config ${file}:\n${problems.map((p) => `  ${p}`).join("\n")}\n` +
        "Fix these keys (see `eb init` for a commented template).",
    );
  }
  requireCustomAgentCommands(file, text, parsed.data);
  return { data: parsed.data, warnings };
}

/**
 * A custom agent has no built-in template to fall back on, so without `command` it cannot run;
 * said when the config loads, not only once a judge check picks that agent.
 */
function requireCustomAgentCommands(file: string, text: string, data: ConfigFile): void {
  const builtins = Object.keys(BUILTIN_AGENTS);
  const problems = Object.entries(data.agents ?? {})
    .filter(([name, agent]) => !builtins.includes(name) && agent.command === undefined)
    .map(
      ([name]) =>
        `${file}${findTableLine(text, ["agents", name])}: [agents.${name}] command is required ` +
        `for a custom agent (a list such as ["my-cli", "run"]); built-in agents are: ` +
        builtins.join(", "),
    );
  if (problems.length > 0) throw new InputError(problems.join("\n"));
}

function tomlErrorMessage(file: string, error: unknown): string {
  if (error instanceof TomlError) {
    const first = error.message.split("\n")[0];
    return `Invalid TOML in ${file}:${error.line}:${error.column}: ${first}`;
  }
  return `Invalid TOML in ${file}: ${String(error)}`;
}

function stripLegacyKeys(file: string, raw: Record<string, unknown>): string[] {
  const warnings: string[] = [];
  for (const legacy of LEGACY_KEYS) {
    const parentPath = legacy.path.slice(0, -1);
    const parent = parentPath.reduce<unknown>(
      (node, key) => (isTable(node) ? node[key] : undefined),
      raw,
    );
    const key = legacy.path.at(-1)!;
    if (!isTable(parent) || !(key in parent)) continue;
    if (legacy.level === "error") throw new InputError(`${file}: ${legacy.message}`);
    warnings.push(`${file}: ${legacy.message}`);
    delete parent[key];
  }
  return warnings;
}

function isTable(node: unknown): node is Record<string, unknown> {
  return typeof node === "object" && node !== null && !Array.isArray(node);
}

function describeIssue(file: string, text: string, issue: z.core.$ZodIssue): string {
  const keys = issue.path.map(String);
  const where = keys.length > 0 ? keyLabel(keys) : "top level";
  if (issue.code === "unrecognized_keys") {
    const names = issue.keys.join(", ");
    const line = findKeyLine(text, keys, issue.keys[0] ?? "");
    return `${file}${line}: ${where} has unknown key(s): ${names}`;
  }
  // A problem inside a list (`exclude_dirs.0`) is on the line of the list's key.
  const firstIndex = keys.findIndex((key) => /^\d+$/.test(key));
  const named = firstIndex === -1 ? keys : keys.slice(0, firstIndex);
  const line = findKeyLine(text, named.slice(0, -1), named.at(-1) ?? "");
  return `${file}${line}: ${where}: ${issue.message}`;
}

/** `[core] pass_threshold`, `[agents.x] command`, `[harness.env]`. */
function keyLabel(keys: string[]): string {
  if (keys.length === 1) return `[${keys[0]}]`;
  if (keys[0] === "agents" && keys.length >= 2) {
    return `[agents.${keys[1]}]${keys.length > 2 ? ` ${keys.slice(2).join(".")}` : ""}`;
  }
  return `[${keys[0]}] ${keys.slice(1).join(".")}`;
}

/** Best-effort `:line` of `key = ...` inside the `[table]` header (TOML parsers give no positions). */
function findKeyLine(text: string, table: string[], key: string): string {
  const header = table.join(".");
  let current = "";
  for (const [index, line] of text.split(/\r?\n/).entries()) {
    const heading = tableHeading(line);
    if (heading !== null) {
      current = heading;
      continue;
    }
    const keyMatch = /^\s*["']?([^"'=\s]+)["']?\s*=/.exec(line);
    if (current === header && keyMatch?.[1] === key) return `:${index + 1}`;
  }
  return "";
}

/**
 * Best-effort `:line` where a table starts: its `[a.b]` header, the first header inside it
 * (`[a.b.c]`), or its `b = { ... }` line under `[a]`.
 */
function findTableLine(text: string, table: string[]): string {
  const header = table.join(".");
  const index = text.split(/\r?\n/).findIndex((line) => {
    const heading = tableHeading(line);
    return heading === header || heading?.startsWith(`${header}.`);
  });
  if (index !== -1) return `:${index + 1}`;
  return findKeyLine(text, table.slice(0, -1), table.at(-1) ?? "");
}

/** `a.b` for a `[a.b]` or `[[a.b]]` line (quotes and spaces dropped), else null. */
function tableHeading(line: string): string | null {
  const heading = /^\s*\[+\s*([^\]]+?)\s*\]+/.exec(line);
  return heading ? heading[1]!.replaceAll(/["'\s]/g, "") : null;
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

function envValues(env: NodeJS.ProcessEnv): SettingValues {
  const values: SettingValues = {};
  for (const setting of SETTINGS) {
    const name = envName(setting);
    const raw = name === undefined ? undefined : env[name];
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
