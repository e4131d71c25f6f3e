import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { progressLine } from "../../src/cli/progress.js";
import type { RunProgress } from "../../src/run/suite.js";
import { type FaultServer, reply, startFaultServer } from "../faults/fault-server.js";
import { completion, lastContent } from "../helpers/loopback-server.js";
import { makeProject, runEb } from "../helpers/project.js";

let server: FaultServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function casesFile(n: number): string {
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      id: `q${i}`,
      messages: [{ role: "user", content: `question ${i}` }],
      graders: [{ type: "contains", all: ["echo"] }],
    }),
  );
  return `${lines.join("\n")}\n`;
}

/**
 * Answers "echo: …" after 20 ms; the 20th request is refused once with a short Retry-After. At
 * a limit of 8, only 16 requests can start before 8 have succeeded and the limit doubled, so the
 * 429 always comes after the doubling, however the machine schedules the answers.
 */
function limitedOnce(): Promise<FaultServer> {
  return startFaultServer((request, index) =>
    index === 19
      ? reply({ error: { message: "Rate limit" } }, 429, { "retry-after-ms": "50" })
      : { kind: "delay", ms: 20, next: reply(completion(`echo: ${lastContent(request)}`)) },
  );
}

function manifestOf(root: string): Record<string, unknown> {
  const results = path.join(root, ".eval-banana/results");
  const [run] = readdirSync(results);
  const first = readFileSync(path.join(results, String(run), "rows.jsonl"), "utf8").split("\n")[0];
  return (JSON.parse(String(first)) as { manifest: Record<string, unknown> }).manifest;
}

async function evalAt(root: string, baseURL: string, extra: readonly string[] = []) {
  const args = ["eval", "cases.jsonl", "-m", "mock", "--api-base", baseURL, "--no-cache", ...extra];
  return runEb(args, { cwd: root, env: { EVAL_BANANA_API_KEY: "sk-test" } });
}

describe("eb eval concurrency", () => {
  it("adapts by default: the manifest keeps the limit's history and the 429s", async () => {
    server = await limitedOnce();
    const root = makeProject({ "cases.jsonl": casesFile(40) });
    const result = await evalAt(root, server.baseURL);
    expect(result.code).toBe(0);
    const { concurrency } = manifestOf(root) as {
      concurrency: { mode: string; max: number; models: Record<string, unknown> };
    };
    expect(concurrency).toMatchObject({ mode: "adaptive", max: 64 });
    const mock = concurrency.models.mock as { history: number[][]; rate_limited: number };
    expect(mock.rate_limited).toBe(1);
    // Slow start from 8 (doubled after 8 successes), then one cut for the one 429.
    expect(mock.history[0]).toEqual([0, 8]);
    expect(mock.history[1]?.[1]).toBe(16);
    expect(mock.history.map(([, limit]) => limit)).toContain(12);
    expect(server.requests).toHaveLength(41);
  });

  it("--workers N pins it; --max-workers bounds the adaptive limit", async () => {
    server = await limitedOnce();
    const root = makeProject({ "cases.jsonl": casesFile(20) });
    expect((await evalAt(root, server.baseURL, ["--workers", "3"])).code).toBe(0);
    expect(manifestOf(root).concurrency).toEqual({
      mode: "pinned",
      max: 3,
      models: { mock: { history: [[0, 3]], rate_limited: 1 } },
    });
    const capped = makeProject({ "cases.jsonl": casesFile(20) });
    server.script = () => reply(completion("echo"));
    expect((await evalAt(capped, server.baseURL, ["--max-workers", "10"])).code).toBe(0);
    const { concurrency } = manifestOf(capped) as {
      concurrency: { max: number; models: { mock: { history: number[][] } } };
    };
    expect(concurrency.max).toBe(10);
    expect(concurrency.models.mock.history.map(([, limit]) => limit)).toEqual([8, 10]);
  });
});

describe("progressLine", () => {
  const progress: RunProgress = {
    itemsDone: 3,
    itemsTotal: 10,
    samplesDone: 3,
    samplesTotal: 10,
    passed: 3,
    errors: 0,
    cached: 0,
    earlierSamples: 0,
    earlierCached: 0,
    startedAt: 0,
  };

  it("shows the limit of each model called, the target's first", () => {
    expect(progressLine({ ...progress, limits: [24, 16] }, 1000)).toContain(" · limit 24/16 · ");
    expect(progressLine(progress, 1000)).not.toContain("limit");
  });
});
