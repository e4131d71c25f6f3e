import { describe, expect, it } from "vitest";
import { caseMeanBound, casesHalfWidths } from "../../src/stats/cases.js";
import {
  comparePaired,
  type PairedScores,
  pairedDeltaInterval,
  verdictOf,
} from "../../src/stats/compare.js";
import { binomial, normalQuantile } from "../../src/stats/distributions.js";
import type { ItemAgg } from "../../src/stats/interval.js";
import { createRng } from "../../src/stats/rng.js";
import { byId, uniformItems } from "./helpers.js";

const Z95 = normalQuantile(0.975);

/** The suite: 40 cases that always pass, 8 at 90%, 2 at 60%. */
const RATES = [...Array<number>(40).fill(1), ...Array<number>(8).fill(0.9), 0.6, 0.6];

/** Each case passing exactly its rate's share of k samples. */
const exact = (rates: readonly number[], k: number) =>
  byId(uniformItems(rates.length, k, (i) => Math.round(rates[i]! * k)));

describe("the cases scope: is the candidate worse on these cases?", () => {
  it("decides where the population scope cannot: 50 cases, 10 samples, margin 0.05", () => {
    const run = exact(RATES, 10);
    const cases = comparePaired(run, run, { margin: 0.05 });
    expect(cases.scope).toBe("cases");
    expect(cases.interval).toBe("cases");
    expect(cases.low).toBeGreaterThan(-0.05);
    expect(cases.verdict).toBe("pass");
    // On cases like these, 50 cases cannot rule out unseen broken ones: inconclusive.
    const population = comparePaired(run, run, { margin: 0.05, scope: "population" });
    expect(population.verdict).toBe("inconclusive");
    expect(population.samplesNeeded).toBeNull();
    expect(cases.itemsNeeded).toBeNull();
  });

  it("counts no uncertainty for cases that always pass on both sides", () => {
    const flaky = [...Array<number>(8).fill(0.9), 0.6, 0.6];
    const alone = comparePaired(exact(flaky, 10), exact(flaky, 10));
    const among = comparePaired(exact(RATES, 10), exact(RATES, 10));
    // The same uncertainty in passes (the interval times the cases), however many always pass.
    expect(among.low * 50).toBeCloseTo(alone.low * 10, 9);
    expect(among.high * 50).toBeCloseTo(alone.high * 10, 9);
  });

  it("narrows with more samples: 60 cases that always pass at margin 0.02", () => {
    const verdict = (k: number) => {
      const run = byId(uniformItems(60, k, () => k));
      return comparePaired(run, run, { margin: 0.02 });
    };
    expect(verdict(3).verdict).toBe("inconclusive");
    expect(verdict(3).samplesNeeded).toBeGreaterThan(3);
    expect(verdict(5).verdict).toBe("pass");
    // Nothing failed: a drop could hide only in answers not yet seen, about z²/((k − 1)·n)
    // and half a sample (the continuity correction).
    expect(-verdict(5).low).toBeGreaterThan(Z95 ** 2 / (4 * 60 + Z95 ** 2));
    expect(-verdict(5).low).toBeLessThan(Z95 ** 2 / (4 * 60 + Z95 ** 2) + 1 / 300);
  });

  it("bounds one case as the corrected score test does: 10 of 10, ε − 1/20 = z·√(ε(1 − ε)/9)", () => {
    const bound = caseMeanBound({ passes: [10], samples: [10] }, 0.95, -1);
    const gap = 1 - bound;
    expect(gap - 0.05).toBeCloseTo(Z95 * Math.sqrt((gap * (1 - gap)) / 9), 6);
    expect(caseMeanBound({ passes: [10], samples: [10] }, 0.95, 1)).toBe(1);
    // Upper and lower bounds mirror each other.
    const low = caseMeanBound({ passes: [3, 7], samples: [10, 10] }, 0.95, -1);
    const high = caseMeanBound({ passes: [7, 3], samples: [10, 10] }, 0.95, 1);
    expect(low).toBeCloseTo(1 - high, 9);
  });

  it("combines the two runs as independent samples of the same cases", () => {
    const one = { passes: [9, 10, 6], samples: [10, 10, 10] };
    const none = { passes: [10, 10, 10], samples: [10, 10, 10] };
    const both = casesHalfWidths(one, one, 0.95);
    const baseOnly = casesHalfWidths(one, none, 0.95);
    // Newcombe's method 10: the root of the sum of squares of each side's distance to its bound.
    const mean = 25 / 30;
    const candSide = 1 - caseMeanBound(none, 0.95, -1);
    const baseSide = caseMeanBound(one, 0.95, 1) - mean;
    expect(baseOnly.down).toBeCloseTo(Math.hypot(candSide, baseSide), 12);
    expect(both.down).toBeCloseTo(Math.hypot(mean - caseMeanBound(one, 0.95, -1), baseSide), 12);
  });

  it("falls back to the population's interval with one sample per case", () => {
    const run = byId(uniformItems(50, 1, (i) => (i < 45 ? 1 : 0)));
    const result = comparePaired(run, run);
    expect(result.interval).toBe("population");
    expect(result.samplesNeeded).toBeNull();
    const population = comparePaired(run, run, { scope: "population" });
    expect([result.low, result.high]).toEqual([population.low, population.high]);
  });

  it("calls two cases that broke outright a regression", () => {
    const base = exact(RATES, 10);
    const cand = byId(uniformItems(50, 10, (i) => (i < 2 ? 0 : Math.round(RATES[i]! * 10))));
    const result = comparePaired(base, cand, { margin: 0.02 });
    expect(result.delta).toBeCloseTo(-0.04, 12);
    expect(result.high).toBeLessThan(0);
    expect(result.verdict).toBe("regression");
  });
});

