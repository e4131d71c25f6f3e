/**
 * bench/arms: the sequential gate as `eb eval --sequential` runs it (src/cases/paired-draws.ts),
 * with a window of draws in flight and samples coming back out of order. bench/gate measures the
 * sequential core one draw at a time; this measures what the window costs: picks made from
 * outcomes up to `window` steps old, and the samples still in flight when the verdict is known
 * (they run, and are rows, but the verdict does not rest on them).
 *
 * Run: bench/run.sh arms [--seeds 100] [--windows 1,16,64]
 *
 * Scenarios as bench/gate's (issue 28): 50 cases (40 at p = 1.0, 8 at 0.9, 2 at 0.6), margin
 * 0.05, max-k 10; 200 cases (160 / 32 / 8), margin 0.02, max-k 20; the candidate unchanged,
 * dropped by 2.5 margins, or by the margin (every case's chance scaled alike).
 */

import { PairedDraws } from "../../src/cases/paired-draws.js";
import { createRng } from "../../src/stats/rng.js";
import { flag } from "../args.js";

interface Scenario {
  name: string;
  rates: number[];
  margin: number;
  maxK: number;
}

const SCENARIOS: Scenario[] = [
  { name: "50 cases", rates: mix(40, 8, 2), margin: 0.05, maxK: 10 },
  { name: "200 cases", rates: mix(160, 32, 8), margin: 0.02, maxK: 20 },
];

const DROPS = [
  { name: "unchanged", margins: 0 },
  { name: "drop 2.5 margins", margins: 2.5 },
  { name: "drop = margin", margins: 1 },
];

function mix(always: number, ninety: number, sixty: number): number[] {
  return [always, ninety, sixty].flatMap((count, i) =>
    Array<number>(count).fill([1, 0.9, 0.6][i]!),
  );
}

/** One sample's outcome: a coin of its own per seed, arm, case and sample (FNV-1a of them). */
function coin(seed: number, arm: number, index: number, sample: number, p: number): number {
  let h = 0x811c9dc5;
  for (const c of `${seed}/${arm}/${index}/${sample}`)
    h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
  return createRng(h >>> 0).uniform() < p ? 1 : 0;
}

interface Outcome {
  verdict: string;
  draws: number;
  samples: number;
}

/** Both arms, `window` lanes each, a random number of turns per sample (the order they return). */
async function run(s: Scenario, cand: readonly number[], window: number, seed: number) {
  const cases = s.rates.map((_, i) => `c${i}`);
  const draws = new PairedDraws({
    cases,
    margin: s.margin,
    maxK: s.maxK,
    seed,
    window,
    maxSamples: null,
  });
  const timing = createRng(seed + 1);
  const signal = new AbortController().signal;
  let samples = 0;
  const lane = async (arm: number) => {
    for (;;) {
      const next = await draws.arms[arm]!.next(signal);
      if (next === null) return;
      const turns = Math.floor(timing.uniform() * 8);
      for (let i = 0; i < turns; i++) await null;
      const index = Number(next.id.slice(1));
      const p = (arm === 0 ? s.rates : cand)[index]!;
      samples++;
      draws.arms[arm]!.settled(next.id, next.sample, coin(seed, arm, index, next.sample, p));
    }
  };
  await Promise.all([0, 1].flatMap((arm) => Array.from({ length: window }, () => lane(arm))));
  const { decision } = draws.result();
  return { verdict: decision.verdict ?? "none", draws: decision.samples, samples: samples / 2 };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const seeds = Number(flag(args, "seeds", "100"));
  const windows = flag(args, "windows", "1,16,64").split(",").map(Number);
  const started = performance.now();
  console.log(
    `bench/arms: ${seeds} seeds per scenario; draws/cap: the draws the verdict rests on; samples/cap: every sample an arm ran`,
  );
  console.log(
    `${"suite".padEnd(10)} ${"candidate".padEnd(17)} ${"window".padStart(6)} ${"pass".padStart(6)} ${"regr".padStart(6)} ${"draws/cap".padStart(9)} ${"samples/cap".padStart(11)}`,
  );
  for (const s of SCENARIOS) {
    const mean = s.rates.reduce((a, b) => a + b, 0) / s.rates.length;
    const cap = s.maxK * s.rates.length;
    for (const drop of DROPS) {
      const cand = s.rates.map((p) => p * (1 - (drop.margins * s.margin) / mean));
      for (const window of windows) {
        const outcomes: Outcome[] = [];
        for (let i = 0; i < seeds; i++) outcomes.push(await run(s, cand, window, 1 + i * 7919));
        const share = (v: string) => outcomes.filter((o) => o.verdict === v).length / seeds;
        const avg = (f: (o: Outcome) => number) => outcomes.reduce((a, o) => a + f(o), 0) / seeds;
        const pct = (x: number) => `${(100 * x).toFixed(1)}%`.padStart(6);
        console.log(
          `${s.name.padEnd(10)} ${drop.name.padEnd(17)} ${String(window).padStart(6)} ${pct(share("pass"))} ${pct(share("regression"))} ${avg(
            (o) => o.draws / cap,
          )
            .toFixed(2)
            .padStart(9)} ${avg((o) => o.samples / cap)
            .toFixed(2)
            .padStart(11)}`,
        );
      }
    }
  }
  console.log(`${((performance.now() - started) / 1000).toFixed(1)} s`);
}

await main();
