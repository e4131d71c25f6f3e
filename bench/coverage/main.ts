/**
 * bench/coverage: do the intervals and the compare gate keep their promises?
 *
 * Run (Node 20 cannot strip TypeScript types, so compile first; compiling takes ~0.4 s and writes
 * only to /tmp):
 *   npx tsc -p bench/coverage/tsconfig.json && node /tmp/eb-bench-coverage/bench/coverage/main.js
 * or, through the shared runner (which also builds dist/): bench/run.sh coverage
 * Options: --runs 2000 --ladder-runs 400 --mde-runs 400 --resamples 1000 --margin 0.02
 *          --confirm-runs 10000
 *          --kappa inf,20,2,0.2 --n 10,20,30,50,100,300,1000 --rate 0.5,0.7,0.9,0.95,0.99
 *          --k 1,3,5,10 --workers 2 --seed 1 --scope cases
 * (--scope population: the gate's question on cases like these; cases, the default: on these
 * cases, where a drop of the margin is every case's chance scaled down, see droppedByMargin.)
 * (--kappa, --n, --rate and --k pick part of the grid: rerun the worst cells with more runs.)
 * Wall time with the defaults, on two cores: roughly an hour, most of it in the bootstrap
 * comparator. Measured: --scope population --rate 0.5,0.9,0.99 --k 1,3,10 --resamples 50 --mde-runs
 * 200 (252 cells) in 19 minutes on two cores shared with other work. Same seed, same figures:
 * rerun part of the grid to check cells.
 *
 * For every cell of n ∈ {10, 20, 30, 50, 100, 300, 1000} items × true rate ∈ {0.5, 0.7, 0.9,
 * 0.95, 0.99} × k ∈ {1, 3, 5, 10} samples × item spread κ ∈ {∞, 20, 2, 0.2} (560 cells; see
 * simulate.ts for the population model), it simulates `runs` runs and prints:
 * - the share of runs whose 95% interval contains the true rate, and the default's width over
 *   exact Clopper–Pearson (k = 1) or the cluster-robust interval (n ≥ 100, rate ≤ 0.9);
 * - with nothing changed, the share of compares that say `regression`;
 * - with a real drop equal to the margin, the share that say `pass` (a miss of the lower bound);
 * - with a real drop of twice the margin, the share that say `regression`, beside the power of an
 *   ideal one-sided 5% z-test that knows the true standard error (no valid gate can beat it);
 * - the median MDE the gate printed on unchanged compares over the drop it really catches 80%
 *   of the time (measured on a ladder of drops 25% apart);
 * then checks the targets. Bootstrap intervals inside the simulation use `--resamples`
 * resamples (the CLI uses 10,000). A cell whose coverage, false-regression or pass-at-margin rate
 * misses its target in this screen is rerun with `--confirm-runs` fresh runs of the default
 * method (see rateTarget in table.ts for why, and how that rerun is judged).
 */

import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { SCOPES, type Scope } from "../../src/stats/types.js";
import { flag } from "../args.js";
import {
  type Cell,
  type CellConfig,
  type CellResult,
  cellSeed,
  confirmRate,
  type RateTarget,
  simulateCell,
} from "./simulate.js";
import { type Confirmed, printReport, screenMisses } from "./table.js";

interface Options extends CellConfig {
  axes: Axes;
  workers: number;
  confirmRuns: number;
}

interface Axes {
  kappas: number[];
  sizes: number[];
  rates: number[];
  ks: number[];
}

/** A worker's share: cells to screen, or (cell, target) pairs to confirm. */
type Job =
  | { kind: "screen"; cells: Cell[]; config: CellConfig }
  | { kind: "confirm"; tasks: { cell: Cell; target: RateTarget }[]; config: CellConfig };

const SIZES = [10, 20, 30, 50, 100, 300, 1000];
const RATES = [0.5, 0.7, 0.9, 0.95, 0.99];
const KS = [1, 3, 5, 10];
const KAPPAS = [Number.POSITIVE_INFINITY, 20, 2, 0.2];

