import { z } from "zod";
import { coverageOf, coverageShape } from "../report/coverage.js";
import { applyGate } from "../report/gate.js";
import type { RowTally } from "../report/row-tally.js";
import {
  runStatsSchema,
  type SummaryOptions,
  summarize,
  summaryFieldsSchema,
} from "../report/run-summary.js";
import {
  caseConcurrencySchema,
  judgeSamplesSchema,
  judgeTemperatureSchema,
  targetInfoSchema,
} from "../run/record.js";
import type { CaseTally } from "./tally.js";

const count = z.number().int().min(0);

const itemSummarySchema = z.strictObject({
  id: z.string(),
  stratum: z.string(),
  samples: count,
  score: z.number().min(0).max(1),
  errors: count,
  cached: count,
  problem: z
    .string()
    .nullable()
    .describe("Why the first failed or errored sample fell short; null if none."),
});
export type ItemSummary = z.output<typeof itemSummarySchema>;

/** `--max-cost` and the spend, in the report of every run that calls models. */
export const budgetSchema = z
  .strictObject({ max_cost: z.number(), spent: z.number() })
  .nullable()
  .describe("--max-cost and what the run spent (estimated from [pricing]); null: no cap.");

/** `report.json` of `eb eval`. */
export const caseReportSchema = z
  .strictObject({
    schema_version: z.literal(1),
    kind: z.literal("cases"),
    run_id: z.string(),
    project_root: z.string(),
    output_dir: z.string(),
    cases_file: z.string(),
    cases_sha256: z.string(),
    target: targetInfoSchema,
    judge_model: z.string().nullable(),
    judge_samples: judgeSamplesSchema,
    judge_temperature: judgeTemperatureSchema,
    model_versions: z
      .array(z.string())
      .describe("Distinct model version strings the endpoint returned for the target."),
    judge_model_versions: z.array(z.string()),
    k: z.number().int().min(1),
    temperature: z.number().nullable(),
    max_tokens: z.number().int().nullable(),
    started_at: z.string(),
    completed_at: z.string(),
    duration_ms: z.number().min(0),
    interrupted: z.boolean(),
    concurrency: caseConcurrencySchema
      .nullable()
      .describe(
        "Calls in flight to each model over the run's last attempt; null for a merged run.",
      ),
    budget: budgetSchema,
    budget_exceeded: z
      .boolean()
      .describe(
        "Samples were left unrun because they would have passed the cap (--resume finishes them).",
      ),
    ...coverageShape,
    stats: runStatsSchema,
    summary: summaryFieldsSchema.describe(
      "Flaky items, failures per grader, strata, latency, tokens and cost (eb report's view).",
    ),
    pass_threshold: z
      .number()
      .min(0)
      .max(1)
      .describe("Minimum share of samples that must pass (1 unless set)."),
    meets_threshold: z.boolean(),
    run_passed: z
      .boolean()
      .describe("Completed, no error sample, and the threshold met (the gate of eb's runs)."),
    items: z.array(itemSummarySchema),
  })
  .describe("report.json of eb eval (cases).");
export type CaseReport = z.output<typeof caseReportSchema>;

/** What the report needs beyond the tally. */
export type CaseReportMeta = Pick<
  CaseReport,
  | "run_id"
  | "project_root"
  | "output_dir"
  | "cases_file"
  | "cases_sha256"
  | "target"
  | "judge_model"
  | "judge_samples"
  | "judge_temperature"
  | "judge_model_versions"
  | "k"
  | "temperature"
  | "max_tokens"
  | "started_at"
  | "completed_at"
  | "duration_ms"
  | "interrupted"
  | "concurrency"
  | "budget"
  | "budget_exceeded"
  | "pass_threshold"
>;

/** The rows of a case run: their aggregates (why items fell short too), the cases in file order. */
export interface CaseRunRows {
  rows: RowTally;
  cases: readonly { id: string }[];
  tally: CaseTally;
}

export function buildCaseReport(
  run: CaseRunRows,
  meta: CaseReportMeta,
  options: SummaryOptions = {},
): CaseReport {
  const { stats, ...summary } = summarize(run.rows, { ...options, judgeModel: meta.judge_model });
  const gate = applyGate({
    passed: stats.passed,
    samples: stats.samples,
    errors: stats.errors,
    threshold: meta.pass_threshold,
    interrupted: meta.interrupted,
  });
  return {
    schema_version: 1,
    kind: "cases",
    ...meta,
    model_versions: meta.target.kind === "model" ? [...run.tally.modelVersions].sort() : [],
    ...coverageOf(run.cases.length, meta.k, stats),
    stats,
    summary,
    meets_threshold: gate.meetsThreshold,
    // A run stopped by its budget is unfinished, whatever the samples that ran say.
    run_passed: gate.passed && !meta.budget_exceeded,
    items: itemSummaries(run),
  };
}

/** Items in case-file order; those that never ran (an interrupted run) are left out. */
function itemSummaries(run: CaseRunRows): ItemSummary[] {
  return run.cases.flatMap(({ id }) => {
    const item = run.rows.items.get(id);
    if (!item) return [];
    return [
      {
        id,
        stratum: item.stratum,
        samples: item.n,
        score: item.sum / item.n,
        errors: item.errors,
        cached: item.cached,
        problem: item.problem,
      },
    ];
  });
}
