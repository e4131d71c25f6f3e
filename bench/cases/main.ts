/**
 * bench/cases: how close does `eb eval` get to the endpoint's limit, and how fast is a cached run?
 *
 * Run from the repository root: `bench/run.sh cases` (builds, compiles bench/, runs).
 * Options: --cases 2000 --k 3 --workers 8 --rounds 3
 *
 * A loopback server (its own thread) answers every chat completion at once. The limit is a bare
 * HTTP loop with eb's concurrency: `workers` lanes of fetch() POSTing the same cases × k
 * requests, measured two ways: warmed up in this process (two full passes first), and cold as a
 * process of its own (a node:http loop is printed for reference). Then the built CLI runs the
 * same work as a whole process (`node dist/bin/eb.js eval`: start, load, call, grade, cache, rows,
 * reports): once with --no-cache (to separate transport from cache I/O), fresh from an empty
 * cache, then fully cached; and runCases() runs it warm in this process. Every measurement is
 * taken --rounds times (interleaved); the medians are compared like for like (warm with warm,
 * cold with cold) and in the strictest mix (eb cold against the warm loop).
 * Targets: eb ≥ 70% of the limit's calls/s; the cached re-run ≤ 0.4 s of wall time.
 * EB_BENCH_CLI=/path/to/eb.js measures another build of the CLI against the same limit;
 * EB_BENCH_BASELINE_CLI=/path/to/eb.js also times another build's cached re-run in each round.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker } from "node:worker_threads";
import { runCases } from "../../src/index.js";
import { ANSWER, flag } from "../args.js";
import { median } from "../median.js";

/** Wall seconds of the all-cached re-run. */
const CACHED_TARGET = 0.4;

interface Options {
  cases: number;
  k: number;
  workers: number;
  /** Each measurement is taken this many times; the figures are medians. */
  rounds: number;
}

/** The repository root: run from there (the compiled script lives in /tmp). */
const ROOT = process.cwd();
/** EB_BENCH_CLI points at another build of the CLI, e.g. to measure a change side by side. */
const CLI = process.env.EB_BENCH_CLI ?? path.join(ROOT, "dist/bin/eb.js");
/** EB_BENCH_BASELINE_CLI: another build whose cached re-run is timed in the same rounds. */
const BASELINE_CLI = process.env.EB_BENCH_BASELINE_CLI;

function parseOptions(args: readonly string[]): Options {
  return {
    cases: Number(flag(args, "cases", "2000")),
    k: Number(flag(args, "k", "3")),
    workers: Number(flag(args, "workers", "8")),
    rounds: Number(flag(args, "rounds", "3")),
  };
}

// ----------------------------------------------------------------------------- the server --

/** Runs in a worker thread: answers every request at once, reports its port and request count. */
function serve(): void {
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      requests++;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(ANSWER);
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, "127.0.0.1", () => {
    parentPort!.postMessage({ port: (server.address() as AddressInfo).port });
  });
  parentPort!.on("message", () => parentPort!.postMessage({ requests }));
}

interface Server {
  baseURL: string;
  requests(): Promise<number>;
  stop(): Promise<number>;
}

function startServer(): Promise<Server> {
  const worker = new Worker(fileURLToPath(import.meta.url));
  const ask = () =>
    new Promise<number>((resolve) => {
      worker.once("message", (m: { requests: number }) => resolve(m.requests));
      worker.postMessage("count");
    });
  return new Promise((resolve, reject) => {
    worker.once("error", reject);
    worker.once("message", (m: { port: number }) =>
      resolve({
        baseURL: `http://127.0.0.1:${m.port}/v1`,
        requests: ask,
        stop: () => worker.terminate(),
      }),
    );
  });
}

// ------------------------------------------------------------------------------- the work --

function question(i: number): string {
  return `Case ${i}: what is the capital of France?`;
}

function casesFile(dir: string, n: number): string {
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      id: `case-${i}`,
      stratum: i % 2 === 0 ? "even" : "odd",
      messages: [
        { role: "system", content: "Answer with one word." },
        { role: "user", content: question(i) },
      ],
      graders: [
        { type: "contains", all: ["paris"] },
        { type: "regex", pattern: "^paris$" },
      ],
    }),
  );
  const file = path.join(dir, "cases.jsonl");
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

type Post = (url: string, body: string) => Promise<unknown>;

const HEADERS = { "content-type": "application/json", authorization: "Bearer bench-key" };

/** fetch(): the transport eb's OpenAI client uses, so the limit this bench's target is set on. */
const fetchPost: Post = async (url, body) =>
  (await fetch(url, { method: "POST", headers: HEADERS, body })).json();

const agent = new Agent({ keepAlive: true });