function listFlag(args: readonly string[], name: string, fallback: readonly number[]): number[] {
  return flag(args, name, fallback.join(","))
    .split(",")
    .map((s) => (s === "inf" ? Number.POSITIVE_INFINITY : Number(s)));
}

function scopeFlag(value: string): Scope {
  const scope = SCOPES.find((s) => s === value);
  if (scope === undefined) throw new Error(`--scope ${value}: expected ${SCOPES.join(" or ")}`);
  return scope;
}

function parseOptions(args: readonly string[]): Options {
  return {
    runs: Number(flag(args, "runs", "2000")),
    ladderRuns: Number(flag(args, "ladder-runs", "400")),
    mdeRuns: Number(flag(args, "mde-runs", "400")),
    confirmRuns: Number(flag(args, "confirm-runs", "10000")),
    resamples: Number(flag(args, "resamples", "1000")),
    margin: Number(flag(args, "margin", "0.02")),
    seed: Number(flag(args, "seed", "1")),
    scope: scopeFlag(flag(args, "scope", "cases")),
    workers: Number(flag(args, "workers", String(Math.min(2, cpus().length)))),
    axes: {
      kappas: listFlag(args, "kappa", KAPPAS),
      sizes: listFlag(args, "n", SIZES),
      rates: listFlag(args, "rate", RATES),
      ks: listFlag(args, "k", KS),
    },
  };
}

function grid({ kappas, sizes, rates, ks }: Axes): Cell[] {
  return kappas.flatMap((kappa) =>
    sizes.flatMap((n) => rates.flatMap((rate) => ks.map((k) => ({ kappa, n, rate, k })))),
  );
}

function runWorker<T>(job: Job, onCell: () => void): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(fileURLToPath(import.meta.url), { workerData: job });
    const results: T[] = [];
    worker.on("message", (result: T) => {
      results.push(result);
      onCell();
    });
    worker.on("error", reject);
    worker.on("exit", (code) =>
      code === 0 ? resolve(results) : reject(new Error(`exit ${code}`)),
    );
  });
}

/** Largest cells first, dealt round-robin, so the workers finish at about the same time. */
function deal<T>(items: readonly T[], size: (t: T) => number, workers: number): T[][] {
  const order = [...items].sort((a, b) => size(b) - size(a));
  return Array.from({ length: workers }, (_, w) => order.filter((_, i) => i % workers === w));
}

async function inWorkers<T>(label: string, shards: Job[], total: number): Promise<T[]> {
  let done = 0;
  const progress = () => {
    done += 1;
    process.stderr.write(`\r${label}: ${done}/${total}`);
  };
  const parts = await Promise.all(shards.map((job) => runWorker<T>(job, progress)));
  if (total > 0) process.stderr.write("\n");
  return parts.flat();
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const cells = grid(options.axes);
  const started = performance.now();
  const screened = await inWorkers<CellResult>(
    "screen",
    deal(cells, (c) => c.n * c.k, options.workers).map((shard) => ({
      kind: "screen",
      cells: shard,
      config: options,
    })),
    cells.length,
  );
  const misses = screenMisses(screened);
  const confirmed = await inWorkers<Confirmed>(
    "confirm",
    deal(misses, (m) => m.cell.n * m.cell.k, options.workers).map((tasks) => ({
      kind: "confirm",
      tasks,
      config: { ...options, runs: options.confirmRuns },
    })),
    misses.length,
  );
  const seconds = (performance.now() - started) / 1000;
  printReport(screened, confirmed, { ...options, seconds });
}

function work(job: Job): void {
  if (job.kind === "confirm") {
    for (const { cell, target } of job.tasks) {
      const result: Confirmed = { cell, target, rate: confirmRate(cell, job.config, target) };
      parentPort!.postMessage(result);
    }
    return;
  }
  for (const cell of job.cells) {
    const seed = cellSeed(cell, job.config.seed);
    parentPort!.postMessage(simulateCell(cell, { ...job.config, seed }));
  }
}

if (isMainThread) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
} else {
  work(workerData as Job);
}
