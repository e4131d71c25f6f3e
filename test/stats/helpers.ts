/** Shared test fixtures for the statistics tests. */

import type { ItemAgg } from "../../src/stats/interval.js";
import type { Rng } from "../../src/stats/rng.js";

/** Items with the given (sum, n) pairs, ids item-000, item-001, … */
export function items(pairs: readonly (readonly [number, number])[], stratum?: string): ItemAgg[] {
  return pairs.map(([sum, n], i) => ({
    id: `item-${String(i).padStart(3, "0")}`,
    sum,
    n,
    ...(stratum === undefined ? {} : { stratum }),
  }));
}

export function byId(list: readonly ItemAgg[]): Map<string, ItemAgg> {
  return new Map(list.map((item) => [item.id, item]));
}

/** n items with k samples each; item i passes `passes(i)` of its samples. */
export function uniformItems(n: number, k: number, passes: (i: number) => number): ItemAgg[] {
  return items(Array.from({ length: n }, (_, i) => [passes(i), k] as const));
}

/** The article's bootstrap, literally: resample n values with replacement, sort the means. */
export function naiveBootstrapMeans(values: readonly number[], resamples: number, rng: Rng) {
  const n = values.length;
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[Math.floor(rng.uniform() * n)]!;
    means[r] = sum / n;
  }
  return means.sort();
}
