import { describe, expect, it } from "vitest";
import { normalQuantile } from "../../src/stats/distributions.js";
import {
  effectiveTrials,
  flakyItems,
  passRateByStratum,
  passRateInterval,
  wilsonBounds,
  wilsonCcBounds,
} from "../../src/stats/interval.js";
import { items, uniformItems } from "./helpers.js";

const Z95 = normalQuantile(0.975);

/** Independent definition of the continuity-corrected Wilson bounds: the roots of
 * (p ∓ 1/(2n) − P)² = z²·P(1−P)/n on either side of p, found by bisection. */
function ccByBisection(x: number, n: number): [number, number] {
  const p = x / n;
  const gap = (P: number, side: number) =>
    (p + side / (2 * n) - P) ** 2 - (Z95 ** 2 * P * (1 - P)) / n;
  const root = (lo: number, hi: number, side: number, rising: boolean) => {
    for (let i = 0; i < 200; i++) {
      const mid = (lo + hi) / 2;
      if (gap(mid, side) > 0 === rising) hi = mid;
      else lo = mid;
    }
    return lo;
  };
  const low = x === 0 ? 0 : root(0, p - 1 / (2 * n), -1, false);
  const high = x === n ? 1 : root(p + 1 / (2 * n), 1, 1, true);
  return [low, high];
}

describe("wilsonBounds", () => {
  it("matches hand-computed and published values (Newcombe 1998, method 3)", () => {
    const cases: [number, number, number, number][] = [
      [8, 10, 0.4902, 0.9433],
      [81, 263, 0.2553, 0.3662],
      [15, 148, 0.0624, 0.1605],
      [0, 20, 0, 0.1611],
      [1, 29, 0.0061, 0.1718],
    ];
    for (const [x, n, low, high] of cases) {
      const [l, h] = wilsonBounds(x / n, n, Z95);
      expect(l).toBeCloseTo(low, 4);
      expect(h).toBeCloseTo(high, 4);
    }
  });
});

describe("wilsonCcBounds", () => {
  it("matches published values (Newcombe 1998, method 4) and the defining equation", () => {
    expect(wilsonCcBounds(0, 20, Z95)[1]).toBeCloseTo(0.2005, 4);
    const [l, h] = wilsonCcBounds(1 / 29, 29, Z95);
    expect(l).toBeCloseTo(0.0018, 4);
    expect(h).toBeCloseTo(0.1963, 4);
    for (const [x, n] of [
      [8, 10],
      [81, 263],
      [15, 148],
      [99, 100],
      [20, 20],
      [0, 7],
    ] as const) {
      const [low, high] = wilsonCcBounds(x / n, n, Z95);
      const [bLow, bHigh] = ccByBisection(x, n);
      expect(low).toBeCloseTo(bLow, 9);
      expect(high).toBeCloseTo(bHigh, 9);
    }
  });

  it("is wider than the plain Wilson interval", () => {
    const [l, h] = wilsonCcBounds(0.8, 10, Z95);
    expect(l).toBeCloseTo(0.4422, 4);
    expect(h).toBeCloseTo(0.9646, 4);
  });
});

describe("effectiveTrials", () => {
  const ones = (n: number, k: number) => new Array<number>(n).fill(k);

  it("counts every sample when items agree with a common rate (no design effect)", () => {
    // Every item 3 of 5: the spread between items is zero, so the samples are all informative.
    expect(effectiveTrials(new Array(10).fill(0.6), ones(10, 5))).toBeCloseTo(50, 9);
  });

  it("counts items when each item is all-or-nothing (design effect k)", () => {
    const scores = [...new Array(8).fill(1), ...new Array(2).fill(0)];
    expect(effectiveTrials(scores, ones(10, 5))).toBe(10);
  });

  it("counts items when every item passed, because flaky and reliable items look alike", () => {
    expect(effectiveTrials(new Array(10).fill(1), ones(10, 5))).toBe(10);
    expect(effectiveTrials(new Array(10).fill(0), ones(10, 5))).toBe(10);
  });

  it("lands between n and n·k otherwise, with the bound n²/Σ(1/kᵢ) for unequal k", () => {
    const scores = [1, 1, 0.8, 0.6, 1, 0, 1, 0.4, 1, 1];
    const trials = effectiveTrials(scores, ones(10, 5));
    expect(trials).toBeGreaterThan(10);
    expect(trials).toBeLessThan(50);
    // Unequal samples per item: at most 4 / (1/1 + 1/5 + 1/5 + 1/5) = 2.5 trials.
    expect(effectiveTrials([0.6, 0.6, 0.6, 0.6], [1, 5, 5, 5])).toBeCloseTo(16 / 1.6, 12);
  });
});

