import { z } from "zod";
import { MANIFEST_SHAPES, type Manifest, sequentialRunSchema } from "./record.js";

/** Earlier versions wrote these only at the end. */
const lenient = {
  ended_at: z.string().nullable().default(null),
  interrupted: z.boolean().nullable().default(null),
};

// Loose: a run of a later version may add fields.
const manifestSchema = z.discriminatedUnion("kind", [
  z.looseObject({ ...MANIFEST_SHAPES.checks, ...lenient }),
  z.looseObject({ ...MANIFEST_SHAPES.cases, ...lenient }),
  z.looseObject({ ...MANIFEST_SHAPES.pairwise, ...lenient }),
]);

/** The manifest of a run folder this program wrote, or null when it is not one. */
export function parseManifest(value: unknown): Manifest | null {
  const parsed = manifestSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

const count = z.number().int().min(0).nullable().catch(null).default(null);
const text = z.string().nullable().catch(null).default(null);
const flag = z.boolean().nullable().catch(null).default(null);
const texts = z.array(z.string()).nullable().catch(null).default(null);

/** Each field on its own: one that is missing or of another shape reads as absent. */
const summarySchema = z.object({
  kind: z.enum(["checks", "cases", "pairwise"]).nullable().catch(null).default(null),
  run_id: text,
  /** What a case run evaluated: the model's name, or the command; null for checks. */
  target: z
    .union([
      z.object({ model: z.string() }).transform((t) => t.model),
      z.object({ command: z.string() }).transform((t) => t.command),
    ])
    .nullable()
    .catch(null)
    .default(null),
  definitions: z.record(z.string(), z.string()).catch({}).default({}),
  /** A case run's judge model, to price its tokens. */
  judge_model: text,
  items_planned: count,
  version: text,
  git_commit: text,
  project_root: text,
  command: texts,
  /** Which suite the run is of (absent before 0.4). */
  suite: text,
  started_at: text,
  ended_at: text,
  interrupted: flag,
  budget_exceeded: flag,
  sequential: sequentialRunSchema.nullable().catch(null).default(null),
  resumes: count,
  shards: texts,
  merged_runs: texts,
  // Samples per item: k of a case run, samples of a check run.
  k: count,
  samples: count,
});

/**
 * What `eb report` and `eb compare` read of any manifest, ours or another tool's: its kind, its
 * definitions' digests, where the run came from and how it ended, as far as it says.
 */
export type ManifestSummary = Omit<
  z.output<typeof summarySchema>,
  "items_planned" | "k" | "samples" | "resumes"
> & {
  /** What the run set out to do, when its manifest says (runs of earlier versions do not). */
  planned: { items: number; samplesPerItem: number } | null;
  resumes: number;
};

export function summarizeManifest(value: unknown): ManifestSummary {
  const parsed = summarySchema.safeParse(value);
  const data = parsed.success ? parsed.data : summarySchema.parse({});
  const { items_planned: items, k, samples, resumes, ...fields } = data;
  const samplesPerItem = k ?? samples;
  const planned = items === null || samplesPerItem === null ? null : { items, samplesPerItem };
  return { ...fields, planned, resumes: resumes ?? 0 };
}
