import {
  type Document,
  isMap,
  isNode,
  isScalar,
  LineCounter,
  type Node,
  parseDocument,
  type Scalar,
  visit,
} from "yaml";
import { z } from "zod";
import { didYouMean, InputError } from "../errors.js";
import type { Check, ScriptPlace } from "./types.js";

/**
 * Values are trimmed before they are checked, so the JSON Schema (`eb schema checks`, which
 * describes what a file may hold) states the checks on the untrimmed text as patterns.
 */
const HAS_TEXT = "\\S";
const ID_CHARS = "[a-zA-Z0-9_-]+";

const nonEmpty = (field: string) =>
  z
    .string(`${field} must be a string`)
    .meta({ pattern: HAS_TEXT })
    .transform((value) => value.trim())
    .pipe(z.string().min(1, `${field} must be non-empty`));

const common = {
  schema_version: z.literal(1, "schema_version must be 1").describe("The format's version: 1."),
  id: z
    .string("id must be a string")
    .meta({
      pattern: `^\\s*${ID_CHARS}\\s*$`,
      description: "Letters, digits, _ and -; unique across files.",
    })
    .transform((value) => value.trim())
    .pipe(
      z
        .string()
        .min(1, "id must be non-empty")
        .regex(
          new RegExp(`^${ID_CHARS}$`),
          `id must match ^${ID_CHARS}$ (letters, digits, _ and -)`,
        ),
    ),
  description: nonEmpty("description").describe("Non-empty text, shown in lists and reports."),
  tags: z
    .array(z.string(), "tags must be a list of strings")
    .default([])
    .describe("Labels to select checks by (eb run --tag) and to break results down by."),
  // Eval Banana 0.2's rules: entries are kept as written, only a blank one is refused.
  target_paths: z
    .array(
      z
        .string("target_paths entries must be strings")
        .meta({ pattern: HAS_TEXT })
        .refine((entry) => entry.trim() !== "", "target_paths entries must be non-empty strings"),
      "target_paths must be a list of strings",
    )
    .optional()
    .meta({
      deprecated: true,
      description:
        "Deprecated (Eval Banana 0.2), still accepted with a warning: name the files in " +
        'instructions (judges) or find them from ctx["project_root"] (scripts).',
    }),
};

/** Set: a non-empty string (an empty `script` counts as absent, as in the refinement below). */
const isSet = (key: string) => ({
  required: [key],
  properties: { [key]: { type: "string", minLength: 1 } },
});

const deterministicFields = {
  type: z.literal("deterministic").describe("A Python script decides."),
  script: z
    .string("script must be a string")
    .optional()
    .describe("Inline Python; exactly one of script and script_path."),
  script_path: z
    .string("script_path must be a string")
    .optional()
    .describe(
      "A Python file, relative to the YAML file's folder; exactly one of script and script_path.",
    ),
};

const deterministicSchema = z
  .strictObject({ ...common, ...deterministicFields })
  .refine((check) => Boolean(check.script) !== Boolean(check.script_path), {
    message: "exactly one of script or script_path must be set",
  })
  .meta({
    oneOf: [
      { ...isSet("script"), not: isSet("script_path") },
      { ...isSet("script_path"), not: isSet("script") },
    ],
  });

const harnessJudgeFields = {
  type: z.literal("harness_judge").describe("An agent CLI judges against the instructions."),
  instructions: nonEmpty("instructions").describe("What the agent should read and how to score."),
  model: z
    .string("model must be a string")
    .min(1, "model must be non-empty")
    .optional()
    .describe("The agent's model for this check; wins over [harness] model."),
};

const harnessJudgeSchema = z.strictObject({ ...common, ...harnessJudgeFields });

/** One check file; `eb schema checks` prints it as JSON Schema. */
export const checkSchema = z.discriminatedUnion("type", [deterministicSchema, harnessJudgeSchema], {
  error: "type must be 'deterministic' or 'harness_judge'",
});

/**
 * A file whose type is none of the known ones: its other fields are still checked (against
 * every type's fields, none required but the common ones), so one round shows every problem.
 */
const anyTypeSchema = z.strictObject({
  ...common,
  ...deterministicFields,
  ...harnessJudgeFields,
  instructions: harnessJudgeFields.instructions.optional(),
  type: z.unknown(),
});

const FIELDS_OF_TYPE: Readonly<Record<string, object>> = {
  deterministic: deterministicFields,
  harness_judge: harnessJudgeFields,
};

