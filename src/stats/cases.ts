/**
 * The gate's default question: is the candidate worse *on these cases*?
 *
 * The cases are fixed (the suite is the specification, as a test suite is); what varies from run
 * to run is only which answers each case's samples happened to get. Each side's target is the
 * mean over the cases of each case's own pass chance, and its only noise is the binomial noise of
 * each case's k samples, which more samples reduce. Given the cases, the two runs' samples are
 * independent, so the sides are combined as independent (no correlation between the runs).
 *
 * Not a score test with every case its own stratum: with few samples of cases that nearly always
 * pass, the likeliest chances under a shifted mean pile the shift onto the few cases that failed
 * (a case that always passed stays at 1), whose variance saturates near 1/2, so the variance
 * under the shift came out too small: a drop of the margin on cases at 99% with 3 samples passed
 * 3.0% of the time (bench/coverage), with a joint score test as with Newcombe's combination of
 * two. Many small strata are the incidental-parameter setting in which per-stratum maximum
 * likelihood is inconsistent; the variance below needs no per-case estimate under the shift.
 */

import { twoSidedZ } from "./distributions.js";

/** One run's samples of the cases: passes and samples per case, in the same order as the other's. */
export interface CaseCounts {
  passes: ArrayLike<number>;
  samples: ArrayLike<number>;
}

/**
 * The chance at which s passes in k trials (not necessarily whole) are likeliest under a
 * constraint that pulls by the multiplier θ (the constrained maximum-likelihood rate of a score
 * test; θ = 0 gives s/k, θ > 0 pulls down, θ < 0 up). The root in [0, 1] of θp² − (θ + k)p + s.
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
  for (let j = 0; j < g.cases.length; j++) sum += (g.cases[j]! * g.passes[j]!) / g.samples[j]!;
  return sum / g.n;
}

/** Bisection steps on the multiplier: u to within 1e-12, the bound far closer than shown. */
const BISECTIONS = 40;

/** Whether every case has at least two samples: the cases scope can see each case's own noise. */
export function everyCaseResampled(counts: CaseCounts): boolean {
  for (let i = 0; i < counts.samples.length; i++) if (!(counts.samples[i]! >= 2)) return false;
  return true;
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
 * One end of the interval of candidate − baseline on these cases: a score test of the
 * difference of the two means (Miettinen & Nurminen 1985) whose variance keeps the cases'
 * spread: Δ is inside when |Δ̂ − Δ| − c ≤ z·√V(Δ). V(Δ) is each side's variance within the
 * cases, estimated without bias, plus what moving that side's mean from m̂ to the likeliest m̃
 * under Δ adds to it, (m̃(1 − m̃) − m̂(1 − m̂))·Σ(1/k)/n²: the variance of a sum of independent
 * trials is that of one binomial of their mean chance less the spread of their chances
 * (Hoeffding 1956), and the spread is held as observed. Where failures are rare this is the
 * score test of two binomials, whatever case they fell in; where cases differ, the within
 * variance of each case. `correction` is Yates's half step of Δ̂.
 */
export function casesBound(
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
  const at = (u: number) => {
    const pc = constrainedRate(cand.mean * nc, nc, thetaOf(u));
    const pb = constrainedRate(base.mean * nb, nb, -thetaOf(u));
    return { difference: pc - pb, variance: sideVariance(cand, pc) + sideVariance(base, pb) };
  };
  const outside = (u: number) => {
    const { difference, variance } = at(u);
    return Math.abs(observed - difference) - correction > z * Math.sqrt(variance);
  };
  let low = 0;
  let high = 1;
  for (let step = 0; step < BISECTIONS; step++) {
    const middle = (low + high) / 2;
    if (outside(middle)) high = middle;
    else low = middle;
  }
  return at(low).difference;
}
