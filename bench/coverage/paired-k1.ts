/**
 * bench/coverage/paired-k1: the gate's error rates at one sample per item, computed exactly.
 *
 * Run (about 10 minutes on two shared cores, most of it the exact test at 1000 items):
 *   npx tsc -p bench/coverage/tsconfig.json --outDir /tmp/eb-paired-k1 &&
 *   nice node /tmp/eb-paired-k1/bench/coverage/paired-k1.js [--margin 0.02] [--n 10,20,…]
 *     [--rate 0.5,…] [--kappa inf,20,2,0.2] [--methods tango,tango-cc,…] [--cells]
 * It prints, per method, the worst rates over the cells and the mean power against Tango's
 * uncorrected interval; tango-cc-half (the half-unit correction) is the gate's. --cells adds one
 * JSON line per cell and method. docs/statistics.md has the table.
 *
 * At k = 1 in the population scope an item pair is a gain (passes in the candidate only), a
 * loss (in the baseline only) or a tie, the same for every item: the counts of gains b and
 * losses c over n items are trinomial, with the shares of simulate.ts's population model (items'
 * chances p ~ Beta(μκ, (1 − μ)κ); a drop d breaks each item with chance s = d/μ):
 *   loss = μ − (1 − s)·E[p²],  gain = (1 − s)·(μ − E[p²]),  E[p²] = μ(μκ + 1)/(κ + 1).
 * So every rate bench/coverage estimates by simulation at k = 1 (false regressions, drops of the
 * margin passing, drops of twice the margin caught) is here a finite sum over (b, c), with no
 * Monte-Carlo error, for each candidate interval. Outcomes below 1e-18 are left out.
 */

import { logFactorial, twoSidedZ } from "../../src/stats/distributions.js";
import { likeliestLoss, tangoBounds } from "../../src/stats/tango.js";
import { flag } from "../args.js";

type Bounds = (b: number, c: number, n: number, z: number) => [number, number];

const LEVEL = 0.95;
const Z = twoSidedZ(LEVEL);
const LEAST_LOG_CHANCE = Math.log(1e-18);

function clamp(low: number, high: number): [number, number] {
  return [Math.max(-1, low), Math.min(1, high)];
}

/** Wald interval around pseudo-count estimates: Bonett & Price 2012 (add 1) or Agresti & Min 2005 (0.5). */
function adjustedWald(add: number): Bounds {
  return (b, c, n, z) => {
    const g = (b + add) / (n + 2);
    const l = (c + add) / (n + 2);
    const estimate = g - l;
    const se = Math.sqrt(Math.max(0, g + l - estimate * estimate) / (n + 2));
    return clamp(estimate - z * se, estimate + z * se);
  };
}

/** The variance of Tango's score statistic under Δ, per item (likeliestLoss: Tango's q̂₂₁). */
function tangoVariance(b: number, c: number, n: number, delta: number): number {
  return Math.max(0, 2 * likeliestLoss(b / n, c / n, delta) + delta * (1 - delta));
}

/** Wilson's score interval for a proportion x/n. */
function wilson(x: number, n: number, z: number): [number, number] {
  const p = x / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [centre - half, centre + half];
}

/**
 * Newcombe's square-and-add interval (1998, method 10): Wilson intervals of the two pass rates
 * combined with the correlation estimate φ (corrected by N/2, as Fagerland et al. 2014 give it).
 */
function newcombe({ a, b, c, n }: Table, z: number): [number, number] {
  const d = n - a - b - c;
  const [cand, base] = [a + b, a + c];
  const [p1, p2] = [cand / n, base / n];
  const [l1, u1] = wilson(cand, n, z);
  const [l2, u2] = wilson(base, n, z);
  const product = cand * (n - cand) * base * (n - base);
  const cross = a * d - b * c;
  const phi =
    product === 0
      ? 0
      : cross > n / 2
        ? (cross - n / 2) / Math.sqrt(product)
        : cross >= 0
          ? 0
          : cross / Math.sqrt(product);
  const estimate = p1 - p2;
  const down = Math.sqrt(
    Math.max(0, (p1 - l1) ** 2 + (u2 - p2) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2)),
  );
  const up = Math.sqrt(
    Math.max(0, (p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1)),
  );
  return [estimate - down, estimate + up];
}

