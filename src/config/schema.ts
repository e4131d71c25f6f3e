import { z } from "zod";
import { SETTINGS, type Section, type Setting, sentence } from "./settings.js";

export { type AgentOverride, agentOverrideSchema } from "../agents/override.js";
export type { Pricing } from "../report/run-summary.js";

import { agentOverrideSchema, stringList, stringTable } from "../agents/override.js";

function sectionShape(section: Section): Record<string, z.ZodOptional<z.ZodType>> {
  const entries = SETTINGS.filter((s) => s.section === section).map((s: Setting) => [
    s.key,
    s.schema.optional().meta({ description: sentence(s.help), default: s.default }),
  ]);
  return Object.fromEntries(entries);
}

const price = z.number("must be a number").min(0, "must be 0 or more");
/**
 * `[pricing."MODEL"]`: US dollars per million tokens of a model eb calls (both keys), and
 * `per_run`: an estimate of one harness-judge run with this model, as agent CLIs report no usage.
 */
const priceSchema = z
  .strictObject({
    input_per_mtok: price.optional(),
    output_per_mtok: price.optional(),
    per_run: price.optional().meta({
      description: "Estimated US dollars of one harness-judge agent run with this model.",
    }),
  })
  .superRefine((entry, context) => {
    const tokens = [entry.input_per_mtok, entry.output_per_mtok].filter((x) => x !== undefined);
    if (tokens.length === 1 || (tokens.length === 0 && entry.per_run === undefined)) {
      context.addIssue({
        code: "custom",
        message:
          "give both input_per_mtok and output_per_mtok (dollars per million tokens), per_run " +
          "(dollars of one harness-judge run), or both",
      });
    }
  });
/** `per_run` prices: estimated dollars of one harness-judge run, by model. */
export type RunPrices = Readonly<Record<string, number>>;

/** `[eval]`: settings of `eb eval` (the API key is never read from a file: see EVAL_BANANA_API_KEY). */
export const evalSectionSchema = z.strictObject(sectionShape("eval"));

export const fileSchema = z.strictObject({
  core: z.strictObject(sectionShape("core")).optional(),
  discovery: z.strictObject({ exclude_dirs: stringList.optional() }).optional(),
  harness: z
    .strictObject({
      ...sectionShape("harness"),
      env: stringTable.optional(),
      env_allowlist: stringList.optional(),
    })
    .optional(),
  agents: z.record(z.string(), agentOverrideSchema).optional(),
  eval: evalSectionSchema.optional(),
  report: z.strictObject(sectionShape("report")).optional(),
  pricing: z.record(z.string(), priceSchema).optional(),
});
export type ConfigFile = z.output<typeof fileSchema>;

/**
 * Keys the Python original had. Each is removed from the parsed file before validation, with a
 * message: `error` stops the run, `warning` is printed and the key has no effect.
 */
export const LEGACY_KEYS: readonly {
  path: readonly string[];
  level: "error" | "warning";
  message: string;
}[] = [
  {
    path: ["llm"],
    level: "error",
    message:
      "Legacy [llm] section was removed. Delete the [llm] section and configure harness agents under [harness] and [agents.*] instead.",
  },
  {
    path: ["harness", "skip"],
    level: "error",
    message:
      "[harness] skip was removed; delete the key from your config. harness is skipped automatically when [harness] agent is unset.",
  },
  {
    path: ["harness", "skills_dir"],
    level: "warning",
    message: "[harness] skills_dir is no longer used and is ignored; delete it.",
  },
  ...["deterministic_timeout_seconds", "llm_timeout_seconds", "task_timeout_seconds"].map(
    (key) => ({
      path: ["core", key],
      level: "warning" as const,
      message: `[core] ${key} is no longer used and is ignored; use [core] check_timeout_seconds or [harness] timeout_seconds.`,
    }),
  ),
];

/** The keys a config file may have in the table at `path` (`[]`: the top level). */
export function keysAt(path: readonly PropertyKey[]): string[] {
  let node: z.ZodType | undefined = fileSchema;
  for (const key of path) {
    node = unwrapOptional(node);
    if (node instanceof z.ZodObject) node = (node.shape as Record<string, z.ZodType>)[String(key)];
    else if (node instanceof z.ZodRecord) node = node.valueType as z.ZodType;
    else return [];
    if (node === undefined) return [];
  }
  node = unwrapOptional(node);
  return node instanceof z.ZodObject ? Object.keys(node.shape) : [];
}

function unwrapOptional(node: z.ZodType): z.ZodType {
  return node instanceof z.ZodOptional ? (node.unwrap() as z.ZodType) : node;
}
