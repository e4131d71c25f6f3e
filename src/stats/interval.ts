/**
 * Pass-rate intervals over items.
 *
 * The item is the independent unit (DESIGN.md): an item's score is the mean of its samples'
 * scores and the pass rate is the mean of item scores. The target of an interval is the pass rate
 * of the population the items were drawn from, so both the spread between items and the noise of
 * each item's k samples count.
 */

import { betaQuantile } from "./beta.js";
import { bootstrapMeanInterval } from "./bootstrap.js";
import { twoSidedZ } from "./distributions.js";
import type { Interval, IntervalMethod } from "./types.js";

/** Per-item aggregate of a run: `sum` of the sample scores (each 0 or 1) over `n` samples. */
export interface ItemAgg {
  id: string;
  sum: number;
  n: number;
  stratum?: string;
}

/**
 * Chosen by measurement (bench/coverage: 560 cells of items, samples, rates and item spread):
 * covers the true rate in at least 93% of runs in every cell, is exact (Clopper–Pearson) at
 * k = 1, and within 10% of the cluster-robust interval's width where that one is valid.
 */
export const DEFAULT_INTERVAL_METHOD: IntervalMethod = "clopper-pearson";

export interface IntervalOptions {
  level?: number;
  /** Bootstrap only. */
  resamples?: number;
  /** Bootstrap only. */
  seed?: number;
}

/** Mean score of one item's samples; rejects aggregates no row stream can produce. */
export function itemScore(item: ItemAgg): number {
  if (!(item.n > 0) || !(item.sum >= 0 && item.sum <= item.n)) {
    throw new RangeError(`item ${item.id}: need n > 0 and 0 ≤ sum ≤ n, got ${item.sum}/${item.n}`);
  }
  return item.sum / item.n;
}

export function itemScores(items: readonly ItemAgg[]): Float64Array {
  const scores = new Float64Array(items.length);
  for (let i = 0; i < items.length; i++) scores[i] = itemScore(items[i]!);
  return scores;
}

/** Ids of items whose score lies strictly between 0 and 1: they passed some samples only. */
export function flakyItems(items: readonly ItemAgg[]): string[] {
  return items.filter((item) => item.sum > 0 && item.sum < item.n).map((item) => item.id);
}

export function mean(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  return values.length > 0 ? sum / values.length : Number.NaN;
}

export function sampleVariance(values: ArrayLike<number>, center: number): number {
  if (values.length < 2) return Number.NaN;
  let ss = 0;
  for (let i = 0; i < values.length; i++) ss += (values[i]! - center) ** 2;
  return ss / (values.length - 1);
}

/**
 * Evidence, counted in flaky items, that the prior "items are all-or-nothing" carries. Chosen by
 * measurement (bench/coverage): 0.5 keeps coverage at 93% or more in every cell and the width
 * within 10% of the cluster-robust interval's (n ≥ 100, rate ≤ 0.9); 1 is 10% wider there.
 */
const PRIOR_FLAKY_ITEMS = 0.5;

/**
 * How many independent Bernoulli trials the items are worth: p(1−p) / Var(mean).
 *
 * For scores in [0, 1] the item variance never exceeds p(1−p), so the items are worth at least
 * `n` trials; and k samples of one item are worth at most k trials (no correlation), so at most
 * n² / Σ(1/kᵢ) (= n·k when every item has k samples). Between those bounds, the spread of item
 * scores says how much of the noise is within items, but only flaky items (some samples pass,
 * some fail) show it: one flaky item among a hundred that always pass would otherwise count as
 * n·k trials and put the lower bound far above a rate that items failing outright could have.
 * So the observed variance is shrunk toward the all-or-nothing variance p(1−p)·n/(n−1), weighted
 * by the number of flaky items against PRIOR_FLAKY_ITEMS.
 */
