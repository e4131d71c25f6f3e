/**
 * The paired regression gate: candidate run against baseline run, item by item.
 *
 * Verdicts, with the delta = candidate − baseline pass rate and [low, high] its interval:
 * - `pass`         low > −margin: any drop is, with 95% confidence, within the margin.
 * - `regression`   high < 0 and delta < −margin: the candidate is worse with 95% confidence, and
 *                  the best estimate of the drop exceeds the margin. The stricter reading, the
 *                  whole interval below −margin, needs half the standard error to see a drop of
 *                  twice the margin: in bench/coverage it reached 80% detection at n = 1000 in 6
 *                  of 21 feasible cells, this rule in 20. Both need high < 0, so an unchanged
 *                  candidate is flagged in about 2.5% of runs at most (measured worst: 3.0%).
 * - `inconclusive` neither: too few items, or a drop too small to matter but too large to rule out.
 */

import { type Adjustment, adjustedLevel } from "./adjust.js";
import { bootstrapMeanInterval } from "./bootstrap.js";
import {
  casesHalfWidths,
  everyCaseResampled,
  type Groups,
  groupBound,
  grouped,
  groupMean,
  groupsHalfWidths,
} from "./cases.js";
import {
  binomialLogPmf,
  hypergeometric,
  multinomial,
  normalCdf,
  normalQuantile,
  twoSidedZ,
} from "./distributions.js";
import {
  clopperPearsonBounds,
  clopperPearsonHigh,
  clopperPearsonLow,
  DEFAULT_INTERVAL_METHOD,
  effectiveTrials,
  type ItemAgg,
  itemScore,
  mean,
  sampleVariance,
} from "./interval.js";
import { createRng, type Rng } from "./rng.js";
import { DEFAULT_SCOPE, type Interval, type IntervalMethod, type Scope } from "./types.js";

export type Verdict = "pass" | "regression" | "inconclusive";

export interface CompareOptions {
  /** Largest drop still accepted as "no regression"; 0.02 by default. */
  margin?: number;
  method?: IntervalMethod;
  level?: number;
  /** Bootstrap only. */
  resamples?: number;
  /** Bootstrap only. */
  seed?: number;
  /** How the per-stratum intervals allow for their number; none by default. */
  adjust?: Adjustment;
  /** Which question the gate answers: on these cases (the default) or on cases like these. */
  scope?: Scope;
}

export interface StratumDelta {
  stratum: string;
  n: number;
  delta: number;
  low: number;
  high: number;
  /** The level of this stratum's interval: the run's, or higher when adjusted. */
  level: number;
  /** The gate's rule on this stratum's adjusted interval; null when unadjusted (see strata). */
  verdict: Verdict | null;
}

export interface Comparison {
  /** Candidate minus baseline mean item score over the paired items. */
  delta: number;
  low: number;
  high: number;
  level: number;
  method: IntervalMethod;
  /** Number of paired items (ids present in both runs). */
  n: number;
  /** Ids whose candidate score is lower than the baseline's, largest drop first, then by id. */
  broke: string[];
  /** Ids whose candidate score is higher, largest gain first, then by id. */
  fixed: string[];
  missingFromCandidate: string[];
  missingFromBaseline: string[];
  margin: number;
  verdict: Verdict;
  /** The question answered: on these cases, or on cases like these (see types.ts). */
  scope: Scope;
  /**
   * The interval the verdict rests on: the cases scope's needs two samples per case on both
   * sides to see a case's own noise, and with fewer the population's interval (wider) is used.
   */
  interval: "cases" | "population";
  /**
   * Minimum detectable effect: the smallest true drop that this gate would call `regression` in
   * 80% of runs of this size and spread (see minimumDetectableDrop). NaN when nothing is paired
   * or no drop up to the baseline's whole pass rate would be caught that often.
   */
  mde: number;
  /**
   * Population scope: items a suite like this would need to tell a drop of the margin from no
   * change (itemsNeeded); null in the cases scope, where more samples are the remedy.
   */
  itemsNeeded: number | null;
  /** Cases scope: samples per case on each side that would do it (samplesNeeded); else null. */
  samplesNeeded: number | null;
  /**
   * Per-stratum deltas with intervals. Unadjusted, they carry no verdict: ten strata judged at
   * 95% each would call some stratum a regression far more often than 5% of the time. With
   * `adjust: "bonferroni"` every stratum's interval is widened so that all hold together, and
   * each gets the gate's verdict (informative only: the run's verdict is the overall one).
   */
  strata: StratumDelta[];
}

/** Item scores of the paired items, in the same order in both runs, with samples per item. */
export interface PairedScores {
  base: Float64Array;
  cand: Float64Array;
  baseN: Float64Array;
  candN: Float64Array;
}

interface Paired extends PairedScores {
  ids: string[];
  strata: string[];
}

