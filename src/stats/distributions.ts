/**
 * The few distribution functions the statistics need: the normal quantile and an exact binomial
 * sampler. Hand-written because the project keeps its dependency list short (DESIGN.md).
 */

import type { Rng } from "./rng.js";

// Acklam's rational approximation of the normal quantile; relative error below 1.2e-9, far
// finer than any interval we print.
const A = [
  -3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2,
  -3.066479806614716e1, 2.506628277459239,
];
const B = [
  -5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1,
  -1.328068155288572e1,
];
const C = [
  -7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734,
  4.374664141464968, 2.938163982698783,
];
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
const P_LOW = 0.02425;

function poly(coefficients: readonly number[], x: number): number {
  let acc = 0;
  for (const c of coefficients) acc = acc * x + c;
  return acc;
}

function lowerTail(p: number): number {
  const q = Math.sqrt(-2 * Math.log(p));
  return poly(C, q) / (poly(D, q) * q + 1);
}

/** Φ⁻¹(p): the z with P(Z ≤ z) = p for a standard normal Z. */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) {
    if (p === 0) return Number.NEGATIVE_INFINITY;
    if (p === 1) return Number.POSITIVE_INFINITY;
    return Number.NaN;
  }
  if (p < P_LOW) return lowerTail(p);
  if (p > 1 - P_LOW) return -lowerTail(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (poly(A, r) * q) / (poly(B, r) * r + 1);
}

// erfc(x)·exp(x²) fit from Numerical Recipes (erfcc), relative error below 1.2e-7.
const ERFC_FIT = [
  0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196,
  1.00002368, -1.26551223,
];

/** Φ(z) = P(Z ≤ z) for a standard normal Z. */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  const fit = ERFC_FIT.reduce((acc, c) => acc * t + c, 0);
  const erfc = t * Math.exp(-x * x + fit);
  return z >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/** log P(X = x) for X ~ Binomial(n, q), whole n and x with 0 ≤ x ≤ n. */
export function binomialLogPmf(x: number, n: number, q: number): number {
  if (q <= 0) return x === 0 ? 0 : Number.NEGATIVE_INFINITY;
  if (q >= 1) return x === n ? 0 : Number.NEGATIVE_INFINITY;
  const choose = logFactorial(n) - logFactorial(x) - logFactorial(n - x);
  return choose + x * Math.log(q) + (n - x) * Math.log1p(-q);
}

