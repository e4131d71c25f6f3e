import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  completion,
  type LoopbackServer,
  lastContent,
  type Script,
  startLoopbackServer,
} from "../helpers/loopback-server.js";
import { CLI, type CliResult, cleanEnv, makeProject, runEb } from "../helpers/project.js";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/eval");
const REPO = path.resolve(import.meta.dirname, "../..");
const KEY = "sk-test-SECRET";

/** What the mock model answers, by the content of the last message. */
const ANSWERS: Record<string, string> = {
  "What is the capital of France?": "Paris",
  "Extract the invoice fields": '```json\n{"invoice_no": "A-1", "total": 12.5}\n```',
  "Refund me now": "Sorry about that. What is your order number?",
  "Refund me right now": "No. Refund of $5, take it or leave it.",
};

/** The target model answers from ANSWERS; the judge passes only the apologetic response. */
const mock: Script = (request) => {
  const content = lastContent(request);
  if ((request.json as { model?: string }).model === "judge-m") {
    const score = content.includes("Sorry about that") ? 1 : 0;
    return { body: completion(`{"score": ${score}, "reason": "checked"}`, "judge-m-2026") };
  }
  return { body: completion(ANSWERS[content] ?? "?", "mock-2026-01") };
};

interface Row {
  id: string;
  sample: number;
  score: number;
  status: string;
  marks: Record<string, boolean>;
  cached: boolean;
  error: string | null;
  model: string;
  model_version: string | null;
  text: string | null;
}

let server: LoopbackServer;
beforeEach(async () => {
  server = await startLoopbackServer(mock);
});
afterEach(async () => {
  await server.close();
});

function project(cases = "cases.jsonl"): string {
  return makeProject({ "cases.jsonl": readFileSync(path.join(FIXTURES, cases)) });
}

/** `eb eval cases.jsonl -m mock` against the loopback server, from inside the project. */
function evalModel(root: string, extra: readonly string[] = [], env: NodeJS.ProcessEnv = {}) {
  const args = ["eval", "cases.jsonl", "-m", "mock", "--api-base", server.baseURL, ...extra];
  return runEb(args, { cwd: root, env: { EVAL_BANANA_API_KEY: KEY, ...env } });
}

/** Run folders, oldest first (run ids only order by the second). */
function runDirs(root: string, results = ".eval-banana/results"): string[] {
  const dir = path.join(root, results);
  if (!existsSync(dir)) return [];
  const started = (runDir: string) => String(manifestOf(runDir).started_at);
  return readdirSync(dir)
    .map((name) => path.join(dir, name))
    .sort((a, b) => started(a).localeCompare(started(b)));
}

function lastRunDir(root: string, results?: string): string {
  const dirs = runDirs(root, results);
  expect(dirs.length).toBeGreaterThan(0);
  return dirs.at(-1)!;
}

function readLines(runDir: string): Record<string, unknown>[] {
  const text = readFileSync(path.join(runDir, "rows.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function readRows(runDir: string): Row[] {
  return readLines(runDir).slice(1) as unknown as Row[];
}

function manifestOf(runDir: string): Record<string, unknown> {
  return (readLines(runDir)[0] as { manifest: Record<string, unknown> }).manifest;
}

function readReport(runDir: string): Record<string, unknown> & { stats: Record<string, unknown> } {
  return JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8"));
}

/** id → sample scores in sample order. */
function scoresById(rows: readonly Row[]): Record<string, number[]> {
  const sorted = [...rows].sort((a, b) => a.id.localeCompare(b.id) || a.sample - b.sample);
  const out: Record<string, number[]> = {};
  for (const row of sorted) out[row.id] = [...(out[row.id] ?? []), row.score];
  return out;
}

function expectNoSecret(root: string, ...outputs: CliResult[]): void {
  const files = readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) =>
    e.isFile(),
  );
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) {
    const text = readFileSync(path.join(file.parentPath, file.name), "utf8");
    expect(text, file.name).not.toContain(KEY);
  }
  for (const out of outputs) {
    expect(out.stdout).not.toContain(KEY);
    expect(out.stderr).not.toContain(KEY);
  }
}

