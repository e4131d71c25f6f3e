import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  completion,
  type LoopbackServer,
  lastContent,
  startLoopbackServer,
} from "../helpers/loopback-server.js";
import { makeProject, runEb } from "../helpers/project.js";

let server: LoopbackServer;
beforeEach(async () => {
  // The target echoes; the judge ("judge-m") passes everything.
  server = await startLoopbackServer((request) => {
    const judge = (request.json as { model?: string }).model === "judge-m";
    const text = judge ? '{"score": 1, "reason": "fine"}' : `echo: ${lastContent(request)}`;
    return { body: completion(text) };
  });
});
afterEach(async () => {
  await server.close();
});

/** Prices high enough that a loopback call (11 + 7 tokens) costs $0.018. */
const CONFIG = `[pricing."mock"]
input_per_mtok = 1000.0
output_per_mtok = 1000.0

[pricing."judge-m"]
input_per_mtok = 1000.0
output_per_mtok = 1000.0
`;

/** `n` cases whose one message is 40 characters (10 estimated tokens). */
function cases(n: number, judged = false): string {
  const graders = [
    { type: "contains", all: ["echo"] },
    ...(judged ? [{ type: "judge", criteria: ["it echoes"] }] : []),
  ];
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      id: `q${i}`,
      messages: [
        { role: "user", content: `question ${String(i).padStart(2, "0")}`.padEnd(40, ".") },
      ],
      graders,
    }),
  );
  return `${lines.join("\n")}\n`;
}

function evalAt(root: string, file: string, extra: readonly string[]) {
  const args = ["eval", file, "-m", "mock", "--api-base", server.baseURL, ...extra];
  return runEb(args, { cwd: root, env: { EVAL_BANANA_API_KEY: "sk-test" } });
}

function runDir(root: string): string {
  const results = path.join(root, ".eval-banana/results");
  const [only] = readdirSync(results);
  return path.join(results, String(only));
}

