import { describe, expect, it } from "vitest";
import { createRng, type Rng } from "../../src/stats/rng.js";
import {
  confidenceInterval,
  decision,
  nextCase,
  pickChances,
  record,
  type SequentialState,
  startSequential,
} from "../../src/stats/sequential.js";

/** The suite: 40 cases that always pass, 8 at 90%, 2 at 60%. */
const RATES = [...Array<number>(40).fill(1), ...Array<number>(8).fill(0.9), 0.6, 0.6];

function step(state: SequentialState, base: readonly number[], cand: readonly number[], rng: Rng) {
  const pick = nextCase(state, rng);
  const b = rng.uniform() < base[pick.index]! ? 1 : 0;
  const c = rng.uniform() < cand[pick.index]! ? 1 : 0;
  record(state, { ...pick, base: b, cand: c });
}

function runUntilDecided(cand: readonly number[], seed: number) {
  const rng = createRng(seed);
  const state = startSequential({ cases: 50, margin: 0.05, maxK: 10 });
  for (;;) {
    step(state, RATES, cand, rng);
    const d = decision(state);
    if (d.verdict !== null) return { ...d, state };
  }
}

describe("the sequential gate", () => {
  it("picks the cases whose arms disagree more often, never any case less than uniform/n", () => {
    const rng = createRng(1);
    const state = startSequential({ cases: 50, margin: 0.05, maxK: 10 });
    for (let i = 0; i < 300; i++) step(state, RATES, RATES, rng);
    const chances = pickChances(state);
    expect(chances.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    const always = chances.slice(0, 40).reduce((a, b) => a + b, 0) / 40;
    const flaky = chances.slice(40).reduce((a, b) => a + b, 0) / 10;
    expect(flaky).toBeGreaterThan(1.5 * always);
    expect(Math.min(...chances)).toBeGreaterThanOrEqual(0.5 / 50);
  });

  it("keeps the estimate unbiased however the picks favour cases", () => {
    const drop = RATES.map((p, i) => (i < 5 ? 0 : p));
    const truth = -5 / 50;
    let sum = 0;
    const runs = 300;
    for (let seed = 0; seed < runs; seed++) {
      const rng = createRng(seed);
      const state = startSequential({ cases: 50, margin: 0.05, maxK: 10 });
      for (let i = 0; i < 100; i++) step(state, RATES, drop, rng);
      sum += decision(state).estimate;
    }
    expect(sum / runs).toBeCloseTo(truth, 2);
  });

  it("passes an unchanged candidate early and flags a drop of 2.5 margins", () => {
    const unchanged = runUntilDecided(RATES, 3);
    expect(unchanged.verdict).toBe("pass");
    expect(unchanged.samples).toBeLessThan(500);
    const [low, high] = confidenceInterval(unchanged.state);
    expect(low).toBeGreaterThan(-0.05);
    expect(high).toBeGreaterThan(0);
    const mean = RATES.reduce((a, b) => a + b, 0) / RATES.length;
    const dropped = runUntilDecided(
      RATES.map((p) => p * (1 - 0.125 / mean)),
      4,
    );
    expect(dropped.verdict).toBe("regression");
    expect(confidenceInterval(dropped.state)[1]).toBeLessThan(0);
  });

  it("rarely passes a candidate worse by exactly the margin", () => {
    const mean = RATES.reduce((a, b) => a + b, 0) / RATES.length;
    const cand = RATES.map((p) => p * (1 - 0.05 / mean));
    let passed = 0;
    for (let seed = 0; seed < 60; seed++)
      if (runUntilDecided(cand, 100 + seed).verdict === "pass") passed += 1;
    expect(passed / 60).toBeLessThanOrEqual(0.05);
  });

  it("stops undecided at max-k, or at the budget: inconclusive, never a failure", () => {
    const state = startSequential({ cases: 2, margin: 0.01, maxK: 3 });
    const rng = createRng(9);
    for (let i = 0; i < 5; i++) step(state, [0.5, 0.5], [0.5, 0.5], rng);
    expect(decision(state)).toMatchObject({ verdict: null, reason: null });
    expect(decision(state, { exhausted: true })).toMatchObject({
      verdict: "inconclusive",
      reason: "budget",
    });
    step(state, [0.5, 0.5], [0.5, 0.5], rng);
    expect(decision(state)).toMatchObject({ verdict: "inconclusive", reason: "max-k", samples: 6 });
  });
});
