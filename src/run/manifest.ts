import { z } from "zod";
import type { Manifest, RunKind } from "./record.js";

const text = z.string();
const nullableText = z.string().nullable();

const base = {
  tool: z.literal("eval-banana"),
  version: text,
  run_id: text,
  git_commit: nullableText,
  project_root: text,
  definitions: z.record(z.string(), z.string()),
  items_planned: z.number().int().min(0).optional(),
  command: z.array(z.string()).nullable(),
  started_at: text,
  // Runs of earlier versions wrote these only at the end.
  ended_at: nullableText.default(null),
  interrupted: z.boolean().nullable().default(null),
  resumes: z.number().int().min(0).optional(),
  shard: text.optional(),
  item_set: text.optional(),
  items_total: z.number().int().min(0).optional(),
  shards: z.array(text).optional(),
  merged_runs: z.array(text).optional(),
};

const targetInfo = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("model"), model: text, api_base: text }),
  z.object({ kind: z.literal("command"), command: text }),
]);

const manifestSchema = z.discriminatedUnion("kind", [
  z.looseObject({ ...base, kind: z.literal("checks"), samples: z.number().int().min(1) }),
  z.looseObject({
    ...base,
    kind: z.literal("cases"),
    cases_file: text,
    cases_sha256: text,
    target: targetInfo,
    judge_model: nullableText,
    k: z.number().int().min(1),
    temperature: z.number().nullable(),
    max_tokens: z.number().int().nullable(),
    model_versions: z.array(z.string()).optional(),
    judge_model_versions: z.array(z.string()).optional(),
    versions_not_listed: z.number().int().optional(),
  }),
]);

/** The manifest of a run folder this program wrote, or null when it is not one. */
export function parseManifest(value: unknown): Manifest | null {
  const parsed = manifestSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/**
 * What `eb report` and `eb compare` read of any manifest, ours or another tool's: its kind and
 * its definitions' digests, when it has them.
 */
export interface ManifestSummary {
  kind: RunKind | null;
  definitions: Record<string, string>;
  /** A case run's judge model, to price its tokens. */
  judge_model: string | null;
  /** What the run set out to do, when its manifest says (runs of earlier versions do not). */
  planned: { items: number; samplesPerItem: number } | null;
}

const count = z.number().int().min(0).nullable().catch(null).default(null);

/** Each field on its own: one that is missing or of another shape reads as absent. */
const summarySchema = z.looseObject({
  kind: z.enum(["checks", "cases"]).nullable().catch(null).default(null),
  definitions: z.record(z.string(), z.string()).catch({}).default({}),
  judge_model: z.string().nullable().catch(null).default(null),
  items_planned: count,
  // Samples per item: k of a case run, samples of a check run.
  k: count,
  samples: count,
});

export function summarizeManifest(value: unknown): ManifestSummary {
  const parsed = summarySchema.safeParse(value);
  if (!parsed.success) return { kind: null, definitions: {}, judge_model: null, planned: null };
  const { kind, definitions, judge_model, items_planned: items, k, samples } = parsed.data;
  const samplesPerItem = k ?? samples;
  const planned = items === null || samplesPerItem === null ? null : { items, samplesPerItem };
  return { kind, definitions, judge_model, planned };
}
