/**
 * `wilson-cc`: continuity-corrected Wilson score interval on the effective number of trials
 * (design effect, see effectiveTrials). `bootstrap`: the article's 95% percentile bootstrap over
 * item scores, kept as the reference method; it undercovers for small n or rates near 0 or 1
 * (20 of 20 passing gives [1, 1]).
 */
export type IntervalMethod = "wilson-cc" | "bootstrap";

/** An interval of a pass rate or of a paired delta. Bounds are NaN when there are no items. */
export interface Interval {
  estimate: number;
  low: number;
  high: number;
  level: number;
  method: IntervalMethod;
}
