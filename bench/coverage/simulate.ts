/**
 * Simulated runs with a known true pass rate, for bench/coverage.
 *
 * Population model: each item has its own pass probability pᵢ ~ Beta(μκ, (1−μ)κ), so the mean
 * over the population is exactly μ (the "true pass rate", the estimand) and κ sets how much
 * items differ (κ = 2: most items nearly always pass or nearly always fail, a few are flaky;
 * κ = 20: items differ mildly). A run draws n items from the population and k Bernoulli(pᵢ)
 * samples per item; the item score is the mean of its samples.
 *
 * Compare: "nothing changed" runs the same n items (same pᵢ) twice, independently. A "real drop
 * of d" breaks each item with probability d/μ (its pᵢ becomes 0), so the population mean falls by
 * exactly d: regressions in practice are specific items that stop working.
 */

import {
  minimumDetectableDrop,
  pairedDeltaInterval,
  pairedWilsonBounds,
  verdictOf,
} from "../../src/stats/compare.js";
import { binomial, normalQuantile } from "../../src/stats/distributions.js";
import {
  DEFAULT_INTERVAL_METHOD,
  designEffectBounds,
  type ItemAgg,
  passRateInterval,
  wilsonBounds,
} from "../../src/stats/interval.js";
import { createRng, type Rng } from "../../src/stats/rng.js";

export interface Cell {
  kappa: number;
  n: number;
  rate: number;
  k: number;
}

export interface CellConfig {
  runs: number;
  resamples: number;
  margin: number;
  seed: number;
}

/** Library methods (bootstrap, wilson-cc) and comparators computed here: plain Wilson with the
 * same design effect, Wilson counting every sample as independent, and mean ± t·sd/√n. */
export const INTERVAL_METHODS = [
  "bootstrap",
  "wilson-cc",
  "wilson",
  "wilson-samples",
  "wald-t",
] as const;
export type BenchIntervalMethod = (typeof INTERVAL_METHODS)[number];
export const COMPARE_METHODS = ["bootstrap", "wilson-cc", "wilson", "paired-t"] as const;
export type BenchCompareMethod = (typeof COMPARE_METHODS)[number];

export interface GateCounts {
  /** Shares in [0, 1]. */
  regression: number;
  inconclusive: number;
  pass: number;
  /** Regression under the stricter rule "high < −margin", for comparison. */
  regressionStrict: number;
}

export interface CellResult extends Cell {
  runs: number;
  coverage: Record<BenchIntervalMethod, number>;
  width: Record<BenchIntervalMethod, number>;
  unchanged: Record<BenchCompareMethod, GateCounts>;
  drop: Record<BenchCompareMethod, GateCounts>;
  /** Standard deviation of the estimated delta over the drop runs (for the ideal power). */
  dropSd: number;
  /** Mean minimum detectable drop printed by the default method in the drop runs. */
  mde: number;
}

