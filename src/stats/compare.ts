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
 *                  candidate is flagged in about 2.5% of runs at most (at one sample per item,
 *                  exactly: 2.37%, bench/coverage/paired-k1.ts).
 * - `inconclusive` neither: too few items, or a drop too small to matter but too large to rule out.
 */

import { type Adjustment, adjustedLevel } from "./adjust.js";
import { betaCdf } from "./beta.js";
import { bootstrapMeanInterval } from "./bootstrap.js";
import {
  casesBound,
  everyCaseResampled,
  type Groups,
  groupBound,
  grouped,
  groupMean,
} from "./cases.js";
import {
  binomial,
  binomialLogPmf,
  hypergeometric,
  multinomial,
  normalQuantile,
  twoSidedZ,
} from "./distributions.js";
import { DEFAULT_INTERVAL_METHOD, type ItemAgg, itemScore, mean } from "./interval.js";
import { createRng, type Rng } from "./rng.js";
import { rejects, tangoBounds } from "./tango.js";
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

/** The two runs' item scores alone: all the population scope's interval needs. */
type Scores = Pick<PairedScores, "base" | "cand">;

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

/** Mean gain and mean loss of the items: Σ max(c − b, 0) / n and Σ max(b − c, 0) / n. */
export function pairedShares(p: Scores): { gain: number; loss: number } {
  let gain = 0;
  let loss = 0;
  for (let i = 0; i < p.base.length; i++) {
    const d = p.cand[i]! - p.base[i]!;
    if (d > 0) gain += d;
    else loss -= d;
  }
  return { gain: gain / p.base.length, loss: loss / p.base.length };
}

/**
 * The population scope's interval: Tango's score interval (tango.ts) with the items as the units,
 * each gaining or losing the difference of its two scores, continuity-corrected. With one sample
 * per item it is Tango's interval for paired binary outcomes with Yates's half-unit correction.
 */
export function pairedScoreBounds(p: PairedScores, level: number): [number, number] {
  const { gain, loss } = pairedShares(p);
  return tangoBounds(gain, loss, p.base.length, level, continuityCorrection(p));
}

/** Past this many samples per item the lattice is too fine for its correction to matter. */
const FINEST_LATTICE = 1e6;

/**
 * Half the step by which the items' total difference n(g − l) moves (Yates 1934): the score test
 * treats a count on a lattice as continuous, and without the half step it rejects a little too
 * often in small suites. One item's whole outcome at one sample per item, 1/k at k samples on
 * both sides, 1/lcm of the sample counts in general; 0 when the counts are not whole.
 */
export function continuityCorrection(p: PairedScores): number {
  return halfStep(p.baseN, p.candN);
}

/** Half of 1/lcm of the sample counts: see continuityCorrection. */
function halfStep(...sides: ArrayLike<number>[]): number {
  let step = 1;
  for (const counts of sides) {
    for (let i = 0; i < counts.length; i++) {
      const k = counts[i]!;
      if (!(Number.isInteger(k) && k >= 1)) return 0;
      if (step % k !== 0) step = (step / greatestCommonDivisor(step, k)) * k;
      if (step > FINEST_LATTICE) return 0;
    }
  }
  return 0.5 / step;
}