function isKnownType(type: unknown): type is string {
  return typeof type === "string" && Object.hasOwn(FIELDS_OF_TYPE, type);
}

/** The fields a check of this type may have: every type's when the type is not known. */
function knownFields(type: unknown): string[] {
  const fields = isKnownType(type) ? FIELDS_OF_TYPE[type]! : anyTypeSchema.shape;
  return [...Object.keys(common), ...Object.keys(fields)];
}

/** What to do about a field the schema does not know. */
const UNKNOWN_FIELD_HINTS: Record<string, string> = {
  timeout_seconds:
    "per-check timeout_seconds was removed: set [core] check_timeout_seconds or [harness] timeout_seconds in .eval-banana/config.toml",
};

const MAX_ALIASES = 100;

/** Parses and validates one check file's exact bytes; every error names the file and position. */
export function parseCheck(sourcePath: string, bytes: Uint8Array): Check {
  const { data, locate, place } = parseYamlMapping(sourcePath, bytes);
  if (data.type === "llm_judge") {
    throw new InputError(
      `Check type 'llm_judge' was renamed to 'harness_judge' in ${sourcePath}${locate(["type"])}. ` +
        "Update the 'type' field in your YAML to 'harness_judge'.",
    );
  }
  // zod would first compile a parser for the schema (new Function): ~15 ms at every start, for
  // a few dozen tiny objects that its general path checks in microseconds each.
  const parsed = checkSchema.safeParse(data, { jitless: true });
  if (!parsed.success) {
    // The union stops at a type it does not know; the other fields are checked all the same.
    const others = isKnownType(data.type) ? [] : anyTypeSchema.safeParse(data).error?.issues;
    const issues = [...parsed.error.issues, ...(others ?? [])];
    const problems = issues.map((issue) => describeIssue(sourcePath, issue, locate, data));
    throw new InputError(
      `Invalid check definition in ${sourcePath}:\n${problems.map((p) => `  ${p}`).join("\n")}`,
    );
  }
  const value = parsed.data;
  const targetPaths = value.target_paths ?? null;
  const base = {
    id: value.id,
    description: value.description,
    tags: value.tags,
    sourcePath,
    line: place("id")?.start ?? 1,
    targetPaths,
    warnings: targetPaths === null ? [] : [targetPathsWarning(sourcePath, locate)],
  };
  if (value.type === "harness_judge") {
    return {
      ...base,
      yamlBytes: bytes,
      type: "harness_judge",
      instructions: value.instructions,
      model: value.model ?? null,
    };
  }
  return {
    ...base,
    yamlBytes: bytes,
    type: "deterministic",
    script: value.script || null,
    scriptLine: value.script ? scriptLineOf(place("script"), value.script) : null,
    scriptPath: value.script ? null : (value.script_path ?? null),
    scriptPlace: scriptPlace(place(value.script ? "script" : "script_path")),
  };
}

/**
 * The file line of an inline script's first line: the line after a `|` or `>` header, else the
 * value's own line. Any style but `|` joins the lines of a multi-line value into one.
 */
function scriptPlace(where: ScalarPlace | null): ScriptPlace {
  if (where === null) return { firstLine: 1, folded: false };
  const block = where.type === "BLOCK_LITERAL" || where.type === "BLOCK_FOLDED";
  const firstLine = where.start + (block ? 1 : 0);
  return { firstLine, folded: where.type !== "BLOCK_LITERAL" && where.end > firstLine };
}

/**
 * The file line of an inline script's first line when the script's lines are the file's lines
 * one for one (tracebacks can then name the YAML line): a literal block (`|`, its text starts
 * below the header) or a one-line scalar with no escaped line break.
 */
function scriptLineOf(where: ScalarPlace | null, script: string): number | null {
  if (where === null) return null;
  if (where.type === "BLOCK_LITERAL") return where.start + 1;
  return where.end === where.start && !script.includes("\n") ? where.start : null;
}

type Locate = (path: readonly PropertyKey[], key?: string) => string;

/** A top-level scalar value's first and last line in the file, and how it was written. */
interface ScalarPlace {
  start: number;
  end: number;
  type: Scalar["type"];
}

function targetPathsWarning(sourcePath: string, locate: Locate): string {
  // A notice about the whole field: the line is enough, the column would be noise.
  const line = locate([], "target_paths").replace(/:\d+$/, "");
  return (
    `${sourcePath}${line}: target_paths is deprecated (Eval Banana 0.2): name the files in ` +
    'instructions (judges) or find them from ctx["project_root"] (scripts); it still works'
  );
}