function byId(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function pairItems(base: ReadonlyMap<string, ItemAgg>, cand: ReadonlyMap<string, ItemAgg>) {
  const ids = [...base.keys()].filter((id) => cand.has(id)).sort(byId);
  const paired: Paired = {
    ids,
    base: new Float64Array(ids.length),
    cand: new Float64Array(ids.length),
    baseN: new Float64Array(ids.length),
    candN: new Float64Array(ids.length),
    strata: [],
  };
  ids.forEach((id, i) => {
    const b = base.get(id)!;
    const c = cand.get(id)!;
    paired.base[i] = itemScore(b);
    paired.cand[i] = itemScore(c);
    paired.baseN[i] = b.n;
    paired.candN[i] = c.n;
    // The baseline's stratum wins: the candidate is judged against the baseline's layout.
    paired.strata.push(b.stratum ?? c.stratum ?? "");
  });
  return paired;
}

function missing(from: ReadonlyMap<string, ItemAgg>, other: ReadonlyMap<string, ItemAgg>) {
  return [...from.keys()].filter((id) => !other.has(id)).sort(byId);
}

/**
 * Newcombe's continuity-corrected correlation of the two runs' item scores (method 11 of
 * Newcombe 1998): for 0/1 scores, AD − BC of the paired 2×2 table shrunk by N/2 toward 0, here
 * Σ(x − x̄)(y − ȳ) − 1/2, which is the same thing for 0/1 scores and extends it to item means.
 * Without the correction, two identical runs correlate perfectly and the interval collapses to
 * [0, 0] (two items, one passing and one failing, would "pass" on no evidence).
 */
export function correctedCorrelation(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const { sxy, sxx, syy } = crossSums(x, y);
  return correctedFromSums(sxy, sxx, syy);
}

/** Σ(x − x̄)(y − ȳ), Σ(x − x̄)², Σ(y − ȳ)². */
function crossSums(x: ArrayLike<number>, y: ArrayLike<number>) {
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < x.length; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return { sxy, sxx, syy };
}

function correctedFromSums(sxy: number, sxx: number, syy: number): number {
  // No spread in one run: the correlation is undefined, and 0 ignores the pairing, which can
  // only widen the interval when, as for the same items run twice, scores correlate positively.
  if (!(sxx > 0 && syy > 0)) return 0;
  const covariance = sxy > 0 ? Math.max(0, sxy - 0.5) : sxy;
  return covariance / Math.sqrt(sxx * syy);
}

/** What the paired score interval depends on: both rates, their effective trials, the correlation. */
export interface PairedMoments {
  n: number;
  pb: number;
  pc: number;
  trialsBase: number;
  trialsCand: number;
  phi: number;
  /** Items that passed some samples in the baseline and none in the candidate. */
  broke: number;
  /** Items that failed some samples in the baseline and none in the candidate. */
  fixed: number;
  /** Items that passed some samples in the baseline: the ones that can break. */
  breakable: number;
  /** Items that failed some samples in the baseline: the ones that can be fixed. */
  fixable: number;
  /** Sample variance of the per-item differences candidate − baseline. */
  variance: number;
  /** Their third central moment: below 0 when a few items drop far, as items that break do. */
  thirdMoment: number;
}

export function pairedMoments(p: PairedScores): PairedMoments {
  const diffs = differences(p);
  const centre = mean(diffs);
  return {
    variance: sampleVariance(diffs, centre) || 0,
    thirdMoment: mean(diffs.map((d) => (d - centre) ** 3)),
    n: p.base.length,
    pb: mean(p.base),
    pc: mean(p.cand),
    trialsBase: effectiveTrials(p.base, p.baseN),
    trialsCand: effectiveTrials(p.cand, p.candN),
    phi: correctedCorrelation(p.base, p.cand),
    broke: countPairs(p, (b, c) => b > 0 && c === 0),
    fixed: countPairs(p, (b, c) => b < 1 && c === 1),
    breakable: countPairs(p, (b) => b > 0),
    fixable: countPairs(p, (b) => b < 1),
  };
}

function countPairs(p: PairedScores, test: (base: number, cand: number) => boolean): number {
  let count = 0;
  for (let i = 0; i < p.base.length; i++) if (test(p.base[i]!, p.cand[i]!)) count += 1;
  return count;
}

/**
 * Newcombe's score interval for a paired difference (MOVER, method 11 of Newcombe 1998), built
 * from the two runs' design-effect intervals and the corrected correlation of item scores
 * between the runs, as half-widths below and above the delta. Unlike a Wald or bootstrap
 * interval it does not collapse to [0, 0] when no item changed, so a small suite stays
 * inconclusive instead of passing on no evidence.
 */
export function moverHalfWidths(m: PairedMoments, level: number): { down: number; up: number } {
  const { pb, pc, phi } = m;
  const [lb, ub] = clopperPearsonBounds(pb, m.trialsBase, level);
  const [lc, uc] = clopperPearsonBounds(pc, m.trialsCand, level);
  return {
    down: Math.max(
      moverHalf(pc - lc, ub - pb, phi) + skewAllowance(m, level),
      pb * hiddenShare(m.broke, m.breakable, level),
    ),
    up: Math.max(
      moverHalf(uc - pc, pb - lb, phi),
      (1 - pb) * hiddenShare(m.fixed, m.fixable, level),
    ),
  };
}

/**
 * How far the lower side reaches beyond the MOVER half-width when the differences are skewed
 * down, as items that break outright make them (0 when they are not). A run
 * that happens to break fewer items than its true drop implies also shows less spread, so a
 * bound from the spread alone is short on that side (at 1000 items, 10 samples each, a drop of
 * the margin passed 3.4% of the time under the paired normal interval, up to 2.9% under this
 * one without the term). The first-order (Edgeworth) correction of a studentized mean's
 * one-sided bound is μ₃(2z² + 1) / (6s²n) (Johnson's modified t, 1978). The exact intervals count `trials` effective trials, and a binomial of that
 * many trials has (n/trials)² of the third cumulant the same rate has over n whole items: that
 * share of the skew of events that hit whole items they carry already, and only the rest is
 * added. With one sample per item, or all-or-nothing items, they count one trial per item and
 * carry it all: Newcombe's interval is left as it is. The run with fewer trials counts. Only
 * the lower side, the one a pass relies on: the upper side, which a regression relies on, is
 * what the MDE models, and widening it when differences skew up (most items broken, in a large
 * drop on a few items) made the printed MDE optimistic at 10 items.
 */
function skewAllowance(m: PairedMoments, level: number): number {
  const trials = Math.min(m.trialsBase, m.trialsCand);
  if (!(m.variance > 0 && m.thirdMoment < 0) || !(trials > m.n)) return 0;
  const z = twoSidedZ(level);
  const uncarried = 1 - (m.n / trials) ** 2;
  return (uncarried * (2 * z * z + 1) * -m.thirdMoment) / (6 * m.variance * m.n);
}

/** One side of the MOVER interval: the candidate's side and the baseline's opposite side. */
function moverHalf(cand: number, base: number, phi: number): number {
  return Math.sqrt(cand * cand - 2 * phi * cand * base + base * base);
}

/**
 * How much larger than observed the share of items that broke outright (or were fixed outright)
 * can be, at the interval's level: the exact upper bound of `count` of n, less count/n. With
 * none seen it is 1 − tail^(1/n), the "rule of three" (3/n at 95% one-sided). k samples per item
 * narrow the noise of each item, not this: a candidate that breaks 2% of all items breaks none of
 * 100 sampled ones in 13% of runs and two or fewer of 300 in 6%, so the count of broken items is
 * what bounds the drop, however many samples each item has. The bounds are kept that far out.
 * `n` counts only the items that could break (or be fixed): an item that never passed in the
 * baseline cannot break, and with bimodal items (half always pass, half never) counting it
 * halves the bound; a drop of the margin then passed 3.5% of the time instead of at most 2.5%.
 * The drop this share allows is the share times the baseline's mean score: breaking items that
 * pass scores b each takes Σb/n from the rate.
 */
function hiddenShare(count: number, n: number, level: number): number {
  if (n === 0) return 0;
  return clopperPearsonHigh(count / n, n, level) - count / n;
}

export function pairedScoreBounds(p: PairedScores, level: number): [number, number] {
  const delta = meanDifference(p);
  const { down, up } = moverHalfWidths(pairedMoments(p), level);
  return [Math.max(-1, delta - down), Math.min(1, delta + up)];
}

/**
 * Mean of the per-item differences: items with equal scores contribute exactly 0, so two runs
 * with the same item scores (whatever their k) differ by 0, not by a rounding error like -3e-16.
 */
export function meanDifference(p: PairedScores): number {
  return mean(differences(p));
}

function differences(p: PairedScores): Float64Array {
  return p.cand.map((c, i) => c - p.base[i]!);
}

/** Interval of the mean paired difference candidate − baseline. */
export function pairedDeltaInterval(
  p: PairedScores,
  method: IntervalMethod,
  opts: Omit<CompareOptions, "margin" | "method"> = {},
): Interval {
  const level = opts.level ?? 0.95;
  if (p.base.length === 0) {
    return { estimate: Number.NaN, low: Number.NaN, high: Number.NaN, level, method };
  }
  if (method === "bootstrap") return bootstrapMeanInterval(differences(p), { ...opts, level });
  const [low, high] = gateBounds(p, level, opts.scope ?? DEFAULT_SCOPE);
  return { estimate: meanDifference(p), low, high, level, method };
}

/** Which interval a scope uses on these runs: see Comparison.interval. */
export function intervalOf(p: PairedScores, scope: Scope): "cases" | "population" {
  const cases = scope === "cases" && everyCaseResampled(counts(p, "base"));
  return cases && everyCaseResampled(counts(p, "cand")) ? "cases" : "population";
}

/** Passes and samples per case of one side. */
function counts(
  p: PairedScores,
  side: "base" | "cand",
): { passes: Float64Array; samples: Float64Array } {
  const scores = p[side];
  const samples = p[`${side}N`];
  return { passes: scores.map((score, i) => score * samples[i]!), samples };
}

/** The score interval of the gate in its scope, without the bootstrap. */
function gateBounds(p: PairedScores, level: number, scope: Scope): [number, number] {
  if (intervalOf(p, scope) === "population") return pairedScoreBounds(p, level);
  const delta = meanDifference(p);
  const { down, up } = casesHalfWidths(counts(p, "base"), counts(p, "cand"), level);
  return [Math.max(-1, delta - down), Math.min(1, delta + up)];
}

export function verdictOf(delta: number, low: number, high: number, margin: number): Verdict {
  if (low > -margin) return "pass";
  if (high < 0 && delta < -margin) return "regression";
  return "inconclusive";
}

const Z_POWER_80 = normalQuantile(0.8);
const MDE_POWER = 0.8;
/** Bisection steps: the MDE to within 1e-6 of the baseline rate. */
const MDE_BISECTIONS = 20;
/** Binomial terms further than this many standard deviations from the mean are left out. */
const PMF_SPREAD = 6;
/** The half-width h(x) is smooth in x: computed at this many points, interpolated between. */
const THRESHOLD_POINTS = 64;

/**
 * The smallest drop d the gate calls `regression` in 80% of runs like this one, from what the
 * runs would look like under the drop (the spread under no change is optimistic: a drop adds the
 * items that break). A drop of d is modelled as it happens in practice: each item breaks (scores
 * 0) with probability q = d / baseline rate, so X ~ Binomial(n, q) items break. Given X = x, the
 * delta is about −x·rate/n, give or take the noise of the other items (the observed variance of
 * the differences) and of the broken items' baseline scores, and the gate's upper half-width
 * h(x) is the score interval's for a candidate with x items at 0 (rate − x·rate/n; the
 * covariance between the runs shrinks by the share kept). The rule needs delta < −margin and
 * delta + h < 0; the chance of that is summed over x. NaN when nothing is paired, and when even
 * breaking every item would not be caught that often.
 */
export function minimumDetectableDrop(
  p: PairedScores,
  level: number,
  margin: number,
  scope: Scope = DEFAULT_SCOPE,
): number {
  const moments = pairedMoments(p);
  const { n, pb: rate } = moments;
  if (n === 0 || !(rate > 0)) return Number.NaN;
  const caught =
    intervalOf(p, scope) === "cases"
      ? simulatedCasesChance(p, rate, level, margin)
      : n <= SIMULATED_ITEMS
        ? simulatedRegressionChance(p, rate, level, margin)
        : regressionChance(p, moments, level, margin);
  if (caught(rate) < MDE_POWER) return Number.NaN;
  let low = 0;
  let high = rate;
  for (let i = 0; i < MDE_BISECTIONS; i++) {
    const middle = (low + high) / 2;
    if (caught(middle) >= MDE_POWER) high = middle;
    else low = middle;
  }
  return high;
}

/**
 * Up to this many items the chance of a regression verdict comes from the gate itself on
 * simulated runs, not from the normal model: in a small suite the drop is a few whole items and
 * the interval's width jumps with each, and the model printed an MDE 17–22% below the drop
 * really caught 80% of the time at 20 items and a 99% rate (11–15% at 30 and 50 items; n/a at
 * 10 items, 50%, 3 samples each, where breaking every item is caught). From 100 items on
 * (bench/coverage) the model is within 9% and far cheaper.
 */
const SIMULATED_ITEMS = 50;
/** Simulated runs: the chance to within about ±3% at 80%. */
const SIMULATED_RUNS = 200;
/** A fixed seed: the same runs always print the same MDE. */
const SIMULATION_SEED = 0x6d6465;

/**
 * The chance, as a function of the drop d, that the gate says regression, from simulated runs
 * like this one. A simulated run draws n of this run's item pairs with replacement (a suite like
 * this one: its pass rate varies as a fresh suite's would) and swaps each pair's two scores or
 * not at random (unchanged runs are exchangeable: the delta is centred at 0, each item keeps its
 * own spread). Then its items break (candidate score 0) one by one: the fewest broken that the
 * gate calls regression is found by bisection (breaking more only lowers the delta). With R(x)
 * the share of simulated runs caught with x broken, and a drop d breaking each item with chance
 * q = d / rate, the chance is Σ Bin(x; n, q)·R(x).
 */
function simulatedRegressionChance(p: PairedScores, rate: number, level: number, margin: number) {
  const n = p.base.length;
  const rng = createRng(SIMULATION_SEED);
  // Drawn from in an order of their scores alone: the same pairs give the same MDE whatever the
  // items are called (they came sorted by id, and 30 pairs printed 0.2167 or 0.2096 by name).
  const pairs = canonicalOrder(p);
  const caughtWith = new Float64Array(n + 1);
  for (let run = 0; run < SIMULATED_RUNS; run++) {
    const fewest = fewestBroken(resampledRun(pairs, rng), level, margin);
    for (let x = fewest; x <= n; x++) caughtWith[x]! += 1 / SIMULATED_RUNS;
  }
  return brokenChance(caughtWith, rate);
}

/**
 * The chance of a regression verdict under a drop d, from R(x), the share of simulated runs
 * caught with x items broken: a drop d breaks each item with chance q = d / rate, so the chance
 * is Σ Bin(x; n, q)·R(x).
 */
function brokenChance(caughtWith: Float64Array, rate: number) {
  const n = caughtWith.length - 1;
  return (d: number): number => {
    const q = Math.min(1, d / rate);
    let chance = 0;
    for (let x = 0; x <= n; x++) chance += Math.exp(binomialLogPmf(x, n, q)) * caughtWith[x]!;
    return chance;
  };
}

/** Simulated runs of the cases scope's MDE: enough for the 80% point to within about ±1.3%. */
const CASES_RUNS = 1000;

/**
 * The cases scope's chance of a regression verdict under a drop d, from the gate itself on
 * simulated runs of these cases: each case passes each sample with its pooled share over both
 * runs (no change), both runs' samples are drawn afresh, and cases break (the candidate passes
 * nothing) one by one in a random order until the gate says regression. The gate needs only how
 * many cases pass how many samples, so the runs are drawn as those counts: by class of cases
 * alike (same pooled share and samples), and the cases broken first as hypergeometric draws from
 * them. The work does not grow with the number of cases, and the MDE depends on the counts alone,
 * not on the cases' names or order.
 */
function simulatedCasesChance(p: PairedScores, rate: number, level: number, margin: number) {
  const n = p.base.length;
  const rng = createRng(SIMULATION_SEED);
  const classes = caseClasses(p);
  const caughtWith = new Float64Array(n + 1);
  for (let run = 0; run < CASES_RUNS; run++) {
    const fewest = fewestCasesBroken(simulatedCounts(classes, rng), level, margin, rng);
    for (let x = fewest; x <= n; x++) caughtWith[x]! += 1 / CASES_RUNS;
  }
  return brokenChance(caughtWith, rate);
}

/** Cases alike for the simulation: pooled pass share and samples per side, and how many. */
interface CaseClass {
  rate: number;
  baseK: number;
  candK: number;
  cases: number;
}

function caseClasses(p: PairedScores): CaseClass[] {
  const classes = new Map<string, CaseClass>();
  for (let i = 0; i < p.base.length; i++) {
    const [baseK, candK] = [p.baseN[i]!, p.candN[i]!];
    const rate = (p.base[i]! * baseK + p.cand[i]! * candK) / (baseK + candK);
    const key = `${rate}/${baseK}/${candK}`;
    const known = classes.get(key);
    if (known) known.cases += 1;
    else classes.set(key, { rate, baseK, candK, cases: 1 });
  }
  // Sorted: the same counts give the same draws whatever order the cases came in.
  return [...classes.entries()].sort(([a], [b]) => byId(a, b)).map(([, c]) => c);
}

/** One simulated pair of runs as counts: how many cases pass how many samples, per side. */
interface SimulatedCounts {
  base: Groups;
  cand: Groups;
}

function simulatedCounts(classes: readonly CaseClass[], rng: Rng): SimulatedCounts {
  const base = emptyGroups();
  const cand = emptyGroups();
  for (const c of classes) {
    addDrawn(base, c.cases, c.baseK, c.rate, rng);
    addDrawn(cand, c.cases, c.candK, c.rate, rng);
  }
  return { base, cand };
}

function emptyGroups(): Groups {
  return { passes: [], samples: [], cases: [], n: 0 };
}

/** `cases` cases of k samples at `rate`, as how many pass 0, 1, …, k samples (a multinomial). */
function addDrawn(groups: Groups, cases: number, k: number, rate: number, rng: Rng): void {
  const weights = Float64Array.from({ length: k + 1 }, (_, s) =>
    Math.exp(binomialLogPmf(s, k, rate)),
  );
  const counts = new Float64Array(k + 1);
  multinomial(rng, cases, weights, counts);
  counts.forEach((count, s) => {
    if (count > 0) addGroup(groups, s, k, count);
  });
}

function addGroup(groups: Groups, passes: number, samples: number, cases: number): void {
  const at = groups.passes.findIndex((s, j) => s === passes && groups.samples[j] === samples);
  if (at >= 0) groups.cases[at]! += cases;
  else {
    groups.passes.push(passes);
    groups.samples.push(samples);
    groups.cases.push(cases);
  }
  groups.n += cases;
}

/**
 * The fewest cases that, broken in a random order, the gate calls regression (n + 1 if none),
 * by bisection on their number, computing only what a regression needs: delta < −margin and the
 * upper bound below 0, from the candidate's upper bound and the baseline's lower one (which
 * breaking candidate cases leaves as it is). Which cases break first is drawn as the bisection
 * asks: those among the first x, given those among the first `low` and the first `high`, are a
 * hypergeometric draw from the ones in between, so every x sees one random order.
 */
function fewestCasesBroken(run: SimulatedCounts, level: number, margin: number, rng: Rng): number {
  const n = run.cand.n;
  const baseMean = groupMean(run.base);
  const baseSide = baseMean - groupBound(run.base, level, -1);
  const caughtAt = (broken: readonly number[]): boolean => {
    const cand = emptyGroups();
    run.cand.cases.forEach((count, j) => {
      const kept = count - broken[j]!;
      if (kept > 0) addGroup(cand, run.cand.passes[j]!, run.cand.samples[j]!, kept);
      if (broken[j]! > 0) addGroup(cand, 0, run.cand.samples[j]!, broken[j]!);
    });
    const candMean = groupMean(cand);
    const delta = candMean - baseMean;
    if (!(delta < -margin)) return false;
    return delta + Math.hypot(groupBound(cand, level, 1) - candMean, baseSide) < 0;
  };
  let high = { x: n, broken: [...run.cand.cases] };
  if (!caughtAt(high.broken)) return n + 1;
  let low = { x: 0, broken: run.cand.cases.map(() => 0) };
  while (high.x - low.x > 1) {
    const x = (low.x + high.x) >> 1;
    const between = high.broken.map((h, j) => h - low.broken[j]!);
    const drawn = multivariateHypergeometric(rng, between, x - low.x);
    const middle = { x, broken: low.broken.map((l, j) => l + drawn[j]!) };
    if (caughtAt(middle.broken)) high = middle;
    else low = middle;
  }
  return high.x;
}

/** `draws` taken without replacement from groups of the given sizes: how many from each. */
function multivariateHypergeometric(rng: Rng, sizes: readonly number[], draws: number): number[] {
  let total = sizes.reduce((a, b) => a + b, 0);
  let left = draws;
  return sizes.map((size) => {
    const taken = hypergeometric(rng, total, size, left);
    total -= size;
    left -= taken;
    return taken;
  });
}

/** The same pairs, sorted by their scores and sample counts. */
function canonicalOrder(p: PairedScores): PairedScores {
  const key = (i: number) => [p.base[i]!, p.cand[i]!, p.baseN[i]!, p.candN[i]!];
  const order = Array.from({ length: p.base.length }, (_, i) => i).sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return x.reduce((found, value, k) => found || value - y[k]!, 0);
  });
  const pick = (values: Float64Array) => Float64Array.from(order, (i) => values[i]!);
  return { base: pick(p.base), cand: pick(p.cand), baseN: pick(p.baseN), candN: pick(p.candN) };
}

