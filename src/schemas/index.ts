/**
 * The JSON Schemas of eval-banana's files, generated from the zod schemas the loaders and writers
 * use, so they cannot drift apart. Input files are described as written (before defaults and
 * trimming: `io: "input"`), the files eb writes as written (`io: "output"`).
 */
import { z } from "zod";
import { BUILTIN_AGENTS } from "../agents/templates.js";
import { caseReportSchema } from "../cases/report.js";
import { caseLineSchema, graderHeadSchema } from "../cases/schema.js";
import { checkSchema } from "../checks/parse.js";
import { checkReportSchema } from "../checks/report.js";
import { agentOverrideSchema, fileSchema, LEGACY_KEYS } from "../config/schema.js";
import { sentence } from "../config/settings.js";
import { getGrader, knownGraderTypes } from "../graders/registry.js";
import { pairwiseReportSchema } from "../pairwise/report.js";
import { rowsLineSchema } from "../report/record.js";
import { SCHEMA_SUBJECTS, type SchemaName, schemaId } from "./names.js";

interface SchemaSource {
  title: string;
  schema: () => z.ZodType;
  io: "input" | "output";
}

const SOURCES: Record<SchemaName, SchemaSource> = {
  checks: {
    title: "eval-banana check",
    schema: () => checkSchema,
    io: "input",
  },
  cases: {
    title: "eval-banana case",
    schema: caseSchema,
    io: "input",
  },
  config: {
    title: "eval-banana config",
    schema: configSchema,
    io: "input",
  },
  report: {
    title: "eval-banana report.json",
    schema: () => z.union([checkReportSchema, caseReportSchema, pairwiseReportSchema]),
    io: "output",
  },
  rows: {
    title: "eval-banana rows.jsonl line",
    schema: () => rowsLineSchema,
    io: "output",
  },
};

/**
 * The JSON Schema (draft 2020-12) of one of eval-banana's files. zod leaves refinements (checks
 * in code) out; each one that matters is stated in the schema's meta() beside it.
 */
export function jsonSchema(name: SchemaName): Record<string, unknown> {
  const source = SOURCES[name];
  const generated = z.toJSONSchema(source.schema(), { target: "draft-2020-12", io: source.io });
  const { $schema, ...rest } = generated;
  const description = sentence(SCHEMA_SUBJECTS[name]);
  return { $schema, $id: schemaId(name), title: source.title, description, ...rest };
}

/** The file text eb ships in `schemas/` and `eb schema NAME` prints. */
export function jsonSchemaText(name: SchemaName): string {
  return `${JSON.stringify(jsonSchema(name), null, 2)}\n`;
}

/** A case line with every built-in grader's fields in place of "a list of anything". */
function caseSchema(): z.ZodType {
  const graders = knownGraderTypes().map(graderSchema);
  const [first, ...rest] = graders;
  if (!first) throw new Error("no grader types are registered");
  return caseLineSchema.extend({
    graders: z.array(z.discriminatedUnion("type", [first, ...rest])).min(1),
  });
}

/** A grader as written in a case: `type`, the optional `name`, and the grader's own fields. */
function graderSchema(type: string) {
  const grader = getGrader(type);
  // A grader that compiles its fields (regex) pipes its field object into a transform.
  const fields = grader?.schema instanceof z.ZodPipe ? grader.schema.in : grader?.schema;
  if (!grader || !(fields instanceof z.ZodObject)) {
    throw new Error(`grader type "${type}" has no object of fields to describe`);
  }
  return fields
    .extend({ type: z.literal(type), name: graderHeadSchema.shape.name.describe(NAME_HELP) })
    .describe(`${type}: ${grader.describe}`);
}

const NAME_HELP = "Unique within the case; the key of the row's marks. Defaults to the type.";

/**
 * The config file as the loader takes it: keys it ignores with a warning are allowed (marked
 * deprecated), and an agent that is not built in needs a command (checked in code by the loader).
 */
function configSchema(): z.ZodType {
  const shape: Record<string, z.ZodType> = { ...fileSchema.shape };
  for (const { path, level, message } of LEGACY_KEYS) {
    // The error-level keys stop the loader: the strict tables refuse them as they are.
    const [section = "", key = ""] = path;
    const table = shape[section];
    if (level !== "warning" || !(table instanceof z.ZodOptional)) continue;
    const inner = table.unwrap();
    if (!(inner instanceof z.ZodObject)) continue;
    const legacy = z.unknown().optional().meta({ deprecated: true, description: message });
    shape[section] = inner.extend({ [key]: legacy }).optional();
  }
  const builtins = Object.keys(BUILTIN_AGENTS).map((name) => [
    name,
    agentOverrideSchema.optional(),
  ]);
  shape.agents = z
    .object(Object.fromEntries(builtins))
    .catchall(agentOverrideSchema.required({ command: true }))
    .optional()
    .describe("Overrides of built-in agents' templates, or new agents (a new one needs command).");
  return z.strictObject(shape);
}
