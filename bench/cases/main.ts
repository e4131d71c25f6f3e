/**
 * bench/cases: how close does `eb eval` get to the endpoint's limit, and how fast is a cached run?
 *
 * Run from the repository root after `npm run build` (Node 20 cannot strip TypeScript types, so
 * compile first; ~0.4 s):
 *   npx tsc -p bench/cases/tsconfig.json && node /tmp/eb-bench-cases/bench/cases/main.js
 * Options: --cases 2000 --k 3 --workers 8
 *
 * A loopback server (its own thread) answers every chat completion at once. The limit is a bare
 * HTTP loop in this process: `workers` lanes of fetch() POSTing the same cases × k requests (a
 * node:http loop is printed beside it for reference). Then the built CLI runs the same work as a
 * whole process (`node dist/bin/eb.js eval`: start, load, call, grade, cache, rows, reports):
 * once with --no-cache (to separate transport from cache I/O), fresh, then fully cached.
 * Targets: eb ≥ 70% of the limit's calls/s; the cached re-run ≤ 1 s of wall time.
 * EB_BENCH_CLI=/path/to/main.js measures another build of the CLI against the same limit.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker } from "node:worker_threads";

interface Options {
  cases: number;
  k: number;
  workers: number;
}

/** The repository root: run from there (the compiled script lives in /tmp). */
const ROOT = process.cwd();
/** EB_BENCH_CLI points at another build of the CLI, e.g. to measure a change side by side. */
const CLI = process.env.EB_BENCH_CLI ?? path.join(ROOT, "dist/bin/eb.js");

function flag(args: readonly string[], name: string, fallback: string): string {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && at + 1 < args.length ? args[at + 1]! : fallback;
}

function parseOptions(args: readonly string[]): Options {
  return {
    cases: Number(flag(args, "cases", "2000")),
    k: Number(flag(args, "k", "3")),
    workers: Number(flag(args, "workers", "8")),
  };
}

// ----------------------------------------------------------------------------- the server --

const ANSWER = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  model: "bench-model-2026",
  choices: [{ index: 0, message: { role: "assistant", content: "Paris" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 12, completion_tokens: 1, total_tokens: 13 },
});

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

/** One whole `eb eval` process; wall seconds from spawn to exit. */
function runEb(
  dir: string,
  baseURL: string,
  options: Options,
  extra: readonly string[] = [],
): Promise<number> {
  const args = [
    CLI,
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

interface Figures {
  limit: number;
  httpLimit: number;
  uncached: number;
  fresh: number;
  made: number;
  cached: number;
  cachedCalls: number;
}

function printFigures(options: Options, f: Figures): void {
  const calls = options.cases * options.k;
  const ratio = f.limit / f.fresh;
  const version = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).version;
  const verdict = (met: boolean) => (met ? "met" : "MISSED");
  const cachedMet = f.cached <= 1 && f.cachedCalls === 0;
  console.log(
    `bench/cases: eval-banana ${version}, node ${process.version}, ${os.cpus().length} CPUs`,
  );
  console.log(
    `${options.cases} cases × k=${options.k} = ${calls} calls, ${options.workers} workers`,
  );
  console.log(`limit (bare fetch loop)  ${rate(calls, f.limit)}`);
  console.log(`bare node:http loop      ${rate(calls, f.httpLimit)}  (reference)`);
  console.log(
    `eb eval --no-cache       ${rate(calls, f.uncached)}  (diagnostic: no cache I/O; ${((f.limit / f.uncached) * 100).toFixed(1)}% of the limit)`,
  );
  console.log(`eb eval (whole process)  ${rate(f.made, f.fresh)}  [${f.made} requests]`);
  console.log(
    `ratio eb / limit         ${(ratio * 100).toFixed(1)}%  (target ≥ 70%: ${verdict(ratio >= 0.7)})`,
  );
  console.log(
    `eb eval, all cached      ${f.cached.toFixed(2)} s wall, ${f.cachedCalls} requests  (target ≤ 1 s: ${verdict(cachedMet)})`,
  );
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const calls = options.cases * options.k;
  const dir = mkdtempSync(path.join(os.tmpdir(), "eb-bench-cases-"));
  casesFile(dir, options.cases);
  const server = await startServer();
  const url = server.baseURL;
  try {
    const warmUp = Math.min(calls, 1000); // not measured
    await bareLoop(fetchPost, url, options, warmUp);
    await bareLoop(httpPost, url, options, warmUp);
    const limit = await bareLoop(fetchPost, url, options, calls);
    const httpLimit = await bareLoop(httpPost, url, options, calls);
    const uncached = await runEb(dir, url, options, ["--no-cache"]);
    const before = await server.requests();
    const fresh = await runEb(dir, url, options);
    const made = (await server.requests()) - before;
    const cached = await runEb(dir, url, options);
    const cachedCalls = (await server.requests()) - before - made;
    printFigures(options, { limit, httpLimit, uncached, fresh, made, cached, cachedCalls });
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
