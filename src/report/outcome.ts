/**
 * One sample of a run document's item (report/document.ts), apart so that the row tally, which
 * builds the outcomes, needs nothing of the document itself.
 */
import { z } from "zod";
import { PAIR_OUTCOMES, skillSampleSchema, statusSchema } from "./record.js";

const count = z.number().int().min(0);

const markSchema = z.strictObject({
  grader: z.string(),
  passed: z.boolean(),
  reason: z.string().nullable(),
});

/** One sample of an item, as far as a reader needs it; the whole row is in rows.jsonl. */
export const outcomeSchema = z.strictObject({
  sample: count,
  status: statusSchema,
  ms: z.number().min(0).nullable(),
  cached: z.boolean(),
  marks: z.array(markSchema),
  reason: z.string().nullable(),
  error: z.string().nullable(),
  excerpt: z
    .string()
    .nullable()
    .describe(
      "The answer (a case) or output (a check), cut to its first EXCERPT_CHARS characters.",
    ),
  chars: count.nullable().describe("The length of the whole answer or output, in characters."),
  files: z
    .array(z.strictObject({ label: z.string(), path: z.string() }))
    .describe("The sample's files, relative to the run folder (a check's streams and prompt)."),
  pair: z
    .enum(PAIR_OUTCOMES)
    .optional()
    .describe(
      "A pairwise row's outcome (a tie and a loss both fail); absent for an error and elsewhere.",
    ),
  skill: skillSampleSchema.optional().describe("An eb skill run sample's skill and transcript."),
});
export type Outcome = z.output<typeof outcomeSchema>;