/** n item pairs drawn with replacement, each pair's scores swapped with chance 1/2. */
function resampledRun(p: PairedScores, rng: Rng): PairedScores {
  const n = p.base.length;
  const run = {
    base: new Float64Array(n),
    cand: new Float64Array(n),
    baseN: new Float64Array(n),
    candN: new Float64Array(n),
  };
  for (let i = 0; i < n; i++) {
    const j = Math.floor(rng.uniform() * n);
    const [from, to] =
      rng.uniform() < 0.5 ? (["base", "cand"] as const) : (["cand", "base"] as const);
    run.base[i] = p[from][j]!;
    run.cand[i] = p[to][j]!;
    run.baseN[i] = p[`${from}N`][j]!;
    run.candN[i] = p[`${to}N`][j]!;
  }
  return run;
}

/** fewestCaught for the population gate. */
function fewestBroken(run: PairedScores, level: number, margin: number): number {
  const caughtAt = (x: number) => {
    const broken = { ...run, cand: run.cand.map((c, i) => (i < x ? 0 : c)) };
    return saysRegression(broken, level, margin);
  };
  return fewestCaught(run.base.length, caughtAt);
}

/** The fewest items that, broken (first to last), the gate calls regression; n + 1 if none. */
function fewestCaught(n: number, caughtAt: (x: number) => boolean): number {
  if (!caughtAt(n)) return n + 1;
  let low = -1;
  let high = n;
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    if (caughtAt(middle)) high = middle;
    else low = middle;
  }
  return high;
}

