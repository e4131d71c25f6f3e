/**
 * bench/checks: `eb run` on N deterministic checks against the limit, a bare parallel spawn of
 * the same scripts with the same interpreter and the same parallelism, whole process, median of
 * several runs. Two limits are measured: a bare Node program spawning them (what any Node tool
 * pays: Node's spawn blocks ~4 ms per child here) and `xargs -P` (a C program, the floor).
 * Target: eb ≤ 1.25 × the Node limit; the xargs ratio is printed beside it.
 * EB_BENCH_BASELINE_CLI=/path/to/other/eb.js also runs another build in the same rounds, so a
 * change is measured side by side with what it replaces.
 *
 * Run: bench/run.sh checks [--checks 200] [--runs 5] [--parallel 4]
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { median } from "../median.js";

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
const cli = path.resolve(import.meta.dirname, "../../../dist/bin/eb.js");
const baselineCli = process.env.EB_BENCH_BASELINE_CLI;

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

const { root, jobs } = makeProject();
const python = execFileSync("python3", ["-c", "import sys; print(sys.executable)"])
  .toString()
  .trim();
const jobList = path.join(root, "jobs.txt");
writeFileSync(jobList, jobs.map((job) => job.join(" ")).join("\n"));

/** The bare Node limit: spawn each script, `parallel` at a time, wait, nothing else. */
const BARE_NODE = `
const { spawn } = require("node:child_process");
const [python, list, parallel] = process.argv.slice(1);
const jobs = require("node:fs").readFileSync(list, "utf8").trim().split("\\n").map((l) => l.split(" "));
let next = 0;
const lane = async () => {
  while (next < jobs.length) {
    const job = jobs[next++];
    await new Promise((done) => spawn(python, job, { stdio: "ignore" }).on("close", done));
  }
};
Promise.all(Array.from({ length: Number(parallel) }, lane));
`;

/** `eb run` of a build on the bench project, whole process. */
function ebRun(build: string): number {
  return timeIt(() => {
    const eb = spawnSync(
      process.execPath,
      [build, "run", "--cwd", root, "--max-parallel-checks", String(parallel)],
      { stdio: ["ignore", "ignore", "inherit"] },
    );
    if (eb.status !== 0) throw new Error(`eb run (${build}) failed: ${eb.status}`);
  });
}

const ebTimes: number[] = [];
const baselineTimes: number[] = [];
const limitTimes: number[] = [];
const nodeTimes: number[] = [];
for (let run = 0; run < runs; run++) {
  nodeTimes.push(
    timeIt(() => {
      const bare = spawnSync(
        process.execPath,
        ["-e", BARE_NODE, python, jobList, String(parallel)],
        {
          stdio: ["ignore", "ignore", "inherit"],
        },
      );
      if (bare.status !== 0) throw new Error(`bare node spawn failed: ${bare.status}`);
    }),
  );
  limitTimes.push(
    timeIt(() => {
      const bare = spawnSync("xargs", ["-P", String(parallel), "-L", "1", python], {
        stdio: ["pipe", "ignore", "inherit"],
        input: `${jobs.map((job) => job.join(" ")).join("\n")}\n`,
      });
      if (bare.status !== 0) throw new Error(`bare spawn failed: ${bare.status}`);
    }),
  );
  ebTimes.push(ebRun(cli));
  if (baselineCli) baselineTimes.push(ebRun(baselineCli));
}
rmSync(root, { recursive: true, force: true });

const eb = median(ebTimes);
const limit = median(limitTimes);
const nodeLimit = median(nodeTimes);
const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const all = (times: number[]) => `[${times.map(fmt).join(", ")}]`;
console.log(`checks: ${checks}, parallel: ${parallel}, runs: ${runs}, python: ${python}`);
console.log(`limit, bare Node spawn:   median ${fmt(nodeLimit)}  ${all(nodeTimes)}`);
console.log(`floor, bare xargs -P${parallel}:   median ${fmt(limit)}  ${all(limitTimes)}`);
console.log(`eb run (whole process):   median ${fmt(eb)}  ${all(ebTimes)}`);
console.log(`ratio eb / Node limit: ${(eb / nodeLimit).toFixed(3)} (target ≤ 1.25)`);
console.log(`ratio eb / xargs floor: ${(eb / limit).toFixed(3)}`);
if (baselineCli) {
  const baseline = median(baselineTimes);
  console.log(`baseline build ${baselineCli}: median ${fmt(baseline)}  ${all(baselineTimes)}`);
  console.log(`ratio eb / baseline build: ${(eb / baseline).toFixed(3)}`);
}
