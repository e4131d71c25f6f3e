import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadCases } from "../../src/cases/load.js";
import { makeJudge, type RunCaseOptions, runCaseSample } from "../../src/cases/sample.js";
import type { Case } from "../../src/cases/schema.js";
import { createCache, type RunCache } from "../../src/model/cache.js";
import { chatCaseTarget, createChatTarget } from "../../src/model/chat.js";
import { createCommandTarget } from "../../src/model/command-target.js";
import type { CaseTarget } from "../../src/model/types.js";
import type { CaseRow } from "../../src/report/record.js";
import {
  completion,
  echo,
  type LoopbackServer,
  type Script,
  startLoopbackServer,
} from "../helpers/loopback-server.js";

const fixtures = join(import.meta.dirname, "../fixtures/cases");
let server: LoopbackServer;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "eb-run-case-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  server = await startLoopbackServer();
});
afterEach(async () => {
  await server.close();
});

/** Loads one case written as a case-file line. */
async function oneCase(fields: object): Promise<Case> {
  const path = join(dir, `${Math.random().toString(16).slice(2)}.jsonl`);
  await writeFile(path, JSON.stringify(fields));
  const { cases } = await loadCases(path);
  return cases[0] as Case;
}

const greet = {
  id: "greet",
  stratum: "typical",
  messages: [{ role: "user", content: "Say hello" }],
  graders: [
    { type: "contains", all: ["hello"] },
    { type: "regex", name: "polite", pattern: "please" },
  ],
};

function chat(options: { timeoutMs?: number; maxRetries?: number; cache?: RunCache } = {}) {
  return createChatTarget({
    baseURL: server.baseURL,
    apiKey: "sk-test-SECRET123",
    timeoutMs: options.timeoutMs ?? 2000,
    maxRetries: options.maxRetries ?? 0,
    cache: options.cache ?? null,
  });
}

/** Samples 0 … k-1 of one case, one after another (as a case's lane in a run). */
async function rowsOf(
  c: Case,
  { k = 1, ...opts }: Partial<RunCaseOptions> & { k?: number },
): Promise<CaseRow[]> {
  const target = opts.target ?? chatCaseTarget(chat(), { model: "m1", temperature: 0.7 });
  const rows: CaseRow[] = [];
  for (let sample = 0; sample < k; sample++) {
    rows.push(
      await runCaseSample(c, sample, {
        judge: null,
        judgeSamples: 1,
        model: "m1",
        ...opts,
        target,
      }),
    );
  }
  return rows;
}

/** The judge's settings of a run with none given. */
const JUDGE_SETTINGS = { judgeTemperature: 0 };

