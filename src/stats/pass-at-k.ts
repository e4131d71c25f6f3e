/**
 * pass@k and pass^k, the numbers agent teams quote: the chance that at least one of k tries
 * passes, and that all k pass. Unbiased estimators from n samples with c passes per item (Chen et
 * al. 2021 for pass@k; its mirror for pass^k), averaged over items, each item counting once.
 */

import { clopperPearsonBounds, type ItemAgg } from "./interval.js";

export interface KInterval {
  k: number;
  estimate: number;
  low: number;
  high: number;
  level: number;
}

/** C(n − c, k) / C(n, k): the chance that k of the n samples, drawn without replacement, all fail. */
function allFail(n: number, c: number, k: number): number {
  if (n - c < k) return 0;
  let chance = 1;
  for (let i = 0; i < k; i++) chance *= (n - c - i) / (n - i);
  return chance;
}

export function passAtKOfItem(n: number, c: number, k: number): number {
  return 1 - allFail(n, c, k);
}

/** C(c, k) / C(n, k): the chance that k of the n samples all pass. */
export function passHatKOfItem(n: number, c: number, k: number): number {
  return allFail(n, n - c, k);
}

/**
 * The item mean of an estimator, with the Clopper–Pearson interval over items: each item is one
 * value in [0, 1] whose variance is at most mean·(1 − mean), so counting items as trials is
 * exact when k is every item's number of samples (the values are then 0 or 1) and conservative
 * below it. Null below two samples per item, where both numbers are the pass rate, and when a
 * score is not 0 or 1 (a count of passes is what both are defined on).
 */
function itemMean(
  items: readonly ItemAgg[],
  level: number,
  estimator: (n: number, c: number, k: number) => number,
): KInterval | null {
  if (items.length === 0) return null;
  // A loop, not Math.min(...items): a spread of 200,000 items overflows the call stack.
  const k = items.reduce((least, item) => Math.min(least, item.n), Number.POSITIVE_INFINITY);
  if (k < 2 || items.some((item) => !Number.isInteger(item.sum))) return null;
  let sum = 0;
  for (const item of items) sum += estimator(item.n, item.sum, k);
  const estimate = sum / items.length;
  const [low, high] = clopperPearsonBounds(estimate, items.length, level);
  return { k, estimate, low, high, level };
}

/** pass@k with k the smallest number of samples any item has. */
export function passAtK(items: readonly ItemAgg[], level = 0.95): KInterval | null {
  return itemMean(items, level, passAtKOfItem);
}

/** pass^k with k the smallest number of samples any item has. */
export function passHatK(items: readonly ItemAgg[], level = 0.95): KInterval | null {
  return itemMean(items, level, passHatKOfItem);
}