function saysRegression(p: PairedScores, level: number, margin: number): boolean {
  const [low, high] = pairedScoreBounds(p, level);
  return verdictOf(meanDifference(p), low, high, margin) === "regression";
}

/** The chance, as a function of the drop d, that the gate says regression (see above). */
function regressionChance(p: PairedScores, m: PairedMoments, level: number, margin: number) {
  const { n, pb: rate } = m;
  const diffs = differences(p);
  const noise = sampleVariance(diffs, mean(diffs)) || 0;
  const squares = mean(p.base.map((b) => b * b));
  const lossVariance = Math.max(0, squares - rate * rate);
  const { sxy, sxx } = crossSums(p.base, p.cand);
  const step = Math.max(1, Math.ceil(n / THRESHOLD_POINTS));
  const baseSide = rate - clopperPearsonLow(rate, m.trialsBase, level);
  const floor = Math.max(margin, (1 - rate) * hiddenShare(m.fixed, m.fixable, level));
  const computed = new Map<number, number>();
  const computedAt = (x: number): number => {
    const known = computed.get(x);
    if (known !== undefined) return known;
    const share = x / n;
    const pc = rate * (1 - share);
    const candVariance = (1 - share) * squares - pc * pc;
    const trialsCand =
      candVariance > 0
        ? Math.min(m.trialsBase, Math.max(n, (pc * (1 - pc) * n) / candVariance))
        : n;
    // Breaking items scales the covariance between the runs by the share kept (see above).
    const phi = correctedFromSums(sxy * (1 - share), sxx, n * candVariance);
    const candSide = clopperPearsonHigh(pc, trialsCand, level) - pc;
    const value = Math.max(floor, moverHalf(candSide, baseSide, phi));
    computed.set(x, value);
    return value;
  };
  const thresholdAt = (x: number): number => {
    const below = Math.floor(x / step) * step;
    if (below === x) return computedAt(x);
    const above = Math.min(n, below + step);
    const share = (x - below) / (above - below);
    return computedAt(below) * (1 - share) + computedAt(above) * share;
  };
  return (d: number): number => {
    const q = Math.min(1, d / rate);
    const sd = Math.sqrt(n * q * (1 - q));
    const first = Math.max(0, Math.floor(n * q - PMF_SPREAD * sd));
    const last = Math.min(n, Math.ceil(n * q + PMF_SPREAD * sd));
    let chance = 0;
    for (let x = first; x <= last; x++) {
      const spread = Math.sqrt((n - x) * noise + x * lossVariance) / n;
      const lead = (x * rate) / n - thresholdAt(x);
      const given = spread > 0 ? normalCdf(lead / spread) : lead > 0 ? 1 : 0;
      chance += Math.exp(binomialLogPmf(x, n, q)) * given;
    }
    return chance;
  };
}

