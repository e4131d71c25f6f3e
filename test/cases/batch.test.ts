import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type BatchServer, type LineAnswer, startBatchServer } from "../helpers/batch-server.js";
import { makeProject, runEb, sortedRows, spawnEb, writeFile } from "../helpers/project.js";

const KEY = "sk-batch-test-key-0123456789";

let mock: BatchServer;
beforeEach(async () => {
  mock = await startBatchServer();
});
afterEach(async () => {
  await mock.close();
});

const CASES = ["alpha", "beta", "gamma"].map((word) =>
  JSON.stringify({
    id: word,
    messages: [{ role: "user", content: word }],
    graders: [{ type: "equals", value: `echo: ${word}` }],
  }),
);

function project(): string {
  return makeProject({ "cases.jsonl": `${CASES.join("\n")}\n` });
}

function evalArgs(root: string, run: string, extra: readonly string[] = []): string[] {
  return [
    "eval",
    "cases.jsonl",
    "-m",
    "mock",
    "--api-base",
    mock.baseURL,
    "-k",
    "2",
    "--out",
    path.join(root, run),
    "--flat-output",
    ...extra,
  ];
}

const BATCH = ["--batch", "--batch-poll-ms", "20"];

function evalIn(
  root: string,
  run: string,
  extra: readonly string[] = [],
  key: string | null = KEY,
  timeoutMs = 60_000,
) {
  const env = key === null ? {} : { EVAL_BANANA_API_KEY: key };
  return runEb(evalArgs(root, run, extra), { cwd: root, env, timeoutMs });
}

interface Row {
  id: string;
  sample: number;
  status: string;
  text: string | null;
  error: string | null;
  cached: boolean;
}

const rowsOf = (runDir: string) => sortedRows<Row>(runDir);

const essence = (rows: Row[]) => rows.map((r) => [r.id, r.sample, r.status, r.text, r.error]);