describe("the cases scope's minimum detectable drop", () => {
  const draw = (rng: ReturnType<typeof createRng>, k: number, broken: number) =>
    byId(
      uniformItems(RATES.length, k, (i) =>
        rng.uniform() < broken ? 0 : binomial(rng, k, RATES[i]!),
      ),
    );

  it("does not depend on the cases' names or order", () => {
    const rng = createRng(5);
    const [base, cand] = [draw(rng, 5, 0), draw(rng, 5, 0)];
    const renamed = (run: Map<string, ItemAgg>) =>
      new Map([...run].reverse().map(([id, item]) => [`x-${id}`, { ...item, id: `x-${id}` }]));
    const mde = comparePaired(base, cand).mde;
    expect(mde).toBeGreaterThan(0);
    expect(comparePaired(renamed(base), renamed(cand)).mde).toBe(mde);
  });

  it("is the drop these cases' gate catches in 80% of fresh runs", () => {
    const rng = createRng(7);
    const mean = RATES.reduce((a, b) => a + b, 0) / RATES.length;
    const mde = comparePaired(draw(rng, 5, 0), draw(rng, 5, 0), { margin: 0.05 }).mde;
    const scores = (run: Map<string, ItemAgg>) =>
      Float64Array.from(run.values(), (c) => c.sum / c.n);
    const samples = new Float64Array(RATES.length).fill(5);
    let caught = 0;
    const runs = 1000;
    for (let i = 0; i < runs; i++) {
      const p: PairedScores = {
        base: scores(draw(rng, 5, 0)),
        cand: scores(draw(rng, 5, mde / mean)),
        baseN: samples,
        candN: samples,
      };
      const { estimate, low, high } = pairedDeltaInterval(p, "clopper-pearson", { scope: "cases" });
      if (verdictOf(estimate, low, high, 0.05) === "regression") caught += 1;
    }
    expect(caught / runs).toBeGreaterThan(0.7);
    expect(caught / runs).toBeLessThan(0.9);
  });
});