describe("passRateInterval", () => {
  it("has NaN bounds with no items", () => {
    for (const method of ["wilson-cc", "bootstrap"] as const) {
      const interval = passRateInterval([], method);
      expect(interval.estimate).toBeNaN();
      expect(interval.low).toBeNaN();
      expect(interval.high).toBeNaN();
      expect(interval.method).toBe(method);
    }
  });

  it("does not claim certainty when every item passes", () => {
    const all = uniformItems(20, 5, () => 5);
    const interval = passRateInterval(all);
    expect(interval).toMatchObject({ estimate: 1, high: 1, method: "wilson-cc", level: 0.95 });
    // Same as 20 of 20 single samples (cc Wilson): k samples of a flaky item can all pass.
    expect(interval.low).toBeCloseTo(0.7995, 4);
    // The article's bootstrap gives [1, 1] here: the reason it is not the default.
    expect(passRateInterval(all, "bootstrap")).toMatchObject({ low: 1, high: 1 });
  });

  it("mirrors all-pass for all-fail", () => {
    const interval = passRateInterval(uniformItems(20, 3, () => 0));
    expect(interval.estimate).toBe(0);
    expect(interval.low).toBe(0);
    expect(interval.high).toBeCloseTo(0.2005, 4);
  });

  it("handles one flaky item among reliable ones", () => {
    const list = uniformItems(10, 4, (i) => (i === 0 ? 2 : 4));
    const interval = passRateInterval(list);
    expect(interval.estimate).toBeCloseTo(0.95, 12);
    expect(interval.low).toBeGreaterThan(0.6);
    expect(interval.low).toBeLessThan(0.95);
    // 19 effective trials: the one flaky item shows the samples are not all-or-nothing.
    expect(interval.high).toBeGreaterThan(0.99);
    expect(interval.high).toBeLessThanOrEqual(1);
    expect(flakyItems(list)).toEqual(["item-000"]);
  });

  it("weights items equally whatever their number of samples", () => {
    const list = items([
      [1, 1],
      [0, 5],
      [5, 5],
      [2, 4],
    ]);
    expect(passRateInterval(list).estimate).toBeCloseTo((1 + 0 + 1 + 0.5) / 4, 12);
  });

  it("narrows as items are added and is wider at a smaller level", () => {
    const small = passRateInterval(uniformItems(30, 3, (i) => i % 3));
    const large = passRateInterval(uniformItems(300, 3, (i) => i % 3));
    expect(large.high - large.low).toBeLessThan((small.high - small.low) / 2.5);
    const narrow = passRateInterval(
      uniformItems(30, 3, (i) => i % 3),
      "wilson-cc",
      {
        level: 0.8,
      },
    );
    expect(narrow.high - narrow.low).toBeLessThan(small.high - small.low);
  });

  it("passes the seed and resamples to the bootstrap", () => {
    const list = uniformItems(50, 3, (i) => (i % 4 === 0 ? 1 : 3));
    const a = passRateInterval(list, "bootstrap", { seed: 1, resamples: 500 });
    expect(passRateInterval(list, "bootstrap", { seed: 1, resamples: 500 })).toEqual(a);
    expect(passRateInterval(list, "bootstrap", { seed: 2, resamples: 500 })).not.toEqual(a);
  });

  it("rejects impossible aggregates", () => {
    expect(() => passRateInterval(items([[3, 2]]))).toThrow(RangeError);
    expect(() => passRateInterval(items([[0, 0]]))).toThrow(RangeError);
  });
});

describe("flakyItems and passRateByStratum", () => {
  it("lists items strictly between 0 and 1", () => {
    expect(
      flakyItems(
        items([
          [0, 3],
          [1, 3],
          [3, 3],
          [2, 3],
        ]),
      ),
    ).toEqual(["item-001", "item-003"]);
  });

  it("gives one interval per stratum, sorted by name", () => {
    const list = [
      ...items([[1, 1]], "typical").map((item) => ({ ...item, id: "t1" })),
      ...items([[0, 1]], "adversarial").map((item) => ({ ...item, id: "a1" })),
      ...items([[1, 1]], "adversarial").map((item) => ({ ...item, id: "a2" })),
      { id: "x", sum: 1, n: 1 },
    ];
    const strata = passRateByStratum(list);
    expect(strata.map((s) => [s.stratum, s.items, s.estimate])).toEqual([
      ["", 1, 1],
      ["adversarial", 2, 0.5],
      ["typical", 1, 1],
    ]);
  });
});
