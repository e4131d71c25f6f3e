import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { completion, lastContent } from "../helpers/loopback-server.js";
import { CLI, cleanEnv } from "../helpers/project.js";
import { type FaultServer, reply, startFaultServer } from "./fault-server.js";
import { caseLine, casesProject, KEY, OUT } from "./support.js";

const ANSWERED = 6;

let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * Answers the first ANSWERED calls; every later call hangs, so the run stays mid-way, until
 * release() makes it answer everything.
 */
async function stallingServer() {
  let answered = 0;
  let limit = ANSWERED;
  let onAnswered: () => void = () => {};
  const allAnswered = new Promise<void>((resolve) => {
    onAnswered = resolve;
  });
  server = await startFaultServer((request) => {
    if (answered >= limit) return { kind: "hang" };
    if (++answered === ANSWERED) setTimeout(onAnswered, 500);
    return reply(completion(`echo: ${lastContent(request)}`));
  });
  const release = () => {
    limit = Number.POSITIVE_INFINITY;
  };
  return { server, allAnswered, release };
}

/** Starts `eb eval` on 20 cases (2 at a time) against the server; resolves with its exit. */
function startRun(root: string, baseURL: string, out = OUT) {
  const args = ["eval", "cases.jsonl", "-m", "mock", "--api-base", baseURL, "--workers", "2"];
  const child = spawn(process.execPath, [CLI, ...args, "--out", out, "--flat-output"], {
    cwd: root,
    env: { ...cleanEnv(), EVAL_BANANA_API_KEY: KEY },
    stdio: "ignore",
  });
  const exited = new Promise<{ code: number | null; signal: string | null; at: number }>(
    (resolve) => child.on("exit", (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return { child, exited };
}

/** Every line of rows.jsonl must parse; returns the rows (manifest left out). */
function rowsOf(root: string, out = OUT): { id: string; status: string; cached: boolean }[] {
  const lines = readFileSync(path.join(root, out, "rows.jsonl"), "utf8")
    .trimEnd()
    .split("\n");
  const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(parsed[0]).toHaveProperty("manifest");
  return parsed.slice(1) as unknown as { id: string; status: string; cached: boolean }[];
}

const lines = Array.from({ length: 20 }, (_, i) => caseLine(`c${i}`, `q${i}`));

describe("a run stopped from outside keeps every finished sample", () => {
  it("killed with SIGKILL: every answered sample is a valid row on disk", async () => {
    const { server: s, allAnswered, release } = await stallingServer();
    const root = casesProject(lines);
    const run = startRun(root, s.baseURL);
    await allAnswered;
    run.child.kill("SIGKILL");
    await run.exited;
    const rows = rowsOf(root);
    expect(rows).toHaveLength(ANSWERED);
    expect(rows.every((r) => r.status === "passed")).toBe(true);
    // Its answers reached the cache too: the next run asks only for the rest.
    release();
    const before = s.requests.length;
    const again = startRun(root, s.baseURL, "again");
    expect((await again.exited).code).toBe(0);
    expect(s.requests.length - before).toBe(lines.length - ANSWERED);
    expect(rowsOf(root, "again").filter((r) => r.cached)).toHaveLength(ANSWERED);
  });

  it("stopped with SIGTERM while calls hang: exits 130 soon, report marked interrupted", async () => {
    const { server: s, allAnswered } = await stallingServer();
    const root = casesProject(lines);
    const run = startRun(root, s.baseURL);
    await allAnswered;
    const sent = Date.now();
    run.child.kill("SIGTERM");
    const exit = await run.exited;
    expect(exit.at - sent).toBeLessThan(5000);
    expect(exit.code).toBe(130);
    expect(rowsOf(root)).toHaveLength(ANSWERED);
    const report = JSON.parse(readFileSync(path.join(root, OUT, "report.json"), "utf8"));
    expect(report).toMatchObject({ interrupted: true, run_passed: false });
    expect(report.stats.samples).toBe(ANSWERED);
  });
});
