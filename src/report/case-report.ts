import { type CaseTally, type ItemTally, meanItemScore, type TokenTotals } from "./case-tally.js";

/** What produced the outputs: a model behind an endpoint, or a command. */
export type TargetInfo =
  | { kind: "model"; model: string; api_base: string }
  | { kind: "command"; command: string };

/** The interval fields of `stats`; null until an interval is computed. */
export interface IntervalFields {
  ci_low: number | null;
  ci_high: number | null;
  ci_level: number | null;
  ci_method: string | null;
}

/** `report.json` → `stats`, the object every kind of run carries (DESIGN.md). */
export interface CaseStats extends IntervalFields {
  items: number;
  samples: number;
  /** Mean of item scores, an item's score being the mean of its samples' scores. */
  pass_rate: number | null;
  /** Items whose score is strictly between 0 and 1. */
  flaky: number;
  /** Samples with status "error" (they also score 0). */
  errors: number;
  /** Samples answered from the cache. */
  cached: number;
}

export interface StratumSummary {
  items: number;
  samples: number;
  pass_rate: number | null;
}

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
  /** cases × k; more than stats.samples when the run was interrupted. */
  samples_planned: number;
  stats: CaseStats;
  pass_threshold: number | null;
  /** null when there is no threshold. */
  meets_threshold: boolean | null;
  /** Completed, no error sample, and the threshold (if any) met. */
  run_passed: boolean;
  failures_by_grader: Record<string, number>;
  strata: Record<string, StratumSummary>;
  tokens: TokenTotals;
  /** Set when some samples came from the cache: their `ms` is the original call's. */
  latency_note: string | null;
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
  | "pass_threshold"
>;

export const NO_INTERVAL: IntervalFields = {
  ci_low: null,
  ci_high: null,
  ci_level: null,
  ci_method: null,
};

/**
 * The pass-rate interval of `stats`. src/stats owns intervals (the item aggregates below are its
 * `ItemAgg` shape: id, sum, n, stratum); until it is wired in here, the bounds stay null.
 */
export function passRateIntervalFields(_items: readonly ItemTally[]): IntervalFields {
  return NO_INTERVAL;
}

export function buildCaseReport(tally: CaseTally, meta: CaseReportMeta): CaseReport {
  const items = tally.ranItems();
  const stats = caseStats(tally, items);
  const meets = meta.pass_threshold === null ? null : (stats.pass_rate ?? 0) >= meta.pass_threshold;
  return {
    schema_version: 1,
    kind: "cases",
    ...meta,
    model_versions: meta.target.kind === "model" ? [...tally.modelVersions].sort() : [],
    samples_planned: tally.items.size * meta.k,
    stats,
    meets_threshold: meets,
    run_passed: !meta.interrupted && stats.errors === 0 && meets !== false && items.length > 0,
    failures_by_grader: Object.fromEntries(
      [...tally.failuresByGrader].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
    ),
    strata: strataOf(items),
    tokens: { ...tally.tokens },
    latency_note:
      tally.cached > 0
        ? "cached samples carry the latency (ms) of the call that filled the cache"
        : null,
    items: items.map(itemSummary),
  };
}

function caseStats(tally: CaseTally, items: readonly ItemTally[]): CaseStats {
  return {
    items: items.length,
    samples: tally.samples,
    pass_rate: meanItemScore(items),
    ...passRateIntervalFields(items),
    flaky: items.filter((item) => item.sum > 0 && item.sum < item.n).length,
    errors: tally.errors,
    cached: tally.cached,
  };
}

function strataOf(items: readonly ItemTally[]): Record<string, StratumSummary> {
  const groups = new Map<string, ItemTally[]>();
  for (const item of items) {
    const group = groups.get(item.stratum);
    if (group) group.push(item);
    else groups.set(item.stratum, [item]);
  }
  const sorted = [...groups].sort((a, b) => a[0].localeCompare(b[0]));
  return Object.fromEntries(
    sorted.map(([stratum, group]) => [
      stratum,
      {
        items: group.length,
        samples: group.reduce((sum, item) => sum + item.n, 0),
        pass_rate: meanItemScore(group),
      },
    ]),
  );
}

function itemSummary(item: ItemTally): ItemSummary {
  return {
    id: item.id,
    stratum: item.stratum,
    samples: item.n,
    score: item.sum / item.n,
    errors: item.errors,
    cached: item.cached,
    problem: item.problem,
  };
}
