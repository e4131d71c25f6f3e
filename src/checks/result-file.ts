import { z } from "zod";
import type { TreeState } from "../run/git-tree.js";
import { DIRTY_TREE_ALGORITHM } from "../run/git-tree.js";
import { isoUtc } from "../run/provenance.js";
import { TOOL_VERSION } from "../version.js";
import type { CheckReport } from "./report.js";

/** How far a run got: a report (completed) or a stop before one, by what stopped it. */
export const RESULT_STATUSES = ["completed", "no_checks", "config_error", "harness_error"] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

const nullableText = z.string().nullable();

/**
 * The `--result-out` file's object (Eval Banana 0.5's result file, schema_version 1): its keys
 * in this order and no other, so a consumer of the original reads ours.
 */
export const resultObjectSchema = z.strictObject({
  schema_version: z.literal(1),
  tool_version: z.string(),
  status: z.enum(RESULT_STATUSES),
  run_passed: z.boolean(),
  pass_threshold: z.number().min(0).max(1).describe("The effective --pass-threshold."),
  harness: z.strictObject({
    family: nullableText.describe("The configured harness agent."),
    effort: nullableText.describe("The first check's reasoning effort that is a string."),
  }),
  observed: z
    .strictObject({
      commit_before: nullableText,
      commit_after: nullableText,
      dirty_tree_digest: nullableText,
      dirty_tree_algorithm: nullableText,
    })
    .describe("What git said: HEAD and the dirty-tree digest at the start, HEAD at the end."),
  produced_at: z.string().describe("ISO 8601 UTC: the only wall-clock value in the object."),
  provenance: z
    .record(z.string(), nullableText)
    .describe("--provenance-attempt as `attempt`, then each --provenance-field, verbatim."),
  checks: z.array(
    z.strictObject({
      id: z.string(),
      status: z.string(),
      reason: nullableText,
      model: nullableText.describe("The judge's model, or null."),
    }),
  ),
  error: nullableText.describe("Why the run stopped before a report; null when it completed."),
});
export type ResultObject = z.output<typeof resultObjectSchema>;

export interface ResultInput {
  /** The run's report, or null when it stopped before one (then `error` says why). */
  report: CheckReport | null;
  status: ResultStatus;
  error: string | null;
  passThreshold: number;
  agent: string | null;
  before: TreeState;
  commitAfter: string | null;
  provenance: Readonly<Record<string, string | null>>;
  producedAt: Date;
}

export function resultObject(input: ResultInput): ResultObject {
  const checks = input.report?.checks ?? [];
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  return {
    schema_version: 1,
    tool_version: TOOL_VERSION,
    status: input.status,
    run_passed: input.report?.run_passed ?? false,
    pass_threshold: input.report?.pass_threshold ?? input.passThreshold,
    harness: {
      family: input.agent,
      effort:
        checks.map((check) => text(check.details.reasoning_effort)).find((e) => e !== null) ?? null,
    },
    observed: {
      commit_before: input.before.commit,
      commit_after: input.commitAfter,
      dirty_tree_digest: input.before.dirtyDigest,
      dirty_tree_algorithm: input.before.dirtyDigest === null ? null : DIRTY_TREE_ALGORITHM,
    },
    produced_at: isoUtc(input.producedAt),
    provenance: { ...input.provenance },
    checks: checks.map((check) => ({
      id: check.check_id,
      status: check.status,
      reason: check.reason,
      model: text(check.details.model),
    })),
    error: input.error,
  };
}