/** Tango's signed score statistic for Δ0 (0 when b − c = nΔ0, whatever its variance). */
function tangoZ(b: number, c: number, n: number, delta: number): number {
  const distance = (b - c) / n - delta;
  if (Math.abs(distance) < 1e-12) return 0;
  return (Math.sqrt(n) * distance) / Math.sqrt(tangoVariance(b, c, n, delta));
}

/** Log chance of b gains, c losses and the rest ties among n items. */
function trinomialLog(n: number, b: number, c: number, gain: number, loss: number): number {
  const ties = n - b - c;
  const tie = Math.max(0, 1 - gain - loss);
  return (
    logFactorial(n) -
    logFactorial(b) -
    logFactorial(c) -
    logFactorial(ties) +
    xLogY(b, gain) +
    xLogY(c, loss) +
    xLogY(ties, tie)
  );
}

const NUISANCE_STEPS = 400;

/**
 * The exact unconditional test of Δ0 one-sided at level α with Tango's statistic as the ordering
 * (Hsueh, Liu & Chen 2001; Sidik 2003): reject when z is at least the smallest t whose tail
 * chance is at most α for every loss share q the null allows (here on a grid of 400). Returns t
 * for the upper tail (sign 1) or −t for the lower (sign −1).
 */
function exactThreshold(n: number, delta: number, sign: 1 | -1, alpha: number): number {
  const entries: { z: number; b: number; c: number }[] = [];
  for (let b = 0; b <= n; b++) {
    for (let c = 0; b + c <= n; c++) entries.push({ z: sign * tangoZ(b, c, n, delta), b, c });
  }
  entries.sort((x, y) => y.z - x.z);
  const lowest = Math.max(0, -delta);
  const highest = (1 - delta) / 2;
  let threshold = Number.NEGATIVE_INFINITY;
  for (let step = 0; step <= NUISANCE_STEPS; step++) {
    const loss = lowest + ((highest - lowest) * step) / NUISANCE_STEPS;
    const gain = loss + delta;
    let tail = 0;
    let own = Number.POSITIVE_INFINITY;
    for (let i = 0; i < entries.length; ) {
      let j = i;
      let group = 0;
      while (j < entries.length && entries[j]!.z >= entries[i]!.z - 1e-9) {
        const { b, c } = entries[j]!;
        group += Math.exp(trinomialLog(n, b, c, gain, loss));
        j++;
      }
      if (tail + group > alpha) break;
      tail += group;
      own = entries[j - 1]!.z;
      i = j;
    }
    threshold = Math.max(threshold, own);
  }
  return sign * threshold;
}

let MARGIN = 0.02;
const thresholds = new Map<number, { pass: number; regression: number }>();

/**
 * Not an interval: the two exact tests the verdicts need, written as bounds (low just above
 * −margin when Δ = −margin is rejected from above, high just below 0 when Δ = 0 is rejected from
 * below), so its coverage column means nothing.
 */
function exactUnconditional({ b, c, n }: Table): [number, number] {
  let t = thresholds.get(n);
  if (!t) {
    t = { pass: exactThreshold(n, -MARGIN, 1, 0.025), regression: exactThreshold(n, 0, -1, 0.025) };
    thresholds.set(n, t);
  }
  const low = tangoZ(b, c, n, -MARGIN) >= t.pass ? -MARGIN / 2 : -1;
  const high = tangoZ(b, c, n, 0) <= t.regression ? -1e-9 : 1;
  return [low, high];
}

interface Table {
  a: number;
  b: number;
  c: number;
  n: number;
}

