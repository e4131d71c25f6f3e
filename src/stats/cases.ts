/**
 * The gate's default question: is the candidate worse *on these cases*?
 *
 * The cases are fixed (the suite is the specification, as a test suite is); what varies from run
 * to run is only which answers each case's samples happened to get. Each side's target is the
 * mean over the cases of each case's own pass chance, and its only noise is the binomial noise of
 * each case's k samples, which more samples reduce. Given the cases, the two runs' samples are
 * independent, so the sides are combined as independent (no correlation between the runs).
 */

import { twoSidedZ } from "./distributions.js";

/** One run's samples of the cases: passes and samples per case, in the same order as the other's. */
export interface CaseCounts {
  passes: ArrayLike<number>;
  samples: ArrayLike<number>;
}

/**
 * The pass chance at which case (s passes of k) is likeliest, given that every case's chance is
 * pulled by the same multiplier θ (the constrained maximum-likelihood rates of a score test; θ = 0
 * gives s/k, θ > 0 pulls down, θ < 0 up). The root in [0, 1] of θp² − (θ + k)p + s = 0.
 */
function constrainedRate(s: number, k: number, theta: number): number {
  if (theta === 0) return s / k;
  const b = theta + k;
  const root = Math.sqrt(b * b - 4 * theta * s);
  // The same root, written without cancellation on either side of 0.
  const p = b > 0 ? (2 * s) / (b + root) : (b - root) / (2 * theta);
  return Math.min(1, Math.max(0, p));
}

/** The cases grouped by (passes, samples): a suite of k samples per case has k + 1 groups. */
export interface Groups {
  passes: number[];
  samples: number[];
  cases: number[];
  n: number;
}

export function grouped(c: CaseCounts): Groups {
  const index = new Map<number | string, number>();
  const groups: Groups = { passes: [], samples: [], cases: [], n: c.passes.length };
  for (let i = 0; i < c.passes.length; i++) {
    const [s, k] = [c.passes[i]!, c.samples[i]!];
    // A number for whole counts (every run's), a string for the fractional ones of scaled runs.
    const key =
      Number.isInteger(s) && Number.isInteger(k) && k < 2 ** 20 ? s * 2 ** 20 + k : `${s}/${k}`;
    const known = index.get(key);
    if (known !== undefined) {
      groups.cases[known]! += 1;
      continue;
    }
    index.set(key, groups.cases.length);
    groups.passes.push(c.passes[i]!);
    groups.samples.push(c.samples[i]!);
    groups.cases.push(1);
  }
  return groups;
}

export function groupMean(g: Groups): number {
  let sum = 0;
  // The same arithmetic as constrainedMoments at θ = 0 (each case's s/k), without the variance.
  for (let j = 0; j < g.cases.length; j++) sum += g.cases[j]! * (g.passes[j]! / g.samples[j]!);
  return sum / g.n;
}

/** Mean constrained rate and the variance of the mean under it (k/(k − 1): unbiased, as MN's). */
function constrainedMoments(g: Groups, theta: number): { mean: number; variance: number } {
  let sum = 0;
  let variance = 0;
  for (let j = 0; j < g.cases.length; j++) {
    const k = g.samples[j]!;
    const p = constrainedRate(g.passes[j]!, k, theta);
    sum += g.cases[j]! * p;
    variance += (g.cases[j]! * p * (1 - p)) / (k - 1);
  }
  return { mean: sum / g.n, variance: variance / (g.n * g.n) };
}

/** Bisection steps on the multiplier: u to within 1e-12, the bound far closer than shown. */
const BISECTIONS = 40;

/**
 * One side's score bound on the mean pass chance of its cases (Miettinen & Nurminen 1985, with
 * every case its own stratum): the furthest mean m, below the observed (`side` −1) or above it
 * (+1), that the score test does not reject: |m̂ − m| − c ≤ z·√V(m), V(m) the variance of the
 * mean when each case's chance is the likeliest one that gives the mean m, and c half a sample's
 * weight in the mean (Yates's continuity correction: without it a drop of the margin on cases
 * at 99% with 3 samples each passed up to 4.1% of the time in bench/coverage, 2.9% with it). A
 * case that always passed has no variance at the observed rates, but does under a lower mean: it
 * is where a drop could hide unseen, so a run that saw only passes still bounds the mean below 1
 * by about z²/((k − 1)·n), as Wilson's interval bounds a proportion by z²/trials.
 */
export function caseMeanBound(counts: CaseCounts, level: number, side: -1 | 1): number {
  return groupBound(grouped(counts), level, side);
}

export function groupBound(c: Groups, level: number, side: -1 | 1): number {
  const z = twoSidedZ(level);
  const observed = groupMean(c);
  if ((side < 0 && observed <= 0) || (side > 0 && observed >= 1)) return observed;
  let total = 0;
  for (let j = 0; j < c.cases.length; j++) total += c.samples[j]! * c.cases[j]!;
  // θ runs over (0, ∞) below the observed mean and (−∞, 0) above; u ∈ (0, 1) maps onto it.
  const thetaOf = (u: number) => (side * -total * u) / (1 - u);
  // Half a sample: the continuity correction (Yates), as the passes are whole counts.
  const correction = 0.5 / total;
  return scoreBound(observed, correction, z, (u) => {
    const { mean, variance } = constrainedMoments(c, thetaOf(u));
    return [mean, variance];
  });
}

/**
 * The end of a score interval: `at(u)` is the value tested at u ∈ [0, 1) (u = 0 the observed,
 * further out as u grows) and its variance there; the furthest value whose test does not reject,
 * |observed − value| − correction ≤ z·√variance, found by bisection on u.
 */
