import { z } from "zod";
import { pairCountsShape, pairStatsShape } from "../report/blocks.js";
import { budgetSchema } from "../report/document.js";

const net = z.number().min(-1).max(1).nullable();
const countsShape = pairCountsShape;

const itemSchema = z.strictObject({
  id: z.string(),
  stratum: z.string(),
  ...countsShape,
  net_win_rate: net,
});

/** `report.json` of `eb pairwise`. */
export const pairwiseReportSchema = z
  .strictObject({
    schema_version: z.literal(1),
    kind: z.literal("pairwise"),
    run_id: z.string(),
    project_root: z.string(),
    output_dir: z.string(),
    baseline: z.strictObject({ run_id: z.string().nullable(), rows: z.string() }),
    candidate: z.strictObject({ run_id: z.string().nullable(), rows: z.string() }),
    cases_file: z.string(),
    cases_sha256: z.string(),
    judge_model: z.string(),
    judge_model_versions: z.array(z.string()),
    criteria: z.string().nullable().describe("--criteria; null: each case's judge graders'."),
    started_at: z.string(),
    completed_at: z.string(),
    duration_ms: z.number().min(0),
    interrupted: z.boolean(),
    budget: budgetSchema,
    budget_exceeded: z
      .boolean()
      .describe("Pairs were left unjudged by --max-cost (--resume with a higher cap judges them)."),
    ...pairStatsShape,
    level: z.number().describe("The level of the intervals."),
    margin: z.number().describe("--margin: the largest net loss still accepted."),
    verdict: z
      .enum(["pass", "regression", "inconclusive"])
      .describe(
        "pass: ci_low > −margin; regression: ci_high < −margin; else inconclusive — and always " +
          "inconclusive when consistency < 0.5, and not pass while a pair is an error or unjudged " +
          "(interrupted, budget_exceeded).",
      ),
    strata: z.array(z.strictObject({ stratum: z.string(), ...pairStatsShape })),
    cases: z.array(itemSchema).describe("Each case's counts, in case file order."),
    warnings: z.array(z.string()),
    run_passed: z.boolean().describe("The gate: the verdict is pass (or --inconclusive pass)."),
  })
  .describe("report.json of eb pairwise.");
export type PairwiseReport = z.output<typeof pairwiseReportSchema>;
export type ItemStats = z.output<typeof itemSchema>;
export type PairCounts = Pick<ItemStats, keyof typeof countsShape>;
export type PairStats = z.output<z.ZodObject<typeof pairStatsShape>>;
export type PairVerdictName = PairwiseReport["verdict"];
