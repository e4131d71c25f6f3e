/**
 * bench/shards: what sharding a suite over local processes costs, and what `eb merge` costs.
 *
 * Run from the repository root: `bench/run.sh shards` (builds, compiles bench/, runs).
 * Options: --cases 2000 --k 3 --rounds 3
 *
 * A loopback server answers every chat completion at once. The built CLI runs the suite
 * (`eb eval -m … --no-cache`, so every shard calls) as 1, 2 and 4 shard processes started
 * together, and `eb merge` joins the 4 shards' run folders. Printed: the wall time of each
 * (medians of --rounds), the merge as a process, and the merge's own cost (mergeRuns() in this
 * process, no start-up). Target: the merge of 4 × 500 cases × k=3 in ≤ 0.5 s.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { mergeRuns } from "../../src/index.js";
import { ANSWER, flag } from "../args.js";
import { median } from "../median.js";

interface Options {
  cases: number;
  k: number;
  rounds: number;
}

const ROOT = process.cwd();
const CLI = path.join(ROOT, "dist/bin/eb.js");
const SHARDS = [1, 2, 4];

function parseOptions(args: readonly string[]): Options {
  return {
    cases: Number(flag(args, "cases", "2000")),
    k: Number(flag(args, "k", "3")),
    rounds: Number(flag(args, "rounds", "3")),
  };
}

/** Answers every request at once (in this process: the shard processes do the work). */
function startServer(): Promise<{ baseURL: string; close: () => void }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(ANSWER);
    });
  });
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ baseURL: `http://127.0.0.1:${port}/v1`, close: () => server.close() });
    });
  });
}

function writeCases(dir: string, n: number): void {
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      id: `case-${i}`,
      stratum: i % 2 === 0 ? "even" : "odd",
      messages: [{ role: "user", content: `Case ${i}: what is the capital of France?` }],
      // Every tenth case fails, so the reports have failures to list.
      graders: [{ type: "contains", all: [i % 10 === 0 ? "london" : "paris"] }],
    }),
  );
  writeFileSync(path.join(dir, "cases.jsonl"), `${lines.join("\n")}\n`);
}

/** Runs the CLI; resolves with its exit code. */
function eb(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", (code) => resolve(code ?? 1));
  });
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/** `count` shard processes started together; their run folders land under `out/<index>/`. */
async function runShards(
  count: number,
  out: string,
  dir: string,
  env: NodeJS.ProcessEnv,
  baseURL: string,
  k: number,
) {
  const args = [
    "eval",
    "cases.jsonl",
    "-m",
    "bench",
    "--api-base",
    baseURL,
    "-k",
    String(k),
    "--no-cache",
  ];
  const codes = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      eb(
        [
          ...args,
          ...(count > 1 ? ["--shard", `${i + 1}/${count}`] : []),
          "--out",
          path.join(out, String(i + 1)),
        ],
        dir,
        env,
      ),
    ),
  );
  if (codes.some((code) => code > 1))
    throw new Error(`a shard could not run: exit ${codes.join(", ")}`);
}

function runDirs(out: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const parent = path.join(out, String(i + 1));
    return path.join(parent, readdirSync(parent)[0]!);
  });
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const dir = mkdtempSync(path.join(os.tmpdir(), "eb-bench-shards-"));
  const server = await startServer();
  const env = { ...process.env, NO_COLOR: "1" };
  writeCases(dir, options.cases);
  const walls = new Map<number, number[]>(SHARDS.map((count) => [count, []]));
  const mergeProcess: number[] = [];
  const mergeOwn: number[] = [];
  try {
    for (let round = 0; round < options.rounds; round++) {
      for (const count of SHARDS) {
        const out = path.join(dir, `r${round}-n${count}`);
        walls
          .get(count)!
          .push(await timed(() => runShards(count, out, dir, env, server.baseURL, options.k)));
      }
      const shards = runDirs(path.join(dir, `r${round}-n4`), 4);
      mergeProcess.push(
        await timed(() => eb(["merge", ...shards, "--out", path.join(dir, `m${round}`)], dir, env)),
      );
      mergeOwn.push(
        await timed(() =>
          mergeRuns({ runs: shards, cwd: dir, out: path.join(dir, `own${round}`), env }),
        ),
      );
    }
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const ms = (values: readonly number[]) => `${(median(values) / 1000).toFixed(2)} s`;
  console.log(
    `bench/shards: ${options.cases} cases × k=${options.k}, ${os.cpus().length} CPUs, medians of ${options.rounds}`,
  );
  for (const count of SHARDS) {
    console.log(
      `  ${count} shard process${count === 1 ? "" : "es"} at once: ${ms(walls.get(count)!)} wall`,
    );
  }
  const per = options.cases / 4;
  console.log(`  eb merge of 4 × ${per} cases × k=${options.k} (a process): ${ms(mergeProcess)}`);
  const own = median(mergeOwn);
  console.log(
    `  merge's own cost (mergeRuns in process): ${(own / 1000).toFixed(3)} s — target ≤ 0.5 s: ${own <= 500 ? "met" : "NOT met"}`,
  );
}

await main();
