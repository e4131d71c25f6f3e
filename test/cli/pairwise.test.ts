import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { pairwiseReportSchema } from "../../src/pairwise/report.js";
import type { PageData } from "../../src/render/html/model.js";
import { rowsLineSchema } from "../../src/report/record.js";
import {
  completion,
  type LoopbackServer,
  lastContent,
  type Script,
  type SeenRequest,
  startLoopbackServer,
} from "../helpers/loopback-server.js";
import { CLI, cleanEnv, deterministicYaml, runEb, writeFile } from "../helpers/project.js";
import { artifact, HAS_CHROMIUM, launchBrowser } from "../html/browser.js";

/**
 * Two finished case runs of six cases (eb eval against a loopback target): "good" answers every
 * case with the right number, "bad" with a wrong one. Judges of known behaviour, behind the same
 * loopback endpoint, then judge the pairs.
 */
const CASES = [
  ["add", "math", "What is 40 + 2?"],
  ["mul", "math", "What is 6 * 7?"],
  ["sub", "math", "What is 50 - 8?"],
  ["answer", "trivia", "What is the answer to everything?"],
  ["jersey", "trivia", "Which number did the hitchhiker wear?"],
  ["pages", "trivia", "How many pages are in the guide's intro?"],
] as const;

const RIGHT = "The answer is 42.";
const WRONG = "The answer is 41.";
const CRITERION = "Gives the number 42 (criterion-from-grader)";

const caseFile = `${CASES.map(([id, stratum, question]) =>
  JSON.stringify({
    id,
    stratum,
    messages: [{ role: "user", content: question }],
    graders: [
      { type: "contains", all: ["42"] },
      { type: "judge", criteria: [CRITERION] },
    ],
  }),
).join("\n")}\n`;

type JudgeKind = "first" | "fair" | "broken" | "mute";

/** The two answers a pairwise prompt shows, A first. */
function shownAnswers(prompt: string): { a: string; b: string } {
  const a = /ANSWER A:\n([\s\S]*?)\n\nANSWER B:/.exec(prompt)?.[1] ?? "";
  const b = /ANSWER B:\n([\s\S]*?)\n\nCRITERIA:/.exec(prompt)?.[1] ?? "";
  return { a, b };
}

function winner(winner: string, reason: string) {
  return {
    body: completion(`Thinking.\n{"winner": "${winner}", "reason": "${reason}"}`, "j-2026"),
  };
}

/** The judges: by the model each request names. */
const JUDGES: Record<JudgeKind, Script> = {
  // Always the answer shown first, whatever it says.
  first: () => winner("A", "the first one reads better"),
  // The answer with the right number, wherever it is shown; a tie when both or neither have it.
  fair: (request) => {
    const { a, b } = shownAnswers(lastContent(request));
    if (a.includes("42") === b.includes("42")) return winner("tie", "the same");
    return winner(a.includes("42") ? "A" : "B", "it has 42");
  },
  broken: () => ({ status: 400, body: { error: { message: "judge is down" } } }),
  mute: () => ({ body: completion("I would rather not say.", "j-2026") }),
};

/** While set, the judge never answers about this request (an interrupt test). */
let hangOn: string | null = null;

const script: Script = (request) => {
  const model = (request.json as { model?: string }).model ?? "";
  if (hangOn !== null && lastContent(request).includes(hangOn)) return "hang";
  if (model === "score-judge") return { body: completion('{"score": 1, "reason": "ok"}') };
  if (model === "good" || model === "bad") {
    return { body: completion(model === "good" ? RIGHT : WRONG, `${model}-2026`) };
  }
  // Right on the math cases (their questions hold digits), wrong on the trivia ones.
  if (model === "mixed") {
    const right = /\d/.test(lastContent(request));
    return { body: completion(right ? RIGHT : WRONG, "mixed-2026") };
  }
  const judge = JUDGES[model as JudgeKind];
  return judge ? judge(request, 0) : { status: 404, body: { error: { message: "no model" } } };
};

let server: LoopbackServer;
let root: string;
let good: string;
let bad: string;
let mixed: string;

function runsOf(output: string): string {
  const dir = path.join(root, output);
  const [name] = readdirSync(dir);
  return path.join(dir, name!);
}

