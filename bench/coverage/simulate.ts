/**
 * Simulated runs with a known true pass rate, for bench/coverage.
 *
 * Population model: each item has its own pass probability pᵢ ~ Beta(μκ, (1−μ)κ), so the mean
 * over the population is exactly μ (the "true pass rate", the estimand) and κ sets how much
 * items differ (κ = ∞: every item has rate μ; κ = 20: items differ mildly; κ = 2: most items
 * nearly always pass or nearly always fail, a few are flaky; κ = 0.2: almost all-or-nothing). A
 * run draws n items from the population and k Bernoulli(pᵢ) samples per item; the item score is
 * the mean of its samples.
 *
 * Compare: "nothing changed" runs the same n items (same pᵢ) twice, independently. A "real drop
 * of d" breaks each item with probability d/μ (its pᵢ becomes 0), so the population mean falls by
 * exactly d: regressions in practice are specific items that stop working.
 */

import {
  meanDifference,
  minimumDetectableDrop,
  type PairedScores,
  pairedDeltaInterval,
  verdictOf,
} from "../../src/stats/compare.js";
import { binomial, normalQuantile } from "../../src/stats/distributions.js";
import {
  clopperPearsonBounds,
  DEFAULT_INTERVAL_METHOD,
  type ItemAgg,
  passRateInterval,
  wilsonBounds,
} from "../../src/stats/interval.js";
import { createRng, type Rng } from "../../src/stats/rng.js";
import type { Scope } from "../../src/stats/types.js";

export interface Cell {
  kappa: number;
  n: number;
  rate: number;
  k: number;
}

export interface CellConfig {
  runs: number;
  /** Runs per step of the drop ladder that measures the drop caught 80% of the time. */
  ladderRuns: number;
  /** Runs whose printed MDE is computed (the median of those is compared with the ladder's). */
  mdeRuns: number;
  resamples: number;
  margin: number;
  seed: number;
  /** The question the gate answers; `cases` measures a drop of the margin on the run's cases. */
  scope: Scope;
}

/**
 * Interval methods: the library's two (`clopper-pearson`, the default, and `bootstrap`) and
 * comparators computed here: `cluster` = the cluster-robust interval mean ± t·sd/√n over item
 * scores; `items` = Clopper–Pearson counting items only (n trials, exact at k = 1); `samples` =
 * Wilson counting every sample as independent (what a naive tool prints).
 */
export const INTERVAL_METHODS = [
  "clopper-pearson",
  "bootstrap",
  "cluster",
  "items",
  "samples",
] as const;
export type BenchIntervalMethod = (typeof INTERVAL_METHODS)[number];
export const COMPARE_METHODS = ["clopper-pearson", "bootstrap", "paired-t"] as const;
export type BenchCompareMethod = (typeof COMPARE_METHODS)[number];

export interface CellResult extends Cell {
  runs: number;
  coverage: Record<BenchIntervalMethod, number>;
  width: Record<BenchIntervalMethod, number>;
  /** Share of unchanged compares that say regression, per method. */
  falseRegression: Record<BenchCompareMethod, number>;
  /** Default gate: share of unchanged compares that are inconclusive. */
  inconclusive: number;
  /** Default gate: share of compares with a real drop equal to the margin that say pass. */
  passAtMargin: number;
  /** Default gate: share of compares with a real drop of twice the margin that say regression. */
  power: number;
  /** Standard deviation of the estimated delta over those runs (for the ideal power). */
  powerSd: number;
  /** Median MDE the default gate printed on unchanged compares (NaN: mostly n/a). */
  mde: number;
  /** The drop the default gate calls regression in 80% of runs, from the ladder (NaN: none). */
  drop80: number;
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
  if (method === "cluster") return waldT(scores);
  const [m] = meanSd(scores);
  if (method === "samples") return wilsonBounds(m, scores.length * k, 0.95);
  if (method === "items") return clopperPearsonBounds(m, scores.length, 0.95);
  const interval = passRateInterval(toItems(scores, k), method, { resamples, seed });
  return [interval.low, interval.high];
}

interface Gate {
  delta: number;
  low: number;
  high: number;
}

function paired(base: Float64Array, cand: Float64Array, k: number): PairedScores {
  const nk = new Float64Array(base.length).fill(k);
  return { base, cand, baseN: nk, candN: nk };
}

