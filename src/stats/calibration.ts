/**
 * How far a grader (an LLM judge, most often) agrees with people, and the pass rate people would
 * give once the judge's errors are taken out.
 *
 * On labelled samples, TPR = P(judge passes | a person passes it) and TNR = P(judge fails | a
 * person fails it). The judge's pass rate p then has expectation θ·TPR + (1 − θ)(1 − TNR), where
 * θ is the rate people would give; solved for θ, that is the Rogan–Gladen estimator
 * θ = (p + TNR − 1) / (TPR + TNR − 1). Its interval is Lang and Reiczigel's (2014, "Confidence
 * limits for prevalence of disease adjusted for estimated sensitivity and specificity"): a Wald
 * interval on Agresti–Coull-style adjusted estimates, shifted for the skew of the ratio. It adds
 * the variance of the run's rate to that of TPR and TNR; here the run's rate is counted in
 * effective trials of its items (effectiveTrials), so k samples of one item are not worth k
 * independent ones. Chosen by measurement (bench/calibration).
 */

import { twoSidedZ } from "./distributions.js";
import { wilsonBounds } from "./interval.js";

/** Labelled samples, by the judge's verdict against the person's. */
export interface Confusion {
  /** Person 1, judge passed. */
  tp: number;
  /** Person 1, judge failed. */
  fn: number;
  /** Person 0, judge failed. */
  tn: number;
  /** Person 0, judge passed. */
  fp: number;
}

/** An estimate with its interval; all null when the data cannot give one. */
export interface Estimate {
  estimate: number | null;
  low: number | null;
  high: number | null;
}

export interface Agreement {
  tpr: Estimate;
  tnr: Estimate;
  kappa: Estimate;
}

/** The judge's own pass rate over the run: its estimate and what its items are worth in trials. */
export interface RawRate {
  estimate: number;
  trials: number;
}

const NONE: Estimate = { estimate: null, low: null, high: null };

/**
 * Fewest labels of each verdict (people's pass, people's fail) a correction is computed from:
 * below it, TPR or TNR rests on a handful of samples. Chosen by measurement (bench/calibration):
 * with 3 or 5 the interval covers ≥ 93% in every cell (lowest 93.6% and 94.3%); with 10 it fell
 * to 67–92% (200 runs per cell) where labels hold about 5 fails on average, in the few runs that
 * reach 10 (labels drawn from the run's own samples: those runs' items are worse than the
 * population's).
 */
export const MIN_LABELS_PER_VERDICT = 5;

/** TPR and TNR with Wilson intervals (each labelled sample one trial), Cohen's κ with its own. */
export function agreement(counts: Confusion, level: number): Agreement {
  return {
    tpr: proportion(counts.tp, counts.tp + counts.fn, level),
    tnr: proportion(counts.tn, counts.tn + counts.fp, level),
    kappa: cohensKappa(counts, level),
  };
}

function proportion(successes: number, trials: number, level: number): Estimate {
  if (trials === 0) return NONE;
  const estimate = successes / trials;
  const [low, high] = wilsonBounds(estimate, trials, level);
  return { estimate, low, high };
}

/**
 * Cohen's κ with the large-sample standard error of Fleiss, Cohen and Everitt (1969), which holds
 * for any κ (not only κ = 0). Null when people and judge each gave one verdict only: chance
 * agreement is then 1 and κ is 0/0.
 */
export function cohensKappa(counts: Confusion, level: number): Estimate {
  const n = counts.tp + counts.fn + counts.tn + counts.fp;
  if (n === 0) return NONE;
  // Cell (i, j): judge verdict i, person's verdict j; index 1 = pass.
  const cell = [
    [counts.tn / n, counts.fn / n],
    [counts.fp / n, counts.tp / n],
  ] as const;
  const judge = [cell[0][0] + cell[0][1], cell[1][0] + cell[1][1]] as const;
  const person = [cell[0][0] + cell[1][0], cell[0][1] + cell[1][1]] as const;
  const observed = cell[0][0] + cell[1][1];
  const chance = judge[0] * person[0] + judge[1] * person[1];
  if (chance >= 1) return NONE;
  const kappa = (observed - chance) / (1 - chance);
  let sum = 0;
  for (const i of [0, 1] as const) {
    sum += cell[i][i] * (1 - (judge[i] + person[i]) * (1 - kappa)) ** 2;
    const j = (1 - i) as 0 | 1;
    sum += (1 - kappa) ** 2 * cell[i][j] * (person[i] + judge[j]) ** 2;
  }
  const variance = Math.max(0, sum - (kappa - chance * (1 - kappa)) ** 2) / (n * (1 - chance) ** 2);
  const half = twoSidedZ(level) * Math.sqrt(variance);
  return {
    estimate: kappa,
    low: Math.max(-1, kappa - half),
    high: Math.min(1, kappa + half),
  };
}

/** Why a rate cannot be corrected, or null when it can. */
export type Refusal =
  | { kind: "too-few-labels"; passes: number; fails: number; need: number }
  | { kind: "no-better-than-chance"; youden: number };

export function refusal(counts: Confusion): Refusal | null {
  const passes = counts.tp + counts.fn;
  const fails = counts.tn + counts.fp;
  if (passes < MIN_LABELS_PER_VERDICT || fails < MIN_LABELS_PER_VERDICT) {
    return { kind: "too-few-labels", passes, fails, need: MIN_LABELS_PER_VERDICT };
  }
  const youden = counts.tp / passes + counts.tn / fails - 1;
  return youden <= 0 ? { kind: "no-better-than-chance", youden } : null;
}

const clip = (x: number) => Math.min(1, Math.max(0, x));

/**
 * The corrected pass rate (Rogan–Gladen, clipped to [0, 1]) and its Lang–Reiczigel interval, or
 * null where `refusal` gives a reason.
 */
export function correctedPassRate(raw: RawRate, counts: Confusion, level: number): Estimate {
  if (refusal(counts) !== null) return NONE;
  const passes = counts.tp + counts.fn;
  const fails = counts.tn + counts.fp;
  const tpr = counts.tp / passes;
  const tnr = counts.tn / fails;
  const estimate = clip((raw.estimate + tnr - 1) / (tpr + tnr - 1));
  // Adjusted estimates: z²/2 passes and fails added to the run's rate, one of each to TPR and TNR.
  const z = twoSidedZ(level);
  const rateTrials = raw.trials + z * z;
  const rate = (raw.estimate * raw.trials + (z * z) / 2) / rateTrials;
  const sensTrials = passes + 2;
  const sens = (counts.tp + 1) / sensTrials;
  const specTrials = fails + 2;
  const spec = (counts.tn + 1) / specTrials;
  const youden = sens + spec - 1;
  const theta = (rate + spec - 1) / youden;
  const sensVar = (sens * (1 - sens)) / sensTrials;
  const specVar = (spec * (1 - spec)) / specTrials;
  const se =
    Math.sqrt(
      (rate * (1 - rate)) / rateTrials + theta ** 2 * sensVar + (1 - theta) ** 2 * specVar,
    ) / Math.abs(youden);
  const shift = 2 * z * z * (theta * sensVar - (1 - theta) * specVar);
  return {
    estimate,
    low: clip(theta + shift - z * se),
    high: clip(theta + shift + z * se),
  };
}