beforeAll(async () => {
  server = await startLoopbackServer(script);
  root = mkdtempSync(path.join(os.tmpdir(), "eb-pairwise-"));
  // A price for the fair judge, for --max-cost, on output tokens only: a pair is estimated at
  // 2 × 200 tokens ($0.40) whatever its prompts, and a loopback call (7 tokens out) costs $0.007.
  writeFile(
    root,
    ".eval-banana/config.toml",
    '[pricing."fair"]\ninput_per_mtok = 0.0\noutput_per_mtok = 1000.0\n',
  );
  writeFile(root, "cases.jsonl", caseFile);
  for (const model of ["good", "bad", "mixed"]) {
    const result = await runEb(
      [
        ...["eval", "cases.jsonl", "-m", model, "--judge", "score-judge"],
        ...["--api-base", server.baseURL, "--out", `runs-${model}`],
      ],
      { cwd: root },
    );
    expect(result.stderr).not.toMatch(/error:|errors [1-9]/);
  }
  good = runsOf("runs-good");
  bad = runsOf("runs-bad");
  mixed = runsOf("runs-mixed");
}, 60_000);

afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

let outputs = 0;
beforeEach(() => {
  server.requests.length = 0;
});

/** `eb pairwise BASE CAND --judge JUDGE`, into a fresh output folder; the run folder it wrote. */
async function pairwise(base: string, cand: string, judge: string, extra: readonly string[] = []) {
  const out = path.join(root, `pairwise-${++outputs}`);
  const result = await runEb(
    [
      ...["pairwise", base, cand, "--judge", judge, "--api-base", server.baseURL],
      ...["--out", out, "--flat-output", ...extra],
    ],
    { cwd: root },
  );
  const report = existsSync(path.join(out, "report.json"))
    ? (JSON.parse(readFileSync(path.join(out, "report.json"), "utf8")) as Record<string, unknown>)
    : null;
  return { ...result, out, report };
}

function rowsOf(out: string): Record<string, unknown>[] {
  const lines = readFileSync(path.join(out, "rows.jsonl"), "utf8").trim().split("\n");
  return lines.slice(1).map((line) => JSON.parse(line) as Record<string, unknown>);
}

function judgePrompts(requests: readonly SeenRequest[]): string[] {
  return requests.map(lastContent).filter((content) => content.includes("ANSWER A:"));
}

describe("eb pairwise: judges of known behaviour", () => {
  it("a judge that always picks position A: every pair inconsistent, no win, the gate does not pass", async () => {
    const run = await pairwise(bad, good, "first");
    expect(run.code).toBe(1);
    expect(run.report).toMatchObject({
      wins: 0,
      losses: 0,
      ties: 0,
      inconsistent: 6,
      pairs: 6,
      consistency: 0,
      position_bias: 1,
      verdict: "inconclusive",
    });
    expect(run.stdout).toContain("INCONCLUSIVE");
    expect(run.stdout).toContain("follows the answers' positions");
    // Both orders were asked of every pair.
    expect(judgePrompts(server.requests)).toHaveLength(12);
  });

  it("a judge that picks the better answer whatever its position: consistency 1, wins, pass", async () => {
    const run = await pairwise(bad, good, "fair");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.report).toMatchObject({
      wins: 6,
      losses: 0,
      inconsistent: 0,
      consistency: 1,
      position_bias: 0.5,
      net_win_rate: 1,
      verdict: "pass",
      run_passed: true,
    });
    // Six items that all win: Tango's lower bound at no loss is (n − z²) / (n + z²) = 0.2193.
    const z2 = 1.959963984540054 ** 2;
    expect(run.report?.ci_low).toBeCloseTo((6 - z2) / (6 + z2), 6);
    expect(run.report).toMatchObject({ order_effect: 1 });
    expect(run.stdout).toMatch(/net win rate \+1\.0000 {2}95% CI \[\+0\.2193, \+1\.0000\]/);
    expect(run.stdout).toContain("6 wins, 0 ties, 0 losses, 0 inconsistent");
    expect(run.stdout).toContain("by stratum");
    expect(run.stdout).toMatch(/ {2}math: \+1\.0000 .*\(3 cases; 3 wins/);
    expect(run.stdout).toContain("PASS");
    const rows = rowsOf(run.out);
    expect(rows).toHaveLength(6);
    expect(rows[0]).toMatchObject({
      status: "passed",
      score: 1,
      outcome: "win",
      baseline_first: { winner: "B", reason: "it has 42" },
      candidate_first: { winner: "A", reason: "it has 42" },
      model: "fair",
    });
    // What the run wrote is what `eb schema report` and `eb schema rows` describe.
    expect(pairwiseReportSchema.safeParse(run.report).error).toBeUndefined();
    const lines = readFileSync(path.join(run.out, "rows.jsonl"), "utf8").trim().split("\n");
    for (const line of lines)
      expect(rowsLineSchema.safeParse(JSON.parse(line)).error).toBeUndefined();
    for (const file of ["report.md", "report.html"]) {
      expect(existsSync(path.join(run.out, file))).toBe(true);
    }
    expect(readFileSync(path.join(run.out, "report.md"), "utf8")).toContain("| `add` | `math` |");
  });

  it("the same answers on both sides: consistent ties, inconclusive", async () => {
    const run = await pairwise(good, good, "fair");
    expect(run.code).toBe(1);
    expect(run.report).toMatchObject({
      ties: 6,
      inconsistent: 0,
      consistency: 1,
      position_bias: null,
      net_win_rate: 0,
      verdict: "inconclusive",
    });
  });

  it("a worse candidate is a regression; --inconclusive pass does not pass it", async () => {
    const run = await pairwise(good, bad, "fair", ["--inconclusive", "pass"]);
    expect(run.code).toBe(1);
    expect(run.report).toMatchObject({ losses: 6, net_win_rate: -1, verdict: "regression" });
    expect(run.report?.ci_high).toBeLessThan(-0.02);
    expect(run.stdout).toContain("REGRESSION");
  });

  it("--inconclusive pass makes an inconclusive gate exit 0", async () => {
    const run = await pairwise(good, good, "fair", ["--inconclusive", "pass"]);
    expect(run.report?.verdict).toBe("inconclusive");
    expect(run.code).toBe(0);
  });
});