describe("eb eval --batch", () => {
  it("gives the rows a direct run gives, caches them, and a direct re-run calls nothing", async () => {
    const root = project();
    const batched = await evalIn(root, "batched", BATCH);
    expect(batched.stderr).toContain("batch batch_1: in_progress");
    expect(batched.stderr).toContain("batch batch_1: completed, 6/6 completed, 0 failed");
    expect(batched.code).toBe(0);
    expect(mock.created).toBe(1);
    expect(mock.chatRequests()).toHaveLength(0);
    expect(mock.server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    const rows = rowsOf(path.join(root, "batched"));
    expect(rows).toHaveLength(6);
    // Paid by this run: not cache hits.
    expect(rows.every((r) => r.cached === false)).toBe(true);
    expect(JSON.parse(readFileSync(path.join(root, "batched", "batches.json"), "utf8"))).toEqual({
      batches: [{ id: "batch_1" }],
    });

    const direct = await evalIn(root, "direct");
    expect(direct.code).toBe(0);
    expect(mock.chatRequests()).toHaveLength(0);
    const again = rowsOf(path.join(root, "direct"));
    expect(again.every((r) => r.cached)).toBe(true);
    expect(essence(again)).toEqual(essence(rows));

    // The same rows as a direct run that calls the endpoint.
    const uncached = await evalIn(root, "uncached", ["--no-cache"]);
    expect(uncached.code).toBe(0);
    expect(mock.chatRequests()).toHaveLength(6);
    expect(essence(rowsOf(path.join(root, "uncached")))).toEqual(essence(rows));
  });

  it("makes a per-line error (or a torn line) an error row with its reason, sending nothing directly", async () => {
    mock.answer = (line) => {
      if (line.custom_id === "beta#1") return { status: 400, message: "context too long" };
      if (line.custom_id === "gamma#0") return "garbage";
      return { text: `echo: ${line.body.messages.at(-1)?.content}` };
    };
    const root = project();
    const run = await evalIn(root, "run", BATCH);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("5/6 completed, 1 failed");
    const rows = rowsOf(path.join(root, "run"));
    const broken = rows.filter((r) => r.status === "error");
    expect(broken.map((r) => [r.id, r.sample])).toEqual([
      ["beta", 1],
      ["gamma", 0],
    ]);
    expect(broken[0]?.error).toContain("batch: HTTP 400: context too long");
    // A torn output line leaves its request without an answer.
    expect(broken[1]?.error).toContain("batch batch_1 returned no answer for this request");
    expect(rows.filter((r) => r.status === "passed")).toHaveLength(4);
    expect(mock.chatRequests()).toHaveLength(0);
  });

  it("refuses an answer over max_response_mb as a direct call does, and does not cache it", async () => {
    // Just over the limit (read whole, then measured), and more than a line's room over it
    // (not read past its custom_id).
    const over = "x".repeat(10_500_000);
    const far = "x".repeat(12_000_000);
    mock.answer = (line) => {
      const content = line.body.messages.at(-1)?.content;
      if (content !== "beta") return { text: `echo: ${content}` };
      return { text: line.custom_id === "beta#0" ? over : far };
    };
    const root = project();
    const batched = await evalIn(root, "batched", BATCH);
    expect(batched.code).toBe(1);
    const tooLarge = "the endpoint's answer is larger than 10 MB ([eval] max_response_mb)";
    const rows = rowsOf(path.join(root, "batched"));
    expect(rows.map((r) => [r.id, r.status])).toEqual([
      ["alpha", "passed"],
      ["alpha", "passed"],
      ["beta", "error"],
      ["beta", "error"],
      ["gamma", "passed"],
      ["gamma", "passed"],
    ]);
    for (const row of rows.filter((r) => r.id === "beta")) expect(row.error).toContain(tooLarge);

    // Not cached: a direct run asks for it again and refuses it the same way.
    const direct = await evalIn(root, "direct");
    expect(direct.code).toBe(1);
    expect(mock.chatRequests().map((r) => r.json)).toMatchObject(
      Array(2).fill({ messages: [{ content: "beta" }] }),
    );
    const again = rowsOf(path.join(root, "direct"));
    expect(again.filter((r) => r.id === "beta").map((r) => [r.status, r.cached])).toEqual([
      ["error", false],
      ["error", false],
    ]);
    for (const row of again.filter((r) => r.id === "beta")) expect(row.error).toContain(tooLarge);
  });

  it("reads an output file larger than the longest string (600 MiB) as it streams in", async () => {
    mock.padding = 600 * 2 ** 20;
    const root = project();
    // 600 MiB through loopback and a JSON parser: minutes on a loaded 2-core machine, not 60 s.
    const run = await evalIn(root, "run", BATCH, KEY, 170_000);
    expect(run.code, run.stderr).toBe(0);
    expect(rowsOf(path.join(root, "run")).map((r) => r.status)).toEqual(Array(6).fill("passed"));
    expect(mock.chatRequests()).toHaveLength(0);
  }, 180_000);

  it("makes the requests an expired batch left unanswered error rows saying it expired", async () => {
    mock.steps = ["in_progress", "expired"];
    mock.answer = (line) =>
      line.custom_id.endsWith("#0")
        ? { text: `echo: ${line.body.messages.at(-1)?.content}` }
        : "none";
    const root = project();
    const run = await evalIn(root, "run", BATCH);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("batch batch_1: expired");
    const rows = rowsOf(path.join(root, "run"));
    expect(rows.filter((r) => r.status === "passed").map((r) => r.sample)).toEqual([0, 0, 0]);
    const expired = rows.filter((r) => r.status === "error");
    expect(expired).toHaveLength(3);
    for (const row of expired) expect(row.error).toContain("batch batch_1 expired");
    expect(mock.chatRequests()).toHaveLength(0);
  });

  it("makes every request of a failed batch an error row with the batch's errors (no key: none sent)", async () => {
    mock.steps = ["validating", "failed"];
    mock.answer = () => "none";
    const root = project();
    const run = await evalIn(root, "run", BATCH, null);
    expect(run.code).toBe(1);
    expect(mock.server.requests.length).toBeGreaterThan(2);
    expect(mock.server.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
    const rows = rowsOf(path.join(root, "run"));
    expect(rows).toHaveLength(6);
    for (const row of rows) {
      expect(row.error).toContain("batch batch_1 failed: the input file is invalid");
    }
  });

  it("resumed after an interrupt mid-poll, polls the same batch instead of sending another", async () => {
    mock.hold = () => true;
    const root = project();
    const { child, stderr, exited } = spawnEb(evalArgs(root, "run", BATCH), {
      cwd: root,
      env: { EVAL_BANANA_API_KEY: KEY },
    });
    await waitFor(() => mock.retrieves >= 3);
    expect(existsSync(path.join(root, "run", "batches.json"))).toBe(true);
    child.kill("SIGINT");
    const code = await exited;
    expect(stderr()).toContain("batch batch_1: in_progress");
    expect(code).toBe(130);
    expect(rowsOf(path.join(root, "run"))).toHaveLength(0);

    mock.hold = () => false;
    mock.steps = ["completed"];
    // Without --batch too: the run folder's batches.json makes it a batch run.
    const resumed = await runEb(
      ["eval", "--resume", path.join(root, "run"), "--batch-poll-ms", "20"],
      { cwd: root, env: { EVAL_BANANA_API_KEY: KEY } },
    );
    expect(resumed.stderr).toContain("batch batch_1: completed");
    expect(resumed.code).toBe(0);
    expect(mock.created).toBe(1);
    expect(mock.chatRequests()).toHaveLength(0);
    expect(rowsOf(path.join(root, "run")).map((r) => r.status)).toEqual(Array(6).fill("passed"));
  });

  it("stops (exit 2) when the batch cannot be polled; --resume then polls the same batch", async () => {
    mock.broken = true;
    const root = project();
    const run = await evalIn(root, "run", BATCH);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("the batch API at");
    expect(run.stderr).toContain("the batch service is down");
    expect(run.stderr).toContain("--resume");
    expect(run.stderr).not.toContain(KEY);
    mock.broken = false;
    const resumed = await evalIn(root, "resumed", ["--resume", path.join(root, "run"), ...BATCH]);
    expect(resumed.code).toBe(0);
    expect(mock.created).toBe(1);
    expect(rowsOf(path.join(root, "run"))).toHaveLength(6);
  });

  it("refuses --batch with --target, --no-cache and --max-cost (exit 2), calling nothing", async () => {
    const root = project();
    const target = await runEb(["eval", "cases.jsonl", "--target", "node -e 0", "--batch"], {
      cwd: root,
    });
    expect(target.code).toBe(2);
    expect(target.stderr).toContain("--batch sends model calls through the Batch API");
    const noCache = await evalIn(root, "a", [...BATCH, "--no-cache"]);
    expect(noCache.code).toBe(2);
    expect(noCache.stderr).toContain("drop --no-cache");
    writeFile(
      root,
      ".eval-banana/config.toml",
      '[pricing."mock"]\ninput_per_mtok = 1\noutput_per_mtok = 1\n',
    );
    const capped = await evalIn(root, "b", [...BATCH, "--max-cost", "5"]);
    expect(capped.code).toBe(2);
    expect(capped.stderr).toContain("--max-cost cannot stop it part way");
    expect(mock.server.requests).toHaveLength(0);
  });
});

const JUDGED = ["alpha", "beta", "gamma"].map((word) =>
  JSON.stringify({
    id: word,
    messages: [{ role: "user", content: word }],
    graders: [{ type: "judge", criteria: ["The answer repeats the word it was given."] }],
  }),
);

/** The judge's verdict on a prompt: every answer passes but gamma's. */
function verdictOn(prompt: string): LineAnswer {
  return prompt.includes("echo: gamma")
    ? { text: '{"score": 0, "reason": "gamma is not wanted"}' }
    : { text: '{"score": 1}' };
}

const isJudge = (line: { custom_id: string }) => line.custom_id.startsWith("judge-");

function judgedProject(): string {
  return makeProject({ "cases.jsonl": `${JUDGED.join("\n")}\n` });
}

describe("the judges of an eb eval --batch run", () => {
  beforeEach(() => {
    mock.answer = (line) => {
      const content = line.body.messages.at(-1)?.content ?? "";
      return isJudge(line) ? verdictOn(content) : { text: `echo: ${content}` };
    };
  });

  it("are sent as a second batch after the answers, cached, and a direct re-run calls nothing", async () => {
    const root = judgedProject();
    const run = await evalIn(root, "run", [...BATCH, "--judge", "judge-m"]);
    expect(run.stderr).toContain("batch batch_1: completed, 6/6 completed, 0 failed");
    // The two samples of a case answer alike, so they share one judge call.
    expect(run.stderr).toContain("judge batch batch_2: completed, 3/3 completed, 0 failed");
    expect(run.code).toBe(1);
    expect(mock.created).toBe(2);
    expect(mock.chatRequests()).toHaveLength(0);
    const rows = rowsOf(path.join(root, "run"));
    expect(rows.map((r) => [r.id, r.status])).toEqual([
      ["alpha", "passed"],
      ["alpha", "passed"],
      ["beta", "passed"],
      ["beta", "passed"],
      ["gamma", "failed"],
      ["gamma", "failed"],
    ]);
    const record = JSON.parse(readFileSync(path.join(root, "run", "judge-batches.json"), "utf8"));
    expect(record).toEqual({ batches: [{ id: "batch_2" }] });

    const direct = await evalIn(root, "direct", ["--judge", "judge-m"]);
    expect(direct.code).toBe(1);
    expect(mock.chatRequests()).toHaveLength(0);
    expect(essence(rowsOf(path.join(root, "direct")))).toEqual(essence(rows));
  });

  it("sends every verdict --judge-samples asks for, each its own line", async () => {
    const root = judgedProject();
    const run = await evalIn(root, "run", [...BATCH, "--judge", "judge-m", "--judge-samples", "2"]);
    expect(run.stderr).toContain("judge batch batch_2: completed, 6/6 completed, 0 failed");
    expect(mock.chatRequests()).toHaveLength(0);
    const votes = rowsOf(path.join(root, "run")).map((r) => (r as { votes?: unknown }).votes);
    expect(votes).toEqual([
      ...Array(4).fill({ judge: [1, 1] }),
      ...Array(2).fill({ judge: [0, 0] }),
    ]);
  });

  it("with the answers cached, sends only the judge round; a failed judge line is an error row", async () => {
    const root = judgedProject();
    const warm = await evalIn(root, "warm", BATCH.concat(["--judge", "judge-m"]), KEY);
    expect(warm.code).toBe(1);
    mock.answer = (line) =>
      isJudge(line) ? { status: 400, message: "judge prompt refused" } : { text: "unused" };
    // New judge prompts (another criterion), the answers cached: only the judge round is sent.
    writeFile(
      root,
      "cases.jsonl",
      `${JUDGED.map((l) => l.replace("repeats", "echoes")).join("\n")}\n`,
    );
    const run = await evalIn(root, "run", [...BATCH, "--judge", "judge-m"]);
    expect(run.stderr).toContain("judge batch batch_3: completed, 0/3 completed, 3 failed");
    expect(mock.created).toBe(3);
    expect(mock.chatRequests()).toHaveLength(0);
    const rows = rowsOf(path.join(root, "run"));
    expect(rows.every((r) => r.status === "error")).toBe(true);
    for (const row of rows)
      expect(row.error).toContain("judge: batch: HTTP 400: judge prompt refused");
    expect(existsSync(path.join(root, "run", "batches.json"))).toBe(false);
  });

  it("resumed after an interrupt while the judge batch was polled, polls it instead of sending another", async () => {
    mock.hold = (id) => id === "batch_2";
    const root = judgedProject();
    const args = evalArgs(root, "run", [...BATCH, "--judge", "judge-m"]);
    const { child, stderr, exited } = spawnEb(args, {
      cwd: root,
      env: { EVAL_BANANA_API_KEY: KEY },
    });
    await waitFor(() => stderr().includes("judge batch batch_2: in_progress"));
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(rowsOf(path.join(root, "run"))).toHaveLength(0);

    mock.hold = () => false;
    const resumed = await runEb(
      ["eval", "--resume", path.join(root, "run"), "--batch-poll-ms", "20"],
      { cwd: root, env: { EVAL_BANANA_API_KEY: KEY } },
    );
    expect(resumed.stderr).toContain("judge batch batch_2: completed");
    // The answers are cached: the target batch is not polled again.
    expect(resumed.stderr).not.toContain("batch batch_1");
    expect(resumed.code).toBe(1);
    expect(mock.created).toBe(2);
    expect(mock.chatRequests()).toHaveLength(0);
    const statuses = rowsOf(path.join(root, "run")).map((r) => r.status);
    expect(statuses).toEqual(["passed", "passed", "passed", "passed", "failed", "failed"]);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
