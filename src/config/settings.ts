import { z } from "zod";
import { BUILTIN_AGENTS } from "../agents/templates.js";
import { SCOPES } from "../stats/types.js";
import { parseShard, SHARD_HELP } from "./shard-spec.js";

/**
 * Every scalar setting, once: its TOML place, default, EVAL_BANANA_* variable, flag, help and
 * `eb init` line all come from this table, so they cannot drift apart.
 */
export type Section = "core" | "harness" | "eval" | "report";
export type Kind = "string" | "number" | "integer";
type Value = string | number;

export interface Setting {
  section: Section;
  key: string;
  /** Suffix after EVAL_BANANA_, only where it is not the flag's (see envName). */
  env?: string;
  kind: Kind;
  schema: z.ZodType<Value>;
  /** Undefined = unset unless configured. */
  default?: Value;
  /** What `eb init` writes uncommented, where that is not the default. */
  init?: Value;
  /** What `eb init` shows commented out when it writes no value. */
  example?: Value;
  /** The flag (`--name`), only where it is not the derived one (see flagName). */
  flag?: string;
  /** The flag's value in --help, where the kind's (TEXT, INT, NUM) says too little. */
  placeholder?: string;
  /** False: `eb init` leaves it out of a new config (a key kept only so old files load). */
  template?: false;
  /** One wording for the flag's help and the `eb init` comment: lower case, no final period. */
  help: string;
}

const text = z.string().min(1, "must not be empty");
const positiveInt = z.number().int("must be a whole number").min(1, "must be at least 1");
/** Node fires a timer set for more than 2^31 - 1 ms at once: no wait may be longer than this. */
const MAX_TIMER_SECONDS = 2_147_483;
const tooLong = `must be at most ${MAX_TIMER_SECONDS} seconds (24.8 days)`;
const positiveSeconds = z
  .number()
  .positive("must be greater than 0")
  .max(MAX_TIMER_SECONDS, tooLong);
const wholeSeconds = positiveInt.max(MAX_TIMER_SECONDS, tooLong);
const waitSeconds = z.number().min(0, "must be 0 or more").max(MAX_TIMER_SECONDS, tooLong);
/** An answer is read into one string, and a JavaScript string holds at most about 512 MB. */
const answerMegabytes = z
  .number()
  .positive("must be greater than 0")
  .max(500, "must be at most 500 (an answer is held as one string)");
const fraction = z.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1");
const count = z.number().int("must be a whole number").min(0, "must be 0 or more");
const reportFormats = text.refine(
  (value) =>
    value
      .split(",")
      .map((name) => name.trim())
      .every((name) => ["md", "html", "none", ""].includes(name)),
  "must list md, html or none, comma-separated",
);

/*
 * A setting of both [core] (eb run) and [eval] (eb eval, eb pairwise) is one flag, one variable
 * and one meaning in every command; the file's section says which runs a value is for.
 */
const OF_EVERY_RUN = {
  pass_threshold: {
    kind: "number",
    schema: fraction,
    default: 1,
    help: "minimum share of the run's samples that must pass (0.0-1.0); any error sample fails the run",
  },
  max_cost: {
    kind: "number",
    schema: z.number().positive("must be greater than 0"),
    example: 5,
    help:
      "budget of one run in US dollars, priced by [pricing]: no new model call or judge-agent " +
      "run starts once the spend plus the estimates of those in flight would pass it (the run " +
      "ends budget_exceeded)",
  },
} as const;

function ofEveryRun<S extends "core" | "eval", K extends keyof typeof OF_EVERY_RUN>(
  section: S,
  key: K,
) {
  return { section, key, ...OF_EVERY_RUN[key] };
}

