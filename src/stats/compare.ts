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

import { bootstrapMeanInterval } from "./bootstrap.js";
import { normalQuantile, twoSidedZ } from "./distributions.js";
import {
  DEFAULT_INTERVAL_METHOD,
  effectiveTrials,
  type ItemAgg,
  itemScore,
  mean,
  scoreBounds,
} from "./interval.js";
import type { Interval, IntervalMethod } from "./types.js";

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
}

export interface StratumDelta {
  stratum: string;
  n: number;
  delta: number;
  low: number;
  high: number;
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
  /**
   * Minimum detectable effect: the smallest true drop that this gate would call `regression` in
   * 80% of runs of this size and spread. The rule needs delta < −margin and high < 0, so the drop
   * must exceed the margin and the interval's upper half-width h, plus 0.84 standard errors
   * (taking se = h / z): mde = max(h, margin) + 0.84·h/z. NaN when nothing is paired.
   */
  mde: number;
  /** Items a suite like this would need to tell a drop of the margin from no change (itemsNeeded). */
  itemsNeeded: number | null;
  /** Per-stratum deltas with intervals (no verdicts: many strata would multiply false alarms). */
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

export function correlation(x: ArrayLike<number>, y: ArrayLike<number>): number {
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
  // No spread in one run: the correlation is undefined, and 0 ignores the pairing, which can
  // only widen the interval when, as for the same items run twice, scores correlate positively.
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : 0;
}

/**
 * Newcombe's score interval for a paired difference (MOVER; methods 10 and 11 of Newcombe 1998,
 * without and with continuity correction), built from the two runs' design-effect Wilson
 * intervals and the correlation of item scores between the runs. Unlike a Wald or bootstrap
 * interval it does not collapse to [0, 0] when no item changed, so a small suite stays
 * inconclusive instead of passing on no evidence.
 */
export function pairedWilsonBounds(
  base: Float64Array,
  cand: Float64Array,
  baseN: ArrayLike<number>,
  candN: ArrayLike<number>,
  z: number,
  continuity: boolean,
): [number, number] {
  return moverBounds(pairedMoments({ base, cand, baseN, candN }), z, continuity);
}

/** What the paired score interval depends on: both rates, their effective trials, the correlation. */
interface PairedMoments {
  pb: number;
  pc: number;
  trialsBase: number;
  trialsCand: number;
  phi: number;
}

function pairedMoments(p: {
  base: Float64Array;
  cand: Float64Array;
  baseN: ArrayLike<number>;
  candN: ArrayLike<number>;
}): PairedMoments {
  return {
    pb: mean(p.base),
    pc: mean(p.cand),
    trialsBase: effectiveTrials(p.base, p.baseN),
    trialsCand: effectiveTrials(p.cand, p.candN),
    phi: correlation(p.base, p.cand),
  };
}

function moverBounds(m: PairedMoments, z: number, continuity: boolean): [number, number] {
  const bounds = scoreBounds(continuity);
  const { pb, pc, phi } = m;
  const [lb, ub] = bounds(pb, m.trialsBase, z);
  const [lc, uc] = bounds(pc, m.trialsCand, z);
  const delta = pc - pb;
  const down = Math.sqrt((pc - lc) ** 2 - 2 * phi * (pc - lc) * (ub - pb) + (ub - pb) ** 2);
  const up = Math.sqrt((uc - pc) ** 2 - 2 * phi * (uc - pc) * (pb - lb) + (pb - lb) ** 2);
  return [Math.max(-1, delta - down), Math.min(1, delta + up)];
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
  const z = twoSidedZ(level);
  const [low, high] = pairedWilsonBounds(p.base, p.cand, p.baseN, p.candN, z, true);
  return { estimate: mean(p.cand) - mean(p.base), low, high, level, method };
}

export function verdictOf(delta: number, low: number, high: number, margin: number): Verdict {
  if (low > -margin) return "pass";
  if (high < 0 && delta < -margin) return "regression";
  return "inconclusive";
}

const Z_POWER_80 = normalQuantile(0.8);

export function minimumDetectableDrop(interval: Interval, margin: number): number {
  const half = interval.high - interval.estimate;
  const se = half / twoSidedZ(interval.level);
  return Math.max(half, margin) + Z_POWER_80 * se;
}

/** Beyond this many items the estimate stops: no suite of items like these is that large. */
const MOST_ITEMS_ESTIMATED = 1e9;

/**
 * Items a suite like this one would need to tell a drop of `margin` from no change: the size at
 * which the interval's lower half-width is at most margin·z / (z + z₀.₈), so that an unchanged
 * candidate passes the gate in about 80% of runs and one that dropped by the margin in about
 * 2.5%. An estimate: the items are taken to stay as they are (same rates, same spread, same
 * correlation between the runs), so a suite r times as large is worth r times the effective
 * trials, and the score interval is used whatever the method. The current size when it is
 * already enough; null when no size is (margin 0, or more than a billion items).
 */
export function itemsNeeded(p: PairedScores, margin: number, level = 0.95): number | null {
  const n = p.base.length;
  if (n === 0 || !(margin > 0)) return null;
  const z = twoSidedZ(level);
  const target = (margin * z) / (z + Z_POWER_80);
  const moments = pairedMoments(p);
  const lowerHalfWidth = (scale: number) => {
    const scaled = {
      ...moments,
      trialsBase: moments.trialsBase * scale,
      trialsCand: moments.trialsCand * scale,
    };
    return moments.pc - moments.pb - moverBounds(scaled, z, true)[0];
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
  const pick = (values: Float64Array) => Float64Array.from(indices, (i) => values[i]!);
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
  return [...groups.entries()]
    .sort(([a], [b]) => byId(a, b))
    .map(([stratum, indices]) => {
      const interval = pairedDeltaInterval(subset(p, indices), method, opts);
      const { estimate: delta, low, high } = interval;
      return { stratum, n: indices.length, delta, low, high };
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
  const paired = pairItems(base, cand);
  const interval = pairedDeltaInterval(paired, method, opts);
  const { estimate: delta, low, high, level } = interval;
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
    mde: paired.ids.length === 0 ? Number.NaN : minimumDetectableDrop(interval, margin),
    itemsNeeded: itemsNeeded(paired, margin, level),
    strata: strataDeltas(paired, method, opts),
  };
}
