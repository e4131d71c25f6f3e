/**
 * Tango's score interval for a difference of paired proportions (Tango 1998, Statistics in
 * Medicine 17:891–908), written in shares so that it also takes units whose outcome is a share.
 *
 * Each of n units gains (+1), loses (−1) or stays (0; a tie). With g and l the shares that gained
 * and lost, Δ = g − l is estimated by g − l, and the interval is every Δ whose score test does
 * not reject: n(g − l − Δ)² ≤ z²·(2q + Δ(1 − Δ)), where q is the likeliest loss share given Δ
 * (the root of 2q² + Bq + C = 0 with B = −g − l + (2 − g + l)Δ, C = −lΔ(1 − Δ)). The variance is
 * taken under the Δ tested, not at the observed shares, so no change at all still gives an
 * interval of about ±z²/n, not [0, 0]. A unit whose outcome is the mean of several (a share
 * between −1 and 1) has a variance at most that of one whole outcome with the same shares, so
 * counting each such unit once keeps the interval valid, if wider than it needs to be. A caller
 * may shorten the distance n|g − l − Δ| by a continuity correction (compare.ts: half a step).
 */

import { twoSidedZ } from "./distributions.js";

/** Bisection steps: each bound to within 2⁻⁶⁰, far closer than any figure shown. */
const BISECTIONS = 60;

/** The likeliest loss share under the difference `delta` (Tango's q̂₂₁), in shares. */
export function likeliestLoss(gain: number, loss: number, delta: number): number {
  const b = -gain - loss + (2 - gain + loss) * delta;
  const c = -loss * delta * (1 - delta);
  return Math.max(0, (Math.sqrt(Math.max(0, b * b - 8 * c)) - b) / 4);
}

/**
 * Whether the score test at level z rejects the difference `delta`: the distance of the units'
 * total difference n(g − l) from nΔ, shortened by `correction` units (a continuity correction),
 * against z standard deviations.
 */
export function rejects(
  gain: number,
  loss: number,
  n: number,
  delta: number,
  z: number,
  correction = 0,
): boolean {
  const distance = Math.abs(n * (gain - loss - delta)) - correction;
  if (!(distance > 0)) return false;
  const variance = 2 * likeliestLoss(gain, loss, delta) + delta * (1 - delta);
  return (distance * distance) / n > z * z * Math.max(0, variance);
}

/** [low, high] for gain − loss over n units; NaN bounds when n is 0. */
export function tangoBounds(
  gain: number,
  loss: number,
  n: number,
  level: number,
  correction = 0,
): [number, number] {
  if (!(n > 0)) return [Number.NaN, Number.NaN];
  const z = twoSidedZ(level);
  return invertedTest(gain - loss, (delta) => rejects(gain, loss, n, delta, z, correction));
}

/**
 * Every difference in [−1, 1] that a test does not reject, for a test that rejects more the
 * farther the difference is from the estimate: each bound by bisection.
 */
export function invertedTest(
  estimate: number,
  rejectsAt: (delta: number) => boolean,
): [number, number] {
  const bound = (far: number): number => {
    let inside = estimate;
    let outside = far;
    if (!rejectsAt(far)) return far;
    for (let step = 0; step < BISECTIONS; step++) {
      const middle = (inside + outside) / 2;
      if (rejectsAt(middle)) outside = middle;
      else inside = middle;
    }
    return inside;
  };
  return [bound(-1), bound(1)];
}