/** Beyond this many items the estimate stops: no suite of items like these is that large. */
const MOST_ITEMS_ESTIMATED = 1e9;

/**
 * Items a suite like this one would need to tell a drop of `margin` from no change: the size at
 * which the interval's lower half-width is at most margin·z / (z + z₀.₈), so that an unchanged
 * candidate passes the gate in about 80% of runs and one that dropped by the margin in about
 * 2.5%. An estimate: the items are taken to stay as they are (same rates, same spread, same
 * correlation between the runs), so a suite r times as large is worth r times the effective
 * trials (and r times the items, for what no sampled item shows), and the score interval is
 * used whatever the method. The current size when it is
 * already enough; null when no size is (margin 0, or more than a billion items).
 */
export function itemsNeeded(p: PairedScores, margin: number, level = 0.95): number | null {
  const n = p.base.length;
  if (n === 0 || !(margin > 0)) return null;
  const z = twoSidedZ(level);
  const target = (margin * z) / (z + Z_POWER_80);
  const moments = pairedMoments(p);
  const { sxy, sxx, syy } = crossSums(p.base, p.cand);
  const lowerHalfWidth = (scale: number) => {
    const scaled = {
      ...moments,
      n: moments.n * scale,
      broke: moments.broke * scale,
      fixed: moments.fixed * scale,
      breakable: moments.breakable * scale,
      fixable: moments.fixable * scale,
      // A larger suite of the same items: the continuity correction counts for less.
      phi: correctedFromSums(sxy * scale, sxx * scale, syy * scale),
      trialsBase: moments.trialsBase * scale,
      trialsCand: moments.trialsCand * scale,
    };
    return moverHalfWidths(scaled, level).down;
  };
  if (lowerHalfWidth(1) <= target) return n;
  let enough = 2;
  while (lowerHalfWidth(enough) > target) {
    enough *= 2;
    if (enough * n > MOST_ITEMS_ESTIMATED) return null;
  }
  // The half-width shrinks as the suite grows: bisect (geometrically) between too few and enough.
  let few = enough / 2;
  for (let step = 0; step < 40; step++) {
    const middle = Math.sqrt(few * enough);
    if (lowerHalfWidth(middle) > target) few = middle;
    else enough = middle;
  }
  return Math.ceil(enough * n);
}

