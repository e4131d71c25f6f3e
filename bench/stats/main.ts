/**
 * bench/stats: `eb report` and `eb compare` on 100,000 items × k=5 (500,000 rows per run), whole
 * process, with peak memory. Targets: ≤ 3 s each, peak RSS ≤ 300 MB. `report --all` also lists
 * every item that fell short, of a run that gives each item its own stratum: lists as long as the
 * run, which no call may spread into its arguments (past ~120,000 that overflowed the stack).
 *
 * Run: bench/run.sh stats [--items 100000] [--k 5]; `--items 200000` is the million rows per run
 * that crashed `eb report` with "Maximum call stack size exceeded".
 */
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { comparePaired } from "../../src/stats/compare.js";
import { type ItemAgg, passRateInterval } from "../../src/stats/interval.js";
import { createRng } from "../../src/stats/rng.js";

const { values } = parseArgs({
  options: { items: { type: "string", default: "100000" }, k: { type: "string", default: "5" } },
});
const items = Number(values.items);
const k = Number(values.k);
const cli = path.resolve(import.meta.dirname, "../../../dist/bin/eb.js");
const dir = mkdtempSync(path.join(os.tmpdir(), "eb-bench-stats-"));

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

/** Wall time and peak RSS of one whole `eb` process, via GNU time. */
function measure(args: string[]): { seconds: number; peakMb: number; code: number | null } {
  const started = performance.now();
  const run = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, cli, ...args], {
    encoding: "utf8",
    // Its output is not measured, and --all prints more than spawnSync buffers.
    stdio: ["ignore", "ignore", "pipe"],
  });
  const seconds = (performance.now() - started) / 1000;
  const peakKb = Number(run.stderr.trim().split("\n").at(-1));
  return { seconds, peakMb: peakKb / 1024, code: run.status };
}

const base = path.join(dir, "base.jsonl");
const cand = path.join(dir, "cand.jsonl");
const wide = path.join(dir, "wide.jsonl");
await writeRows(base, 1, 0);
await writeRows(cand, 2, 0.01);
await writeRows(wide, 3, 0, true);
console.log(`rows: ${items} items × k=${k} = ${items * k} per run`);
for (const [name, args] of [
  ["report", ["report", base]],
  ["compare", ["compare", base, cand]],
  ["report --interval bootstrap", ["report", base, "--interval", "bootstrap"]],
  ["report --all (a stratum per item)", ["report", wide, "--all"]],
] as const) {
  const times = [0, 1, 2].map(() => measure([...args]));
  const best = times.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  console.log(
    `${name.padEnd(34)} ${best.seconds.toFixed(2)} s (best of 3; target ≤ 3 s)  peak ${best.peakMb.toFixed(0)} MB (target ≤ 300)  exit ${best.code}`,
  );
}
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
