import { describe, expect, it } from "vitest";
import {
  binomial,
  hypergeometric,
  logFactorial,
  multinomial,
  normalQuantile,
  twoSidedZ,
} from "../../src/stats/distributions.js";
import { createRng } from "../../src/stats/rng.js";

function binomialPmf(n: number, p: number, k: number): number {
  const log =
    logFactorial(n) -
    logFactorial(k) -
    logFactorial(n - k) +
    k * Math.log(p) +
    (n - k) * Math.log1p(-p);
  return Math.exp(log);
}

/** Pearson chi-square of `draws` samples against the exact pmf, bins pooled to ≥ 20 expected. */
function chiSquare(n: number, p: number, draws: number, seed: number): { chi: number; df: number } {
  const rng = createRng(seed);
  const counts = new Float64Array(n + 1);
  for (let i = 0; i < draws; i++) counts[binomial(rng, n, p)]! += 1;
  let chi = 0;
  let df = -1;
  let expected = 0;
  let observed = 0;
  for (let k = 0; k <= n; k++) {
    expected += draws * binomialPmf(n, p, k);
    observed += counts[k]!;
    if (expected >= 20 || k === n) {
      chi += (observed - expected) ** 2 / expected;
      df += 1;
      expected = 0;
      observed = 0;
    }
  }
  return { chi, df };
}

describe("normalQuantile", () => {
  it("matches tabulated quantiles", () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963985, 8);
    expect(normalQuantile(0.8)).toBeCloseTo(0.841621234, 8);
    expect(normalQuantile(0.995)).toBeCloseTo(2.575829304, 8);
    expect(normalQuantile(0.01)).toBeCloseTo(-2.326347874, 8);
    expect(normalQuantile(0.5)).toBe(0);
    expect(twoSidedZ(0.9)).toBeCloseTo(1.644853627, 8);
  });
});

describe("logFactorial", () => {
  it("agrees with a direct sum on both sides of the table", () => {
    let direct = 0;
    for (let k = 1; k <= 1000; k++) {
      direct += Math.log(k);
      if (k === 10 || k === 255 || k === 256 || k === 1000) {
        expect(logFactorial(k)).toBeCloseTo(direct, 8);
      }
    }
  });
});

describe("binomial", () => {
  // Inversion (n·p < 10) and BTRS (n·p ≥ 10, and p > 0.5 by symmetry) against the exact pmf.
  // A chi-square above df + 6·√(2·df) has probability far below 1e-4 for a correct sampler.
  it.each([
    [20, 0.3],
    [1000, 0.004],
    [100, 0.5],
    [1000, 0.2],
    [50, 0.93],
    [100_000, 0.37],
  ])("draws Binomial(%i, %f) with the exact distribution", (n, p) => {
    const { chi, df } = chiSquare(n, p, 200_000, n);
    expect(chi).toBeLessThan(df + 6 * Math.sqrt(2 * df));
  });

  it("handles the edges", () => {
    const rng = createRng(1);
    expect(binomial(rng, 0, 0.5)).toBe(0);
    expect(binomial(rng, 10, 0)).toBe(0);
    expect(binomial(rng, 10, 1)).toBe(10);
  });
});

describe("multinomial", () => {
  it("always places every trial and matches the expected shares", () => {
    const rng = createRng(3);
    const weights = [5, 0, 20, 75];
    const out = new Float64Array(4);
    const totals = new Float64Array(4);
    for (let r = 0; r < 2000; r++) {
      multinomial(rng, 1000, weights, out);
      expect(out.reduce((a, b) => a + b, 0)).toBe(1000);
      expect(out[1]).toBe(0);
      out.forEach((v, j) => {
        totals[j]! += v;
      });
    }
    // Expected per-draw counts 50, 0, 200, 750; the averages' se are 0.15, 0.28 and 0.31.
    expect(Math.abs(totals[0]! / 2000 - 50)).toBeLessThan(0.8);
    expect(Math.abs(totals[2]! / 2000 - 200)).toBeLessThan(1.2);
    expect(Math.abs(totals[3]! / 2000 - 750)).toBeLessThan(1.3);
  });
});

describe("hypergeometric", () => {
  it("has the hypergeometric mean and variance, and stays in its support", () => {
    const rng = createRng(3);
    for (const [total, marked, draws] of [
      [20, 5, 10],
      [100_000, 30_000, 50_000],
      [10, 10, 4],
      [10, 0, 4],
    ] as const) {
      const runs = 4000;
      let sum = 0;
      let squares = 0;
      for (let r = 0; r < runs; r++) {
        const x = hypergeometric(rng, total, marked, draws);
        expect(x).toBeGreaterThanOrEqual(Math.max(0, draws - (total - marked)));
        expect(x).toBeLessThanOrEqual(Math.min(draws, marked));
        sum += x;
        squares += x * x;
      }
      const mean = (draws * marked) / total;
      const variance =
        (draws * (marked / total) * (1 - marked / total) * (total - draws)) / (total - 1);
      expect(sum / runs).toBeCloseTo(mean, mean > 100 ? -1 : 1);
      const observed = squares / runs - (sum / runs) ** 2;
      if (variance > 0) expect(observed / variance).toBeGreaterThan(0.9);
      if (variance > 0) expect(observed / variance).toBeLessThan(1.1);
    }
  });
});
