/**
 * bench/checks: `eb run` on N deterministic checks against the limit, a bare parallel spawn of
 * the same scripts with the same interpreter and the same parallelism. Whole process, median of
 * several runs. Target: eb ≤ 1.25 × the limit.
 *
 * Run: bench/run.sh checks [--checks 200] [--runs 5] [--parallel 4]
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    checks: { type: "string", default: "200" },
    runs: { type: "string", default: "5" },
    parallel: { type: "string", default: "4" },
  },
});
const checks = Number(values.checks);
const runs = Number(values.runs);
const parallel = Number(values.parallel);
const cli = path.resolve(import.meta.dirname, "../../../dist/cli/main.js");

/** Half inline scripts, half script_path files, each reading its context.json like real checks. */
function makeProject(): { root: string; jobs: string[][] } {
  const root = mkdtempSync(path.join(os.tmpdir(), "eb-bench-checks-"));
  const dir = path.join(root, "eval_checks");
  mkdirSync(path.join(dir, "scripts"), { recursive: true });
  mkdirSync(path.join(root, ".eval-banana"));
  writeFileSync(path.join(root, ".eval-banana/config.toml"), "");
  const script = (i: number) =>
    `import json, sys\nctx = json.load(open(sys.argv[1]))\nassert ctx["check_id"] == "c${i}"\n`;
  const jobs: string[][] = [];
  for (let i = 0; i < checks; i++) {
    const head = `schema_version: 1\nid: c${i}\ntype: deterministic\ndescription: bench ${i}\n`;
    const file = path.join(dir, "scripts", `c${i}.py`);
    writeFileSync(file, script(i));
    const body =
      i % 2 === 0
        ? `script: |\n${script(i).replace(/^/gm, "  ")}`
        : `script_path: scripts/c${i}.py\n`;
    writeFileSync(path.join(dir, `c${i}.yaml`), head + body);
    const context = path.join(root, "contexts", `c${i}.json`);
    mkdirSync(path.dirname(context), { recursive: true });
    writeFileSync(context, JSON.stringify({ check_id: `c${i}` }));
    jobs.push([file, context]);
  }
  return { root, jobs };
}

function timeIt(run: () => void): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const { root, jobs } = makeProject();
const python = execFileSync("python3", ["-c", "import sys; print(sys.executable)"])
  .toString()
  .trim();
const jobList = path.join(root, "jobs.txt");
writeFileSync(jobList, jobs.map((job) => job.join(" ")).join("\n"));

const ebTimes: number[] = [];
const limitTimes: number[] = [];
for (let run = 0; run < runs; run++) {
  limitTimes.push(
    timeIt(() => {
      const bare = spawnSync("xargs", ["-P", String(parallel), "-L", "1", python], {
        stdio: ["pipe", "ignore", "inherit"],
        input: `${jobs.map((job) => job.join(" ")).join("\n")}\n`,
      });
      if (bare.status !== 0) throw new Error(`bare spawn failed: ${bare.status}`);
    }),
  );
  ebTimes.push(
    timeIt(() => {
      const eb = spawnSync(
        process.execPath,
        [cli, "run", "--cwd", root, "--max-parallel-checks", String(parallel)],
        { stdio: ["ignore", "ignore", "inherit"] },
      );
      if (eb.status !== 0) throw new Error(`eb run failed: ${eb.status}`);
    }),
  );
}
rmSync(root, { recursive: true, force: true });

const eb = median(ebTimes);
const limit = median(limitTimes);
const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
console.log(`checks: ${checks}, parallel: ${parallel}, runs: ${runs}, python: ${python}`);
console.log(
  `limit (bare xargs -P${parallel} spawn): median ${fmt(limit)}  [${limitTimes.map(fmt).join(", ")}]`,
);
console.log(`eb run (whole process):        median ${fmt(eb)}  [${ebTimes.map(fmt).join(", ")}]`);
console.log(`ratio eb/limit: ${(eb / limit).toFixed(3)} (target ≤ 1.25)`);