function compareBounds(
  method: BenchCompareMethod,
  p: PairedScores,
  seed: number,
  resamples: number,
  scope: Scope,
): Gate {
  if (method === "paired-t") {
    const diffs = p.cand.map((c, i) => c - p.base[i]!);
    const [low, high] = waldT(diffs);
    return { delta: meanDifference(p), low, high };
  }
  const interval = pairedDeltaInterval(p, method, { resamples, seed, scope });
  return { delta: interval.estimate, low: interval.low, high: interval.high };
}

function record<K extends string, V>(keys: readonly K[], make: () => V): Record<K, V> {
  return Object.fromEntries(keys.map((key) => [key, make()])) as Record<K, V>;
}

interface Tallies {
  covered: Record<BenchIntervalMethod, number>;
  width: Record<BenchIntervalMethod, number>;
  falseRegression: Record<BenchCompareMethod, number>;
  inconclusive: number;
  passAtMargin: number;
  power: number;
  powerDeltas: Float64Array;
  mdes: Float64Array;
}

function newTallies(runs: number, mdeRuns: number): Tallies {
  return {
    covered: record(INTERVAL_METHODS, () => 0),
    width: record(INTERVAL_METHODS, () => 0),
    falseRegression: record(COMPARE_METHODS, () => 0),
    inconclusive: 0,
    passAtMargin: 0,
    power: 0,
    powerDeltas: new Float64Array(runs),
    mdes: new Float64Array(Math.min(runs, mdeRuns)),
  };
}

function defaultGate(p: PairedScores, margin: number, scope: Scope) {
  const interval = pairedDeltaInterval(p, DEFAULT_INTERVAL_METHOD, { scope });
  const verdict = verdictOf(interval.estimate, interval.low, interval.high, margin);
  return { interval, verdict };
}

/** One simulated run: coverage, an unchanged rerun, and candidates with real drops. */
function simulateRun(t: Tallies, cell: Cell, config: CellConfig, rng: Rng, run: number): void {
  const { resamples, margin, scope } = config;
  const p = drawPopulation(rng, cell);
  const base = drawRun(rng, p, cell.k);
  for (const method of INTERVAL_METHODS) {
    const [low, high] = intervalBounds(method, base, cell.k, run, resamples);
    if (low <= cell.rate && cell.rate <= high) t.covered[method] += 1;
    t.width[method] += high - low;
  }
  const unchanged = paired(base, drawRun(rng, p, cell.k), cell.k);
  for (const method of COMPARE_METHODS) {
    const r = compareBounds(method, unchanged, run, resamples, scope);
    if (verdictOf(r.delta, r.low, r.high, margin) === "regression") t.falseRegression[method] += 1;
  }
  const gate = defaultGate(unchanged, margin, scope);
  if (gate.verdict === "inconclusive") t.inconclusive += 1;
  if (run < t.mdes.length) t.mdes[run] = minimumDetectableDrop(unchanged, 0.95, margin, scope);
  const atMargin = droppedByMargin(rng, p, base, cell, config);
  if (defaultGate(atMargin, margin, scope).verdict === "pass") t.passAtMargin += 1;
  const twice = defaultGate(dropped(rng, p, base, cell, 2 * margin), margin, scope);
  if (twice.verdict === "regression") t.power += 1;
  t.powerDeltas[run] = twice.interval.estimate;
}

function dropped(rng: Rng, p: Float64Array, base: Float64Array, cell: Cell, drop: number) {
  return paired(base, drawRun(rng, breakItems(rng, p, drop / cell.rate), cell.k), cell.k);
}

/**
 * A candidate worse by exactly the margin. Population scope: items break at random, so the
 * population's rate falls by the margin. Cases scope: the drop is on these cases, so every case's
 * chance is scaled down by the same factor and their mean falls by exactly the margin (the
 * hardest shape for the cases interval: cases that always passed start failing now and then).
 */
function droppedByMargin(
  rng: Rng,
  p: Float64Array,
  base: Float64Array,
  cell: Cell,
  config: CellConfig,
): PairedScores {
  if (config.scope === "population") return dropped(rng, p, base, cell, config.margin);
  const mean = p.reduce((a, b) => a + b, 0) / p.length;
  const kept = Math.max(0, 1 - config.margin / mean);
  return paired(
    base,
    drawRun(
      rng,
      p.map((pi) => pi * kept),
      cell.k,
    ),
    cell.k,
  );
}