/**
 * Reads one YAML document with a mapping at the top. YAML 1.2's core schema, not 1.1: 1.1 (as
 * implemented by the yaml package) reads `y`/`n` as booleans, which PyYAML does not; 1.2 accepts
 * everything PyYAML accepts for these string fields.
 */
export function parseYamlMapping(
  sourcePath: string,
  bytes: Uint8Array,
): {
  data: Record<string, unknown>;
  locate: Locate;
  place: (key: string) => ScalarPlace | null;
} {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new InputError(`Failed to parse YAML in ${sourcePath}: the file is not UTF-8 text`);
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const pos = first.linePos?.[0];
    const where = pos ? `:${pos.line}:${pos.col}` : "";
    const detail = first.message.split("\n")[0];
    throw new InputError(`Failed to parse YAML in ${sourcePath}${where}: ${detail}`);
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const where = unresolvedAliasOffset(doc);
    const pos = where === undefined ? "" : lineCol(lineCounter, where);
    throw new InputError(`Failed to parse YAML in ${sourcePath}${pos}: ${detail}`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new InputError(
      `Invalid check definition in ${sourcePath}: top-level YAML must be a mapping`,
    );
  }
  const locate: Locate = (path, key) => {
    const node = key === undefined ? doc.getIn(path, true) : keyNode(doc.getIn(path, true), key);
    const offset = isNode(node) ? node.range?.[0] : undefined;
    return offset === undefined ? "" : lineCol(lineCounter, offset);
  };
  const place = (key: string): ScalarPlace | null => {
    const node = doc.get(key, true);
    if (!isScalar(node) || !node.range) return null;
    const [from, to] = node.range;
    const line = (offset: number) => lineCounter.linePos(offset).line;
    return { start: line(from), end: line(Math.max(from, to - 1)), type: node.type };
  };
  return { data: data as Record<string, unknown>, locate, place };
}

function lineCol(lineCounter: LineCounter, offset: number): string {
  const pos = lineCounter.linePos(offset);
  return `:${pos.line}:${pos.col}`;
}

/** toJS() names an unresolved alias but not where it is; find it. */
function unresolvedAliasOffset(doc: Document): number | undefined {
  let offset: number | undefined;
  visit(doc, {
    Alias(_, alias) {
      if (alias.resolve(doc) !== undefined) return;
      offset = alias.range?.[0];
      return visit.BREAK;
    },
  });
  return offset;
}

function keyNode(parent: unknown, key: string): Node | undefined {
  if (!isMap(parent)) return undefined;
  const pair = parent.items.find((item) => isScalar(item.key) && item.key.value === key);
  return isNode(pair?.key) ? pair.key : undefined;
}

function describeIssue(
  sourcePath: string,
  issue: z.core.$ZodIssue,
  locate: Locate,
  data: Record<string, unknown>,
): string {
  if (issue.code === "unrecognized_keys") {
    return issue.keys
      .map((key) => {
        const hint =
          UNKNOWN_FIELD_HINTS[key] ??
          didYouMean(key, knownFields(data.type)) ??
          "remove it or check its spelling";
        return `${sourcePath}${locate(issue.path, key)}: unknown field '${key}': ${hint}`;
      })
      .join("\n  ");
  }
  const field = issue.path.map(String).join(".");
  const where = locate(issue.path) || locate([]) || ":1:1";
  const message = issue.message.startsWith("Invalid input")
    ? `${field || "check"}: ${issue.message}`
    : issue.message;
  const missing = field && !hasPath(data, issue.path) ? ` (field '${field}' is missing)` : "";
  return `${sourcePath}${where}: ${message}${missing}${typeHint(issue, data)}`;
}

/** `: did you mean 'deterministic'?` after the problem of a misspelt type. */
function typeHint(issue: z.core.$ZodIssue, data: Record<string, unknown>): string {
  const type = data.type;
  if (issue.path.join(".") !== "type" || typeof type !== "string") return "";
  const hint = didYouMean(type, Object.keys(FIELDS_OF_TYPE));
  return hint === null ? "" : `: ${hint}`;
}

function hasPath(data: unknown, keys: readonly PropertyKey[]): boolean {
  let node = data;
  for (const key of keys) {
    if (typeof node !== "object" || node === null || !(String(key) in node)) return false;
    node = (node as Record<string, unknown>)[String(key)];
  }
  return true;
}