export const SETTINGS = [
  {
    section: "core",
    key: "output_dir",
    kind: "string",
    schema: text,
    default: ".eval-banana/results",
    placeholder: "DIR",
    help: "where run folders go (relative to the project root, the folder holding .eval-banana/)",
  },
  ofEveryRun("core", "pass_threshold"),
  {
    section: "core",
    key: "max_parallel_checks",
    kind: "integer",
    schema: positiveInt,
    default: 4,
    help: "checks run at once",
  },
  {
    section: "core",
    key: "check_timeout_seconds",
    kind: "number",
    schema: positiveSeconds,
    default: 300,
    help: "wall-clock limit of one deterministic script; a script still running is killed with its children",
  },
  {
    section: "core",
    key: "samples",
    kind: "integer",
    schema: positiveInt,
    default: 1,
    help: "runs of each check (judge reliability); with more than 1 a check scores its pass fraction",
  },
  {
    section: "core",
    key: "python",
    kind: "string",
    schema: text,
    example: "python3",
    help: 'Python interpreter for deterministic checks (default: python3 on PATH), e.g. ".venv/bin/python"',
  },
  {
    section: "core",
    key: "shard",
    kind: "string",
    schema: z.string().refine((value) => parseShard(value) !== null, SHARD_HELP),
    example: "2/4",
    placeholder: "I/N",
    help: "run only shard I of N (items dealt by a stable hash of their id); eb merge joins the shards' run folders",
  },
  ofEveryRun("core", "max_cost"),
  {
    section: "core",
    key: "llm_max_input_chars",
    kind: "integer",
    schema: count,
    default: 0,
    template: false,
    help: "kept for compatibility with the Python original; has no effect",
  },
  {
    section: "harness",
    key: "agent",
    kind: "string",
    schema: text,
    init: "codex",
    help:
      `agent CLI for harness_judge checks: ${Object.keys(BUILTIN_AGENTS).join(", ")}, or a name ` +
      "defined under [agents.<name>]; only needed when you have harness_judge checks",
  },
  {
    section: "harness",
    key: "model",
    kind: "string",
    schema: text,
    example: "gpt-5.6-sol",
    help: 'model for the agent (a check\'s own "model" field wins); codex defaults to gpt-5.6-sol',
  },
  {
    section: "harness",
    key: "reasoning_effort",
    kind: "string",
    schema: text,
    example: "high",
    help: "reasoning effort, for agents that take one (codex, claude, grok, opencode, pi)",
  },
  {
    section: "harness",
    key: "timeout_seconds",
    kind: "integer",
    schema: wholeSeconds,
    default: 300,
    help: "wall-clock limit of one agent run, in seconds",
  },
  {
    section: "eval",
    key: "api_base",
    kind: "string",
    schema: z.url({
      protocol: /^https?$/,
      error: "must be an http(s) URL, e.g. https://api.openai.com/v1",
    }),
    default: "https://api.openai.com/v1",
    help: "base URL of the OpenAI-compatible chat-completions endpoint",
  },
  {
    section: "eval",
    key: "judge",
    kind: "string",
    schema: text,
    example: "gpt-4.1-mini",
    help: 'judge model, asked through the same endpoint: by "judge" graders (eb eval), of every pair (eb pairwise)',
  },
  {
    section: "eval",
    key: "judge_samples",
    kind: "integer",
    schema: positiveInt,
    default: 1,
    help:
      "verdicts asked of each judge grader per answer (each its own call); the mark is their " +
      "majority (a tie fails), and the report gives the judge's self-agreement and its share " +
      "of the score variance",
  },
  {
    section: "eval",
    key: "judge_temperature",
    kind: "number",
    schema: z.number().min(0, "must be at least 0").max(2, "must be at most 2"),
    default: 0,
    help: "sampling temperature of the judge's calls (part of their cache key)",
  },
  {
    section: "eval",
    key: "workers",
    kind: "integer",
    schema: positiveInt,
    example: 8,
    help:
      "pins the calls in flight to each model; unset, it adapts to the endpoint's rate limit, " +
      "from 8 up to max_workers",
  },
  {
    section: "eval",
    key: "max_workers",
    kind: "integer",
    schema: positiveInt,
    default: 64,
    help: "most calls in flight to one model while the concurrency adapts",
  },
  ofEveryRun("eval", "max_cost"),
  {
    section: "eval",
    key: "timeout_seconds",
    env: "EVAL_TIMEOUT_SECONDS",
    kind: "number",
    schema: positiveSeconds,
    default: 120,
    help: "limit of one call to the endpoint, in seconds, per attempt",
  },
  {
    section: "eval",
    key: "max_retries",
    kind: "integer",
    schema: count,
    default: 4,
    help: "retries of a call answered 408/409/429/5xx or cut off, with backoff (Retry-After honoured up to max_retry_wait_seconds)",
  },
  {
    section: "eval",
    key: "max_retry_wait_seconds",
    kind: "number",
    schema: waitSeconds,
    default: 30,
    help: "longest wait before one retry, in seconds, whatever Retry-After asks",
  },
  {
    section: "eval",
    key: "max_response_mb",
    kind: "number",
    schema: answerMegabytes,
    default: 10,
    help: "largest answer read from the endpoint, in MB once decompressed; a larger one is an error sample",
  },
  {
    section: "eval",
    key: "cache_dir",
    kind: "string",
    schema: text,
    default: ".eval-banana/cache",
    help: "where answers are cached (relative to the project root); --no-cache skips it",
  },
  ofEveryRun("eval", "pass_threshold"),
  {
    section: "report",
    key: "formats",
    flag: "--report-formats",
    kind: "string",
    schema: reportFormats,
    default: "md,html",
    placeholder: "LIST",
    help: "what a run folder holds beside rows.jsonl and report.json, comma-separated: md (report.md), html (report.html); none for neither",
  },
  {
    section: "report",
    key: "scope",
    kind: "string",
    schema: z.enum(SCOPES, { error: "must be cases or population" }),
    default: "cases",
    placeholder: "WHICH",
    help: "the question of the paired gate (eb compare, eb eval --baseline): cases, is the candidate worse on these cases (more samples narrow it); population, on cases like these (more cases narrow it)",
  },
] as const satisfies readonly Setting[];