function lines(root: string): Record<string, unknown>[] {
  const text = readFileSync(path.join(runDir(root), "rows.jsonl"), "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function report(root: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(runDir(root), "report.json"), "utf8"));
}

describe("eb eval --dry-run", () => {
  it("prints the calls still needed after the cache, tokens and cost, and calls nothing", async () => {
    const root = makeProject({
      ".eval-banana/config.toml": CONFIG,
      "first.jsonl": cases(2, true),
      "cases.jsonl": cases(4, true),
    });
    const judged = ["--judge", "judge-m", "-k", "2", "--max-tokens", "100"];
    expect((await evalAt(root, "first.jsonl", judged)).code).toBe(0);
    const before = server.requests.length;
    // 4 target calls; the judge's prompt is the same for both samples of a case: 2 judge calls.
    expect(before).toBe(6);
    const result = await evalAt(root, "cases.jsonl", [...judged, "--dry-run"]);
    expect(result.code).toBe(0);
    expect(server.requests.length).toBe(before);
    expect(result.stdout).toContain("Dry run of cases.jsonl: nothing was called.");
    expect(result.stdout).toContain("Items: 4 cases × k=2: 8 samples to run");
    // 4 samples answered from the cache; 4 to make at 10 input and 100 output tokens each:
    // (40 + 400) tokens at $1000 per million = $0.44.
    expect(result.stdout).toContain(
      "Target mock: 8 calls, 4 cached, 4 to make; est. 40 input + 400 output tokens; est. $0.4400",
    );
    // The judge prompts of the cached answers are the ones the first run sent: cached too.
    expect(result.stdout).toMatch(
      /Judge judge-m: 8 calls, 4 cached, 4 to make; est\. [\d,]+ input \+ 800 output tokens/,
    );
    expect(result.stdout).toContain("an answer not cached = 100 tokens (--max-tokens)");
    expect(readdirSync(path.join(root, ".eval-banana/results"))).toHaveLength(1);
  });

  it("counts the judge calls of a case with more judge graders than a call takes arguments", async () => {
    const graders = Array.from({ length: 200_000 }, (_, i) => ({
      type: "judge",
      name: `j${i}`,
      criteria: ["c"],
    }));
    const line = JSON.stringify({ id: "q", messages: [{ role: "user", content: "hi" }], graders });
    const root = makeProject({ "cases.jsonl": `${line}\n` });
    const result = await evalAt(root, "cases.jsonl", ["--judge", "judge-m", "--dry-run"]);
    expect(result.stderr).not.toContain("RangeError");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Judge judge-m: 200,000 calls, 0 cached, 200,000 to make");
    expect(server.requests).toHaveLength(0);
  });
});

describe("eb eval --max-cost", () => {
  it("stops launching samples at the cap, marks the run, and --resume with more finishes it", async () => {
    const root = makeProject({ ".eval-banana/config.toml": CONFIG, "cases.jsonl": cases(10) });
    // Each sample is estimated at (10 + 10) tokens = $0.02 and costs $0.018: one at a time,
    // the sixth would bring 5 × 0.018 + 0.02 = $0.11 past $0.10.
    const capped = ["--max-tokens", "10", "--workers", "1", "--max-cost", "0.1"];
    const stopped = await evalAt(root, "cases.jsonl", capped);
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toContain(
      "Budget: $0.0900 spent of --max-cost $0.1000; 5 of 10 samples not run",
    );
    expect(stopped.stdout).toContain("Gate: budget exceeded after 5 samples → failed");
    const [first, ...rows] = lines(root);
    expect(first?.manifest).toMatchObject({ budget_exceeded: true });
    expect(rows).toHaveLength(5);
    expect(rows.every((row) => row.status === "passed")).toBe(true);
    expect(report(root)).toMatchObject({
      budget_exceeded: true,
      budget: { max_cost: 0.1, spent: expect.closeTo(0.09, 6) },
      run_passed: false,
    });
    expect(server.requests).toHaveLength(5);
    // Every sample that ran passed, and no output says every item did.
    const markdown = readFileSync(path.join(runDir(root), "report.md"), "utf8");
    expect(markdown).toContain("Every sample that ran passed, but 5 of 10 items never ran.");
    const summary = await runEb(["report", runDir(root)], { cwd: root });
    expect(summary.stdout).toContain("every sample that ran passed, but 5 of 10 items never ran");
    expect(markdown + summary.stdout).not.toMatch(/every item passed/i);

    const more = ["--max-tokens", "10", "--workers", "1", "--max-cost", "1"];
    const finished = await evalAt(root, "cases.jsonl", [...more, "--resume", runDir(root)]);
    expect(finished.code).toBe(0);
    const [manifest, ...all] = lines(root);
    expect(manifest?.manifest).toMatchObject({ budget_exceeded: false });
    expect(all).toHaveLength(10);
    // The earlier attempt's spend counts against the new cap.
    expect(report(root)).toMatchObject({
      budget_exceeded: false,
      budget: { spent: expect.closeTo(0.18, 6) },
    });
    expect(server.requests).toHaveLength(10);
  });

  it("without --max-tokens, reserves the answers seen and holds calls back at the cap", async () => {
    // 40 samples really cost 40 × $0.018 = $0.72. Reserved at 512 answer tokens ($0.522 each),
    // a second sample in flight would pass $1.00: it waits for the first, whose 7-token answer
    // makes the estimate of the rest $0.017, and the run finishes within its cap.
    const root = makeProject({ ".eval-banana/config.toml": CONFIG, "cases.jsonl": cases(40) });
    const roomy = await evalAt(root, "cases.jsonl", ["--max-cost", "1"]);
    expect(roomy.code, roomy.stdout).toBe(0);
    expect(lines(root).slice(1)).toHaveLength(40);
    expect(report(root)).toMatchObject({
      budget_exceeded: false,
      budget: { max_cost: 1, spent: expect.closeTo(0.72, 6) },
    });

    // A cap the run does pass stops it near the cap, not at a tenth of it.
    const tight = makeProject({ ".eval-banana/config.toml": CONFIG, "cases.jsonl": cases(40) });
    const stopped = await evalAt(tight, "cases.jsonl", ["--max-cost", "0.6", "--no-cache"]);
    expect(stopped.code).toBe(1);
    const spent = (report(tight) as { budget: { spent: number } }).budget.spent;
    expect(spent).toBeGreaterThan(0.5);
    // Past the cap by at most what the samples in flight cost beyond their estimates.
    expect(spent).toBeLessThan(0.7);
    expect(report(tight)).toMatchObject({ budget_exceeded: true, run_passed: false });
  });

  it("needs a price for every model it would call; nothing is called without one", async () => {
    const root = makeProject({ "cases.jsonl": cases(2) });
    const result = await evalAt(root, "cases.jsonl", ["--max-cost", "1"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--max-cost needs a price for "mock"');
    expect(server.requests).toHaveLength(0);
  });
});
