/**
 * Percentile bootstrap of a mean, the article's reference method, made fast.
 *
 * Resampling n values with replacement only decides how many times each distinct value is drawn:
 * that is one multinomial draw over the distinct values. Item scores take at most k+1 values and
 * paired differences a handful, so a resample costs O(distinct values) instead of O(n), and the
 * result has exactly the distribution of the naive method.
 */

import { multinomial } from "./distributions.js";
import { createRng } from "./rng.js";
import type { Interval } from "./types.js";

export interface BootstrapOptions {
  /** Number of resamples; 10,000 as in the article. */
  resamples?: number;
  /** PRNG seed; 0 so that the same rows always print the same interval. */
  seed?: number;
  level?: number;
}

export interface DistinctValues {
  values: Float64Array;
  counts: Float64Array;
}

/** Distinct values in ascending order with their counts; the order makes results independent
 * of the order of the input rows. */
export function distinctValues(values: ArrayLike<number>): DistinctValues {
  const counts = new Map<number, number>();
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  const keys = [...counts.keys()].sort((a, b) => a - b);
  return {
    values: Float64Array.from(keys),
    counts: Float64Array.from(keys, (key) => counts.get(key)!),
  };
}

/** Index into sorted resample means, as the article computes it: floor(q·R), and
 * floor((1−q)·R) − 1 for the upper end. The epsilon keeps 0.975·10000 from flooring to 9749. */
export function percentileIndices(resamples: number, level: number): [number, number] {
  const tail = (1 - level) / 2;
  const low = Math.floor(tail * resamples + 1e-9);
  const high = Math.floor((1 - tail) * resamples + 1e-9) - 1;
  const clamp = (i: number) => Math.min(resamples - 1, Math.max(0, i));
  return [clamp(low), clamp(high)];
}

function checkOptions(resamples: number, level: number): void {
  if (!Number.isInteger(resamples) || resamples < 1) {
    throw new RangeError(`resamples must be a positive integer, got ${resamples}`);
  }
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be in (0, 1), got ${level}`);
}

function weightedMean({ values, counts }: DistinctValues, n: number): number {
  let sum = 0;
  for (let j = 0; j < values.length; j++) sum += counts[j]! * values[j]!;
  return sum / n;
}

/** Sorted means of `resamples` bootstrap resamples, drawn as multinomials over distinct values. */
export function bootstrapMeans(values: ArrayLike<number>, resamples: number, seed: number) {
  return resampleMeans(distinctValues(values), values.length, resamples, seed);
}

function resampleMeans(
  { values: distinct, counts }: DistinctValues,
  n: number,
  resamples: number,
  seed: number,
): Float64Array {
  const rng = createRng(seed);
  const draw = new Float64Array(distinct.length);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    multinomial(rng, n, counts, draw);
    let sum = 0;
    for (let j = 0; j < distinct.length; j++) sum += draw[j]! * distinct[j]!;
    means[r] = sum / n;
  }
  return means.sort();
}

/** 95% (by default) percentile bootstrap interval of the mean of `values`; NaN when empty. */
export function bootstrapMeanInterval(
  values: ArrayLike<number>,
  opts: BootstrapOptions = {},
): Interval {
  const resamples = opts.resamples ?? 10_000;
  const level = opts.level ?? 0.95;
  checkOptions(resamples, level);
  const nan = Number.NaN;
  if (values.length === 0) {
    return { estimate: nan, low: nan, high: nan, level, method: "bootstrap" };
  }
  // Everything, the estimate included, comes from the sorted distinct values, so the same rows
  // in any order print the same numbers.
  const distinct = distinctValues(values);
  const means = resampleMeans(distinct, values.length, resamples, opts.seed ?? 0);
  const [lowIndex, highIndex] = percentileIndices(resamples, level);
  return {
    estimate: weightedMean(distinct, values.length),
    low: means[lowIndex]!,
    high: means[highIndex]!,
    level,
    method: "bootstrap",
  };
}