describe("eb eval against an OpenAI-compatible endpoint", () => {
  it("writes a manifest and k rows per case, grades every grader both ways, and reports", async () => {
    const root = project();
    const result = await evalModel(root, ["-k", "3", "--judge", "judge-m"]);
    expect(result.stderr).toBe("");
    // Half the samples fail, and the default threshold is 1.0: every sample must pass.
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/\n2 items passed, 2 failed, 0 errored in \d+\.\d+ s\n/);
    expect(result.stdout).toMatch(
      /\nGate: 6\/12 samples passed \(50\.0%\) < threshold 1\.0 → failed\n$/,
    );
    expect(result.stdout).toContain("items 4  samples 12");
    expect(result.stdout).toMatch(
      /pass rate 0\.500 {2}95% CI \[0\.\d{3}, 0\.\d{3}\] \(clopper-pearson\)/,
    );
    expect(result.stdout).toContain("errors 0 of 12 samples");
    expect(result.stdout.match(/^ {2}grader \S+ +failed 3 samples$/gm)).toHaveLength(6);
    expect(result.stdout).toMatch(/^target mock: \d+ in \/ \d+ out tokens/m);
    expect(result.stdout).toMatch(/^judge judge-m: \d+ in \/ \d+ out tokens/m);
    // 12 target calls; each judged prompt is asked once (temperature 0, sample 0, cached).
    expect(server.requests).toHaveLength(14);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);

    const runDir = lastRunDir(root);
    const rows = readRows(runDir);
    expect(rows).toHaveLength(12);
    for (const id of ["france", "invoice", "refund-polite", "refund-rude"]) {
      const samples = rows.filter((r) => r.id === id).map((r) => r.sample);
      expect(samples.sort()).toEqual([0, 1, 2]);
    }
    expect(scoresById(rows)).toEqual({
      france: [1, 1, 1],
      invoice: [0, 0, 0],
      "refund-polite": [1, 1, 1],
      "refund-rude": [0, 0, 0],
    });
    const marks = Object.fromEntries(
      rows.filter((r) => r.sample === 0).map((r) => [r.id, r.marks]),
    );
    expect(marks).toEqual({
      france: { equals: true, contains: true, absent: true, regex: true },
      invoice: { has_total: true, has_due: false },
      "refund-polite": { absent: true, contains: true, tone: true },
      "refund-rude": { absent: false, contains: false, tone: false, regex: false, equals: false },
    });
    expect(rows[0]).toMatchObject({ model: "mock", model_version: "mock-2026-01", cached: false });

    const manifest = manifestOf(runDir);
    const sha = createHash("sha256")
      .update(readFileSync(path.join(root, "cases.jsonl")))
      .digest("hex");
    expect(manifest).toMatchObject({
      tool: "eval-banana",
      kind: "cases",
      cases_file: "cases.jsonl",
      cases_sha256: sha,
      target: { kind: "model", model: "mock", api_base: server.baseURL },
      judge_model: "judge-m",
      k: 3,
      model_versions: ["mock-2026-01"],
      judge_model_versions: ["judge-m-2026"],
      interrupted: false,
    });
    expect(manifest.command).toEqual(expect.arrayContaining(["eval", "cases.jsonl", "-k", "3"]));
    expect(manifest.started_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(manifest.ended_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(manifest).toHaveProperty("git_commit");

    const report = readReport(runDir);
    // A line for each item, so that report.json reads and diffs by item.
    const itemLines = readFileSync(path.join(runDir, "report.json"), "utf8")
      .split("\n")
      .filter((line) => line.startsWith('    {"id":'));
    expect(itemLines.map((line) => JSON.parse(line.replace(/,$/, "")).id)).toEqual(
      (report.items as { id: string }[]).map((item) => item.id),
    );
    expect(itemLines).toHaveLength(4);
    expect(report.stats).toEqual({
      items: 4,
      samples: 12,
      pass_rate: 0.5,
      ci_low: expect.any(Number),
      ci_high: expect.any(Number),
      ci_level: 0.95,
      ci_method: "clopper-pearson",
      passed: 6,
      flaky: 0,
      errors: 0,
      cached: 0,
      // Every case passed all or none of its 3 samples: any-of-3 and all-of-3 agree.
      pass_at_k: { k: 3, estimate: 0.5, ci_low: expect.any(Number), ci_high: expect.any(Number) },
      pass_hat_k: { k: 3, estimate: 0.5, ci_low: expect.any(Number), ci_high: expect.any(Number) },
    });
    expect(report.stats.ci_low as number).toBeLessThan(0.5);
    expect(report.stats.ci_high as number).toBeGreaterThan(0.5);
    expect(report).toMatchObject({
      kind: "cases",
      interrupted: false,
      pass_threshold: 1,
      meets_threshold: false,
      run_passed: false,
    });
    expect(report).toHaveProperty("summary.graders", [
      { name: "absent", failures: 3 },
      { name: "contains", failures: 3 },
      { name: "equals", failures: 3 },
      { name: "has_due", failures: 3 },
      { name: "regex", failures: 3 },
      { name: "tone", failures: 3 },
    ]);
    const md = readFileSync(path.join(runDir, "report.md"), "utf8");
    expect(md).toContain("| Pass rate | 0.500 (mean of item scores) |");
    expect(md).toContain("`refund-rude`");
    expectNoSecret(root, result);
  });

  it("re-runs an unchanged suite from the cache: no request, rows cached, same scores", async () => {
    const root = project();
    const first = await evalModel(root, ["-k", "3", "--judge", "judge-m", "--pass-threshold", "0"]);
    expect(first.code).toBe(0);
    const before = server.requests.length;
    const again = await evalModel(root, ["-k", "3", "--judge", "judge-m", "--pass-threshold", "0"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      "Gate: 6/12 samples passed (50.0%) ≥ threshold 0.0, no error samples → passed",
    );
    expect(server.requests.length).toBe(before);
    expect(again.stdout).toContain("cached 12 of 12 samples (100%)");
    const [firstDir, secondDir] = runDirs(root);
    const rows = readRows(secondDir!);
    expect(rows.every((row) => row.cached)).toBe(true);
    expect(scoresById(rows)).toEqual(scoresById(readRows(firstDir!)));
    expect(readReport(secondDir!).stats).toMatchObject({ cached: 12, pass_rate: 0.5 });

    const gate = await evalModel(root, [
      "-k",
      "3",
      "--judge",
      "judge-m",
      "--pass-threshold",
      "0.6",
    ]);
    expect(gate.code).toBe(1);
    expect(gate.stdout).toContain("Gate: 6/12 samples passed (50.0%) < threshold 0.6 → failed");
    expect(server.requests.length).toBe(before);
    expectNoSecret(root, first, again, gate);
  });

  it("retries 429 and 500 answers, then succeeds", async () => {
    const root = project("plain.jsonl");
    const wait = { "retry-after-ms": "10" };
    server.queue.push(
      { status: 429, headers: wait, body: { error: { message: "slow down" } } },
      { status: 500, headers: wait, body: { error: { message: "oops" } } },
    );
    const result = await evalModel(root, ["--workers", "1"]);
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(4);
    const rows = readRows(lastRunDir(root));
    expect(rows.map((r) => [r.id, r.status])).toEqual([
      ["france", "passed"],
      ["invoice", "passed"],
    ]);
  });

  it("turns a call that never answers into an error row and completes the run (exit 1)", async () => {
    server.script = (request, index) =>
      lastContent(request).includes("France") ? "hang" : mock(request, index);
    const root = project("plain.jsonl");
    // Long enough for the other call to be answered in time when the machine is loaded.
    const result = await evalModel(root, ["--timeout-seconds", "2", "--max-retries", "0"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/\n1 item passed, 0 failed, 1 errored in /);
    expect(result.stdout).toContain(
      "Gate: 1/2 samples passed (50.0%) < threshold 1.0, and 1 error sample → failed",
    );
    const rows = readRows(lastRunDir(root));
    const france = rows.find((r) => r.id === "france");
    expect(france).toMatchObject({ status: "error", score: 0, text: null });
    expect(france?.error).toContain("timed out after 2s");
    expect(rows.find((r) => r.id === "invoice")?.status).toBe("passed");
    expect(readReport(lastRunDir(root)).stats).toMatchObject({ errors: 1, pass_rate: 0.5 });
  });
});

describe("eb eval run manifest", () => {
  it("fits the end fields into the manifest line even when many model versions come back", async () => {
    server.script = (request, index) => ({
      body: completion(
        ANSWERS[lastContent(request)] ?? "?",
        `mock-version-${index}-${"x".repeat(600)}`,
      ),
    });
    const root = project("plain.jsonl");
    const result = await evalModel(root, ["-k", "5"]);
    expect(result.code).toBe(0);
    const runDir = lastRunDir(root);
    const manifest = manifestOf(runDir);
    expect(manifest.ended_at).toMatch(/^\d{4}-/);
    expect(manifest.interrupted).toBe(false);
    const listed = (manifest.model_versions as string[]).length;
    expect(listed + Number(manifest.versions_not_listed)).toBe(10);
    expect(listed).toBeLessThan(10);
    expect(readReport(runDir).model_versions).toHaveLength(10);
  });
});

describe("eb eval with a command target", () => {
  it("grades a program's stdout without a key; caches it only with --cache", async () => {
    const root = project("plain.jsonl");
    const target = `node ${JSON.stringify(path.join(FIXTURES, "answer-target.mjs"))}`;
    const args = ["eval", "cases.jsonl", "--target", target, "-k", "2", "--out", "out"];
    const env = { OPENAI_API_KEY: "" };
    const plain = await runEb(args, { cwd: root, env });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("pass rate 1.000");
    const rows = readRows(lastRunDir(root, "out"));
    expect(rows).toHaveLength(4);
    expect(rows.every((r) => r.status === "passed" && !r.cached && r.model === target)).toBe(true);
    expect(manifestOf(lastRunDir(root, "out")).target).toEqual({
      kind: "command",
      command: target,
    });
    expect(existsSync(path.join(root, ".eval-banana/cache"))).toBe(false);

    expect((await runEb([...args, "--cache"], { cwd: root, env })).code).toBe(0);
    const cached = await runEb([...args, "--cache"], { cwd: root, env });
    expect(cached.code).toBe(0);
    expect(readRows(lastRunDir(root, "out")).every((r) => r.cached)).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it("records a program that exits non-zero as error rows (exit 1)", async () => {
    const root = project("plain.jsonl");
    const target = `node ${JSON.stringify(path.join(FIXTURES, "crash-target.mjs"))}`;
    const result = await runEb(["eval", "cases.jsonl", "--target", target], { cwd: root });
    expect(result.code).toBe(1);
    const rows = readRows(lastRunDir(root));
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ status: "error", score: 0 });
      expect(row.error).toContain("exited with code 3: fatal: no model file");
    }
  });

  it("runs the quick start from a fresh clone, with one case failing on purpose", async () => {
    const out = makeProject();
    const result = await runEb(
      [
        "eval",
        "examples/quickstart/cases.jsonl",
        "--target",
        "node examples/quickstart/app/answer.mjs",
        "--output-dir",
        out,
      ],
      { cwd: REPO },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      '- refund-002: 0/1 - sample 0: no_amount: found "$", "refund of" in "',
    );
    expect(result.stdout).toMatch(/\n4 items passed, 1 failed, 0 errored in /);
    expect(result.stdout).toContain("Gate: 4/5 samples passed (80.0%) < threshold 1.0 → failed");
  });
});

describe("eb eval refuses to start (exit 2, nothing called)", () => {
  it("reports every bad line of the case file with file:line", async () => {
    const root = project("bad.jsonl");
    const result = await evalModel(root);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("cases.jsonl:3: invalid JSON");
    expect(result.stderr).toContain(
      'cases.jsonl:4: graders[0]: unknown grader type "contians" — did you mean "contains"? Known types:',
    );
    expect(server.requests).toHaveLength(0);
    expect(runDirs(root)).toEqual([]);
  });

  it("needs an API key for -m at api.openai.com, and names both variables", async () => {
    const root = project("plain.jsonl");
    const result = await runEb(["eval", "cases.jsonl", "-m", "mock"], {
      cwd: root,
      env: { EVAL_BANANA_API_KEY: "", OPENAI_API_KEY: "" },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("EVAL_BANANA_API_KEY");
    expect(result.stderr).toContain("OPENAI_API_KEY");
    expect(runDirs(root)).toEqual([]);
  });

  it("a local endpoint (--api-base) needs no key, and is sent none", async () => {
    const root = project("plain.jsonl");
    const result = await evalModel(root, [], { EVAL_BANANA_API_KEY: "", OPENAI_API_KEY: "" });
    expect(result.code, result.stderr).not.toBe(2);
    expect(server.requests.length).toBeGreaterThan(0);
    for (const request of server.requests) expect(request.headers.authorization).toBeUndefined();
  });

  it("needs --judge for judge graders, and the key for the judge of a command target", async () => {
    const root = project();
    const noJudge = await evalModel(root);
    expect(noJudge.code).toBe(2);
    expect(noJudge.stderr).toMatch(
      /cases\.jsonl:3: case "refund-polite" has a judge grader.*--judge/,
    );
    const target = `node ${JSON.stringify(path.join(FIXTURES, "answer-target.mjs"))}`;
    const noKey = await runEb(["eval", "cases.jsonl", "--target", target, "--judge", "judge-m"], {
      cwd: root,
      env: { OPENAI_API_KEY: "" },
    });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('no API key for judge model "judge-m"');
    expect(server.requests).toHaveLength(0);
    expect(runDirs(root)).toEqual([]);
  });

  it("wants a target; -m and --target together are two arms, each checked before any call", async () => {
    const root = project("plain.jsonl");
    const neither = await runEb(["eval", "cases.jsonl"], { cwd: root });
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain("pass -m MODEL");
    const both = await evalModel(root, ["--target", "no-such-program-eb x"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--target "no-such-program-eb x"');
    expect(server.requests).toHaveLength(0);
  });
});

describe("eb eval interrupted", () => {
  it("exits 130 on SIGINT with valid rows and a report marked interrupted", async () => {
    // Four answers, then a server that never answers again.
    server.script = (request, index) => (index < 4 ? mock(request, index) : "hang");
    const lines = Array.from({ length: 20 }, (_, i) =>
      JSON.stringify({
        id: `c${i}`,
        messages: [{ role: "user", content: "What is the capital of France?" }],
        graders: [{ type: "equals", value: "Paris" }],
      }),
    );
    const root = makeProject({ "cases.jsonl": `${lines.join("\n")}\n` });
    const child = spawn(
      process.execPath,
      // --no-cache: the cases are identical, so the cache would answer all but the first two.
      [
        CLI,
        "eval",
        "cases.jsonl",
        "-m",
        "mock",
        "--api-base",
        server.baseURL,
        "--workers",
        "2",
        "--no-cache",
      ],
      { cwd: root, env: { ...cleanEnv(), EVAL_BANANA_API_KEY: KEY } },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    await waitFor(() => server.requests.length >= 6);
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toContain("interrupted");
    const runDir = lastRunDir(root);
    const all = readLines(runDir);
    expect(all[0]).toHaveProperty("manifest.interrupted", true);
    const rows = all.slice(1) as unknown as Row[];
    expect(rows).toHaveLength(4);
    expect(rows.every((r) => r.status === "passed")).toBe(true);
    const report = readReport(runDir);
    expect(report).toMatchObject({ interrupted: true, run_passed: false, samples_planned: 20 });
    expect(report.stats).toMatchObject({ items: 4, samples: 4 });
    expect(readFileSync(path.join(runDir, "report.md"), "utf8")).toContain("| Interrupted | yes");

    // --resume runs only the 16 missing samples and ends as an uninterrupted run would.
    server.script = mock;
    const before = server.requests.length;
    const args = ["cases.jsonl", "-m", "mock", "--api-base", server.baseURL, "--no-cache"];
    const resumed = await runEb(["eval", ...args, "--resume", runDir], {
      cwd: root,
      env: { EVAL_BANANA_API_KEY: KEY },
    });
    expect(resumed.code).toBe(0);
    expect(server.requests.length - before).toBe(16);
    const after = readLines(runDir);
    expect(after[0]).toHaveProperty("manifest.interrupted", false);
    expect(after[0]).toHaveProperty("manifest.resumes", 1);
    const ids = (after.slice(1) as unknown as Row[]).map((r) => r.id).sort();
    expect(ids).toEqual(lines.map((_, i) => `c${i}`).sort());
    expect(readReport(runDir)).toMatchObject({ interrupted: false, run_passed: true });
    expect(readReport(runDir).stats).toMatchObject({ items: 20, samples: 20, pass_rate: 1 });

    const otherK = await runEb(["eval", ...args, "-k", "2", "--resume", runDir], {
      cwd: root,
      env: { EVAL_BANANA_API_KEY: KEY },
    });
    expect(otherK.code).toBe(2);
    expect(otherK.stderr).toContain("k changed");
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