function gammaSample(rng: Rng, shape: number): number {
  // Marsaglia–Tsang needs shape ≥ 1; smaller shapes use Gamma(a) = Gamma(a + 1)·U^(1/a).
  if (shape < 1) return gammaSample(rng, shape + 1) * rng.uniform() ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = normalQuantile(rng.uniform());
    const v = (1 + c * x) ** 3;
    if (v <= 0) continue;
    const u = rng.uniform();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

function betaSample(rng: Rng, a: number, b: number): number {
  const x = gammaSample(rng, a);
  const y = gammaSample(rng, b);
  return x + y > 0 ? x / (x + y) : a / (a + b);
}

export function drawPopulation(rng: Rng, cell: Cell): Float64Array {
  const p = new Float64Array(cell.n);
  const { kappa, rate } = cell;
  for (let i = 0; i < cell.n; i++) {
    p[i] = Number.isFinite(kappa) ? betaSample(rng, rate * kappa, (1 - rate) * kappa) : rate;
  }
  return p;
}

export function drawRun(rng: Rng, p: Float64Array, k: number): Float64Array {
  return p.map((pi) => binomial(rng, k, pi) / k);
}

function breakItems(rng: Rng, p: Float64Array, share: number): Float64Array {
  return p.map((pi) => (rng.uniform() < share ? 0 : pi));
}

// Student t quantile by the Cornish–Fisher expansion; within 1e-3 for ≥ 5 degrees of freedom,
// plenty for a comparison method in a benchmark.
function tQuantile(p: number, df: number): number {
  const z = normalQuantile(p);
  const z2 = z * z;
  const g1 = (z2 + 1) * z;
  const g2 = ((5 * z2 + 16) * z2 + 3) * z;
  const g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z;
  return z + g1 / (4 * df) + g2 / (96 * df ** 2) + g3 / (384 * df ** 3);
}

function meanSd(values: Float64Array): [number, number] {
  let sum = 0;
  for (const v of values) sum += v;
  const m = sum / values.length;
  let ss = 0;
  for (const v of values) ss += (v - m) ** 2;
  return [m, values.length > 1 ? Math.sqrt(ss / (values.length - 1)) : 0];
}

function waldT(values: Float64Array): [number, number] {
  const [m, sd] = meanSd(values);
  const half = tQuantile(0.975, Math.max(1, values.length - 1)) * (sd / Math.sqrt(values.length));
  return [m - half, m + half];
}

function toItems(scores: Float64Array, k: number): ItemAgg[] {
  return Array.from(scores, (s, i) => ({ id: String(i), sum: s * k, n: k }));
}

function intervalBounds(
  method: BenchIntervalMethod,
  scores: Float64Array,
  k: number,
  seed: number,
  resamples: number,
): [number, number] {
  if (method === "wald-t") return waldT(scores);
  if (method === "wilson-samples") {
    const [m] = meanSd(scores);
    return wilsonBounds(m, scores.length * k, normalQuantile(0.975));
  }
  if (method === "wilson") {
    return designEffectBounds(scores, new Float64Array(scores.length).fill(k), 0.95, wilsonBounds);
  }
  const items = toItems(scores, k);
  const interval = passRateInterval(items, method, { resamples, seed });
  return [interval.low, interval.high];
}

function compareBounds(
  method: BenchCompareMethod,
  base: Float64Array,
  cand: Float64Array,
  k: number,
  seed: number,
  resamples: number,
): { delta: number; low: number; high: number } {
  if (method === "paired-t") {
    const diffs = cand.map((c, i) => c - base[i]!);
    const [low, high] = waldT(diffs);
    return { delta: meanSd(diffs)[0], low, high };
  }
  const nk = new Float64Array(base.length).fill(k);
  if (method === "wilson") {
    const [low, high] = pairedWilsonBounds(base, cand, nk, nk, normalQuantile(0.975), false);
    return { delta: meanSd(cand)[0] - meanSd(base)[0], low, high };
  }
  const interval = pairedDeltaInterval({ base, cand, baseN: nk, candN: nk }, method, {
    resamples,
    seed,
  });
  return { delta: interval.estimate, low: interval.low, high: interval.high };
}

function emptyCounts(): GateCounts {
  return { regression: 0, inconclusive: 0, pass: 0, regressionStrict: 0 };
}

function tally(
  counts: GateCounts,
  r: { delta: number; low: number; high: number },
  margin: number,
) {
  const verdict = verdictOf(r.delta, r.low, r.high, margin);
  counts[verdict] += 1;
  if (r.high < -margin) counts.regressionStrict += 1;
}

function shares(counts: GateCounts, runs: number): GateCounts {
  return {
    regression: counts.regression / runs,
    inconclusive: counts.inconclusive / runs,
    pass: counts.pass / runs,
    regressionStrict: counts.regressionStrict / runs,
  };
}

function record<K extends string, V>(keys: readonly K[], make: () => V): Record<K, V> {
  return Object.fromEntries(keys.map((key) => [key, make()])) as Record<K, V>;
}

interface Tallies {
  covered: Record<BenchIntervalMethod, number>;
  width: Record<BenchIntervalMethod, number>;
  unchanged: Record<BenchCompareMethod, GateCounts>;
  dropped: Record<BenchCompareMethod, GateCounts>;
  dropDeltas: Float64Array;
  mdeSum: number;
}

function newTallies(runs: number): Tallies {
  return {
    covered: record(INTERVAL_METHODS, () => 0),
    width: record(INTERVAL_METHODS, () => 0),
    unchanged: record(COMPARE_METHODS, emptyCounts),
    dropped: record(COMPARE_METHODS, emptyCounts),
    dropDeltas: new Float64Array(runs),
    mdeSum: 0,
  };
}

function tallyIntervals(
  t: Tallies,
  cell: Cell,
  base: Float64Array,
  run: number,
  resamples: number,
) {
  for (const method of INTERVAL_METHODS) {
    const [low, high] = intervalBounds(method, base, cell.k, run, resamples);
    if (low <= cell.rate && cell.rate <= high) t.covered[method] += 1;
    t.width[method] += high - low;
  }
}

/** One simulated run: a baseline, an unchanged rerun and a candidate with a real drop. */
function simulateRun(t: Tallies, cell: Cell, config: CellConfig, rng: Rng, run: number): void {
  const { resamples, margin } = config;
  const p = drawPopulation(rng, cell);
  const base = drawRun(rng, p, cell.k);
  tallyIntervals(t, cell, base, run, resamples);
  const again = drawRun(rng, p, cell.k);
  const worse = drawRun(rng, breakItems(rng, p, (2 * margin) / cell.rate), cell.k);
  for (const method of COMPARE_METHODS) {
    tally(t.unchanged[method], compareBounds(method, base, again, cell.k, run, resamples), margin);
    const r = compareBounds(method, base, worse, cell.k, run, resamples);
    tally(t.dropped[method], r, margin);
    if (method === DEFAULT_INTERVAL_METHOD) {
      t.dropDeltas[run] = r.delta;
      const interval = { estimate: r.delta, low: r.low, high: r.high, level: 0.95, method };
      t.mdeSum += minimumDetectableDrop(interval, margin);
    }
  }
}

/** All runs of one cell: coverage of each interval method, and the gate with and without a drop. */
export function simulateCell(cell: Cell, config: CellConfig): CellResult {
  const { runs } = config;
  const rng = createRng(config.seed);
  const t = newTallies(runs);
  for (let run = 0; run < runs; run++) simulateRun(t, cell, config, rng, run);
  return {
    ...cell,
    runs,
    coverage: mapRecord(t.covered, (c) => c / runs),
    width: mapRecord(t.width, (w) => w / runs),
    unchanged: mapRecord(t.unchanged, (c) => shares(c, runs)),
    drop: mapRecord(t.dropped, (c) => shares(c, runs)),
    dropSd: meanSd(t.dropDeltas)[1],
    mde: t.mdeSum / runs,
  };
}

function mapRecord<K extends string, V, W>(rec: Record<K, V>, f: (v: V) => W): Record<K, W> {
  return Object.fromEntries(Object.entries(rec).map(([key, v]) => [key, f(v as V)])) as Record<
    K,
    W
  >;
}

/** Seed per cell, so a cell's figures do not depend on which worker ran it or in what order. */
export function cellSeed(cell: Cell, base: number): number {
  const kappaCode = Number.isFinite(cell.kappa) ? cell.kappa : 9999;
  return base + kappaCode * 1e7 + cell.n * 1e3 + Math.round(cell.rate * 100) * 10 + cell.k;
}
