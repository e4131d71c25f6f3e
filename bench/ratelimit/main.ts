/**
 * bench/ratelimit: does the adaptive concurrency of `eb eval` fill an endpoint's rate limit
 * without a storm of 429s, where a fixed --workers either leaves most of it unused or storms?
 *
 * Run from the repository root: `bench/run.sh ratelimit` (builds, compiles bench/, runs).
 * Options: --cases 1500 --limits 50,100,300 --latency 200 --sweep 8,16,32,64
 *
 * A loopback mock (this process) admits requests through a token bucket: `limit` tokens a
 * second, room for a fifth of a second's worth (a burst of limit/5), every admitted request
 * answered after `latency` ms; a request finding the bucket empty is answered 429 at once with
 * retry-after-ms (the time until the next token) and Retry-After (whole seconds), as OpenAI
 * does. The built CLI (`node dist/bin/eb.js eval`, its own process, --no-cache) runs the
 * cases with default settings, then with each fixed --workers of the sweep.
 * Throughput: successful answers from the first request to the last answer, as a share of the
 * limit. Targets (default settings): ≥ 90% of the limit, ≤ 5% of requests answered 429, no
 * error row, and no worse (by more than 2 points, the noise between runs) than the best fixed
 * --workers among those whose every row is clean (a storm's error rows are no result).
 * The figures swing with the machine's load: the load average is printed before and after.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { ANSWER, flag } from "../args.js";

interface Options {
  cases: number;
  limits: number[];
  latencyMs: number;
  sweep: number[];
}

const ROOT = process.cwd();
const CLI = process.env.EB_BENCH_CLI ?? path.join(ROOT, "dist/bin/eb.js");

const numbers = (text: string) => text.split(",").map(Number);

function parseOptions(args: readonly string[]): Options {
  return {
    cases: Number(flag(args, "cases", "1500")),
    limits: numbers(flag(args, "limits", "50,100,300")),
    latencyMs: Number(flag(args, "latency", "200")),
    sweep: numbers(flag(args, "sweep", "8,16,32,64")),
  };
}

// ----------------------------------------------------------------------------- the mock --

interface Counts {
  requests: number;
  limited: number;
  answered: number;
  firstAt: number | null;
  lastAnswerAt: number;
}

class TokenBucket {
  private tokens: number;
  private at = performance.now();
  constructor(
    private readonly perSecond: number,
    private readonly capacity: number,
  ) {
    this.tokens = capacity;
  }
  /** 0 when a token was taken, else the ms until one will be there. */
  take(): number {
    const now = performance.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) / this.perSecond) * 1000);
  }
}

function startMock(limit: number, latencyMs: number): Promise<{ server: Server; counts: Counts }> {
  const counts: Counts = { requests: 0, limited: 0, answered: 0, firstAt: null, lastAnswerAt: 0 };
  const bucket = new TokenBucket(limit, Math.max(1, limit / 5));
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      counts.requests++;
      counts.firstAt ??= performance.now();
      const wait = bucket.take();
      if (wait > 0) {
        counts.limited++;
        res.writeHead(429, {
          "content-type": "application/json",
          "retry-after-ms": String(wait),
          "retry-after": String(Math.ceil(wait / 1000)),
        });
        res.end('{"error": {"message": "Rate limit reached", "type": "requests"}}');
        return;
      }
      setTimeout(() => {
        counts.answered++;
        counts.lastAnswerAt = performance.now();
        res.writeHead(200, { "content-type": "application/json" });
        res.end(ANSWER);
      }, latencyMs);
    });
  });
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, counts })));
}

// ----------------------------------------------------------------------------- a run --

function writeCases(dir: string, n: number): void {
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      id: `q${i}`,
      messages: [{ role: "user", content: `What is the capital of country ${i}?` }],
      graders: [{ type: "contains", all: ["paris"] }],
    }),
  );
  writeFileSync(path.join(dir, "cases.jsonl"), `${lines.join("\n")}\n`);
}

interface Outcome {
  label: string;
  throughput: number;
  share429: number;
  errors: number;
  rows: number;
  seconds: number;
  finalLimit: number | null;
  peakLimit: number | null;
}

