/**
 * bench/checks: `eb run` of N deterministic checks (small Python scripts, exit 0 = pass) against
 * a bare parallel spawn of the same scripts: the same interpreter, the same parallelism, each a
 * whole process timed from outside. The limit is a bare Node program spawning `python3 script.py
 * context.json` in `--parallel` lanes (what any Node tool pays: Node's spawn blocks while the
 * child forks); `xargs -P` (a C program) is printed beside it as the floor.
 * Target: eb ≤ 1.2 × the Node limit (median wall time).
 *
 * Every child of every contender starts a session of its own, as eb's do (eb kills a check's
 * whole process group): on Linux with autogroup scheduling each session is its own share of the
 * CPU, so on a loaded machine a program whose children share one session would lose to eb for a
 * reason that has nothing to do with its own cost.
 *
 * The contenders run in rounds after one warm-up round, their order turning every round, so
 * load that drifts hits all of them alike. Printed: median wall time, median CPU time of the
 * whole process tree (steadier than wall time on a shared machine), the median of each round's
 * own eb / limit ratio, and the load average before and after.
 * EB_BENCH_BASELINE_CLI=/path/to/other/eb.js also runs another build in the same rounds (several,
 * separated by `:`), so a change is measured side by side with what it replaces;
 * EB_BENCH_CLI=/path/to/eb.js measures a
 * build other than this worktree's dist/ (a copy set aside keeps a rebuild from pulling it away).
 *
 * Run: bench/run.sh checks [--checks 200] [--runs 5] [--parallel 4]
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { childrenCpuSeconds } from "../cpu.js";
import { median } from "../median.js";

const TARGET = 1.2;

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
const cli =
  process.env.EB_BENCH_CLI ?? path.resolve(import.meta.dirname, "../../../dist/bin/eb.js");
const baselineClis = (process.env.EB_BENCH_BASELINE_CLI ?? "")
  .split(path.delimiter)
  .filter(Boolean);

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

interface Contender {
  name: string;
  command: string;
  args: string[];
  input?: string;
  wall: number[];
  cpu: number[];
}

/** Runs one contender once, whole process, and records its wall and CPU time. */
function measure(contender: Contender): { wall: number; cpu: number } {
  const cpuBefore = childrenCpuSeconds();
  const started = performance.now();
  const result = spawnSync(contender.command, contender.args, {
    stdio: [contender.input === undefined ? "ignore" : "pipe", "ignore", "inherit"],
    input: contender.input,
  });
  const wall = (performance.now() - started) / 1000;
  if (result.status !== 0) throw new Error(`${contender.name} failed: ${result.status}`);
  return { wall, cpu: childrenCpuSeconds() - cpuBefore };
}

const { root, jobs } = makeProject();
const python = execFileSync("python3", ["-c", "import sys; print(sys.executable)"])
  .toString()
  .trim();
const jobList = path.join(root, "jobs.txt");
writeFileSync(jobList, jobs.map((job) => job.join(" ")).join("\n"));

/** The limit: spawn each script, `parallel` at a time, each in its own session, wait. */
const BARE_NODE = `
const { spawn } = require("node:child_process");
const [python, list, parallel] = process.argv.slice(1);
const jobs = require("node:fs").readFileSync(list, "utf8").trim().split("\\n").map((l) => l.split(" "));
let next = 0;
const lane = async () => {
  while (next < jobs.length) {
    const job = jobs[next++];
    await new Promise((done) =>
      spawn(python, job, { stdio: "ignore", detached: true }).on("close", done),
    );
  }
};
Promise.all(Array.from({ length: Number(parallel) }, lane));
`;

const ebRun = (name: string, build: string): Contender => ({
  name,
  command: process.execPath,
  args: [build, "run", "--cwd", root, "--max-parallel-checks", String(parallel)],
  wall: [],
  cpu: [],
});

const node: Contender = {
  name: "limit, bare Node spawn",
  command: process.execPath,
  args: ["-e", BARE_NODE, python, jobList, String(parallel)],
  wall: [],
  cpu: [],
};
const xargs: Contender = {
  name: `floor, xargs -P${parallel}`,
  // setsid(1) under xargs is no group leader: it starts the session and execs, no extra fork.
  command: "xargs",
  args: ["-P", String(parallel), "-L", "1", "setsid", python],
  input: `${jobs.map((job) => job.join(" ")).join("\n")}\n`,
  wall: [],
  cpu: [],
};
const eb = ebRun("eb run (whole process)", cli);
const baselines = baselineClis.map((build) => ebRun(`baseline ${build}`, build));
const contenders = [node, xargs, eb, ...baselines];

const loadBefore = os.loadavg();
for (const contender of contenders) measure(contender);
for (let run = 0; run < runs; run++) {
  for (let turn = 0; turn < contenders.length; turn++) {
    const contender = contenders[(run + turn) % contenders.length]!;
    const { wall, cpu } = measure(contender);
    contender.wall.push(wall);
    contender.cpu.push(cpu);
  }
}
const loadAfter = os.loadavg();
rmSync(root, { recursive: true, force: true });

const secs = (s: number) => `${s.toFixed(2)} s`;
const all = (times: number[]) => `[${times.map(secs).join(", ")}]`;
const loads = (load: number[]) => load.map((l) => l.toFixed(1)).join(" ");
console.log(`checks: ${checks}, parallel: ${parallel}, runs: ${runs}, python: ${python}`);
console.log(`cores: ${os.availableParallelism()}, load average before: ${loads(loadBefore)}`);
for (const c of contenders) {
  console.log(`${c.name}:`);
  console.log(`  wall median ${secs(median(c.wall))}  ${all(c.wall)}`);
  console.log(`  cpu  median ${secs(median(c.cpu))}  ${all(c.cpu)}`);
}
/** Each round's ratio, then their median: both sides of a ratio saw the same load. */
const paired = (a: Contender, b: Contender) => median(a.wall.map((wall, i) => wall / b.wall[i]!));
const ratio = median(eb.wall) / median(node.wall);
const verdict = ratio <= TARGET ? "met" : "NOT met";
console.log(`load average after: ${loads(loadAfter)}`);
console.log(`ratio eb / Node limit, wall: ${ratio.toFixed(3)} (target ≤ ${TARGET}: ${verdict})`);
console.log(`  median of the rounds' own ratios: ${paired(eb, node).toFixed(3)}`);
console.log(`ratio eb / Node limit, cpu: ${(median(eb.cpu) / median(node.cpu)).toFixed(3)}`);
console.log(`ratio eb / xargs floor, wall: ${(median(eb.wall) / median(xargs.wall)).toFixed(3)}`);
for (const baseline of baselines) {
  console.log(
    `ratio eb / ${baseline.name}: wall ${(median(eb.wall) / median(baseline.wall)).toFixed(3)}, ` +
      `rounds' own ${paired(eb, baseline).toFixed(3)}, ` +
      `cpu ${(median(eb.cpu) / median(baseline.cpu)).toFixed(3)}`,
  );
}