/** node:http with a keep-alive agent: the cheapest client Node has, for reference. */
const httpPost: Post = (url, body) =>
  new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: HEADERS, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8"))));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });

/** A bare loop: `workers` lanes POSTing every case × sample; wall seconds. */
async function bareLoop(
  post: Post,
  baseURL: string,
  options: Options,
  count: number,
): Promise<number> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      const body = JSON.stringify({
        model: "bench",
        messages: [
          { role: "system", content: "Answer with one word." },
          { role: "user", content: question(Math.floor(i / options.k)) },
        ],
        temperature: 0,
      });
      await post(`${baseURL}/chat/completions`, body);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: options.workers }, lane));
  return (performance.now() - started) / 1000;
}

/**
 * The bare fetch loop as a process of its own, from spawn to exit: it pays Node's start and a
 * cold JIT as `eb eval` does, so eb's whole-process figure can be read against it like for like.
 */
function coldLoop(baseURL: string, options: Options): Promise<number> {
  const args = [fileURLToPath(import.meta.url), "--bare-loop", baseURL];
  for (const name of ["cases", "k", "workers"] as const)
    args.push(`--${name}`, String(options[name]));
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: "inherit" });
  return new Promise((resolve, reject) => {
    child.on("exit", (code) => {
      if (code === 0) resolve((performance.now() - started) / 1000);
      else reject(new Error(`the cold loop exited ${code}`));
    });
  });
}

/**
 * runCases() in this process, after a first run that warmed it up: eb's own work per call, on
 * the same footing as the warm fetch loop. Each run starts from an empty cache.
 */
async function warmRun(dir: string, baseURL: string, options: Options): Promise<number> {
  rmSync(path.join(dir, "warm-cache"), { recursive: true, force: true });
  const started = performance.now();
  await runCases({
    cases: path.join(dir, "cases.jsonl"),
    model: "bench",
    k: options.k,
    cwd: dir,
    apiKey: "bench-key",
    noProjectConfig: true,
    flags: {
      "eval.api_base": baseURL,
      "eval.workers": options.workers,
      "eval.max_retries": 0,
      "eval.cache_dir": path.join(dir, "warm-cache"),
      "core.output_dir": path.join(dir, "warm-results"),
    },
  });
  return (performance.now() - started) / 1000;
}

/** One whole `eb eval` process; wall seconds from spawn to exit. */
function runEb(
  dir: string,
  baseURL: string,
  options: Options,
  extra: readonly string[] = [],
  cli = CLI,
): Promise<number> {
  const args = [
    cli,
    "eval",
    "cases.jsonl",
    "-m",
    "bench",
    "-k",
    String(options.k),
    "--workers",
    String(options.workers),
    "--api-base",
    baseURL,
    "--no-project-config",
    "--output-dir",
    "results",
    "--max-retries",
    "0",
    ...extra,
  ];
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: dir,
    env: { ...process.env, EVAL_BANANA_API_KEY: "bench-key", CI: "1" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.on("exit", (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (code === 0) resolve(seconds);
      else reject(new Error(`eb eval exited ${code}:\n${stdout}`));
    });
  });
}

function rate(calls: number, seconds: number): string {
  return `${(calls / seconds).toFixed(0).padStart(6)} calls/s (${seconds.toFixed(2)} s)`;
}

/** The median, then every round, so the spread is in sight. */
function rounds(calls: number, values: readonly number[]): string {
  return `${rate(calls, median(values))}  [${values.map((v) => `${v.toFixed(2)} s`).join(", ")}]`;
}

/** Wall seconds of each measurement, one entry per round. */
interface Figures {
  limit: number[];
  coldLimit: number[];
  httpLimit: number[];
  uncached: number[];
  fresh: number[];
  /** runCases() warm, in this process. */
  warm: number[];
  cached: number[];
  /** The baseline build's cached re-run (EB_BENCH_BASELINE_CLI), right after this build's. */
  baselineCached: number[];
  /** Requests the fresh runs made, and the cached runs. */
  made: number[];
  cachedCalls: number[];
}

