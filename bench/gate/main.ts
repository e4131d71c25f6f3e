/**
 * bench/gate: does `--sequential` decide, and early? A simulation of the sequential gate
 * (src/stats/sequential.ts) in process: each case passes each sample with a known chance per arm.
 *
 * Run: bench/run.sh gate [--seeds 200] [--uniform 0.5] [--seed 1]
 *
 * Scenarios (issue 28, "Done when"): 50 cases (40 at p = 1.0, 8 at 0.9, 2 at 0.6), margin 0.05,
 * max-k 10; and 200 cases (160 / 32 / 8 the same), margin 0.02, max-k 20. The candidate is
 * unchanged, dropped by 2.5 margins, or dropped by exactly the margin; a drop scales every case's
 * chance by the same factor, so the mean over the cases falls by exactly that much (cases that
 * always passed start failing now and then: the allocation has to find them). Targets:
 * unchanged → pass in ≥ 90% of seeds; 2.5 margins → regression in ≥ 90%; the margin → pass in
 * ≤ 5%; unchanged and 2.5 margins stop at ≤ 0.7 of the cap (max-k × cases samples per arm) on
 * average. Beside each, the uniform allocation (--uniform 1: the textbook method) and the fixed-k
 * gate at max-k (the cases scope's interval) on the same cases.
 */

import { type PairedScores, pairedDeltaInterval, verdictOf } from "../../src/stats/compare.js";
import { binomial } from "../../src/stats/distributions.js";
import { createRng, type Rng } from "../../src/stats/rng.js";
import { decision, nextCase, record, startSequential } from "../../src/stats/sequential.js";
import { flag } from "../args.js";

interface Suite {
  name: string;
  rates: number[];
  margin: number;
  maxK: number;
}

const SUITES: Suite[] = [
  { name: "50 cases", rates: mix(40, 8, 2), margin: 0.05, maxK: 10 },
  { name: "200 cases", rates: mix(160, 32, 8), margin: 0.02, maxK: 20 },
];

function mix(always: number, ninety: number, sixty: number): number[] {
  return [
    ...Array<number>(always).fill(1),
    ...Array<number>(ninety).fill(0.9),
    ...Array<number>(sixty).fill(0.6),
  ];
}

const DROPS = [
  { name: "unchanged", margins: 0, want: "pass", atLeast: 0.9 },
  { name: "drop 2.5 margins", margins: 2.5, want: "regression", atLeast: 0.9 },
  { name: "drop = margin", margins: 1, want: "pass", atMost: 0.05 },
] as const;

function dropped(rates: readonly number[], drop: number): number[] {
  const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
  return rates.map((p) => p * (1 - drop / mean));
}

interface Outcome {
  verdict: string;
  share: number;
}

function sequentialRun(suite: Suite, cand: readonly number[], uniform: number, rng: Rng): Outcome {
  const state = startSequential({
    cases: suite.rates.length,
    margin: suite.margin,
    maxK: suite.maxK,
    uniform,
  });
  for (;;) {
    const pick = nextCase(state, rng);
    const base = rng.uniform() < suite.rates[pick.index]! ? 1 : 0;
    const answer = rng.uniform() < cand[pick.index]! ? 1 : 0;
    record(state, { ...pick, base, cand: answer });
    const d = decision(state);
    if (d.verdict !== null) {
      return { verdict: d.verdict, share: d.samples / (suite.maxK * suite.rates.length) };
    }
  }
}

function fixedRun(suite: Suite, cand: readonly number[], rng: Rng): Outcome {
  const k = suite.maxK;
  const draw = (rates: readonly number[]) =>
    Float64Array.from(rates, (p) => binomial(rng, k, Math.min(1, Math.max(0, p))) / k);
  const samples = new Float64Array(suite.rates.length).fill(k);
  const p: PairedScores = {
    base: draw(suite.rates),
    cand: draw(cand),
    baseN: samples,
    candN: samples,
  };
  const interval = pairedDeltaInterval(p, "clopper-pearson", { scope: "cases" });
  return {
    verdict: verdictOf(interval.estimate, interval.low, interval.high, suite.margin),
    share: 1,
  };
}

function summary(outcomes: readonly Outcome[]) {
  const share = (verdict: string) =>
    outcomes.filter((o) => o.verdict === verdict).length / outcomes.length;
  const samples = outcomes.reduce((a, o) => a + o.share, 0) / outcomes.length;
  return { pass: share("pass"), regression: share("regression"), samples };
}

const pct = (x: number) => `${(100 * x).toFixed(1).padStart(5)}%`;

function main(): void {
  const args = process.argv.slice(2);
  const seeds = Number(flag(args, "seeds", "200"));
  const uniform = Number(flag(args, "uniform", "0.5"));
  const firstSeed = Number(flag(args, "seed", "1"));
  const started = performance.now();
  const lines = [
    `bench/gate: ${seeds} seeds per scenario, allocation by disagreement with uniform share ${uniform}; beside it uniform picks (textbook) and the fixed-k gate at max-k`,
    "",
    `${"suite".padEnd(10)} ${"candidate".padEnd(17)} ${"".padEnd(7)} ${"pass".padStart(6)} ${"regr".padStart(6)} ${"samples/cap".padStart(11)}  target`,
  ];
  const misses: string[] = [];
  for (const suite of SUITES) {
    for (const drop of DROPS) {
      const cand = dropped(suite.rates, drop.margins * suite.margin);
      const runs = (make: (rng: Rng) => Outcome) =>
        summary(Array.from({ length: seeds }, (_, s) => make(createRng(firstSeed + s * 7919 + 1))));
      const rows = {
        allocated: runs((rng) => sequentialRun(suite, cand, uniform, rng)),
        uniform: runs((rng) => sequentialRun(suite, cand, 1, rng)),
        "fixed-k": runs((rng) => fixedRun(suite, cand, rng)),
      };
      const a = rows.allocated;
      const rate = drop.want === "pass" ? a.pass : a.regression;
      const met =
        ("atLeast" in drop ? rate >= drop.atLeast : rate <= drop.atMost) &&
        (drop.margins === 1 || a.samples <= 0.7);
      const target =
        "atLeast" in drop
          ? `${drop.want} ≥ ${pct(drop.atLeast).trim()}, samples ≤ 0.70`
          : `${drop.want} ≤ ${pct(drop.atMost).trim()}`;
      if (!met) misses.push(`${suite.name}, ${drop.name}`);
      for (const [name, r] of Object.entries(rows)) {
        const mark = name === "allocated" ? `${target} [${met ? "MET " : "MISS"}]` : "";
        lines.push(
          `${suite.name.padEnd(10)} ${drop.name.padEnd(17)} ${name.padEnd(9)} ${pct(r.pass)} ${pct(r.regression)} ${r.samples.toFixed(2).padStart(11)}  ${mark}`,
        );
      }
    }
  }
  lines.push(
    "",
    misses.length === 0 ? "All targets met." : `Missed: ${misses.join("; ")}`,
    `${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  console.log(lines.join("\n"));
}

main();