describe.skipIf(!HAS_CHROMIUM)("eb pairwise: report.html", () => {
  it("leads with the verdict; shows the net win rate, its interval and the counts, per stratum too", async () => {
    const run = await pairwise(bad, good, "fair");
    const browser = await launchBrowser();
    try {
      const { page, requests, errors } = await browser.open(path.join(run.out, "report.html"));
      const text = (selector: string) =>
        page.$$eval(selector, (nodes) => nodes.map((node) => node.textContent ?? ""));
      expect(await text("[data-test='verdict']")).toEqual(["PASSED"]);
      // Tango's lower bound for six cases that all win: (6 − z²) / (6 + z²) = 0.2193.
      expect((await text("[data-test='rule']"))[0]).toBe(
        "net win rate +1.0000, 95% CI [+0.2193, +1.0000] over 6 cases, margin 0.02 → pass",
      );
      expect(await text("[data-test='pair-verdict']")).toEqual(["PASS"]);
      expect(await text("[data-test='net-win-rate']")).toEqual(["+1.000"]);
      expect((await text(".hero .ci"))[0]).toContain("95% CI [+0.219, +1.000] over 6 cases");
      expect(await text(".stat .label")).toEqual(
        expect.arrayContaining(["wins", "inconsistent", "consistency", "position bias"]),
      );
      expect(await text(".chart-row .name")).toEqual(["math", "trivia"]);
      expect([...requests, ...errors]).toEqual([]);
      await page.screenshot({ path: artifact("pairwise"), fullPage: true });
    } finally {
      await browser.close();
    }
  });

  it("wins, ties and losses apart (a tie is no failure), and what the verdicts say of position", async () => {
    // Both right on math (ties), the candidate wrong on trivia (losses).
    const run = await pairwise(good, mixed, "fair");
    expect(run.report).toMatchObject({ wins: 0, ties: 3, losses: 3, inconsistent: 0 });
    // The page's document says how each pair came out: a tie and a loss both fail, so no status can.
    const html = readFileSync(path.join(run.out, "report.html"), "utf8");
    const json = /<script type="application\/json" id="eb-data">(.*?)<\/script>/s.exec(html)![1]!;
    const { items } = (JSON.parse(json) as PageData).runs[0]!.doc;
    expect(items.map((item) => `${item.id} ${item.outcomes.map((o) => o.pair)}`)).toEqual([
      "answer loss",
      "jersey loss",
      "pages loss",
      "add tie",
      "mul tie",
      "sub tie",
    ]);
    const browser = await launchBrowser();
    try {
      const { page, requests, errors } = await browser.open(path.join(run.out, "report.html"));
      const text = (selector: string) =>
        page.$$eval(selector, (nodes) => nodes.map((node) => node.textContent ?? ""));
      expect(await text("[data-test='verdict']")).toEqual(["INCONCLUSIVE"]);
      const counts = await text("[data-test='pair-counts'] .stat");
      expect(counts.map((stat) => stat.replace(/[a-z ]+$/, ""))).toEqual([
        "wins0",
        "ties3",
        "losses3",
        "inconsistent0",
        "errors0",
      ]);
      expect((await text("[data-test='position-note']"))[0]).toMatch(
        /^Of the verdicts that named a winner, 50\.0% named the answer shown first \(50% is none\): no marked preference/,
      );
      // Items worst first: the losses, then the ties, each said as such and not as a failure.
      expect(await text("table.items tbody td.id")).toEqual([
        "answer",
        "jersey",
        "pages",
        "add",
        "mul",
        "sub",
      ]);
      const pills = await text("table.items tbody [data-test='pairs']");
      expect(pills).toEqual(["▼ loss", "▼ loss", "▼ loss", "= tie", "= tie", "= tie"]);
      expect(await text("table.items tbody .pill.fail")).toEqual(["▼ loss", "▼ loss", "▼ loss"]);
      await page.click("button[data-filter='tie']");
      expect(await text("table.items tbody td.id")).toEqual(["add", "mul", "sub"]);
      expect([...requests, ...errors]).toEqual([]);
      await page.click("tr[data-id='add']");
      await page.screenshot({ path: artifact("pairwise-ties") });
    } finally {
      await browser.close();
    }
  });
});

