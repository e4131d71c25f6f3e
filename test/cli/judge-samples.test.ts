import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  completion,
  type LoopbackServer,
  lastContent,
  startLoopbackServer,
} from "../helpers/loopback-server.js";
import { makeProject, runEb, sortedRows, writeFile } from "../helpers/project.js";

const CASES = ["alpha", "beta", "gamma"].map((word) =>
  JSON.stringify({
    id: word,
    messages: [{ role: "user", content: word }],
    graders: [{ type: "judge", criteria: ["The answer is good."] }],
  }),
);

interface Row {
  id: string;
  sample: number;
  status: string;
  reason: string | null;
  marks: Record<string, boolean>;
  votes?: Record<string, number[]>;
}

let server: LoopbackServer;
let judgeCalls: number;

/**
 * The target answers "good: <word>" on its first call for a word and "bad: <word>" on the next;
 * the judge always fails a bad answer, and passes a good one on two calls of every three.
 */
beforeEach(async () => {
  judgeCalls = 0;
  const seen = new Map<string, number>();
  server = await startLoopbackServer((request) => {
    const content = lastContent(request);
    const n = seen.get(content) ?? 0;
    seen.set(content, n + 1);
    if ((request.json as { model?: string }).model !== "judge-m") {
      return { body: completion(`${n === 0 ? "good" : "bad"}: ${content}`) };
    }
    judgeCalls++;
    if (content.includes("bad: ")) return { body: completion('{"score": 0, "reason": "bad"}') };
    // delta's good answer passes every other call: two verdicts on it tie.
    if (content.includes("good: delta")) {
      return { body: completion(n % 2 === 1 ? '{"score": 0, "reason": "meh"}' : '{"score": 1}') };
    }
    return { body: completion(n % 3 === 2 ? '{"score": 0, "reason": "meh"}' : '{"score": 1}') };
  });
});
afterEach(async () => {
  await server.close();
});

function evalRun(root: string, out: string, extra: readonly string[] = []) {
  const args = ["eval", "cases.jsonl", "-m", "m", "--api-base", server.baseURL, "-k", "2"];
  return runEb([...args, "--judge", "judge-m", "--out", path.join(root, out), ...extra], {
    cwd: root,
  });
}

const rowsOf = (runDir: string) => sortedRows<Row>(runDir);

const reportOf = (runDir: string) =>
  JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8")) as {
    judge_samples: number;
    summary: { judges: unknown[] };
  };