function printFigures(options: Options, f: Figures): void {
  const calls = options.cases * options.k;
  const version = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).version;
  const verdict = (met: boolean) => (met ? "met" : "MISSED");
  const cachedMet = median(f.cached) <= CACHED_TARGET && f.cachedCalls.every((n) => n === 0);
  console.log(
    `bench/cases: eval-banana ${version}, node ${process.version}, ${os.cpus().length} CPUs`,
  );
  console.log(
    `${options.cases} cases × k=${options.k} = ${calls} calls, ${options.workers} workers, ` +
      `median of ${f.limit.length} rounds`,
  );
  console.log(`limit, warm (fetch loop)  ${rounds(calls, f.limit)}  (in this process, warmed up)`);
  console.log(`limit, cold (fetch loop)  ${rounds(calls, f.coldLimit)}  (a process of its own)`);
  console.log(`bare node:http loop       ${rounds(calls, f.httpLimit)}  (reference)`);
  console.log(`eb eval --no-cache        ${rounds(calls, f.uncached)}  (diagnostic: no cache I/O)`);
  console.log(
    `eb eval (whole process)   ${rounds(calls, f.fresh)}  [requests: ${f.made.join(", ")}]`,
  );
  console.log(`eb runCases(), warm       ${rounds(calls, f.warm)}  (in this process, warmed up)`);
  // The limit read three ways: like for like (warm and warm, cold process and cold process), and
  // the strictest mix, a fresh eb process against the loop at its fastest.
  for (const [name, eb, limit, how] of [
    ["warm / warm", f.warm, f.limit, "runCases() and the loop, both warmed up in this process"],
    ["cold / cold", f.fresh, f.coldLimit, "eb eval and the loop, both whole processes from cold"],
    ["cold / warm", f.fresh, f.limit, "eb eval from cold against the loop warmed up"],
  ] as const) {
    const ratio = median(limit) / median(eb);
    console.log(
      `ratio eb / limit, ${name}  ${(ratio * 100).toFixed(1).padStart(5)}%  ` +
        `(target ≥ 70%: ${verdict(ratio >= 0.7)}; ${how})`,
    );
  }
  console.log(
    `eb eval, all cached      median ${median(f.cached).toFixed(2)} s wall ` +
      `[${f.cached.map((v) => v.toFixed(2)).join(", ")}], requests ${f.cachedCalls.join(", ")}  ` +
      `(target ≤ ${CACHED_TARGET} s: ${verdict(cachedMet)})`,
  );
  if (f.baselineCached.length === 0) return;
  const ratios = f.cached.map((v, i) => v / f.baselineCached[i]!);
  console.log(
    `baseline, all cached     median ${median(f.baselineCached).toFixed(2)} s wall ` +
      `[${f.baselineCached.map((v) => v.toFixed(2)).join(", ")}]; this build / baseline: ` +
      `${median(ratios).toFixed(2)} (rounds' median)`,
  );
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const calls = options.cases * options.k;
  const dir = mkdtempSync(path.join(os.tmpdir(), "eb-bench-cases-"));
  casesFile(dir, options.cases);
  const server = await startServer();
  const url = server.baseURL;
  const f: Figures = {
    limit: [],
    coldLimit: [],
    httpLimit: [],
    uncached: [],
    fresh: [],
    warm: [],
    cached: [],
    baselineCached: [],
    made: [],
    cachedCalls: [],
  };
  try {
    // Not measured: the fetch loop keeps getting faster for thousands of calls (V8 and undici
    // warming up); two full passes bring it to its steady pace, so the limit is the fastest it gets.
    const warmUp = 2 * calls;
    await bareLoop(fetchPost, url, options, warmUp);
    await bareLoop(httpPost, url, options, warmUp);
    await warmRun(dir, url, options);
    for (let round = 0; round < options.rounds; round++) {
      f.limit.push(await bareLoop(fetchPost, url, options, calls));
      f.httpLimit.push(await bareLoop(httpPost, url, options, calls));
      f.coldLimit.push(await coldLoop(url, options));
      f.uncached.push(await runEb(dir, url, options, ["--no-cache"]));
      // Each round starts from an empty cache.
      rmSync(path.join(dir, ".eval-banana"), { recursive: true, force: true });
      const before = await server.requests();
      f.fresh.push(await runEb(dir, url, options));
      const afterFresh = await server.requests();
      f.made.push(afterFresh - before);
      f.cached.push(await runEb(dir, url, options));
      f.cachedCalls.push((await server.requests()) - afterFresh);
      if (BASELINE_CLI) f.baselineCached.push(await runEb(dir, url, options, [], BASELINE_CLI));
      f.warm.push(await warmRun(dir, url, options));
    }
    printFigures(options, f);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `--bare-loop URL`: the child of coldLoop(). */
async function bareLoopProcess(args: readonly string[]): Promise<void> {
  const options = parseOptions(args);
  const url = args[args.indexOf("--bare-loop") + 1] as string;
  await bareLoop(fetchPost, url, options, options.cases * options.k);
  // Idle keep-alive sockets would hold the process until the server drops them.
  process.exit(0);
}

if (isMainThread) {
  const args = process.argv.slice(2);
  (args.includes("--bare-loop") ? bareLoopProcess(args) : main()).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
} else {
  serve();
}