/** Drops from the margin up to the whole rate, 25% apart: where the gate's power is measured. */
export function dropLadder(rate: number, margin: number): number[] {
  const drops: number[] = [];
  for (let d = margin; d < rate; d *= 1.25) drops.push(d);
  drops.push(rate);
  return drops;
}

/** The drop caught in 80% of runs, interpolated on the ladder; NaN when even the largest is not. */
function drop80(cell: Cell, config: CellConfig, rng: Rng): number {
  let previous = { drop: 0, power: 0 };
  for (const drop of dropLadder(cell.rate, config.margin)) {
    let caught = 0;
    for (let run = 0; run < config.ladderRuns; run++) {
      const p = drawPopulation(rng, cell);
      const base = drawRun(rng, p, cell.k);
      const verdict = defaultGate(dropped(rng, p, base, cell, drop), config.margin, config.scope);
      if (verdict.verdict === "regression") {
        caught += 1;
      }
    }
    const power = caught / config.ladderRuns;
    if (power >= 0.8) {
      const share = (0.8 - previous.power) / (power - previous.power);
      return previous.drop + share * (drop - previous.drop);
    }
    previous = { drop, power };
  }
  return Number.NaN;
}

function median(values: Float64Array): number {
  const sorted = Float64Array.from(values).sort();
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** All runs of one cell. NaN sorts last, so a median of mostly-n/a MDEs is NaN. */
export function simulateCell(cell: Cell, config: CellConfig): CellResult {
  const { runs } = config;
  const rng = createRng(config.seed);
  const t = newTallies(runs, config.mdeRuns);
  for (let run = 0; run < runs; run++) simulateRun(t, cell, config, rng, run);
  const share = (count: number) => count / runs;
  return {
    ...cell,
    runs,
    coverage: mapRecord(t.covered, share),
    width: mapRecord(t.width, share),
    falseRegression: mapRecord(t.falseRegression, share),
    inconclusive: share(t.inconclusive),
    passAtMargin: share(t.passAtMargin),
    power: share(t.power),
    powerSd: meanSd(t.powerDeltas)[1],
    mde: median(t.mdes),
    drop80: drop80(cell, config, rng),
  };
}

function mapRecord<K extends string, V, W>(rec: Record<K, V>, f: (v: V) => W): Record<K, W> {
  return Object.fromEntries(Object.entries(rec).map(([key, v]) => [key, f(v as V)])) as Record<
    K,
    W
  >;
}

/** A rate target, rechecked with fresh runs where the screen missed it. */
export type RateTarget = "coverage" | "falseRegression" | "passAtMargin";

/** One fresh run's outcome for a rate target: does this run count toward the rate? */
const RATE_EVENTS: Record<
  RateTarget,
  (cell: Cell, config: CellConfig, rng: Rng, p: Float64Array, base: Float64Array) => boolean
> = {
  coverage: (cell, _config, _rng, _p, base) => {
    const interval = passRateInterval(toItems(base, cell.k), DEFAULT_INTERVAL_METHOD);
    return interval.low <= cell.rate && cell.rate <= interval.high;
  },
  falseRegression: (cell, config, rng, p, base) =>
    defaultGate(paired(base, drawRun(rng, p, cell.k), cell.k), config.margin, config.scope)
      .verdict === "regression",
  passAtMargin: (cell, config, rng, p, base) =>
    defaultGate(droppedByMargin(rng, p, base, cell, config), config.margin, config.scope)
      .verdict === "pass",
};

/**
 * The rate of one target's event (interval covers, unchanged compare says regression, drop of
 * the margin passes) over `runs` fresh runs of the default method only. The seed differs from
 * the screen's: the worst of 560 screened cells is biased toward a miss (winner's curse), an
 * independent rerun is not.
 */
export function confirmRate(cell: Cell, config: CellConfig, target: RateTarget): number {
  const rng = createRng(cellSeed(cell, config.seed) + 0x5eed);
  const event = RATE_EVENTS[target];
  let count = 0;
  for (let run = 0; run < config.runs; run++) {
    const p = drawPopulation(rng, cell);
    if (event(cell, config, rng, p, drawRun(rng, p, cell.k))) count += 1;
  }
  return count / config.runs;
}

/** Seed per cell, so a cell's figures do not depend on which worker ran it or in what order. */
export function cellSeed(cell: Cell, base: number): number {
  const kappaCode = Number.isFinite(cell.kappa) ? cell.kappa : 9999;
  return base + kappaCode * 1e7 + cell.n * 1e3 + Math.round(cell.rate * 100) * 10 + cell.k;
}