function scoreBound(
  observed: number,
  correction: number,
  z: number,
  at: (u: number) => [number, number],
): number {
  const outside = (u: number) => {
    const [value, variance] = at(u);
    return Math.abs(observed - value) - correction > z * Math.sqrt(variance);
  };
  let low = 0;
  let high = 1;
  for (let step = 0; step < BISECTIONS; step++) {
    const middle = (low + high) / 2;
    if (outside(middle)) high = middle;
    else low = middle;
  }
  return at(low)[0];
}

/**
 * One end of candidate − baseline on these cases by Newcombe's method 10 (1998): each side's
 * score bound, combined as for two independent proportions (the square root of the sums of
 * each side's squared distance to its bound). `baseEnd` is the baseline's own bound on the other
 * side, groupBound(b, level, −side), when already known.
 */
function newcombeBound(
  b: Groups,
  c: Groups,
  level: number,
  side: -1 | 1,
  baseEnd = groupBound(b, level, -side as -1 | 1),
): number {
  const [mb, mc] = [groupMean(b), groupMean(c)];
  return mc - mb + side * Math.hypot(groupBound(c, level, side) - mc, mb - baseEnd);
}

/** One side's mean, its variance within the cases, and what a shift of its mean adds to that. */
interface SideMoments {
  mean: number;
  /** The variance of the mean within the cases, without bias: Σ s(k − s)/(k²(k − 1)) / n². */
  within: number;
  /** Σ (1/k) / n²: the mean of binomials of one chance m has variance m(1 − m) times this. */
  scale: number;
}

function sideMoments(g: Groups): SideMoments {
  let [within, scale] = [0, 0];
  for (let j = 0; j < g.cases.length; j++) {
    const [s, k, cases] = [g.passes[j]!, g.samples[j]!, g.cases[j]!];
    within += (cases * s * (k - s)) / (k * k * (k - 1));
    scale += cases / k;
  }
  const n2 = g.n * g.n;
  return { mean: groupMean(g), within: within / n2, scale: scale / n2 };
}

/**
 * One end of candidate − baseline on these cases by a score test of the difference of the two
 * means (Miettinen & Nurminen 1985) whose variance keeps the cases' spread: Δ is inside when
 * |Δ̂ − Δ| − c ≤ z·√V(Δ). V(Δ) is each side's variance within the cases, estimated without bias,
 * plus what moving that side's mean from m̂ to the likeliest m̃ under Δ adds to it,
 * (m̃(1 − m̃) − m̂(1 − m̂))·Σ(1/k)/n²: the variance of a sum of independent trials is that of one
 * binomial of their mean chance less the spread of their chances (Hoeffding 1956), and the
 * spread is held as observed. `correction` is Yates's half step of Δ̂.
 */
function spreadBound(
  b: Groups,
  c: Groups,
  level: number,
  correction: number,
  side: -1 | 1,
): number {
  const z = twoSidedZ(level);
  const [base, cand] = [sideMoments(b), sideMoments(c)];
  const observed = cand.mean - base.mean;
  // Each side as a binomial of its mean with the samples that give its variance: m(1 − m)/N.
  const [nb, nc] = [1 / base.scale, 1 / cand.scale];
  const thetaOf = (u: number) => (side * -(nb + nc) * u) / (1 - u);
  // Never below 0, and never above one chance's binomial variance (the spread is not negative).
  const sideVariance = (m: SideMoments, shifted: number) => {
    const variance = m.within + (shifted * (1 - shifted) - m.mean * (1 - m.mean)) * m.scale;
    return Math.min(Math.max(variance, 0), shifted * (1 - shifted) * m.scale);
  };
  return scoreBound(observed, correction, z, (u) => {
    const pc = constrainedRate(cand.mean * nc, nc, thetaOf(u));
    const pb = constrainedRate(base.mean * nb, nb, -thetaOf(u));
    return [pc - pb, sideVariance(cand, pc) + sideVariance(base, pb)];
  });
}

/**
 * One end (`side` −1 the lower, +1 the upper) of the gate's interval of candidate − baseline on
 * these cases: the union of two score intervals, each right where the other errs.
 * - Newcombe's combination of each side's score bound with every case its own stratum
 *   (newcombeBound) errs where failures are rare, few samples each: under a shifted mean a case
 *   that always passed stays at 1, the shift lands on the few cases that failed, whose variance
 *   levels off near 1/2, and the variance comes out too small (many small strata: the
 *   incidental-parameter setting). A drop of the margin on 300 cases at 99% with 3 samples passed
 *   3.0% of the time in bench/coverage.
 * - The spread test (spreadBound) errs where a few cases carry all the variance, which it
 *   estimates from them (as a Wald interval does): a drop of the margin on 10 cases at 50%, most
 *   always passing or always failing, passed 4.0% of the time.
 * The union passes only when both intervals do, and calls a regression only when both do, so its
 * chance of either mistake is at most the smaller of theirs. `correction` is Yates's half step of
 * Δ̂ (continuityCorrection over n); `baseEnd` as for newcombeBound.
 */
export function casesBound(
  b: Groups,
  c: Groups,
  level: number,
  correction: number,
  side: -1 | 1,
  baseEnd?: number,
): number {
  const ends = [
    newcombeBound(b, c, level, side, baseEnd),
    spreadBound(b, c, level, correction, side),
  ];
  return side < 0 ? Math.min(...ends) : Math.max(...ends);
}

/** Whether every case has at least two samples: the cases scope can see each case's own noise. */
export function everyCaseResampled(counts: CaseCounts): boolean {
  for (let i = 0; i < counts.samples.length; i++) if (!(counts.samples[i]! >= 2)) return false;
  return true;
}
