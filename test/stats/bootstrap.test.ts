import { describe, expect, it } from "vitest";
import {
  bootstrapMeanInterval,
  bootstrapMeans,
  distinctValues,
  percentileIndices,
} from "../../src/stats/bootstrap.js";
import { createRng } from "../../src/stats/rng.js";
import { naiveBootstrapMeans } from "./helpers.js";

/** Item scores of n items with k samples, each item's rate drawn from a U-shaped mix. */
function dataset(n: number, k: number, seed: number): number[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => {
    const u = rng.uniform();
    const rate = u < 0.6 ? 0.97 : u < 0.8 ? 0.5 : 0.1;
    let passes = 0;
    for (let s = 0; s < k; s++) if (rng.uniform() < rate) passes += 1;
    return passes / k;
  });
}

function quantile(sorted: Float64Array, q: number): number {
  return sorted[Math.floor(q * (sorted.length - 1))]!;
}

function moments(values: Float64Array): [number, number] {
  const m = values.reduce((a, b) => a + b, 0) / values.length;
  const v = values.reduce((a, b) => a + (b - m) ** 2, 0) / (values.length - 1);
  return [m, Math.sqrt(v)];
}

describe("percentileIndices", () => {
  it("uses the article's indices: floor(0.025·R) and floor(0.975·R) − 1", () => {
    expect(percentileIndices(10_000, 0.95)).toEqual([250, 9749]);
    expect(percentileIndices(1000, 0.9)).toEqual([50, 949]);
    expect(percentileIndices(1, 0.95)).toEqual([0, 0]);
  });
});

describe("distinctValues", () => {
  it("counts each distinct value, in ascending order", () => {
    const { values, counts } = distinctValues([1, 0, 0.5, 1, 1, 0]);
    expect([...values]).toEqual([0, 0.5, 1]);
    expect([...counts]).toEqual([2, 1, 3]);
  });
});

describe("bootstrapMeanInterval", () => {
  it("returns NaN bounds for no values", () => {
    const interval = bootstrapMeanInterval([]);
    expect(interval.estimate).toBeNaN();
    expect(interval.low).toBeNaN();
    expect(interval.high).toBeNaN();
  });

  it("collapses to the value when every value is the same (the undercoverage it is known for)", () => {
    expect(bootstrapMeanInterval(new Array(20).fill(1))).toMatchObject({
      estimate: 1,
      low: 1,
      high: 1,
    });
    expect(bootstrapMeanInterval([0, 0, 0])).toMatchObject({ low: 0, high: 0 });
  });

  it("is deterministic for a seed, changes with the seed, and ignores the order of values", () => {
    const values = dataset(200, 3, 1);
    const a = bootstrapMeanInterval(values, { seed: 5 });
    expect(bootstrapMeanInterval(values, { seed: 5 })).toEqual(a);
    expect(bootstrapMeanInterval([...values].reverse(), { seed: 5 })).toEqual(a);
    const other = bootstrapMeanInterval(values, { seed: 6 });
    expect([other.low, other.high]).not.toEqual([a.low, a.high]);
  });

  it("brackets the mean of a simple 0/1 sample at the normal-theory width", () => {
    const values = [...new Array(60).fill(1), ...new Array(40).fill(0)];
    const interval = bootstrapMeanInterval(values);
    expect(interval.estimate).toBeCloseTo(0.6, 12);
    // se = √(0.6·0.4/100) = 0.049; percentile ends near 0.6 ± 1.96·se.
    expect(interval.low).toBeGreaterThan(0.49);
    expect(interval.low).toBeLessThan(0.52);
    expect(interval.high).toBeGreaterThan(0.68);
    expect(interval.high).toBeLessThan(0.71);
  });

  it("rejects bad options", () => {
    expect(() => bootstrapMeanInterval([1], { resamples: 0 })).toThrow(RangeError);
    expect(() => bootstrapMeanInterval([1], { level: 1 })).toThrow(RangeError);
  });
});

describe("fast bootstrap against the naive resampling", () => {
  // Both methods draw from the same distribution of resample means; with R resamples each, the
  // mean, sd and the 2.5%/97.5% points of the two samples must agree within Monte-Carlo error.
  const R = 20_000;
  it.each([
    [30, 1],
    [30, 3],
    [30, 5],
    [200, 1],
    [200, 3],
    [200, 5],
  ])("n = %i, k = %i", (n, k) => {
    const values = dataset(n, k, n * 10 + k);
    const fast = bootstrapMeans(values, R, 11);
    const naive = naiveBootstrapMeans(values, R, createRng(12));
    const [mFast, sdFast] = moments(fast);
    const [mNaive, sdNaive] = moments(naive);
    const se = sdNaive / Math.sqrt(R);
    expect(Math.abs(mFast - mNaive)).toBeLessThan(5 * Math.SQRT2 * se);
    // The sd of a sample sd is about sd/√(2R): 0.5% here; allow 3.5%.
    expect(Math.abs(sdFast / sdNaive - 1)).toBeLessThan(0.035);
    // A tail quantile moves by about 1.5 se of the mean-of-means scale; allow one lattice step.
    for (const q of [0.025, 0.975]) {
      const gap = Math.abs(quantile(fast, q) - quantile(naive, q));
      expect(gap).toBeLessThan(0.06 * sdNaive + 1 / (n * k));
    }
  });

  it("would notice a wrong weighting of the distinct values", () => {
    // Guard that the comparison has teeth: naive resampling of a slightly different dataset
    // (one value changed) must already fail the mean check above.
    const values = dataset(200, 3, 2003);
    const shifted = values.map((v, i) => (i < 10 ? 1 - v : v));
    const fast = bootstrapMeans(values, R, 11);
    const naive = naiveBootstrapMeans(shifted, R, createRng(12));
    const se = moments(naive)[1] / Math.sqrt(R);
    expect(Math.abs(moments(fast)[0] - moments(naive)[0])).toBeGreaterThan(5 * Math.SQRT2 * se);
  });
});
