import { coverageOf } from "../report/coverage.js";
import { applyGate } from "../report/gate.js";
import type { RowTally } from "../report/row-tally.js";
import {
  type RunStats,
  type RunSummary,
  type SummaryOptions,
  summarize,
} from "../report/run-summary.js";
import type { CaseConcurrency, TargetInfo } from "../run/record.js";
import type { CaseTally } from "./tally.js";

export interface ItemSummary {
  id: string;
  stratum: string;
  samples: number;
  score: number;
  errors: number;
  cached: number;
  problem: string | null;
}

/** `report.json` of `eb eval`. */
export interface CaseReport {
  schema_version: 1;
  kind: "cases";
  run_id: string;
  project_root: string;
  output_dir: string;
  cases_file: string;
  cases_sha256: string;
  target: TargetInfo;
  judge_model: string | null;
  /** Distinct model version strings the endpoint returned for the target (model targets). */
  model_versions: string[];
  judge_model_versions: string[];
  k: number;
  temperature: number | null;
  max_tokens: number | null;
  started_at: string;
  completed_at: string;
  duration_ms: number;
  interrupted: boolean;
  /** Calls in flight to each model over the run's last attempt. */
  concurrency: CaseConcurrency;
  /** `--max-cost` and what the run spent (estimated from [pricing]); null: no cap. */
  budget: { max_cost: number; spent: number } | null;
  /** Samples were left unrun because they would have passed the cap (`--resume` finishes them). */
  budget_exceeded: boolean;
  /** cases, cases never run, cases × k: an interrupted run's stats are over what ran. */
  items_planned: number;
  items_not_run: number;
  samples_planned: number;
  stats: RunStats;
  /** Flaky items, failures per grader, strata, latency, tokens and cost (eb report's view). */
  summary: Omit<RunSummary, "stats">;
  /** Minimum share of samples that must pass (1 unless set). */
  pass_threshold: number;
  meets_threshold: boolean;
  /** Completed, no error sample, and the threshold met (the gate of src/report/gate.ts). */
  run_passed: boolean;
  items: ItemSummary[];
}

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