export function effectiveTrials(scores: ArrayLike<number>, samplesPerItem: ArrayLike<number>) {
  const n = scores.length;
  const p = mean(scores);
  let inverseSum = 0;
  let flaky = 0;
  for (let i = 0; i < n; i++) {
    inverseSum += 1 / samplesPerItem[i]!;
    if (scores[i]! > 0 && scores[i]! < 1) flaky += 1;
  }
  const most = (n * n) / inverseSum;
  const pq = p * (1 - p);
  if (n < 2 || pq === 0) return n;
  const allOrNothing = (pq * n) / (n - 1);
  const variance =
    (flaky * sampleVariance(scores, p) + PRIOR_FLAKY_ITEMS * allOrNothing) /
    (flaky + PRIOR_FLAKY_ITEMS);
  return Math.min(most, Math.max(n, (pq * n) / variance));
}

/** Wilson score interval for a proportion p observed over `trials` (possibly fractional). */
export function wilsonBounds(p: number, trials: number, level: number): [number, number] {
  const z = twoSidedZ(level);
  const z2n = (z * z) / trials;
  const center = (p + z2n / 2) / (1 + z2n);
  const half = (z / (1 + z2n)) * Math.sqrt((p * (1 - p)) / trials + z2n / (4 * trials));
  return [Math.max(0, center - half), Math.min(1, center + half)];
}

/**
 * Clopper–Pearson ("exact") interval for p·trials successes in `trials` trials, through the beta
 * quantiles, so fractional (effective) trials work too. Covers at least the level for every rate
 * at whole trials; unlike Wilson with continuity correction (18–22% wider at k = 1), it gives
 * nothing away where no correction is needed.
 */
export function clopperPearsonBounds(p: number, trials: number, level: number): [number, number] {
  return [clopperPearsonLow(p, trials, level), clopperPearsonHigh(p, trials, level)];
}

export function clopperPearsonLow(p: number, trials: number, level: number): number {
  const successes = p * trials;
  return p <= 0 ? 0 : betaQuantile((1 - level) / 2, successes, trials - successes + 1);
}

export function clopperPearsonHigh(p: number, trials: number, level: number): number {
  const successes = p * trials;
  return p >= 1 ? 1 : betaQuantile((1 + level) / 2, successes + 1, trials - successes);
}

function emptyInterval(method: IntervalMethod, level: number): Interval {
  return { estimate: Number.NaN, low: Number.NaN, high: Number.NaN, level, method };
}

/** Clopper–Pearson on the effective number of trials of the item scores. */
function designEffectPassRate(items: readonly ItemAgg[], level: number): Interval {
  const scores = itemScores(items);
  const estimate = mean(scores);
  const trials = effectiveTrials(
    scores,
    items.map((item) => item.n),
  );
  const [low, high] = clopperPearsonBounds(estimate, trials, level);
  return { estimate, low, high, level, method: "clopper-pearson" };
}

/**
 * Interval of the pass rate (mean item score). With no items every field but `level` and
 * `method` is NaN (null in JSON): there is nothing to estimate, and a number would be a lie.
 */
export function passRateInterval(
  items: readonly ItemAgg[],
  method: IntervalMethod = DEFAULT_INTERVAL_METHOD,
  opts: IntervalOptions = {},
): Interval {
  const level = opts.level ?? 0.95;
  if (items.length === 0) return emptyInterval(method, level);
  if (method === "clopper-pearson") return designEffectPassRate(items, level);
  const interval = bootstrapMeanInterval(itemScores(items), { ...opts, level });
  return { ...interval, method: "bootstrap" };
}

export interface StratumInterval extends Interval {
  stratum: string;
  items: number;
}

/** One interval per stratum (items without a stratum are grouped under ""), sorted by name. */
export function passRateByStratum(
  items: readonly ItemAgg[],
  method: IntervalMethod = DEFAULT_INTERVAL_METHOD,
  opts: IntervalOptions = {},
): StratumInterval[] {
  const groups = groupBy(items, (item) => item.stratum ?? "");
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([stratum, group]) => ({
      ...passRateInterval(group, method, opts),
      stratum,
      items: group.length,
    }));
}

export function groupBy<T>(values: readonly T[], key: (value: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const value of values) {
    const name = key(value);
    const group = groups.get(name);
    if (group) group.push(value);
    else groups.set(name, [value]);
  }
  return groups;
}