/** The formats `[report] formats` names, in the order written. */
export const REPORT_FORMATS = ["md", "html"] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** `md,html` as the list it names; `none` (or nothing) is the empty list. */
export function reportFormatsOf(value: string): ReportFormat[] {
  const names = value
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "" && name !== "none");
  return REPORT_FORMATS.filter((format) => names.includes(format));
}

export type SettingEntry = (typeof SETTINGS)[number];
type IdOf<E> = E extends { section: infer S extends string; key: infer K extends string }
  ? `${S}.${K}`
  : never;
/** `core.output_dir`, `harness.agent`, ...: only the ids of the table compile. */
export type SettingId = IdOf<SettingEntry>;
type EntryById = { [E in SettingEntry as IdOf<E>]: E };
/** The value a setting holds once loaded: undefined only for one without a default. */
export type SettingValue<Id extends SettingId> =
  | (EntryById[Id]["kind"] extends "string" ? string : number)
  | (EntryById[Id] extends { default: Value } ? never : undefined);
/** Keyed by id; values given as text (flags) are parsed by loadConfig. */
export type SettingValues = Partial<Record<SettingId, Value>>;

export function settingId<E extends SettingEntry>(setting: E): IdOf<E> {
  return `${setting.section}.${setting.key}` as IdOf<E>;
}

/** `--harness-agent` for [harness] agent, `--output-dir` for [core] output_dir. */
export function flagName(setting: Setting): string {
  const prefix = setting.section === "harness" ? "harness-" : "";
  return setting.flag ?? `--${prefix}${setting.key.replaceAll("_", "-")}`;
}

/** `EVAL_BANANA_OUTPUT_DIR`: the flag's name in upper case, unless the table says otherwise. */
export function envName(setting: Setting): string {
  const name = setting.env ?? flagName(setting).slice(2).replaceAll("-", "_").toUpperCase();
  return `EVAL_BANANA_${name}`;
}

/** Parses a value given as text (environment variable or flag) by the setting's kind. */
export function parseText(setting: Setting, raw: string): z.ZodSafeParseResult<Value> {
  return setting.schema.safeParse(setting.kind === "string" ? raw : toNumber(setting.kind, raw));
}

function toNumber(kind: Kind, raw: string): number | string {
  const trimmed = raw.trim();
  const pattern = kind === "integer" ? /^[+-]?\d+$/ : /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
  return pattern.test(trimmed) ? Number(trimmed) : raw;
}

/** A help text of the table (lower case, no final period) as a sentence. */
export function sentence(help: string): string {
  return `${help.charAt(0).toUpperCase()}${help.slice(1)}.`;
}