/** Beyond this many samples per case the estimate stops. */
const MOST_SAMPLES_ESTIMATED = 1e6;

/**
 * Cases scope: samples per case, on each side, at which the interval's lower half-width is at
 * most margin·z / (z + z₀.₈) (as itemsNeeded), the cases' pass shares taken to stay as they are.
 * The current count when it is already enough; null when the cases interval does not apply, the
 * margin is 0, or no count up to a million is enough.
 */
export function samplesNeeded(p: PairedScores, margin: number, level = 0.95): number | null {
  if (p.base.length === 0 || !(margin > 0) || intervalOf(p, "cases") !== "cases") return null;
  const z = twoSidedZ(level);
  const target = (margin * z) / (z + Z_POWER_80);
  const [base, cand] = [grouped(counts(p, "base")), grouped(counts(p, "cand"))];
  const scaled = (g: Groups, r: number): Groups => ({
    ...g,
    passes: g.passes.map((x) => x * r),
    samples: g.samples.map((k) => k * r),
  });
  const down = (r: number) => groupsHalfWidths(scaled(base, r), scaled(cand, r), level).down;
  const most = Math.max(...base.samples, ...cand.samples);
  if (down(1) <= target) return most;
  let enough = 2;
  while (down(enough) > target) {
    enough *= 2;
    if (enough * most > MOST_SAMPLES_ESTIMATED) return null;
  }
  let few = enough / 2;
  for (let step = 0; step < 30; step++) {
    const middle = Math.sqrt(few * enough);
    if (down(middle) > target) few = middle;
    else enough = middle;
  }
  return Math.ceil(enough * most);
}