interface Method {
  /** Whether it needs the whole table (a, the items passing on both sides), not b and c alone. */
  full: boolean;
  /** False for the exact test: its "bounds" stand for two tests, and cover nothing. */
  interval?: boolean;
  bounds(t: Table, z: number): [number, number];
}

const onDiscordant = (bounds: Bounds): Method => ({
  full: false,
  bounds: ({ b, c, n }, z) => bounds(b, c, n, z),
});

/** Tango's score interval with |b − c − nΔ| shortened by `by` items (a continuity correction). */
function corrected(by: number): Method {
  return onDiscordant((b, c, n) => tangoBounds(b / n, c / n, n, LEVEL, by));
}

const METHODS: Record<string, Method> = {
  tango: corrected(0),
  "tango-cc-half": corrected(0.5),
  "tango-cc": corrected(1),
  "bonett-price": onDiscordant(adjustedWald(1)),
  "agresti-min": onDiscordant(adjustedWald(0.5)),
  newcombe: { full: true, bounds: newcombe },
  "exact-unconditional": { full: false, interval: false, bounds: exactUnconditional },
};

interface Cell {
  n: number;
  rate: number;
  kappa: number;
}

/** E[p²] of the items' chances. */
function secondMoment({ rate, kappa }: Cell): number {
  return Number.isFinite(kappa) ? (rate * (rate * kappa + 1)) / (kappa + 1) : rate * rate;
}

/** Gain and loss shares of one item pair, under a drop d (simulate.ts's population model). */
function shares(cell: Cell, drop: number): { gain: number; loss: number } {
  const { rate } = cell;
  const square = secondMoment(cell);
  const kept = 1 - drop / rate;
  return { gain: kept * (rate - square), loss: rate - kept * square };
}

function xLogY(x: number, y: number): number {
  return x === 0 ? 0 : x * Math.log(y);
}

interface Rates {
  /** Verdict pass / regression shares, and the share whose interval holds the true Δ. */
  pass: number;
  regression: number;
  covered: number;
}

/** Tables by chance: (a, b, c, n − a − b − c) with a both passing, b gains, c losses. */
function* tables(cell: Cell, drop: number, full: boolean) {
  const { n } = cell;
  const { gain, loss } = shares(cell, drop);
  const tie = Math.max(0, 1 - gain - loss);
  const both = (1 - drop / cell.rate) * secondMoment(cell);
  for (let b = 0; b <= n; b++) {
    for (let c = 0; b + c <= n; c++) {
      const ties = n - b - c;
      const log = trinomialLog(n, b, c, gain, loss);
      if (!(log > LEAST_LOG_CHANCE)) continue;
      if (!full) {
        yield { a: -1, b, c, chance: Math.exp(log) };
        continue;
      }
      const share = tie > 0 ? both / tie : 0;
      for (let a = 0; a <= ties; a++) {
        const split =
          log +
          logFactorial(ties) -
          logFactorial(a) -
          logFactorial(ties - a) +
          xLogY(a, share) +
          xLogY(ties - a, 1 - share);
        if (split > LEAST_LOG_CHANCE) yield { a, b, c, chance: Math.exp(split) };
      }
    }
  }
}

/** Exact verdict rates of one method on one cell under a drop. */
function rates(
  method: Method,
  cache: Map<number, [number, number]>,
  cell: Cell,
  drop: number,
  margin: number,
): Rates {
  const { n } = cell;
  const out: Rates = { pass: 0, regression: 0, covered: 0 };
  for (const { a, b, c, chance } of tables(cell, drop, method.full)) {
    const key = (a + 1) * (n + 1) * (n + 1) + b * (n + 1) + c;
    // Whole tables are too many to keep (and cheap to bound): only b and c are cached.
    let interval = method.full ? undefined : cache.get(key);
    if (!interval) {
      interval = method.bounds({ a, b, c, n }, Z);
      if (!method.full) cache.set(key, interval);
    }
    const [low, high] = interval;
    const delta = (b - c) / n;
    if (low > -margin) out.pass += chance;
    else if (high < 0 && delta < -margin) out.regression += chance;
    if (low <= -drop && -drop <= high) out.covered += chance;
  }
  return out;
}

