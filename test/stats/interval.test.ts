import { describe, expect, it } from "vitest";
import {
  clopperPearsonBounds,
  effectiveTrials,
  flakyItems,
  passRateByStratum,
  passRateInterval,
  wilsonBounds,
} from "../../src/stats/interval.js";
import { items, uniformItems } from "./helpers.js";

/** log P(X = x), X ~ Binomial(n, p), summed directly: an independent path to the CP bounds. */
function binomialTail(x: number, n: number, p: number, upper: boolean): number {
  let total = 0;
  for (let j = 0; j <= n; j++) {
    if (upper ? j < x : j > x) continue;
    let log = j * Math.log(p) + (n - j) * Math.log1p(-p);
    for (let i = 1; i <= j; i++) log += Math.log((n - j + i) / i);
    total += Math.exp(log);
  }
  return total;
}

/** Clopper–Pearson by its definition: the rates at which x or more (x or fewer) successes
 * have probability 2.5%, found by bisection on the binomial sums. */
function cpByDefinition(x: number, n: number): [number, number] {
  const root = (upper: boolean) => {
    let lo = 0;
    let hi = 1;
    for (let i = 0; i < 100; i++) {
      const mid = (lo + hi) / 2;
      const tail = binomialTail(x, n, mid, upper);
      if (tail < 0.025 === upper) lo = mid;
      else hi = mid;
    }
    return lo;
  };
  return [x === 0 ? 0 : root(true), x === n ? 1 : root(false)];
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
      const [l, h] = wilsonBounds(x / n, n, 0.95);
      expect(l).toBeCloseTo(low, 4);
      expect(h).toBeCloseTo(high, 4);
    }
  });
});

describe("clopperPearsonBounds", () => {
  it("matches published values (Newcombe 1998, method 5) and the binomial sums", () => {
    const published: [number, number, number, number][] = [
      [8, 10, 0.4439, 0.9748],
      [0, 20, 0, 0.1684],
      [1, 29, 0.0009, 0.1776],
    ];
    for (const [x, n, low, high] of published) {
      const [l, h] = clopperPearsonBounds(x / n, n, 0.95);
      expect(l).toBeCloseTo(low, 4);
      expect(h).toBeCloseTo(high, 4);
    }
    for (const [x, n] of [
      [99, 100],
      [20, 20],
      [0, 7],
      [37, 61],
      [1, 1000],
      [81, 263],
      [15, 148],
    ] as const) {
      const [low, high] = clopperPearsonBounds(x / n, n, 0.95);
      const [dLow, dHigh] = cpByDefinition(x, n);
      expect(low).toBeCloseTo(dLow, 9);
      expect(high).toBeCloseTo(dHigh, 9);
    }
  });

  it("is narrower than Wilson with continuity correction at 30 of 30 (lower bound 0.884)", () => {
    expect(clopperPearsonBounds(1, 30, 0.95)[0]).toBeCloseTo(0.8843, 4);
  });

  it("takes fractional trials, between the whole numbers on either side", () => {
    const [low] = clopperPearsonBounds(0.9, 50.5, 0.95);
    expect(low).toBeLessThan(clopperPearsonBounds(0.9, 51, 0.95)[0]);
    expect(low).toBeGreaterThan(clopperPearsonBounds(0.9, 50, 0.95)[0]);
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

  it("does not count n·k trials on the evidence of one flaky item", () => {
    // 99 items pass 10 of 10, one passes 9 of 10: the spread alone would say 1,000 trials.
    const scores = [...new Array(99).fill(1), 0.9];
    const trials = effectiveTrials(scores, ones(100, 10));
    expect(trials).toBeGreaterThan(100);
    expect(trials).toBeLessThan(300);
    // Many flaky items are real evidence of within-item noise: close to n·k.
    const noisy = Array.from({ length: 100 }, (_, i) => [0.6, 0.7, 0.8][i % 3]!);
    expect(effectiveTrials(noisy, ones(100, 10))).toBeGreaterThan(900);
  });
});

describe("passRateInterval", () => {
  it("has NaN bounds with no items", () => {
    for (const method of ["clopper-pearson", "bootstrap"] as const) {
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
    expect(interval).toMatchObject({
      estimate: 1,
      high: 1,
      method: "clopper-pearson",
      level: 0.95,
    });
    // Same as 20 of 20 single samples: k samples of a flaky item can all pass.
    expect(interval.low).toBeCloseTo(0.8316, 4);
    // The article's bootstrap gives [1, 1] here: the reason it is not the default.
    expect(passRateInterval(all, "bootstrap")).toMatchObject({ low: 1, high: 1 });
  });

  it("mirrors all-pass for all-fail", () => {
    const interval = passRateInterval(uniformItems(20, 3, () => 0));
    expect(interval.estimate).toBe(0);
    expect(interval.low).toBe(0);
    expect(interval.high).toBeCloseTo(0.1684, 4);
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
      "clopper-pearson",
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
