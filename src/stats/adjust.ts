/**
 * Many strata, many chances to miss: ten 95% intervals miss at least once in about 40% of runs
 * (22% for ten strata of 20 items, whose intervals are conservative). Bonferroni widens each to
 * level 1 − (1 − level)/m, so that all m hold together at the run's level; Holm's step-down
 * gives the same intervals (it sharpens tests, not intervals), so the one adjustment offered is
 * Bonferroni's.
 */

export const ADJUSTMENTS = ["none", "bonferroni"] as const;
export type Adjustment = (typeof ADJUSTMENTS)[number];

/** The level of each of `groups` intervals. */
export function adjustedLevel(level: number, groups: number, adjust: Adjustment): number {
  if (adjust === "none" || groups <= 1) return level;
  return 1 - (1 - level) / groups;
}