function list(args: readonly string[], name: string, fallback: string): number[] {
  return flag(args, name, fallback)
    .split(",")
    .map((s) => (s === "inf" ? Number.POSITIVE_INFINITY : Number(s)));
}

interface Row extends Cell {
  method: string;
  falseRegression: number;
  passUnchanged: number;
  passAtMargin: number;
  power: number;
  coverage: number;
}

function main(args: readonly string[]): void {
  const margin = Number(flag(args, "margin", "0.02"));
  MARGIN = margin;
  const sizes = list(args, "n", "10,20,30,50,100,300,1000");
  const ratesList = list(args, "rate", "0.5,0.7,0.9,0.95,0.99");
  const kappas = list(args, "kappa", "inf,20,2,0.2");
  const methods = flag(args, "methods", Object.keys(METHODS).join(",")).split(",");
  const rows: Row[] = [];
  for (const method of methods) {
    for (const n of sizes) {
      const cache = new Map<number, [number, number]>();
      const bounds = METHODS[method]!;
      for (const rate of ratesList) {
        for (const kappa of kappas) {
          const cell = { n, rate, kappa };
          const unchanged = rates(bounds, cache, cell, 0, margin);
          const atMargin = rates(bounds, cache, cell, margin, margin);
          const twice = rates(bounds, cache, cell, 2 * margin, margin);
          rows.push({
            ...cell,
            method,
            falseRegression: unchanged.regression,
            passUnchanged: unchanged.pass,
            passAtMargin: atMargin.pass,
            power: twice.regression,
            coverage: Math.min(unchanged.covered, atMargin.covered, twice.covered),
          });
        }
      }
    }
  }
  if (args.includes("--cells")) {
    for (const r of rows) console.log(JSON.stringify(r));
  }
  summarize(rows, methods);
}

function pct(x: number): string {
  return Number.isNaN(x) ? "n/a" : `${(100 * x).toFixed(2)}%`;
}

function summarize(rows: readonly Row[], methods: readonly string[]): void {
  const tango = new Map(rows.filter((r) => r.method === "tango").map((r) => [key(r), r]));
  console.log(
    "| method | worst pass at margin (cell) | cells > 2.5% | worst false regression (cell) | worst coverage of Δ | mean power Δ vs Tango | mean unchanged-pass Δ vs Tango |",
  );
  console.log("| --- | --- | ---: | --- | ---: | ---: | ---: |");
  for (const method of methods) {
    const mine = rows.filter((r) => r.method === method);
    const worst = (f: (r: Row) => number) => mine.reduce((a, r) => (f(r) > f(a) ? r : a));
    const wp = worst((r) => r.passAtMargin);
    const wf = worst((r) => r.falseRegression);
    const over = mine.filter((r) => r.passAtMargin > 0.025).length;
    const cover =
      METHODS[method]!.interval === false ? Number.NaN : Math.min(...mine.map((r) => r.coverage));
    const diff = (f: (r: Row) => number) => {
      const ds = mine.map((r) => f(r) - f(tango.get(key(r)) ?? r));
      return ds.reduce((a, b) => a + b, 0) / ds.length;
    };
    console.log(
      `| ${method} | ${pct(wp.passAtMargin)} (${label(wp)}) | ${over} | ${pct(wf.falseRegression)} (${label(wf)}) | ${pct(cover)} | ${pct(diff((r) => r.power))} | ${pct(diff((r) => r.passUnchanged))} |`,
    );
  }
}

function key(c: Cell): string {
  return `${c.n}/${c.rate}/${c.kappa}`;
}

function label(c: Cell): string {
  return `${c.n} items, ${c.rate}, κ ${c.kappa}`;
}

main(process.argv.slice(2));