describe("runCaseSample", () => {
  it("emits k rows, samples 0..k-1, with the article's fields", async () => {
    const rows = await rowsOf(await oneCase(greet), { k: 3 });
    expect(rows.map((r) => r.sample)).toEqual([0, 1, 2]);
    expect(server.requests).toHaveLength(3);
    expect(rows[0]).toEqual({
      id: "greet",
      sample: 0,
      score: 0,
      status: "failed",
      marks: { contains: true, polite: false },
      reasons: { polite: 'no match for /please/ in "echo: Say hello"' },
      reason: 'polite: no match for /please/ in "echo: Say hello"',
      stratum: "typical",
      model: "m1",
      model_version: "echo-model-2026",
      ms: expect.any(Number),
      prompt_tokens: 11,
      completion_tokens: 7,
      judge_prompt_tokens: null,
      judge_completion_tokens: null,
      text: "echo: Say hello",
      error: null,
      cached: false,
      cost: null,
      tags: [],
    });
  });

  it("scores 1 and omits reasons when every grader passes", async () => {
    const c = await oneCase({ ...greet, graders: [{ type: "equals", value: "echo: Say hello" }] });
    const [row] = await rowsOf(c, {});
    expect(row).toMatchObject({ score: 1, status: "passed", marks: { equals: true } });
    expect(row).not.toHaveProperty("reasons");
    expect(row?.reason).toBeNull();
  });

  it("turns a timeout into an error row and goes on with the next sample", async () => {
    server.queue.push("hang");
    const target = chatCaseTarget(chat({ timeoutMs: 300 }), { model: "m1", temperature: 0 });
    const rows = await rowsOf(await oneCase(greet), { k: 2, target });
    expect(rows[0]).toMatchObject({
      sample: 0,
      score: 0,
      status: "error",
      marks: {},
      text: null,
      cached: false,
    });
    expect(rows[0]?.error).toMatch(/timed out after 0\.3s$/);
    expect(rows[0]?.reason).toBe(rows[0]?.error);
    expect(rows[0]?.error).not.toContain("SECRET");
    expect(rows[1]).toMatchObject({ sample: 1, status: "failed", error: null });
  });

  it("truncates long error messages", async () => {
    const target: CaseTarget = {
      complete: async () => {
        throw new Error("x".repeat(2000));
      },
    };
    const [row] = await rowsOf(await oneCase(greet), { target });
    expect(row?.error).toHaveLength(501);
    expect(row?.reason).toBe(`${"x".repeat(299)}…`);
  });

  it("re-runs from the cache with no request reaching the server", async () => {
    const cacheDir = join(dir, "rerun-cache");
    const target = (cache: RunCache) =>
      chatCaseTarget(chat({ cache }), { model: "m1", temperature: 0.7 });
    const c = await oneCase(greet);
    const firstCache = createCache(cacheDir);
    const first = await rowsOf(c, { k: 2, target: target(firstCache) });
    expect(await firstCache.flush()).toEqual([]);
    const count = server.requests.length;
    // A fresh cache object reads what the first run wrote, as the next run would.
    const again = await rowsOf(c, { k: 2, target: target(createCache(cacheDir)) });
    expect(server.requests).toHaveLength(count);
    expect(again).toEqual(first.map((r) => ({ ...r, cached: true })));
  });
});

describe("runCaseSample aborted", () => {
  async function abortMidCall(target: CaseTarget, started: () => boolean) {
    const controller = new AbortController();
    const rows: CaseRow[] = [];
    const options = {
      target,
      judge: null,
      judgeSamples: 1,
      model: "m1",
      signal: controller.signal,
    };
    const running = runCaseSample(await oneCase(greet), 0, options).then((row) => rows.push(row));
    const end = performance.now() + 5000;
    while (!started() && performance.now() < end) await new Promise((r) => setTimeout(r, 5));
    const abortedAt = performance.now();
    controller.abort();
    await running;
    return { rows, ms: performance.now() - abortedAt };
  }

  it("cancels the model call in flight", async () => {
    server.script = () => "hang";
    const target = chatCaseTarget(chat({ timeoutMs: 30_000 }), { model: "m1", temperature: 0 });
    const { rows, ms } = await abortMidCall(target, () => server.requests.length > 0);
    // Not the call's 30 s timeout (a loaded machine may take a while).
    expect(ms).toBeLessThan(10_000);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ sample: 0, status: "error" });
    expect(rows[0]?.error).toMatch(/interrupted$/);
    expect(server.requests).toHaveLength(1);
  });

  it("kills the command in flight", async () => {
    const node = JSON.stringify(process.execPath);
    const target = createCommandTarget({
      command: `${node} hang-target.mjs`,
      cwd: fixtures,
      timeoutMs: 30_000,
      cache: null,
      env: process.env,
    });
    let started = false;
    setTimeout(() => {
      started = true;
    }, 200);
    const { rows, ms } = await abortMidCall(target, () => started);
    expect(ms).toBeLessThan(2000);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.error).toMatch(/was interrupted$/);
  });
});

