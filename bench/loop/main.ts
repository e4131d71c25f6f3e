/**
 * bench/loop: what `eb eval` costs on top of the calls it makes, whole process against whole
 * process, and against promptfoo on the same cases.
 *
 * Run from the repository root: `bench/run.sh loop` (builds, compiles bench/, runs).
 * Options: --cases 200 --workers 8 --rounds 5 --promptfoo /tmp/pf
 *
 * A loopback server (a thread of this process) answers every chat completion at once with
 * {"city": "Paris"}. The cases carry three graders each: contains, regex and json. Contenders,
 * each a process of its own (none starts another):
 *   loop      bench/loop/loop.ts: node:http with keep-alive, `--workers` lanes, JSON parse and
 *             the three checks; nothing else (the limit);
 *   eb        `eb eval` of the cases, `--workers` in flight, a fresh cache each round (every
 *             call is made, and cached);
 *   promptfoo promptfoo 0.121 `eval` of the same cases and checks, `-j --workers`, its cache off,
 *             no telemetry, update check or sharing, a fresh config folder each round; when
 *             installed under --promptfoo (`npm i --prefix /tmp/pf promptfoo@0.121`; it is never
 *             a dependency of eval-banana);
 *   eb 1 case `eb eval` of one case (target (a));
 *   --version `eb --version` (target (a)).
 * One warm-up round, then --rounds rounds, the order turning every round so load that drifts
 * hits all alike. Printed: median wall time, median CPU time of the process tree (steadier than
 * wall time on a shared machine), the median of each round's own ratios, the load average.
 * Targets: eb ≤ 1.3 × loop; promptfoo ≥ 7 × eb; eb of 1 case ≤ 0.15 s; --version ≤ 0.1 s (wall).
 * EB_BENCH_CLI=/path/to/eb.js measures another build; EB_BENCH_BASELINE_CLI=/path/to/eb.js runs
 * a second build in the same rounds (its eb and 1-case figures), to measure a change side by side.
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker } from "node:worker_threads";
import { completionBody, flag } from "../args.js";
import { childrenCpuSeconds } from "../cpu.js";
import { median } from "../median.js";

const LOOP_TARGET = 1.3;
const PROMPTFOO_TARGET = 7;
const ONE_CASE_TARGET = 0.15;
const VERSION_TARGET = 0.1;

/** The repository root: run from there (the compiled script lives in .bench-build). */
const ROOT = process.cwd();
const CLI = process.env.EB_BENCH_CLI ?? path.join(ROOT, "dist/bin/eb.js");
const BASELINE_CLI = process.env.EB_BENCH_BASELINE_CLI;
const LOOP = path.join(path.dirname(fileURLToPath(import.meta.url)), "loop.js");

/** The answer to every case: it passes the cases' three graders. */
const ANSWER = completionBody(JSON.stringify({ city: "Paris" }));

interface Options {
  cases: number;
  workers: number;
  rounds: number;
  promptfoo: string;
}

function parseOptions(args: readonly string[]): Options {
  return {
    cases: Number(flag(args, "cases", "200")),
    workers: Number(flag(args, "workers", "8")),
    rounds: Number(flag(args, "rounds", "5")),
    promptfoo: flag(args, "promptfoo", "/tmp/pf"),
  };
}

// ----------------------------------------------------------------------------- the server --

/** Runs in a worker thread: answers every request at once, reports its port. */
function serve(): void {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(ANSWER);
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, "127.0.0.1", () => {
    parentPort?.postMessage({ port: (server.address() as AddressInfo).port });
  });
}

function startServer(): Promise<{ baseURL: string; stop: () => Promise<number> }> {
  const worker = new Worker(fileURLToPath(import.meta.url));
  return new Promise((resolve, reject) => {
    worker.once("error", reject);
    worker.once("message", (m: { port: number }) =>
      resolve({ baseURL: `http://127.0.0.1:${m.port}/v1`, stop: () => worker.terminate() }),
    );
  });
}

// ------------------------------------------------------------------------------ the cases --

function question(i: number): string {
  return `Case ${i}: in which city is the Louvre? Answer as JSON.`;
}

const GRADERS = [
  { type: "contains", all: ["Paris"] },
  { type: "regex", pattern: '"city":\\s*"Paris"' },
  { type: "json", fields: { city: "string" } },
];

function writeCases(dir: string, n: number, name: string): string {
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      id: `case-${i}`,
      messages: [
        { role: "system", content: "Answer with a JSON object." },
        { role: "user", content: question(i) },
      ],
      graders: GRADERS,
    }),
  );
  const file = path.join(dir, name);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

