/**
 * bench/gate/margins: the smallest margin each scope can gate, by suite size and samples per
 * case: the README's table.
 *
 * Run: npx tsc -p bench/tsconfig.json && node .bench-build/bench/gate/margins.js [--runs 400]
 *
 * A suite of cases like the (80% always pass, 16% pass 90% of the time, 4% 60%), run
 * twice with nothing changed: the smallest margin at which the gate says pass in at least 80% of
 * runs (the 80th percentile of −low over the runs). The population scope's limit barely moves with
 * more samples (unseen broken cases of a population bound it); the cases scope's shrinks with them
 * (with one sample per case it is the population's: one sample shows nothing of a case's noise).
 */

import { type PairedScores, pairedDeltaInterval } from "../../src/stats/compare.js";
import { binomial } from "../../src/stats/distributions.js";
import { createRng, type Rng } from "../../src/stats/rng.js";
import type { Scope } from "../../src/stats/types.js";
import { flag } from "../args.js";

const SIZES = [10, 20, 30, 50, 100, 200, 500, 1000];
const KS = [1, 3, 10];
const SCOPES: Scope[] = ["population", "cases"];

function rates(n: number): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => {
    const share = (i + 0.5) / n;
    return share < 0.8 ? 1 : share < 0.96 ? 0.9 : 0.6;
  });
}

function unchangedRun(p: Float64Array, k: number, rng: Rng): PairedScores {
  const draw = () => p.map((pi) => binomial(rng, k, pi) / k);
  const samples = new Float64Array(p.length).fill(k);
  return { base: draw(), cand: draw(), baseN: samples, candN: samples };
}

function smallestMargin(n: number, k: number, scope: Scope, runs: number): number {
  const rng = createRng(n * 100 + k);
  const p = rates(n);
  const needed = Float64Array.from({ length: runs }, () => {
    const interval = pairedDeltaInterval(unchangedRun(p, k, rng), "clopper-pearson", { scope });
    return -interval.low;
  }).sort();
  return needed[Math.ceil(0.8 * runs) - 1]!;
}

function main(): void {
  const runs = Number(flag(process.argv.slice(2), "runs", "400"));
  const head = SCOPES.map((scope) => KS.map((k) => `${scope.slice(0, 3)} k=${k}`.padStart(10)));
  const lines = [
    `Smallest margin passed in 80% of ${runs} unchanged runs (80% of cases always pass, 16% at 90%, 4% at 60%)`,
    `${"items".padStart(6)} ${head.flat().join(" ")}`,
  ];
  for (const n of SIZES) {
    const cells = SCOPES.flatMap((scope) =>
      KS.map((k) => smallestMargin(n, k, scope, runs).toFixed(3).padStart(10)),
    );
    lines.push(`${String(n).padStart(6)} ${cells.join(" ")}`);
  }
  console.log(lines.join("\n"));
}

main();