describe("judge graders through the chat target", () => {
  const toneCase = {
    ...greet,
    graders: [{ type: "judge", name: "tone", criteria: ["says hello"] }],
  };
  /** The target model echoes; the judge model answers `verdict`. */
  const judgeAnswers =
    (verdict: string): Script =>
    (request, index) => {
      const body = request.json as { model?: string };
      if (body.model !== "judge-1") return echo(request, index);
      return {
        body: {
          ...completion(verdict, "judge-1-2026"),
          usage: { prompt_tokens: 100, completion_tokens: 20 },
        },
      };
    };

  it("passes on the judge's verdict, with judge tokens on the row, cached at temperature 0", async () => {
    server.script = judgeAnswers('I checked.\n{"score": 1, "reason": "it greets"}');
    const cacheDir = join(dir, "judge-cache");
    const firstCache = createCache(cacheDir);
    const c = await oneCase(toneCase);
    const [row] = await rowsOf(c, {
      judge: makeJudge(chat({ cache: firstCache }), JUDGE_SETTINGS, "judge-1"),
    });
    await firstCache.flush();
    expect(row).toMatchObject({
      score: 1,
      status: "passed",
      marks: { tone: true },
      judge_prompt_tokens: 100,
      judge_completion_tokens: 20,
    });
    const judgeCall = server.requests.find(
      (r) => (r.json as { model: string }).model === "judge-1",
    );
    expect(judgeCall?.json).toMatchObject({ temperature: 0, messages: [{ role: "user" }] });
    expect(JSON.stringify(judgeCall?.json)).toContain("echo: Say hello");
    const count = server.requests.length;
    await rowsOf(c, {
      judge: makeJudge(chat({ cache: createCache(cacheDir) }), JUDGE_SETTINGS, "judge-1"),
    });
    expect(server.requests).toHaveLength(count + 1);
  });

  it("fails with the judge's reason on score 0", async () => {
    server.script = judgeAnswers('{"score": 0, "reason": "no greeting"}');
    const [row] = await rowsOf(await oneCase(toneCase), {
      judge: makeJudge(chat(), JUDGE_SETTINGS, "judge-1"),
    });
    expect(row).toMatchObject({
      score: 0,
      status: "failed",
      reasons: { tone: "no greeting" },
      reason: "tone: no greeting",
    });
  });

  it("fails with 'judge gave no verdict' when the judge answers without one", async () => {
    server.script = judgeAnswers("VERDICT: PASS");
    const [row] = await rowsOf(await oneCase(toneCase), {
      judge: makeJudge(chat(), JUDGE_SETTINGS, "judge-1"),
    });
    expect(row).toMatchObject({
      score: 0,
      status: "failed",
      marks: { tone: false },
      reason:
        'tone: judge gave no verdict (no JSON {"score": 0 or 1}) in its answer "VERDICT: PASS"',
    });
  });
});

describe("command targets in runCaseSample", () => {
  const node = JSON.stringify(process.execPath);
  const command = (script: string, timeoutMs = 5000) =>
    createCommandTarget({
      command: `${node} ${script}`,
      cwd: fixtures,
      timeoutMs,
      cache: null,
      env: process.env,
    });

  it("grades the command's stdout", async () => {
    const c = await oneCase({ ...greet, graders: [{ type: "contains", all: ["sample 1"] }] });
    const rows = await rowsOf(c, { k: 2, target: command("echo-target.mjs") });
    expect(rows.map((r) => r.status)).toEqual(["failed", "passed"]);
  });

  it("makes an error row of a failing command", async () => {
    const [row] = await rowsOf(await oneCase(greet), { target: command("fail-target.mjs") });
    expect(row).toMatchObject({ status: "error", score: 0 });
    expect(row?.error).toMatch(/exited with code 3: fatal: model file not found$/);
  });

  it("makes an error row of a hanging command", async () => {
    const [row] = await rowsOf(await oneCase(greet), { target: command("hang-target.mjs", 300) });
    expect(row).toMatchObject({ status: "error", score: 0 });
    expect(row?.error).toMatch(/timed out after 0\.3s$/);
  });
});