/** The same cases and checks as a promptfoo config (JSON is YAML). */
function writePromptfooConfig(dir: string, n: number, baseURL: string): string {
  const prompt = JSON.stringify([
    { role: "system", content: "Answer with a JSON object." },
    { role: "user", content: "{{question}}" },
  ]);
  const config = {
    description: "bench/loop",
    prompts: [prompt],
    providers: [{ id: "openai:chat:bench", config: { apiBaseUrl: baseURL, apiKey: "bench-key" } }],
    tests: Array.from({ length: n }, (_, i) => ({
      vars: { question: question(i) },
      assert: [
        { type: "contains", value: "Paris" },
        { type: "regex", value: '"city":\\s*"Paris"' },
        { type: "is-json" },
      ],
    })),
  };
  const file = path.join(dir, "promptfooconfig.yaml");
  writeFileSync(file, JSON.stringify(config));
  return file;
}

// ---------------------------------------------------------------------------- contenders --

interface Contender {
  name: string;
  /** Runs once; throws when the contender failed. */
  run: (round: number) => void;
  wall: number[];
  cpu: number[];
}

function contender(name: string, run: (round: number) => void): Contender {
  return { name, run, wall: [], cpu: [] };
}

/** One process; throws unless it exits 0. */
function spawnChecked(
  name: string,
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): string {
  const result = spawnSync(command, args, {
    ...options,
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(`${name} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout.toString();
}

function measure(c: Contender, round: number): void {
  const cpuBefore = childrenCpuSeconds();
  const started = performance.now();
  c.run(round);
  c.wall.push((performance.now() - started) / 1000);
  c.cpu.push(childrenCpuSeconds() - cpuBefore);
}

interface Setup {
  dir: string;
  baseURL: string;
  options: Options;
  cases: string;
  oneCase: string;
}

function ebEval(s: Setup, cli: string, cases: string, round: number): void {
  const cache = path.join(s.dir, `cache-${path.basename(cli, ".js")}-${round}`);
  const args = [cli, "eval", cases, "-m", "bench", "--api-base", s.baseURL];
  args.push("--workers", String(s.options.workers), "--max-retries", "0", "--no-project-config");
  args.push("--output-dir", path.join(s.dir, "results"), "--cache-dir", cache);
  const env = { ...process.env, EVAL_BANANA_API_KEY: "bench-key", CI: "1" };
  spawnChecked("eb eval", process.execPath, args, { cwd: s.dir, env });
  rmSync(cache, { recursive: true, force: true });
}

function ebContenders(s: Setup, cli: string, label: string): Contender[] {
  return [
    contender(`eb${label}`, (round) => ebEval(s, cli, s.cases, round)),
    contender(`eb${label} 1 case`, (round) => ebEval(s, cli, s.oneCase, round)),
  ];
}

function promptfooMain(options: Options): string | null {
  const main = path.join(options.promptfoo, "node_modules/promptfoo/dist/src/main.js");
  return existsSync(main) ? main : null;
}

function promptfooContender(s: Setup, main: string): Contender {
  const config = writePromptfooConfig(s.dir, s.options.cases, s.baseURL);
  return contender("promptfoo", () => {
    const home = mkdtempSync(path.join(s.dir, "pf-home-"));
    const env = {
      ...process.env,
      PROMPTFOO_CONFIG_DIR: home,
      PROMPTFOO_DISABLE_TELEMETRY: "1",
      PROMPTFOO_DISABLE_UPDATE: "1",
      PROMPTFOO_DISABLE_SHARING: "1",
      PROMPTFOO_CACHE_ENABLED: "false",
      OPENAI_API_KEY: "bench-key",
      CI: "1",
    };
    const args = [main, "eval", "-c", config, "-j", String(s.options.workers), "--no-cache"];
    const out = path.join(home, "out.json");
    spawnChecked("promptfoo", process.execPath, [...args, "--no-table", "-o", out], {
      cwd: s.dir,
      env,
    });
    const passes = JSON.parse(readFileSync(out, "utf8")).results?.stats?.successes;
    if (passes !== s.options.cases) throw new Error(`promptfoo passed ${passes} cases`);
    rmSync(home, { recursive: true, force: true });
  });
}

// ------------------------------------------------------------------------------ figures --

function secs(v: number): string {
  return `${v.toFixed(3)} s`;
}

function line(c: Contender): string {
  const all = c.wall.map((v) => v.toFixed(3)).join(" ");
  return (
    `${c.name.padEnd(18)} wall ${secs(median(c.wall))}  cpu ${secs(median(c.cpu))}  ` +
    `[wall ${all}]`
  );
}

/** The median over rounds of a / b (each round's own ratio), and the ratio of the medians. */
function ratio(a: Contender, b: Contender): { rounds: number; medians: number } {
  return {
    rounds: median(a.wall.map((v, i) => v / (b.wall[i] ?? Number.NaN))),
    medians: median(a.wall) / median(b.wall),
  };
}

function verdict(met: boolean): string {
  return met ? "met" : "MISSED";
}

function printFigures(options: Options, all: Contender[], loads: string[]): void {
  const byName = (name: string) => all.find((c) => c.name === name);
  const version = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).version;
  console.log(
    `bench/loop: eval-banana ${version}, node ${process.version}, ${os.cpus().length} CPUs; ` +
      `${options.cases} cases × 3 graders, ${options.workers} in flight, median of ` +
      `${options.rounds} rounds; load average ${loads.join(" -> ")}`,
  );
  for (const c of all) console.log(line(c));
  const eb = byName("eb");
  const loop = byName("loop");
  const pf = byName("promptfoo");
  if (eb && loop) {
    const r = ratio(eb, loop);
    console.log(
      `eb / loop        ${r.rounds.toFixed(2)} (rounds' median; medians' ratio ` +
        `${r.medians.toFixed(2)}), cpu ${(median(eb.cpu) / median(loop.cpu)).toFixed(2)}  ` +
        `(target ≤ ${LOOP_TARGET}: ${verdict(r.rounds <= LOOP_TARGET)})`,
    );
  }
  if (eb && pf) {
    const r = ratio(pf, eb);
    console.log(
      `promptfoo / eb   ${r.rounds.toFixed(2)} (rounds' median; medians' ratio ` +
        `${r.medians.toFixed(2)}), cpu ${(median(pf.cpu) / median(eb.cpu)).toFixed(2)}  ` +
        `(target ≥ ${PROMPTFOO_TARGET}: ${verdict(r.rounds >= PROMPTFOO_TARGET)})`,
    );
  }
  for (const [name, target] of [
    ["eb 1 case", ONE_CASE_TARGET],
    ["eb --version", VERSION_TARGET],
  ] as const) {
    const c = byName(name);
    if (c) {
      const met = median(c.wall) <= target;
      console.log(
        `${name.padEnd(16)} ${secs(median(c.wall))} (target ≤ ${target} s: ${verdict(met)})`,
      );
    }
  }
  const baseline = byName("eb (baseline)");
  if (eb && baseline) {
    for (const [mine, theirs] of [
      [eb, baseline],
      [byName("eb 1 case"), byName("eb (baseline) 1 case")],
    ] as const) {
      if (!mine || !theirs) continue;
      const r = ratio(mine, theirs);
      const cpu = median(mine.cpu) / median(theirs.cpu);
      console.log(
        `${mine.name} / baseline: wall ${r.rounds.toFixed(2)} (rounds' median), cpu ${cpu.toFixed(2)}`,
      );
    }
  }
}

function load(): string {
  return os
    .loadavg()
    .map((v) => v.toFixed(1))
    .join(" ");
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const dir = mkdtempSync(path.join(os.tmpdir(), "eb-bench-loop-"));
  const server = await startServer();
  const setup: Setup = {
    dir,
    baseURL: server.baseURL,
    options,
    cases: writeCases(dir, options.cases, "cases.jsonl"),
    oneCase: writeCases(dir, 1, "one.jsonl"),
  };
  const loop = contender("loop", () => {
    const args = [LOOP, setup.baseURL, setup.cases, String(options.workers)];
    const passed = Number(spawnChecked("loop", process.execPath, args));
    if (passed !== options.cases) throw new Error(`the loop passed ${passed} cases`);
  });
  const version = contender("eb --version", () => {
    spawnChecked("eb --version", process.execPath, [CLI, "--version"]);
  });
  const pf = promptfooMain(options);
  const all = [
    loop,
    ...ebContenders(setup, CLI, ""),
    ...(BASELINE_CLI ? ebContenders(setup, BASELINE_CLI, " (baseline)") : []),
    ...(pf ? [promptfooContender(setup, pf)] : []),
    version,
  ];
  if (!pf) {
    console.log(
      `promptfoo is not installed under ${options.promptfoo}: ` +
        `npm i --prefix ${options.promptfoo} promptfoo@0.121 (or --promptfoo DIR)`,
    );
  }
  const loads = [load()];
  try {
    for (const c of all) c.run(-1);
    for (let round = 0; round < options.rounds; round++) {
      const turn = round % all.length;
      for (const c of [...all.slice(turn), ...all.slice(0, turn)]) measure(c, round);
    }
    loads.push(load());
    printFigures(options, all, loads);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMainThread) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
} else {
  serve();
}