describe("eb pairwise: criteria, output, cache and errors", () => {
  it("judges on the case's judge graders' criteria, or on --criteria instead", async () => {
    await pairwise(bad, good, "fair", ["--no-cache"]);
    const fromGraders = judgePrompts(server.requests);
    expect(fromGraders).toHaveLength(12);
    for (const prompt of fromGraders) expect(prompt).toContain(`CRITERIA:\n- ${CRITERION}`);
    server.requests.length = 0;
    await pairwise(bad, good, "fair", ["--no-cache", "--criteria", "Polite (criterion-flag)"]);
    const fromFlag = judgePrompts(server.requests);
    expect(fromFlag).toHaveLength(12);
    for (const prompt of fromFlag) {
      expect(prompt).toContain("CRITERIA:\n- Polite (criterion-flag)");
      expect(prompt).not.toContain("criterion-from-grader");
      const questions: readonly string[] = CASES.map(([, , question]) => question);
      expect(questions).toContain(/REQUEST:\n(.*)\n/.exec(prompt)?.[1]);
    }
  });

  it("--cases: a case with no judge grader is judged on the default criterion, with a warning that the file changed", async () => {
    const plain = CASES.map(([id, stratum, question]) =>
      JSON.stringify({
        id,
        stratum,
        messages: [{ role: "user", content: question }],
        graders: [{ type: "contains", all: ["42"] }],
      }),
    );
    writeFile(root, "plain.jsonl", `${plain.join("\n")}\n`);
    const run = await pairwise(bad, good, "fair", ["--no-cache", "--cases", "plain.jsonl"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("the case file differs from the one the baseline ran");
    expect(judgePrompts(server.requests)).toHaveLength(12);
    for (const prompt of judgePrompts(server.requests)) {
      expect(prompt).toContain("CRITERIA:\n- The answer does what the request asks");
    }
  });

  it("--json prints the documented field names", async () => {
    const run = await pairwise(bad, good, "fair", ["--json"]);
    const json = JSON.parse(run.stdout) as Record<string, unknown>;
    for (const field of [
      "wins",
      "ties",
      "losses",
      "inconsistent",
      "net_win_rate",
      "ci_low",
      "ci_high",
      "consistency",
      "position_bias",
      "verdict",
    ]) {
      expect(json).toHaveProperty(field);
    }
    expect(json).toMatchObject({ wins: 6, verdict: "pass", consistency: 1 });
    expect((json.strata as { stratum: string }[]).map((s) => s.stratum)).toEqual([
      "math",
      "trivia",
    ]);
  });

  it("a second run of the same pairs is answered from the cache: no judge call", async () => {
    const cacheDir = path.join(root, "pairwise-cache");
    const first = await pairwise(bad, good, "fair", ["--cache-dir", cacheDir]);
    expect(judgePrompts(server.requests)).toHaveLength(12);
    server.requests.length = 0;
    const second = await pairwise(bad, good, "fair", ["--cache-dir", cacheDir]);
    expect(server.requests).toHaveLength(0);
    expect(second.report).toMatchObject({ wins: 6, verdict: "pass" });
    expect(rowsOf(second.out).every((row) => row.cached === true)).toBe(true);
    expect(rowsOf(first.out).some((row) => row.cached === true)).toBe(false);
  });

  it("a failing judge call is an error row, not a crash, and the gate does not pass", async () => {
    const run = await pairwise(bad, good, "broken", ["--no-cache", "--max-retries", "0"]);
    expect(run.code).toBe(1);
    expect(run.report).toMatchObject({ errors: 6, pairs: 0, verdict: "inconclusive" });
    const rows = rowsOf(run.out);
    expect(rows.every((row) => row.status === "error" && row.outcome === null)).toBe(true);
    expect(String(rows[0]?.error)).toContain("the judge call failed");
  });

  it("a sample the baseline has no answer for is an error row; the judge is not asked", async () => {
    const made = await runEb(
      [
        ...["eval", "cases.jsonl", "-m", "down", "--judge", "score-judge"],
        ...["--api-base", server.baseURL, "--out", "runs-down"],
      ],
      { cwd: root },
    );
    expect(made.code).toBe(1);
    server.requests.length = 0;
    const run = await pairwise(runsOf("runs-down"), good, "fair");
    expect(run.report).toMatchObject({ errors: 6, pairs: 0, verdict: "inconclusive" });
    const [row] = rowsOf(run.out);
    expect(String(row?.error)).toMatch(/^the baseline's sample 0 is an error row \(.+\)$/);
    expect(row).toMatchObject({ status: "error", baseline_first: { winner: null } });
    expect(server.requests).toHaveLength(0);
  });

  it("--max-cost stops judging; the gate does not pass; --resume with a higher cap finishes", async () => {
    // One pair at a time: the fifth would bring the spend ($0.014 a pair) plus its estimate
    // past $0.45.
    const capped = ["--no-cache", "--workers", "1", "--max-cost", "0.45"];
    const run = await pairwise(bad, good, "fair", capped);
    expect(run.code).toBe(1);
    expect(run.report).toMatchObject({
      budget_exceeded: true,
      budget: { max_cost: 0.45, spent: expect.closeTo(0.056, 6) },
      verdict: "inconclusive",
    });
    expect(rowsOf(run.out)).toHaveLength(4);
    expect(run.stdout).toContain("--max-cost left pairs unjudged");
    const args = ["pairwise", bad, good, "--judge", "fair", "--api-base", server.baseURL];
    const more = ["--no-cache", "--max-cost", "100", "--resume", run.out];
    const resumed = await runEb([...args, ...more], { cwd: root });
    expect(resumed.code).toBe(0);
    const report = JSON.parse(readFileSync(path.join(run.out, "report.json"), "utf8")) as object;
    expect(report).toMatchObject({ wins: 6, budget_exceeded: false, verdict: "pass" });
  });

  it("an answer with no verdict is an error row that quotes it", async () => {
    const run = await pairwise(bad, good, "mute", ["--no-cache"]);
    expect(run.code).toBe(1);
    expect(String(rowsOf(run.out)[0]?.error)).toContain("I would rather not say.");
  });
});

/**
 * Runs eb with these arguments while the judge holds the "pages" case, stops it by SIGINT once
 * the 5 other pairs are rows in `out`, and returns its stderr.
 */
async function interrupted(args: readonly string[], out: string): Promise<string> {
  hangOn = "How many pages";
  const child = spawn(process.execPath, [CLI, ...args], { cwd: root, env: cleanEnv() });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  await waitFor(() => existsSync(path.join(out, "rows.jsonl")) && rowsOf(out).length === 5);
  child.kill("SIGINT");
  expect(await exited).toBe(130);
  hangOn = null;
  return stderr;
}

describe("eb pairwise: resume and bad input", () => {
  it("a run folder that is not a case run is an input error", async () => {
    const checks = path.join(root, "checks-project");
    writeFile(checks, ".eval-banana/config.toml", "");
    writeFile(checks, "eval_checks/ok.yaml", deterministicYaml("ok", "print('fine')"));
    const checkRun = path.join(checks, "check-run");
    const made = await runEb(["run", "--output-dir", checkRun, "--flat-output"], { cwd: checks });
    expect(made.code).toBe(0);
    const run = await pairwise(checkRun, good, "fair");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("is a run of eb run, not a case run");
    expect(server.requests).toHaveLength(0);
  });

  it("runs with no case in common are an input error", async () => {
    const other = path.join(root, "other.jsonl");
    writeFileSync(
      other,
      `${JSON.stringify({ id: "lonely", messages: [{ role: "user", content: "Hi" }], graders: [{ type: "contains", all: ["42"] }] })}\n`,
    );
    const made = await runEb(
      ["eval", other, "-m", "good", "--api-base", server.baseURL, "--out", "runs-other"],
      { cwd: root },
    );
    expect(made.code).toBe(0);
    server.requests.length = 0;
    const run = await pairwise(runsOf("runs-other"), good, "fair");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("share no case");
    expect(server.requests).toHaveLength(0);
  });

  it("--resume of a finished run judges nothing again; another judge is refused", async () => {
    const run = await pairwise(bad, good, "fair");
    server.requests.length = 0;
    const args = ["pairwise", bad, good, "--api-base", server.baseURL, "--resume", run.out];
    const resumed = await runEb([...args, "--judge", "fair"], { cwd: root });
    expect(resumed.code).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(rowsOf(run.out)).toHaveLength(6);
    const other = await runEb([...args, "--judge", "first"], { cwd: root });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain("judge_model changed");
  });

  it("an interrupted run keeps the pairs judged; --resume judges only the rest", async () => {
    const out = path.join(root, "pairwise-interrupted");
    const args = ["pairwise", bad, good, "--judge", "fair", "--api-base", server.baseURL];
    const stderr = await interrupted([...args, "--out", out, "--flat-output", "--no-cache"], out);
    expect(stderr).toContain("--resume");
    expect(rowsOf(out).map((row) => row.id)).not.toContain("pages");
    server.requests.length = 0;
    const resumed = await runEb([...args, "--no-cache", "--resume", out], { cwd: root });
    expect(resumed.code).toBe(0);
    expect(judgePrompts(server.requests)).toHaveLength(2);
    const report = JSON.parse(readFileSync(path.join(out, "report.json"), "utf8")) as object;
    expect(report).toMatchObject({ wins: 6, interrupted: false, verdict: "pass" });
  });

  it("--resume gates as the run started: --inconclusive pass is kept", async () => {
    const out = path.join(root, "pairwise-interrupted-gate");
    const args = ["pairwise", good, good, "--judge", "fair", "--api-base", server.baseURL];
    const flags = ["--out", out, "--flat-output", "--no-cache", "--inconclusive", "pass"];
    await interrupted([...args, ...flags], out);
    const resumed = await runEb([...args, "--no-cache", "--resume", out], { cwd: root });
    const report = JSON.parse(readFileSync(path.join(out, "report.json"), "utf8")) as object;
    expect(report).toMatchObject({ ties: 6, interrupted: false, verdict: "inconclusive" });
    expect(resumed.code, resumed.stdout).toBe(0);
  });

  it("a case file that cannot be found is an input error naming --cases", async () => {
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), "eb-pairwise-moved-"));
    try {
      writeFile(elsewhere, ".eval-banana/config.toml", "");
      writeFile(elsewhere, "moved.jsonl", caseFile);
      const args = ["eval", "moved.jsonl", "-m", "good", "--judge", "score-judge"];
      const made = await runEb([...args, "--api-base", server.baseURL, "--out", "runs"], {
        cwd: elsewhere,
      });
      expect(made.code).toBe(0);
      rmSync(path.join(elsewhere, "moved.jsonl"));
      const [name] = readdirSync(path.join(elsewhere, "runs"));
      const runDir = path.join(elsewhere, "runs", name!);
      const result = await runEb(
        ["pairwise", runDir, runDir, "--judge", "fair", "--api-base", server.baseURL],
        { cwd: elsewhere },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("case file moved.jsonl is in none of");
      expect(result.stderr).toContain("--cases FILE");
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("no judge model is an input error", async () => {
    const result = await runEb(["pairwise", bad, good, "--api-base", server.baseURL], {
      cwd: root,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("pass --judge MODEL");
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