/** Ids that changed in the given direction, largest change first, ties by id. */
function changed(p: Paired, sign: 1 | -1): string[] {
  const rows: { id: string; change: number }[] = [];
  p.ids.forEach((id, i) => {
    const change = sign * (p.cand[i]! - p.base[i]!);
    if (change > 0) rows.push({ id, change });
  });
  rows.sort((a, b) => b.change - a.change || byId(a.id, b.id));
  return rows.map((row) => row.id);
}

function subset(p: Paired, indices: readonly number[]): PairedScores {
  // A loop: Float64Array.from with a mapping function is several times slower.
  const pick = (values: Float64Array) => {
    const picked = new Float64Array(indices.length);
    for (let k = 0; k < indices.length; k++) picked[k] = values[indices[k]!]!;
    return picked;
  };
  return { base: pick(p.base), cand: pick(p.cand), baseN: pick(p.baseN), candN: pick(p.candN) };
}

function strataDeltas(p: Paired, method: IntervalMethod, opts: CompareOptions): StratumDelta[] {
  if (p.strata.every((s) => s === "")) return [];
  const groups = new Map<string, number[]>();
  p.strata.forEach((stratum, i) => {
    const group = groups.get(stratum);
    if (group) group.push(i);
    else groups.set(stratum, [i]);
  });
  const adjust = opts.adjust ?? "none";
  const level = adjustedLevel(opts.level ?? 0.95, groups.size, adjust);
  const margin = opts.margin ?? 0.02;
  return [...groups.entries()]
    .sort(([a], [b]) => byId(a, b))
    .map(([stratum, indices]) => {
      const interval = pairedDeltaInterval(subset(p, indices), method, { ...opts, level });
      const { estimate: delta, low, high } = interval;
      const verdict = adjust === "none" ? null : verdictOf(delta, low, high, margin);
      return { stratum, n: indices.length, delta, low, high, level, verdict };
    });
}

