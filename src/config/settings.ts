import { z } from "zod";

/**
 * Every scalar setting, once: its TOML place, its EVAL_BANANA_* variable and its flag all
 * come from this table, so the three sources cannot drift apart.
 */
export type Section = "core" | "harness" | "eval";
export type Kind = "string" | "number" | "integer";

export interface Setting {
  section: Section;
  key: string;
  /** Suffix after EVAL_BANANA_; undefined = no environment variable. */
  env?: string;
  kind: Kind;
  schema: z.ZodType<string | number>;
  /** Shown by `eb init` and in errors. */
  help: string;
}

const text = z.string().min(1, "must not be empty");
const positiveInt = z.number().int("must be a whole number").min(1, "must be at least 1");
const positiveSeconds = z.number().positive("must be greater than 0");

export const SETTINGS = [
  {
    section: "core",
    key: "output_dir",
    env: "OUTPUT_DIR",
    kind: "string",
    schema: text,
    help: "where run folders go (relative to the project root)",
  },
  {
    section: "core",
    key: "pass_threshold",
    env: "PASS_THRESHOLD",
    kind: "number",
    schema: z.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1"),
    help: "minimum share of checks that must pass (0.0-1.0)",
  },
  {
    section: "core",
    key: "llm_max_input_chars",
    env: "LLM_MAX_INPUT_CHARS",
    kind: "integer",
    schema: z.number().int("must be a whole number").min(0, "must be 0 or more"),
    help: "kept for compatibility with the Python original; has no effect",
  },
  {
    section: "core",
    key: "max_parallel_checks",
    env: "MAX_PARALLEL_CHECKS",
    kind: "integer",
    schema: positiveInt,
    help: "checks run at once",
  },
  {
    section: "core",
    key: "check_timeout_seconds",
    env: "CHECK_TIMEOUT_SECONDS",
    kind: "number",
    schema: positiveSeconds,
    help: "wall-clock limit of one deterministic script",
  },
  {
    section: "core",
    key: "samples",
    env: "SAMPLES",
    kind: "integer",
    schema: positiveInt,
    help: "runs of each check (judge reliability); a check scores its pass fraction (default 1)",
  },
  {
    section: "core",
    key: "python",
    env: "PYTHON",
    kind: "string",
    schema: text,
    help: "Python interpreter for deterministic checks (default: python3 on PATH)",
  },
  {
    section: "harness",
    key: "agent",
    env: "HARNESS_AGENT",
    kind: "string",
    schema: text,
    help: "agent CLI for harness_judge checks",
  },
  {
    section: "harness",
    key: "model",
    env: "HARNESS_MODEL",
    kind: "string",
    schema: text,
    help: "model passed to the agent",
  },
  {
    section: "harness",
    key: "reasoning_effort",
    env: "HARNESS_REASONING_EFFORT",
    kind: "string",
    schema: text,
    help: "reasoning effort passed to the agent",
  },
  {
    section: "harness",
    key: "timeout_seconds",
    env: "HARNESS_TIMEOUT_SECONDS",
    kind: "integer",
    schema: positiveInt,
    help: "wall-clock limit of one agent run",
  },
  {
    section: "eval",
    key: "api_base",
    env: "API_BASE",
    kind: "string",
    schema: z.url({
      protocol: /^https?$/,
      error: "must be an http(s) URL, e.g. https://api.openai.com/v1",
    }),
    help: "base URL of the OpenAI-compatible endpoint (default https://api.openai.com/v1)",
  },
  {
    section: "eval",
    key: "judge",
    env: "JUDGE",
    kind: "string",
    schema: text,
    help: "judge model for judge graders, asked through the same endpoint",
  },
  {
    section: "eval",
    key: "workers",
    env: "WORKERS",
    kind: "integer",
    schema: positiveInt,
    help: "cases run at once; the k samples of a case run one after another (default 8)",
  },
  {
    section: "eval",
    key: "timeout_seconds",
    env: "EVAL_TIMEOUT_SECONDS",
    kind: "number",
    schema: positiveSeconds,
    help: "limit of one call or one target command run, per attempt (default 120)",
  },
  {
    section: "eval",
    key: "max_retries",
    env: "MAX_RETRIES",
    kind: "integer",
    schema: z.number().int("must be a whole number").min(0, "must be 0 or more"),
    help: "retries of a call answered 408/409/429/5xx or cut off, with backoff (default 4)",
  },
  {
    section: "eval",
    key: "cache_dir",
    env: "CACHE_DIR",
    kind: "string",
    schema: text,
    help: "where answers are cached (relative to the project root; default .eval-banana/cache)",
  },
  {
    section: "eval",
    key: "pass_threshold",
    env: "EVAL_PASS_THRESHOLD",
    kind: "number",
    schema: z.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1"),
    help: "minimum pass rate (0.0-1.0) for exit 0; default none: only error samples fail the run",
  },
] as const satisfies readonly Setting[];

export type SettingKey = (typeof SETTINGS)[number]["key"];
export type SettingValues = Partial<Record<`${Section}.${string}`, string | number>>;

export function settingId(setting: Setting): `${Section}.${string}` {
  return `${setting.section}.${setting.key}`;
}

/** Parses a value given as text (environment variable or flag) by the setting's kind. */
export function parseText(setting: Setting, raw: string): z.ZodSafeParseResult<string | number> {
  return setting.schema.safeParse(setting.kind === "string" ? raw : toNumber(setting.kind, raw));
}

function toNumber(kind: Kind, raw: string): number | string {
  const trimmed = raw.trim();
  const pattern = kind === "integer" ? /^[+-]?\d+$/ : /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
  return pattern.test(trimmed) ? Number(trimmed) : raw;
}
