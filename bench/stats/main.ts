/**
 * bench/stats: `eb report` and `eb compare` on 100,000 items × k=5 (500,000 rows, ~137 MB per
 * run), whole process, with peak memory. Targets: `eb report` ≤ 1 s and ≤ 150 MB peak RSS; `eb
 * compare` reads two runs, so twice that. `report --all` also lists every item that fell short,
 * of a run that gives each item its own stratum: lists as long as the run, which no call may
 * spread into its arguments (past ~120,000 that overflowed the stack).
 *
 * Printed per command: the medians of wall time, CPU time (user + system, steadier than wall time
 * on a shared machine) and peak RSS, and the load average before and after.
 * EB_BENCH_BASELINE_CLI=/path/to/other/eb.js also runs another build (an older dist copied aside)
 * on the same rows, interleaved with this one round by round so that a busy machine slows both
 * alike, and prints the ratios of the medians; each pair of outputs must be byte for byte the
 * same. EB_BENCH_CLI=/path/to/eb.js measures a build other than this worktree's dist/.
 *
 * Run: bench/run.sh stats [--items 100000] [--k 5] [--rounds 5]; `--items 200000` is the million
 * rows per run that crashed `eb report` with "Maximum call stack size exceeded".
 */
import { spawnSync } from "node:child_process";
import { closeSync, createWriteStream, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { comparePaired } from "../../src/stats/compare.js";
import { type ItemAgg, passRateInterval } from "../../src/stats/interval.js";
import { createRng } from "../../src/stats/rng.js";
import { median } from "../median.js";

const { values } = parseArgs({
  options: {
    items: { type: "string", default: "100000" },
    k: { type: "string", default: "5" },
    rounds: { type: "string", default: "5" },
  },
});
const items = Number(values.items);
const k = Number(values.k);
const rounds = Number(values.rounds);
const cli =
  process.env.EB_BENCH_CLI ?? path.resolve(import.meta.dirname, "../../../dist/bin/eb.js");
const baseline = process.env.EB_BENCH_BASELINE_CLI;
const other = baseline === undefined ? null : path.resolve(baseline);
const dir = mkdtempSync(path.join(os.tmpdir(), "eb-bench-stats-"));

/** What one run reads (report) and two runs read (compare) may take. */
const TARGET = { seconds: 1, peakMb: 150 };

/**
 * Rows shaped like `eb eval` writes them; the candidate loses a little on some items. A wide run
 * gives each item its own stratum.
 */
async function writeRows(file: string, seed: number, drop: number, wide = false): Promise<void> {
  const rng = createRng(seed);
  const out = createWriteStream(file);
  out.write(
    `${JSON.stringify({ manifest: { kind: "cases", definitions: { "cases.jsonl": "x" } } })}\n`,
  );
  for (let i = 0; i < items; i++) {
    const p = Math.max(0, (i % 10) / 10 + 0.05 - drop);
    for (let sample = 0; sample < k; sample++) {
      const score = rng.uniform() < p ? 1 : 0;
      const row = {
        id: `case-${i}`,
        sample,
        score,
        status: score ? "passed" : "failed",
        marks: { contains: score === 1 },
        stratum: wide ? `s${i}` : `s${i % 4}`,
        model: "m",
        ms: 100 + (i % 50),
        prompt_tokens: 120,
        completion_tokens: 40,
        text: "an answer of modest length, as a model would give",
        error: null,
        cached: false,
        cost: null,
        tags: [],
      };
      if (!out.write(`${JSON.stringify(row)}\n`))
        await new Promise<void>((r) => out.once("drain", () => r()));
    }
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
}

interface Figures {
  seconds: number;
  cpu: number;
  peakMb: number;
  code: number | null;
}

interface Measured extends Figures {
  /** What it printed on stdout. */
  output: Buffer;
}

/**
 * Wall time, CPU time and peak RSS of one whole `eb` process, via GNU time; its stdout kept in
 * a file.
 */
function measure(program: string, args: readonly string[]): Measured {
  const outFile = path.join(dir, "stdout");
  const out = openSync(outFile, "w");
  const started = performance.now();
  const time = ["-f", "%U %S %M"];
  const run = spawnSync("/usr/bin/time", [...time, process.execPath, program, ...args], {
    encoding: "utf8",
    // --all prints more than spawnSync buffers: stdout goes to a file.
    stdio: ["ignore", out, "pipe"],
  });
  const seconds = (performance.now() - started) / 1000;
  closeSync(out);
  const [user, system, peakKb] = run.stderr.trim().split("\n").at(-1)!.split(" ").map(Number);
  return {
    seconds,
    cpu: user! + system!,
    peakMb: peakKb! / 1024,
    code: run.status,
    output: readFileSync(outFile),
  };
}

function medians(runs: readonly Measured[]): Figures {
  return {
    seconds: median(runs.map((r) => r.seconds)),
    cpu: median(runs.map((r) => r.cpu)),
    peakMb: median(runs.map((r) => r.peakMb)),
    code: runs[0]!.code,
  };
}

/** This build and the other, alternating which goes first, `rounds` times each. */
function measureBoth(args: readonly string[]): { mine: Figures; theirs: Figures | null } {
  const mine: Measured[] = [];
  const theirs: Measured[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = other !== null && round % 2 === 1 ? [other, cli] : [cli, other];
    for (const program of order) {
      if (program === null) continue;
      const run = measure(program, args);
      (program === cli ? mine : theirs).push(run);
    }
    const [a, b] = [mine.at(-1)!, theirs.at(-1)];
    if (b && (!a.output.equals(b.output) || a.code !== b.code)) {
      throw new Error(`eb ${args.join(" ")}: this build's output differs from ${other}'s`);
    }
  }
  return { mine: medians(mine), theirs: theirs.length > 0 ? medians(theirs) : null };
}

const base = path.join(dir, "base.jsonl");
const cand = path.join(dir, "cand.jsonl");
const wide = path.join(dir, "wide.jsonl");
await writeRows(base, 1, 0);
await writeRows(cand, 2, 0.01);
await writeRows(wide, 3, 0, true);
console.log(`rows: ${items} items × k=${k} = ${items * k} per run; medians of ${rounds} rounds`);
if (other !== null) console.log(`against ${other}, interleaved; outputs compared byte for byte`);
const loadBefore = os.loadavg();
for (const [name, runs, args] of [
  ["report", 1, ["report", base]],
  ["report --json", 1, ["report", base, "--json"]],
  ["compare", 2, ["compare", base, cand]],
  ["compare --json", 2, ["compare", base, cand, "--json"]],
  ["report --interval bootstrap", 1, ["report", base, "--interval", "bootstrap"]],
  ["report --all (a stratum per item)", 1, ["report", wide, "--all"]],
] as const) {
  const { mine, theirs } = measureBoth(args);
  const target = `target ≤ ${TARGET.seconds * runs} s, ≤ ${TARGET.peakMb * runs} MB`;
  const figures = `${mine.seconds.toFixed(2)} s (CPU ${mine.cpu.toFixed(2)} s)  peak ${mine.peakMb.toFixed(0)} MB (${target})  exit ${mine.code}`;
  const ratio = (a: number, b: number) => `×${(a / b).toFixed(2)}`;
  const versus = theirs
    ? `  | other ${theirs.seconds.toFixed(2)} s (CPU ${theirs.cpu.toFixed(2)} s) ${theirs.peakMb.toFixed(0)} MB: wall ${ratio(mine.seconds, theirs.seconds)}, CPU ${ratio(mine.cpu, theirs.cpu)}, peak ${ratio(mine.peakMb, theirs.peakMb)}`
    : "";
  const over = mine.seconds > TARGET.seconds * runs || mine.peakMb > TARGET.peakMb * runs;
  console.log(`${name.padEnd(34)} ${figures}${versus}${over ? "  OVER" : ""}`);
}
const load = (avg: number[]) => avg.map((value) => value.toFixed(1)).join(" ");
console.log(`load average before ${load(loadBefore)}, after ${load(os.loadavg())}`);
rmSync(dir, { recursive: true, force: true });

/** Items as `eb report` aggregates them; the candidate loses a little on some items. */
function aggregates(seed: number, drop: number): Map<string, ItemAgg> {
  const rng = createRng(seed);
  const run = new Map<string, ItemAgg>();
  for (let i = 0; i < items; i++) {
    const p = Math.max(0, (i % 10) / 10 + 0.05 - drop);
    let sum = 0;
    for (let sample = 0; sample < k; sample++) if (rng.uniform() < p) sum++;
    run.set(`case-${i}`, { id: `case-${i}`, sum, n: k, stratum: `s${i % 4}` });
  }
  return run;
}

const baseItems = aggregates(1, 0);
const candItems = aggregates(2, 0.01);
const statsMs = [0, 1, 2].map(() => {
  const started = performance.now();
  passRateInterval([...candItems.values()], "clopper-pearson");
  passRateInterval([...candItems.values()], "bootstrap");
  comparePaired(baseItems, candItems, { method: "clopper-pearson" });
  comparePaired(baseItems, candItems, { method: "bootstrap" });
  return performance.now() - started;
});
console.log(
  `${"intervals + comparisons".padEnd(28)} ${Math.min(...statsMs).toFixed(0)} ms in process (best of 3; target < 2000 ms)`,
);