function greatestCommonDivisor(a: number, b: number): number {
  return b === 0 ? a : greatestCommonDivisor(b, a % b);
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
  const [base, cand] = [grouped(counts(p, "base")), grouped(counts(p, "cand"))];
  const correction = continuityCorrection(p) / p.base.length;
  const end = (side: -1 | 1) => casesBound(base, cand, level, correction, side);
  return [Math.max(-1, end(-1)), Math.min(1, end(1))];
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
/** Simulated runs of the MDE: the chance of a regression verdict to within about ±1.3% at 80%. */
const SIMULATED_RUNS = 1000;
/** A fixed seed: the same runs always print the same MDE. */
const SIMULATION_SEED = 0x6d6465;

/**
 * The smallest drop d the gate calls `regression` in 80% of runs like this one, from the gate
 * itself on SIMULATED_RUNS seeded simulated runs of the scope's question (see
 * simulatedCasesChance and simulatedRegressionChance). A drop of d is modelled as it happens in
 * practice: cases break (pass nothing) at random, each with chance d / baseline rate. NaN when
 * nothing is paired, and when even breaking every case would not be caught that often.
 */
export function minimumDetectableDrop(
  p: PairedScores,
  level: number,
  margin: number,
  scope: Scope = DEFAULT_SCOPE,
): number {
  // From the pairs' kinds alone, sorted: the same pairs give the same MDE whatever the items are
  // called (they come sorted by id, and 30 pairs once printed 0.2167 or 0.2096 by name).
  const n = p.base.length;
  const kinds = pairKinds(p);
  const rate = kinds.reduce((sum, kind) => sum + kind.items * kind.base, 0) / n;
  if (n === 0 || !(rate > 0)) return Number.NaN;
  const caught =
    intervalOf(p, scope) === "cases"
      ? simulatedCasesChance(p, rate, level, margin)
      : simulatedRegressionChance(p, kinds, rate, level, margin);
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
 * The population scope's chance, as a function of the drop d, that the gate says regression,
 * from simulated runs like this one. A simulated run draws n of this run's item pairs with
 * replacement (a suite like this one: its pass rate varies as a fresh suite's would) and swaps
 * each pair's two scores or not at random (unchanged runs are exchangeable: the delta is centred
 * at 0, each item keeps its own spread). Then its items break (candidate score 0) one by one in a
 * random order until the gate says regression (see fewestInRandomOrder). Items with the same two
 * scores are alike to the gate, so a run is drawn as how many pairs of each kind it has: the work
 * grows with the kinds of pairs, not with the items.
 */
function simulatedRegressionChance(
  p: PairedScores,
  kinds: readonly PairKind[],
  rate: number,
  level: number,
  margin: number,
) {
  const n = p.base.length;
  const rng = createRng(SIMULATION_SEED);
  const correction = continuityCorrection(p);
  return brokenChance(n, rate, () =>
    fewestBroken(resampledKinds(kinds, n, rng), n, level, margin, correction, rng),
  );
}

/**
 * The chance of a regression verdict under a drop d, from the fewest items broken that each of
 * SIMULATED_RUNS simulated runs needed to be caught (`fewest`, n + 1 for none): a drop d breaks
 * each item with chance q = d / rate, so a run is caught when at least its fewest break, with
 * chance P(Bin(n, q) ≥ fewest) = I_q(fewest, n − fewest + 1); the chance is the mean over runs.
 */
function brokenChance(n: number, rate: number, fewest: () => number) {
  const runs = new Map<number, number>();
  for (let run = 0; run < SIMULATED_RUNS; run++) {
    const x = fewest();
    runs.set(x, (runs.get(x) ?? 0) + 1);
  }
  return (d: number): number => {
    const q = Math.min(1, d / rate);
    let chance = 0;
    for (const [x, count] of runs) chance += count * atLeast(x, n, q);
    return chance / SIMULATED_RUNS;
  };
}

/** P(Bin(n, q) ≥ x). */
function atLeast(x: number, n: number, q: number): number {
  if (x <= 0 || q >= 1) return x <= n ? 1 : 0;
  if (x > n || q <= 0) return 0;
  return betaCdf(q, x, n - x + 1);
}

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
  return brokenChance(n, rate, () =>
    fewestCasesBroken(simulatedCounts(classes, rng), level, margin, rng),
  );
}

/**
 * Cases alike for the simulation: pooled pass share and samples per side, how many, and each
 * side's chances of passing 0, 1, …, k samples (worked out once, not in every simulated run).
 */
interface CaseClass {
  rate: number;
  baseK: number;
  candK: number;
  cases: number;
  baseChances: Float64Array;
  candChances: Float64Array;
}

function caseClasses(p: PairedScores): CaseClass[] {
  const classes = new Map<string, CaseClass>();
  for (let i = 0; i < p.base.length; i++) {
    const [baseK, candK] = [p.baseN[i]!, p.candN[i]!];
    const rate = (p.base[i]! * baseK + p.cand[i]! * candK) / (baseK + candK);
    const key = `${rate}/${baseK}/${candK}`;
    const known = classes.get(key);
    if (known) known.cases += 1;
    else {
      const [baseChances, candChances] = [passChances(baseK, rate), passChances(candK, rate)];
      classes.set(key, { rate, baseK, candK, cases: 1, baseChances, candChances });
    }
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
    addDrawn(base, c.cases, c.baseChances, rng);
    addDrawn(cand, c.cases, c.candChances, rng);
  }
  return { base, cand };
}

function emptyGroups(): Groups {
  return { passes: [], samples: [], cases: [], n: 0 };
}

/** The chances of passing 0, 1, …, k of k samples at `rate`. */
function passChances(k: number, rate: number): Float64Array {
  return Float64Array.from({ length: k + 1 }, (_, s) => Math.exp(binomialLogPmf(s, k, rate)));
}

/** `cases` cases of k samples, as how many pass 0, 1, …, k samples (a multinomial). */
function addDrawn(groups: Groups, cases: number, chances: Float64Array, rng: Rng): void {
  const k = chances.length - 1;
  const counts = new Float64Array(k + 1);
  multinomial(rng, cases, chances, counts);
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
 * computing only what a regression needs: delta < −margin and the upper bound below 0, from the
 * candidate's upper bound and the baseline's lower one (which breaking candidate cases leaves as
 * it is).
 */
function fewestCasesBroken(run: SimulatedCounts, level: number, margin: number, rng: Rng): number {
  const baseMean = groupMean(run.base);
  const baseLow = groupBound(run.base, level, -1);
  const correction = halfStep(run.base.samples, run.cand.samples) / run.cand.n;
  const caughtAt = (broken: readonly number[]): boolean => {
    const cand = emptyGroups();
    run.cand.cases.forEach((count, j) => {
      const kept = count - broken[j]!;
      if (kept > 0) addGroup(cand, run.cand.passes[j]!, run.cand.samples[j]!, kept);
      if (broken[j]! > 0) addGroup(cand, 0, run.cand.samples[j]!, broken[j]!);
    });
    if (!(groupMean(cand) - baseMean < -margin)) return false;
    return casesBound(run.base, cand, level, correction, 1, baseLow) < 0;
  };
  return fewestInRandomOrder(run.cand.cases, caughtAt, rng);
}

/**
 * The fewest items that, broken in a random order, are caught (all of them + 1 if none), by
 * bisection on their number; `sizes` are how many items of each kind there are, and `caughtAt`
 * is told how many of each kind are broken. Which items break first is drawn as the bisection
 * asks: those among the first x, given those among the first `low` and the first `high`, are a
 * hypergeometric draw from the ones in between, so every x sees one random order.
 */
function fewestInRandomOrder(
  sizes: readonly number[],
  caughtAt: (broken: readonly number[]) => boolean,
  rng: Rng,
): number {
  let high = { x: sizes.reduce((a, b) => a + b, 0), broken: [...sizes] };
  if (!caughtAt(high.broken)) return high.x + 1;
  let low = { x: 0, broken: sizes.map(() => 0) };
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

/** Pairs of scores alike, and how many: sorted, so the same pairs give the same draws. */
interface PairKind {
  base: number;
  cand: number;
  items: number;
}

function pairKinds(p: Scores): PairKind[] {
  const kinds = new Map<string, PairKind>();
  for (let i = 0; i < p.base.length; i++) {
    const [base, cand] = [p.base[i]!, p.cand[i]!];
    const key = `${base}/${cand}`;
    const known = kinds.get(key);
    if (known) known.items += 1;
    else kinds.set(key, { base, cand, items: 1 });
  }
  return [...kinds.values()].sort((a, b) => a.base - b.base || a.cand - b.cand);
}

/** n item pairs drawn with replacement, each pair's scores swapped with chance 1/2, by kind. */
function resampledKinds(kinds: readonly PairKind[], n: number, rng: Rng): PairKind[] {
  const drawn = new Float64Array(kinds.length);
  multinomial(
    rng,
    n,
    kinds.map((k) => k.items),
    drawn,
  );
  return kinds.flatMap((kind, j) => {
    const swapped = binomial(rng, drawn[j]!, 0.5);
    return [
      { ...kind, items: drawn[j]! - swapped },
      { base: kind.cand, cand: kind.base, items: swapped },
    ];
  });
}

/**
 * fewestInRandomOrder for the population gate. Its interval needs only the items' total gain and
 * loss. Its upper bound is below 0 exactly when the score test rejects Δ = 0 (the score statistic
 * falls as Δ rises), so that test is what a regression verdict is checked by.
 */
function fewestBroken(
  run: readonly PairKind[],
  n: number,
  level: number,
  margin: number,
  correction: number,
  rng: Rng,
): number {
  const z = twoSidedZ(level);
  let [gain, loss] = [0, 0];
  for (const { base, cand, items } of run) {
    gain += (items * Math.max(cand - base, 0)) / n;
    loss += (items * Math.max(base - cand, 0)) / n;
  }
  const caughtAt = (broken: readonly number[]) => {
    // A broken item's gain is gone and its loss is its whole baseline score.
    let [g, l] = [gain, loss];
    run.forEach(({ base, cand }, j) => {
      g -= (broken[j]! * Math.max(cand - base, 0)) / n;
      l += (broken[j]! * (base - Math.max(base - cand, 0))) / n;
    });
    return g - l < -margin && rejects(g, l, n, 0, z, correction);
  };
  return fewestInRandomOrder(
    run.map((kind) => kind.items),
    caughtAt,
    rng,
  );
}

/** Beyond this many items the estimate stops: no suite of items like these is that large. */
const MOST_ITEMS_ESTIMATED = 1e9;
/** Beyond this many samples per case the estimate stops. */
const MOST_SAMPLES_ESTIMATED = 1e6;

/** The lower half-width at which an unchanged candidate passes ~80%, a drop of the margin ~2.5%. */
function targetHalfWidth(margin: number, level: number): number {
  const z = twoSidedZ(level);
  return (margin * z) / (z + Z_POWER_80);
}

/**
 * The smallest r ≥ 1 (to about 1e-9) at which down(r), shrinking as r grows, is at most the
 * target, times `unit` and rounded up; null when r·unit would pass `most`.
 */
function scaleNeeded(down: (r: number) => number, target: number, unit: number, most: number) {
  if (down(1) <= target) return unit;
  let enough = 2;
  while (down(enough) > target) {
    enough *= 2;
    if (enough * unit > most) return null;
  }
  let few = enough / 2;
  for (let step = 0; step < 30; step++) {
    const middle = Math.sqrt(few * enough);
    if (down(middle) > target) few = middle;
    else enough = middle;
  }
  return Math.ceil(enough * unit);
}

/**
 * Items a suite like this one would need to tell a drop of `margin` from no change: the size at
 * which the interval's lower half-width is at most margin·z / (z + z₀.₈), so that an unchanged
 * candidate passes the gate in about 80% of runs and one that dropped by the margin in about
 * 2.5%. An estimate: a suite r times as large is taken to have the same shares of gain and loss,
 * and the score interval is used whatever the method. The current size when it is already
 * enough; null when no size is (margin 0, or more than a billion items).
 */
export function itemsNeeded(p: PairedScores, margin: number, level = 0.95): number | null {
  const n = p.base.length;
  if (n === 0 || !(margin > 0)) return null;
  const { gain, loss } = pairedShares(p);
  const correction = continuityCorrection(p);
  const down = (r: number) => gain - loss - tangoBounds(gain, loss, n * r, level, correction)[0];
  return scaleNeeded(down, targetHalfWidth(margin, level), n, MOST_ITEMS_ESTIMATED);
}

/**
 * Cases scope: samples per case, on each side, at which the interval's lower half-width is at
 * most margin·z / (z + z₀.₈) (as itemsNeeded), the cases' pass shares taken to stay as they are.
 * The current count when it is already enough; null when the cases interval does not apply, the
 * margin is 0, or no count up to a million is enough.
 */
export function samplesNeeded(p: PairedScores, margin: number, level = 0.95): number | null {
  if (p.base.length === 0 || !(margin > 0) || intervalOf(p, "cases") !== "cases") return null;
  const [base, cand] = [grouped(counts(p, "base")), grouped(counts(p, "cand"))];
  const scaled = (g: Groups, r: number): Groups => ({
    ...g,
    passes: g.passes.map((x) => x * r),
    samples: g.samples.map((k) => k * r),
  });
  const delta = groupMean(cand) - groupMean(base);
  // The lattice of the difference is r times finer, and so is its continuity correction.
  const correction = continuityCorrection(p) / p.base.length;
  const down = (r: number) =>
    delta - casesBound(scaled(base, r), scaled(cand, r), level, correction / r, -1);
  const most = Math.max(...base.samples, ...cand.samples);
  return scaleNeeded(down, targetHalfWidth(margin, level), most, MOST_SAMPLES_ESTIMATED);
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
