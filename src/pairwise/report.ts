import { z } from "zod";
import { pairwiseFiguresShape } from "../report/blocks.js";
import { budgetSchema, judgeCacheSchema } from "../report/document.js";

/** `report.json` of `eb pairwise`: the run's header, then the figures of its document's block. */
export const pairwiseReportSchema = z
  .strictObject({
    schema_version: z.literal(1),
    kind: z.literal("pairwise"),
    run_id: z.string(),
    project_root: z.string(),
    output_dir: z.string(),
    cases_sha256: z.string(),
    judge_model_versions: z.array(z.string()),
    started_at: z.string(),
    completed_at: z.string(),
    duration_ms: z.number().min(0),
    interrupted: z.boolean(),
    budget: budgetSchema,
    budget_exceeded: z
      .boolean()
      .describe("Pairs were left unjudged by --max-cost (--resume with a higher cap judges them)."),
    judge_cache: judgeCacheSchema,
    ...pairwiseFiguresShape,
    run_passed: z.boolean().describe("The gate: the verdict is pass (or --inconclusive pass)."),
  })
  .describe("report.json of eb pairwise.");
export type PairwiseReport = z.output<typeof pairwiseReportSchema>;