describe("eb eval --judge-samples", () => {
  it("asks each judge grader J times, marks the majority, and reports the judge's noise", async () => {
    const root = makeProject({ "cases.jsonl": `${CASES.join("\n")}\n` });
    const run = await evalRun(root, "run", ["--judge-samples", "3", "--flat-output"]);
    expect(run.code).toBe(1);
    // Per case: three verdicts on the good answer, three on the bad one.
    expect(judgeCalls).toBe(18);
    const rows = rowsOf(path.join(root, "run"));
    for (const row of rows.filter((r) => r.sample === 0)) {
      expect([...(row.votes?.judge ?? [])].sort()).toEqual([0, 1, 1]);
      expect(row.status).toBe("passed");
      expect(row.marks).toEqual({ judge: true });
    }
    for (const row of rows.filter((r) => r.sample === 1)) {
      expect(row.votes).toEqual({ judge: [0, 0, 0] });
      expect(row.reason).toBe("judge: 3 of 3 verdicts failed: bad");
    }
    const report = reportOf(path.join(root, "run"));
    expect(report.judge_samples).toBe(3);
    // Hand-computed: within an answer 1/3 (good) and 0 (bad) → 1/6; across an item's answers
    // (2/3 and 0) 2/9, less (1/6)/3 → 1/6.
    const [judge] = report.summary.judges as Record<string, number>[];
    expect(judge?.grader).toBe("judge");
    expect(judge?.answers).toBe(6);
    expect(judge?.self_agreement).toBeCloseTo(2 / 3, 12);
    expect(judge?.judge_variance).toBeCloseTo(1 / 6, 12);
    expect(judge?.model_variance).toBeCloseTo(1 / 6, 12);
    expect(run.stdout).toContain(
      "judge judge                 agrees with itself 66.7% over 6 answers × 3 verdicts; variance model 0.167, judge 0.167",
    );
    const markdown = readFileSync(path.join(root, "run", "report.md"), "utf8");
    expect(markdown).toContain("### Judge noise");
    const page = readFileSync(path.join(root, "run", "report.html"), "utf8");
    expect(page).toContain("judge judge: agrees with itself 66.7% over 6 answers");

    // Each verdict is its own cache entry: a second run calls nothing and says the same.
    const again = await evalRun(root, "again", ["--judge-samples", "3", "--flat-output"]);
    expect(again.code).toBe(1);
    expect(judgeCalls).toBe(18);
    expect(reportOf(path.join(root, "again")).summary.judges).toEqual(report.summary.judges);
  });

  it("by default asks once: no votes, no noise reported, and the verdicts are the first ones cached", async () => {
    const root = makeProject({ "cases.jsonl": `${CASES.join("\n")}\n` });
    const run = await evalRun(root, "run", ["--flat-output"]);
    expect(run.code).toBe(1);
    expect(judgeCalls).toBe(6);
    const rows = rowsOf(path.join(root, "run"));
    expect(rows.every((r) => r.votes === undefined)).toBe(true);
    expect(rows.map((r) => r.status)).toEqual([
      "passed",
      "failed",
      "passed",
      "failed",
      "passed",
      "failed",
    ]);
    expect(reportOf(path.join(root, "run")).summary.judges).toEqual([]);
    // Asked for three, the cached first verdict is reused and two more are asked per answer.
    const more = await evalRun(root, "more", ["--judge-samples", "3", "--flat-output"]);
    expect(more.code).toBe(1);
    expect(judgeCalls).toBe(18);
  });

  it("fails a tie, takes [eval] judge_samples from the config, and asks at --judge-temperature", async () => {
    const delta = CASES[0]?.replaceAll("alpha", "delta");
    const root = makeProject({
      "cases.jsonl": `${delta}\n${CASES[1]}\n`,
      ".eval-banana/config.toml": "[eval]\njudge_samples = 2\n",
    });
    const run = await evalRun(root, "run", [
      "-k",
      "1",
      "--judge-temperature",
      "0.5",
      "--flat-output",
    ]);
    expect(run.code).toBe(1);
    const judged = server.requests.map((r) => r.json as { model: string; temperature: number });
    expect(
      judged.filter((body) => body.model === "judge-m").map((body) => body.temperature),
    ).toEqual([0.5, 0.5, 0.5, 0.5]);
    const [beta, tied] = rowsOf(path.join(root, "run"));
    expect([...(tied?.votes?.judge ?? [])].sort()).toEqual([0, 1]);
    expect(tied?.status).toBe("failed");
    expect(tied?.reason).toBe("judge: 1 of 2 verdicts failed: meh");
    expect(beta?.votes?.judge).toEqual([1, 1]);
    expect(beta?.status).toBe("passed");
    expect(reportOf(path.join(root, "run"))).toMatchObject({
      judge_samples: 2,
      judge_temperature: 0.5,
    });
  });
});

describe("eb run --samples on a harness_judge check", () => {
  it("reports the check's self-agreement across its samples", async () => {
    const agent = [
      'import { mkdirSync } from "node:fs";',
      "// Each run takes the next free slot, so runs side by side count apart: pass, pass, fail.",
      "let slot = 0;",
      "for (;; slot++) {",
      "  try { mkdirSync('slots/' + slot); break; } catch {}",
      "}",
      'console.log(slot % 3 === 2 ? \'{"score": 0, "reason": "unsure"}\' : \'{"score": 1}\');',
      "",
    ].join("\n");
    const root = makeProject({
      "flip.mjs": agent,
      "slots/.keep": "",
      "eval_checks/judge.yaml":
        "schema_version: 1\nid: judged\ntype: harness_judge\ndescription: d\ninstructions: Read README.md.\n",
      "README.md": "hello\n",
    });
    writeFile(
      root,
      ".eval-banana/config.toml",
      `[harness]\nagent = "flip"\n[agents.flip]\ncommand = ["${process.execPath}", "${path.join(root, "flip.mjs")}"]\n`,
    );
    const run = await runEb(["run", "--cwd", root, "--samples", "3"], { cwd: root });
    expect(run.stderr).toBe("");
    expect(readdirSync(path.join(root, "slots")).sort()).toEqual([".keep", "0", "1", "2"]);
    // Two of three verdicts pass: two verdicts agree 1/3 of the time.
    expect(run.stdout).toContain(
      "judge judged                agrees with itself 33.3% over 1 answer × 3 verdicts; variance judge 0.333",
    );
  });
});
