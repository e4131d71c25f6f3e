/**
 * `--sequential`: sample until the verdict is known, on these cases (the cases scope).
 *
 * Each step picks one case at random, with chances that favour the cases whose answers vary
 * (predictable: they depend only on the steps before), samples it once on each arm, and records
 * D = candidate − baseline (−1, 0 or 1). Weighted by the chance of the pick, Y = D / (n·π) has,
 * whatever came before, exactly the mean difference Δ = mean over cases of (q − p) as its
 * expectation: the estimate stays unbiased however the chances move. Mixing the favouring
 * chances with the uniform ones (share `uniform`) keeps every chance at least uniform/n, so Y
 * stays within ±1/uniform.
 *
 * The verdict rests on two betting tests (Waudby-Smith & Ramdas 2024, JRSS-B: the hedged
 * capital process with the aGRAPA bets, one side each): one bets that Δ > −margin (its wealth
 * past 2/α says pass), one that Δ < 0 (with the estimate below −margin, regression). Each bet is
 * a predictable fraction of the wealth on Y, rescaled to X = (Y + B)/2B in [0, 1], so the wealth
 * under the hypothesis is a nonnegative martingale and, by Ville's inequality, passes 2/α with
 * chance at most α/2 ever: valid whenever the run stops. The interval shown is the confidence
 * sequence of the same processes, the means no side's wealth has reached 2/α.
 *
 * Pure: the caller picks with `nextCase`, samples both arms, and passes the answers to `record`;
 * `decision` says whether to stop.
 */

import type { Verdict } from "./compare.js";
import type { Rng } from "./rng.js";

export interface SequentialOptions {
  /** Cases in the suite. */
  cases: number;
  /** Largest drop accepted; the same rule as the fixed-k gate. */
  margin: number;
  /** Samples per case per arm, on average, at which the run stops undecided. */
  maxK: number;
  level?: number;
  /** Share of each pick's chance spread evenly over the cases; 1 samples uniformly. */
  uniform?: number;
}

/** What the run knows after each step. */
export interface SequentialState {
  readonly options: Required<SequentialOptions>;
  /** Paired draws so far: each is one sample per arm. */
  steps: number;
  /** Per case: draws, and the sum of D² (how much its two arms disagree). */
  draws: Float64Array;
  squares: Float64Array;
  /** Σ Y, for the unbiased estimate. */
  sumY: number;
  /** Every X = (Y + B) / 2B so far: the interval is worked out from them when asked. */
  xs: number[];
  /** The predictable mean and variance of X, with a prior of one observation at 1/2 (WSR). */
  sumX: number;
  sumSquaredResidual: number;
  /** Log-wealth of the bet that Δ > −margin, and of the bet that Δ < 0. */
  logWealthPass: number;
  logWealthRegression: number;
}

export type StopReason = "decided" | "max-k" | "budget";

export interface SequentialDecision {
  /** null while the run should go on. */
  verdict: Verdict | null;
  reason: StopReason | null;
  /** The unbiased estimate of Δ (its interval: confidenceInterval). */
  estimate: number;
  /** Samples taken per arm. */
  samples: number;
}

/** The largest share of the wealth a bet may risk (Waudby-Smith & Ramdas use 1/2 or 3/4). */
const BET_CAP = 0.75;
/** Prior weight, in draws, of the suite's mean disagreement in a case's own. */
const PRIOR_DRAWS = 1;
/** Default share of uniform picks: keeps Y within ±2. */
const UNIFORM_SHARE = 0.5;

export function startSequential(options: SequentialOptions): SequentialState {
  if (!(options.cases > 0)) throw new RangeError("a sequential run needs at least one case");
  const full = { level: 0.95, uniform: UNIFORM_SHARE, ...options };
  if (!(full.uniform > 0 && full.uniform <= 1)) {
    throw new RangeError(`uniform share must be in (0, 1], got ${full.uniform}`);
  }
  return {
    options: full,
    steps: 0,
    draws: new Float64Array(options.cases),
    squares: new Float64Array(options.cases),
    sumY: 0,
    xs: [],
    sumX: 0,
    sumSquaredResidual: 0,
    logWealthPass: 0,
    logWealthRegression: 0,
  };
}

/**
 * Each case's chance to be picked next: in proportion to the root of its mean squared
 * disagreement between the arms (Neyman's allocation: the variance of Y is least so), shrunk
 * toward the suite's mean by PRIOR_DRAWS, mixed with the uniform share.
 */
export function pickChances(state: SequentialState): Float64Array {
  const { cases, uniform } = state.options;
  let totalSquares = 0;
  for (let i = 0; i < cases; i++) totalSquares += state.squares[i]!;
  // Before any disagreement is seen every case looks alike; a floor keeps the weights defined.
  const suiteMean = (totalSquares + 1) / (state.steps + 1);
  const weights = new Float64Array(cases);
  let total = 0;
  for (let i = 0; i < cases; i++) {
    const own = (state.squares[i]! + PRIOR_DRAWS * suiteMean) / (state.draws[i]! + PRIOR_DRAWS);
    weights[i] = Math.sqrt(own);
    total += weights[i]!;
  }
  return weights.map((w) => (1 - uniform) * (w / total) + uniform / cases);
}

