/** Plain-text tables for bench/coverage. */

import { normalQuantile } from "../../src/stats/distributions.js";
import { DEFAULT_INTERVAL_METHOD as DEFAULT } from "../../src/stats/interval.js";
import {
  type BenchIntervalMethod,
  type CellResult,
  COMPARE_METHODS,
  INTERVAL_METHODS,
} from "./simulate.js";

export interface ReportInfo {
  runs: number;
  resamples: number;
  margin: number;
  workers: number;
  seconds: number;
  kappas: number[];
}

const SHORT: Record<BenchIntervalMethod, string> = {
  bootstrap: "boot",
  "wilson-cc": "wlcc",
  wilson: "wils",
  "wilson-samples": "wsmp",
  "wald-t": "wldt",
};

const KAPPA_NOTE: Record<string, string> = {
  "2": "items mostly near-always pass or near-always fail, some flaky",
  "20": "items differ mildly",
  Infinity: "every item has the same rate: no item variation, outside the target grid",
};

const pct = (x: number, width = 5) => (100 * x).toFixed(1).padStart(width);

// erfc(x)·exp(x²) fit from Numerical Recipes (erfcc), relative error below 1.2e-7.
const ERFC_FIT = [
  0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196,
  1.00002368, -1.26551223,
];

/** Standard normal distribution function Φ(z). */
function phi(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  const fit = ERFC_FIT.reduce((acc, c) => acc * t + c, 0);
  const erfc = t * Math.exp(-x * x + fit);
  return z >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/** Power of the ideal one-sided z-test at `alpha` that knows the true standard error. */
export function idealPower(drop: number, sd: number, alpha = 0.05): number {
  return sd > 0 ? phi(drop / sd - normalQuantile(1 - alpha)) : 1;
}

function cellName(r: CellResult): string {
  return `κ=${r.kappa} n=${r.n} rate=${r.rate} k=${r.k}`;
}

function rowsOf(results: readonly CellResult[], kappa: number) {
  const mine = results.filter((r) => r.kappa === kappa);
  const sizes = [...new Set(mine.map((r) => r.n))].sort((a, b) => a - b);
  const rates = [...new Set(mine.map((r) => r.rate))].sort((a, b) => a - b);
  const ks = [...new Set(mine.map((r) => r.k))].sort((a, b) => a - b);
  const find = (n: number, rate: number, k: number) =>
    mine.find((r) => r.n === n && r.rate === rate && r.k === k)!;
  return { sizes, rates, ks, find };
}

function gridTable(
  results: readonly CellResult[],
  kappa: number,
  columns: readonly string[],
  cells: (r: CellResult) => string[],
): string[] {
  const { sizes, rates, ks, find } = rowsOf(results, kappa);
  const colWidth = columns.length * 6;
  const head1 = `${"".padEnd(11)}${ks.map((k) => `  k=${k}`.padEnd(colWidth + 2)).join("")}`;
  const head2 = `${"    n  rate"}${ks.map(() => `  ${columns.map((c) => c.padStart(5)).join(" ")}`).join("")}`;
  const lines = [head1, head2];
  for (const n of sizes) {
    for (const rate of rates) {
      const parts = ks.map((k) => `  ${cells(find(n, rate, k)).join(" ")}`);
      lines.push(`${String(n).padStart(5)}  ${rate.toFixed(2)}${parts.join("")}`);
    }
  }
  return lines;
}

function worst<T>(items: readonly T[], score: (t: T) => number, highest = false): T {
  return items.reduce((a, b) => ((highest ? score(b) > score(a) : score(b) < score(a)) ? b : a));
}

function intervalSection(results: readonly CellResult[], info: ReportInfo): string[] {
  const lines = ["", "1. Interval coverage of the true pass rate (%; target: ≥ 93 in every cell)"];
  lines.push(
    "   boot = percentile bootstrap (--interval bootstrap); wlcc = continuity-corrected Wilson",
    "   with design effect (--interval wilson-cc); wils = the same without continuity correction;",
    "   wsmp = Wilson counting every sample as independent; wldt = mean ± t·sd/√n",
  );
  for (const kappa of info.kappas) {
    lines.push("", `κ = ${kappa} (${KAPPA_NOTE[String(kappa)] ?? ""})`);
    const columns = INTERVAL_METHODS.map((m) => SHORT[m]);
    lines.push(
      ...gridTable(results, kappa, columns, (r) => INTERVAL_METHODS.map((m) => pct(r.coverage[m]))),
    );
  }
  lines.push("", "Worst cell per method (coverage %, mean width over all cells):");
  for (const kappa of info.kappas) {
    const mine = results.filter((r) => r.kappa === kappa);
    for (const m of INTERVAL_METHODS) {
      const w = worst(mine, (r) => r.coverage[m]);
      const width = mine.reduce((s, r) => s + r.width[m], 0) / mine.length;
      lines.push(
        `  ${m.padEnd(15)} ${pct(w.coverage[m])}  at ${cellName(w).padEnd(34)} width ${width.toFixed(3)}`,
      );
    }
  }
  return lines;
}

function unchangedSection(results: readonly CellResult[], info: ReportInfo): string[] {
  const lines = [
    "",
    `2. Gate with nothing changed (default: ${DEFAULT}): % of runs saying regression / inconclusive`,
    "   (target: regression ≤ 5 in every cell)",
  ];
  for (const kappa of info.kappas) {
    lines.push("", `κ = ${kappa}`);
    lines.push(
      ...gridTable(results, kappa, ["reg", "inc"], (r) => [
        pct(r.unchanged[DEFAULT].regression),
        pct(r.unchanged[DEFAULT].inconclusive),
      ]),
    );
  }
  lines.push("", "Worst cell per method (regression %; the stricter rule high < −margin beside):");
  for (const kappa of info.kappas) {
    const mine = results.filter((r) => r.kappa === kappa);
    for (const m of COMPARE_METHODS) {
      const w = worst(mine, (r) => r.unchanged[m].regression, true);
      const strict = worst(mine, (r) => r.unchanged[m].regressionStrict, true);
      const inc = mine.filter((r) => r.n === 1000);
      const maxInc = worst(inc, (r) => r.unchanged[m].inconclusive, true);
      lines.push(
        `  ${m.padEnd(9)} ${pct(w.unchanged[m].regression)} at ${cellName(w).padEnd(34)}` +
          ` strict ${pct(strict.unchanged[m].regressionStrict)}` +
          `  inconclusive at n=1000 ≤ ${pct(maxInc.unchanged[m].inconclusive).trim()}`,
      );
    }
  }
  return lines;
}

function detectionSection(results: readonly CellResult[], info: ReportInfo): string[] {
  const drop = 2 * info.margin;
  const lines = [
    "",
    `3. Detection of a real drop of ${drop} (default: ${DEFAULT}): % of runs saying regression,`,
    "   the power of an ideal one-sided 5% z-test that knows the true standard error, and the",
    "   mean MDE the gate printed (×100)",
    "   (target: ≥ 80 at n = 1000 where the ideal test can reach 80)",
  ];
  for (const kappa of info.kappas) {
    lines.push("", `κ = ${kappa}`);
    lines.push(
      ...gridTable(results, kappa, ["det", "ideal", "mde"], (r) => [
        pct(r.drop[DEFAULT].regression),
        pct(idealPower(drop, r.dropSd)),
        (100 * r.mde).toFixed(1).padStart(5),
      ]),
    );
  }
  lines.push("", "Per method at n = 1000: cells ≥ 80% / cells where ideal ≥ 80%, worst cell:");
  for (const kappa of info.kappas) {
    const big = results.filter((r) => r.kappa === kappa && r.n === 1000);
    const feasible = big.filter((r) => idealPower(drop, r.dropSd) >= 0.8);
    for (const m of COMPARE_METHODS) {
      for (const strict of [false, true]) {
        const share = (r: CellResult) =>
          strict ? r.drop[m].regressionStrict : r.drop[m].regression;
        const met = feasible.filter((r) => share(r) >= 0.8).length;
        const w = worst(big, share);
        const rule = strict ? "high<-margin" : "default rule";
        lines.push(
          `  κ=${String(kappa).padEnd(3)} ${m.padEnd(9)} ${rule.padEnd(13)} ${met}/${feasible.length}` +
            `  worst ${pct(share(w))} at ${cellName(w)}`,
        );
      }
    }
  }
  return lines;
}

function missedCell(r: CellResult, drop: number): string {
  const det = pct(r.drop[DEFAULT].regression).trim();
  const at5 = pct(idealPower(drop, r.dropSd)).trim();
  const at25 = pct(idealPower(drop, r.dropSd, 0.025)).trim();
  return `    missed: ${cellName(r)}: ${det}% (ideal test ${at5}% at α = 5%, ${at25}% at the gate's α = 2.5%)`;
}

function targetsSection(results: readonly CellResult[], info: ReportInfo): string[] {
  const drop = 2 * info.margin;
  const cov = worst(results, (r) => r.coverage[DEFAULT]);
  const reg = worst(results, (r) => r.unchanged[DEFAULT].regression, true);
  const big = results.filter((r) => r.n === 1000);
  const feasible = big.filter((r) => idealPower(drop, r.dropSd) >= 0.8);
  const missed = feasible.filter((r) => r.drop[DEFAULT].regression < 0.8);
  const mark = (ok: boolean) => (ok ? "MET " : "MISS");
  return [
    "",
    `Targets for the defaults (interval ${DEFAULT}, gate ${DEFAULT} + default rule):`,
    `  [${mark(cov.coverage[DEFAULT] >= 0.93)}] coverage ≥ 93% everywhere: worst ${pct(cov.coverage[DEFAULT]).trim()}% (${cellName(cov)})`,
    `  [${mark(reg.unchanged[DEFAULT].regression <= 0.05)}] false regression ≤ 5% everywhere: worst ${pct(reg.unchanged[DEFAULT].regression).trim()}% (${cellName(reg)})`,
    `  [${mark(missed.length === 0)}] detection ≥ 80% at n=1000: ${feasible.length - missed.length} of the ${feasible.length} cells where an ideal 5% test reaches 80% (${big.length} cells in all)`,
    ...missed.map((r) => missedCell(r, drop)),
  ];
}

export function printReport(results: readonly CellResult[], info: ReportInfo): void {
  const se = (p: number) => (100 * Math.sqrt((p * (1 - p)) / info.runs)).toFixed(2);
  const lines = [
    `bench/coverage: ${info.runs} runs per cell, ${results.length} cells, bootstrap ${info.resamples} resamples,` +
      ` margin ${info.margin}, ${info.workers} workers, ${info.seconds.toFixed(1)} s`,
    `Monte-Carlo error (1 s.e.): ±${se(0.95)} pt at 95%, ±${se(0.025)} pt at 2.5%, ±${se(0.8)} pt at 80%`,
    ...intervalSection(results, info),
    ...unchangedSection(results, info),
    ...detectionSection(results, info),
    ...targetsSection(results, info),
  ];
  console.log(lines.join("\n"));
}