function runEb(dir: string, baseURL: string, extra: readonly string[]): Promise<void> {
  const args = [CLI, "eval", "cases.jsonl", "-m", "bench", "--api-base", baseURL];
  args.push("--no-project-config", "--no-cache", "--flat-output", "--output-dir", "run", ...extra);
  const child = spawn(process.execPath, args, {
    cwd: dir,
    env: { ...process.env, EVAL_BANANA_API_KEY: "bench-key", CI: "1" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // Exit 1 is a result here (error rows of a storm); only a crash is not.
  return new Promise((resolve, reject) => {
    child.on("exit", (code) =>
      code === 0 || code === 1 ? resolve() : reject(new Error(`eb exited ${code}:\n${stderr}`)),
    );
  });
}

interface ReadBack {
  errors: number;
  rows: number;
  history: [number, number][];
}

function readRun(dir: string): ReadBack {
  const report = JSON.parse(readFileSync(path.join(dir, "run", "report.json"), "utf8")) as {
    stats: { errors: number; samples: number };
    concurrency?: { models: Record<string, { history: [number, number][] }> };
  };
  const history = report.concurrency?.models.bench?.history ?? [];
  return { errors: report.stats.errors, rows: report.stats.samples, history };
}

async function measure(
  options: Options,
  limit: number,
  label: string,
  extra: readonly string[],
): Promise<Outcome> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "eb-bench-ratelimit-"));
  try {
    writeCases(dir, options.cases);
    const { server, counts } = await startMock(limit, options.latencyMs);
    const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const started = performance.now();
    await runEb(dir, baseURL, extra);
    const seconds = (performance.now() - started) / 1000;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const span = (counts.lastAnswerAt - (counts.firstAt ?? counts.lastAnswerAt)) / 1000;
    const run = readRun(dir);
    const limits = run.history.map(([, value]) => value);
    return {
      label,
      throughput: span > 0 ? counts.answered / span / limit : 0,
      share429: counts.requests > 0 ? counts.limited / counts.requests : 0,
      errors: run.errors,
      rows: run.rows,
      seconds,
      finalLimit: limits.at(-1) ?? null,
      peakLimit: limits.length > 0 ? Math.max(...limits) : null,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function line(o: Outcome): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(7);
  const limits = o.peakLimit === null ? "" : `  limit peak ${o.peakLimit}, last ${o.finalLimit}`;
  return (
    `  ${o.label.padEnd(14)} ${pct(o.throughput)} of the limit  429s ${pct(o.share429)}  ` +
    `errors ${String(o.errors).padStart(4)}  rows ${o.rows}  ${o.seconds.toFixed(1)} s${limits}`
  );
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const [load1, load5] = os.loadavg();
  console.log(
    `bench/ratelimit: ${options.cases} cases, ${options.latencyMs} ms latency, ` +
      `${os.cpus().length} CPUs, load ${load1?.toFixed(2)} / ${load5?.toFixed(2)} (1 / 5 min)`,
  );
  let failed = false;
  for (const limit of options.limits) {
    console.log(
      `limit ${limit} req/s (needs ~${Math.ceil((limit * options.latencyMs) / 1000)} in flight)`,
    );
    const adaptive = await measure(options, limit, "default", []);
    console.log(line(adaptive));
    const fixed: Outcome[] = [];
    for (const workers of options.sweep) {
      const outcome = await measure(options, limit, `--workers ${workers}`, [
        "--workers",
        String(workers),
      ]);
      fixed.push(outcome);
      console.log(line(outcome));
    }
    const clean = fixed.filter((o) => o.errors === 0);
    const best = Math.max(0, ...clean.map((o) => o.throughput));
    const misses = [
      adaptive.throughput < 0.9 ? "throughput < 90%" : null,
      adaptive.share429 > 0.05 ? "429s > 5%" : null,
      adaptive.errors > 0 || adaptive.rows !== options.cases ? "not every case a clean row" : null,
      adaptive.throughput < best - 0.02
        ? "worse than the best fixed --workers (by > 2 points)"
        : null,
    ].filter((why) => why !== null);
    console.log(misses.length === 0 ? "  targets met" : `  MISSED: ${misses.join("; ")}`);
    failed ||= misses.length > 0;
  }
  const [after] = os.loadavg();
  console.log(`load after: ${after?.toFixed(2)}`);
  if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 2;
});
