/**
 * `clopper-pearson`: the exact binomial interval on the effective number of trials (design
 * effect, see effectiveTrials; exactly Clopper–Pearson when every item has one sample). `bootstrap`: the article's 95% percentile bootstrap over
 * item scores, kept as the reference method; it undercovers for small n or rates near 0 or 1
 * (20 of 20 passing gives [1, 1]).
 */
export const INTERVAL_METHODS = ["clopper-pearson", "bootstrap"] as const;
export type IntervalMethod = (typeof INTERVAL_METHODS)[number];

/** An interval of a pass rate or of a paired delta. Bounds are NaN when there are no items. */
export interface Interval {
  estimate: number;
  low: number;
  high: number;
  level: number;
  method: IntervalMethod;
}

/**
 * Which question the gate answers. `cases`: is the candidate worse on these cases (the cases
 * fixed; the noise is only which answers the samples got, so more samples narrow it). `population`:
 * is it worse on cases like these (the cases a sample of a larger population; more cases narrow it).
 */
export const SCOPES = ["cases", "population"] as const;
export type Scope = (typeof SCOPES)[number];
export const DEFAULT_SCOPE: Scope = "cases";