/** The next case to sample on both arms, and the chance it had (pass it back to record). */
export function nextCase(state: SequentialState, rng: Rng): { index: number; chance: number } {
  const chances = pickChances(state);
  let u = rng.uniform();
  for (let i = 0; i < chances.length; i++) {
    u -= chances[i]!;
    if (u <= 0) return { index: i, chance: chances[i]! };
  }
  const last = chances.length - 1;
  return { index: last, chance: chances[last]! };
}

/** Records one paired draw: case `index`, picked with `chance`, baseline and candidate scores. */
export function record(
  state: SequentialState,
  draw: { index: number; chance: number; base: number; cand: number },
): void {
  const { cases, uniform, margin } = state.options;
  const d = draw.cand - draw.base;
  const y = d / (cases * draw.chance);
  const x = toX(y, uniform);
  const before = predicted(state.sumX, state.sumSquaredResidual, state.steps);
  state.logWealthPass += Math.log1p(
    bet(before, toX(-margin, uniform), 1) * (x - toX(-margin, uniform)),
  );
  state.logWealthRegression += Math.log1p(
    -bet(before, toX(0, uniform), -1) * (x - toX(0, uniform)),
  );
  state.xs.push(x);
  state.sumX += x;
  const t = state.steps + 1;
  state.sumSquaredResidual += (x - (0.5 + state.sumX) / (t + 1)) ** 2;
  state.sumY += y;
  state.steps = t;
  state.draws[draw.index]! += 1;
  state.squares[draw.index]! += d * d;
}

/** Y (within ±1/uniform) onto [0, 1]. */
function toX(y: number, uniform: number): number {
  const bound = 1 / uniform;
  return (y + bound) / (2 * bound);
}

/** The mean and variance of X before a step, each with a prior observation (WSR, eq. 26). */
function predicted(sumX: number, sumSquares: number, steps: number) {
  return { mean: (0.5 + sumX) / (steps + 1), variance: (0.25 + sumSquares) / (steps + 1) };
}

/**
 * The aGRAPA bet on the mean being above m (side 1) or below it (−1): the growth-optimal
 * fraction for a mean and variance like the predicted ones, (μ̂ − m)/(σ̂² + (μ̂ − m)²), never
 * negative, and capped so that one observation at the far end of [0, 1] loses at most BET_CAP
 * of the wealth.
 */
function bet(before: { mean: number; variance: number }, m: number, side: 1 | -1): number {
  const gap = side * (before.mean - m);
  const fraction = gap / (before.variance + gap * gap);
  const room = side > 0 ? m : 1 - m;
  return Math.max(0, Math.min(fraction, BET_CAP / room));
}

/** Log of 2/α: the wealth each one-sided bet must reach. */
function threshold(level: number): number {
  return Math.log(2 / (1 - level));
}

/**
 * The confidence sequence at this step: the Δ neither bet has refuted, each bet replayed on the
 * observations so far (the bets on m depend on m). Refuted below the estimate means refuted
 * further below too (and above alike), so each bound is found by bisection.
 */
export function confidenceInterval(state: SequentialState): [number, number] {
  const { uniform, level } = state.options;
  const refuted = (delta: number, side: 1 | -1) => {
    const m = toX(delta, uniform);
    let logWealth = 0;
    let sumX = 0;
    let sumSquares = 0;
    for (let t = 0; t < state.xs.length; t++) {
      const x = state.xs[t]!;
      logWealth += Math.log1p(side * bet(predicted(sumX, sumSquares, t), m, side) * (x - m));
      sumX += x;
      sumSquares += (x - (0.5 + sumX) / (t + 2)) ** 2;
    }
    return logWealth >= threshold(level);
  };
  const bound = 1 / uniform;
  const centre = state.steps > 0 ? Math.max(-1, Math.min(1, state.sumY / state.steps)) : 0;
  const edge = (side: 1 | -1) => {
    let inside = centre;
    let outside = -side * bound;
    for (let step = 0; step < INTERVAL_BISECTIONS; step++) {
      const middle = (inside + outside) / 2;
      if (refuted(middle, side)) outside = middle;
      else inside = middle;
    }
    return outside;
  };
  return [Math.max(-1, edge(1)), Math.min(1, edge(-1))];
}

/** The interval's bounds to within 2⁻³⁰ of the range of Y. */
const INTERVAL_BISECTIONS = 30;

/**
 * Whether to stop: the fixed-k gate's rule, on the bets (pass: Δ > −margin refuted no more;
 * Δ ≥ 0 refuted with the estimate below −margin: regression); else undecided at maxK samples per case
 * per arm on average ("max-k"), or when the caller's budget is spent ("budget"): both
 * inconclusive, never a failure of the candidate.
 */
export function decision(
  state: SequentialState,
  budget: { exhausted: boolean } = { exhausted: false },
): SequentialDecision {
  const { margin, maxK, cases, level } = state.options;
  const estimate = state.steps > 0 ? state.sumY / state.steps : Number.NaN;
  const figures = { estimate, samples: state.steps };
  if (state.logWealthPass >= threshold(level)) {
    return { ...figures, verdict: "pass", reason: "decided" };
  }
  if (state.logWealthRegression >= threshold(level) && estimate < -margin) {
    return { ...figures, verdict: "regression", reason: "decided" };
  }
  if (state.steps >= maxK * cases) return { ...figures, verdict: "inconclusive", reason: "max-k" };
  if (budget.exhausted) return { ...figures, verdict: "inconclusive", reason: "budget" };
  return { ...figures, verdict: null, reason: null };
}