/** Pair two runs by item id and decide whether the candidate regressed. */
export function comparePaired(
  base: ReadonlyMap<string, ItemAgg>,
  cand: ReadonlyMap<string, ItemAgg>,
  opts: CompareOptions = {},
): Comparison {
  const margin = opts.margin ?? 0.02;
  if (!(margin >= 0)) throw new RangeError(`margin must be ≥ 0, got ${margin}`);
  const method = opts.method ?? DEFAULT_INTERVAL_METHOD;
  const scope = opts.scope ?? DEFAULT_SCOPE;
  const paired = pairItems(base, cand);
  const interval = pairedDeltaInterval(paired, method, opts);
  const { estimate: delta, low, high, level } = interval;
  const used = intervalOf(paired, scope);
  return {
    delta,
    low,
    high,
    level,
    method,
    n: paired.ids.length,
    broke: changed(paired, -1),
    fixed: changed(paired, 1),
    missingFromCandidate: missing(base, cand),
    missingFromBaseline: missing(cand, base),
    margin,
    verdict: paired.ids.length === 0 ? "inconclusive" : verdictOf(delta, low, high, margin),
    scope,
    interval: used,
    mde: minimumDetectableDrop(paired, level, margin, scope),
    itemsNeeded: scope === "population" ? itemsNeeded(paired, margin, level) : null,
    samplesNeeded: scope === "cases" ? samplesNeeded(paired, margin, level) : null,
    strata: strataDeltas(paired, method, opts),
  };
}