/** Two-sided critical value: z such that P(|Z| ≤ z) = level. */
export function twoSidedZ(level: number): number {
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be in (0, 1), got ${level}`);
  return normalQuantile(0.5 + level / 2);
}

const LOG_FACTORIAL_TABLE = ((): Float64Array => {
  const table = new Float64Array(256);
  for (let k = 2; k < table.length; k++) table[k] = table[k - 1]! + Math.log(k);
  return table;
})();
const HALF_LOG_TWO_PI = 0.5 * Math.log(2 * Math.PI);

/** log(k!) for integer k ≥ 0; exact sums below 256, Stirling's series (error < 1e-15) above. */
export function logFactorial(k: number): number {
  if (k < LOG_FACTORIAL_TABLE.length) return LOG_FACTORIAL_TABLE[k]!;
  const x = k + 1;
  const x2 = x * x;
  return (x - 0.5) * Math.log(x) - x + HALF_LOG_TWO_PI + (1 / 12 - 1 / (360 * x2)) / x;
}

/**
 * Sequential inversion: walk the cumulative distribution from 0. Exact; expected n·p + 1 steps,
 * so it is used only while n·p < 10.
 */
function binomialInversion(rng: Rng, n: number, p: number): number {
  const ratio = p / (1 - p);
  const scaled = (n + 1) * ratio;
  const first = Math.exp(n * Math.log1p(-p));
  for (;;) {
    let u = rng.uniform();
    let mass = first;
    let x = 0;
    while (u > mass && x <= n) {
      u -= mass;
      x += 1;
      mass *= scaled / x - ratio;
    }
    // Rounding can exhaust the mass past n (probability ~1e-16); drawing again keeps it exact.
    if (x <= n) return x;
  }
}

/**
 * BTRS, Hörmann (1993) "The generation of binomial random variates": transformed rejection with
 * a squeeze. Exact (a rejection method, no approximation), O(1) expected uniforms for any n.
 * Requires p ≤ 0.5 and n·p ≥ 10.
 */
function binomialBtrs(rng: Rng, n: number, p: number): number {
  const spq = Math.sqrt(n * p * (1 - p));
  const b = 1.15 + 2.53 * spq;
  const a = -0.0873 + 0.0248 * b + 0.01 * p;
  const c = n * p + 0.5;
  const vr = 0.92 - 4.2 / b;
  const alpha = (2.83 + 5.1 / b) * spq;
  const lpq = Math.log(p / (1 - p));
  const m = Math.floor((n + 1) * p);
  const h = logFactorial(m) + logFactorial(n - m);
  for (;;) {
    const u = rng.uniform() - 0.5;
    const v = rng.uniform();
    const us = 0.5 - Math.abs(u);
    const k = Math.floor(((2 * a) / us + b) * u + c);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || k > n) continue;
    const logV = Math.log((v * alpha) / (a / (us * us) + b));
    if (logV <= h - logFactorial(k) - logFactorial(n - k) + (k - m) * lpq) return k;
  }
}

/** One draw from Binomial(n, p), exact for every n and p. */
export function binomial(rng: Rng, n: number, p: number): number {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  if (p > 0.5) return n - binomial(rng, n, 1 - p);
  return n * p < 10 ? binomialInversion(rng, n, p) : binomialBtrs(rng, n, p);
}

/**
 * One multinomial draw of `trials` over categories with the given weights, as a chain of
 * conditional binomials: O(categories), whatever the number of trials.
 */
export function multinomial(
  rng: Rng,
  trials: number,
  weights: ArrayLike<number>,
  out: Int32Array | Float64Array,
): void {
  let total = 0;
  for (let j = 0; j < weights.length; j++) total += weights[j]!;
  let left = trials;
  for (let j = 0; j < weights.length; j++) {
    const w = weights[j]!;
    const draw = j === weights.length - 1 ? left : binomial(rng, left, Math.min(1, w / total));
    out[j] = draw;
    left -= draw;
    total -= w;
  }
}

/**
 * One draw of how many of `draws` items taken without replacement from `total`, `marked` of them
 * marked, are marked (hypergeometric). Exact: inversion that starts at the mode and steps down
 * and up alternately by the ratio of neighbouring probabilities, about one standard deviation of
 * steps on average, however large the total.
 */
export function hypergeometric(rng: Rng, total: number, marked: number, draws: number): number {
  const low = Math.max(0, draws - (total - marked));
  const high = Math.min(draws, marked);
  if (low >= high) return low;
  const logChoose = (n: number, k: number) =>
    logFactorial(n) - logFactorial(k) - logFactorial(n - k);
  const mode = Math.min(
    high,
    Math.max(low, Math.floor(((draws + 1) * (marked + 1)) / (total + 2))),
  );
  const atMode = Math.exp(
    logChoose(marked, mode) + logChoose(total - marked, draws - mode) - logChoose(total, draws),
  );
  // P(k + 1) / P(k) and P(k − 1) / P(k).
  const up = (k: number) =>
    ((marked - k) * (draws - k)) / ((k + 1) * (total - marked - draws + k + 1));
  const down = (k: number) =>
    (k * (total - marked - draws + k)) / ((marked - k + 1) * (draws - k + 1));
  let u = rng.uniform() - atMode;
  let [below, above] = [mode, mode];
  let [pBelow, pAbove] = [atMode, atMode];
  while (u > 0 && (below > low || above < high)) {
    if (below > low) {
      pBelow *= down(below);
      below -= 1;
      u -= pBelow;
      if (u <= 0) return below;
    }
    if (above < high) {
      pAbove *= up(above);
      above += 1;
      u -= pAbove;
      if (u <= 0) return above;
    }
  }
  // Rounding left a sliver of probability unassigned: the mode takes it.
  return mode;
}
