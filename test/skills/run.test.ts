import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runEb, sortedRows } from "../helpers/project.js";
import { json, project, type Row, runFolder, skillRun, useJudge } from "./skill-project.js";

const judge = useJudge();

describe("eb skill run", () => {
  it("a fake agent that follows the skill gives a positive uplift with an interval above 0", async () => {
    const { root, env } = project();
    const result = await skillRun(root, env, ["-k", "2"]);
    expect(result.stderr).not.toContain("MaxListeners");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("without_skill: 0/6 samples passed");
    expect(result.stdout).toContain("with_skill: 6/6 samples passed");
    expect(result.stdout).toMatch(/paired delta \+1\.0000 {2}95% CI \[\+0\.\d+, \+1\.0000\]/);
    expect(result.stdout).toContain("The skill helps: yes");
    // The gate names the arms as skill-creator does, not by their run ids.
    expect(result.stdout).toContain("With_skill against the baseline without_skill:");
    expect(result.stdout).toMatch(/paired compare with the baseline without_skill at margin/);
    expect(result.stdout).toContain("Skill not used: 0 of 6 with-skill samples the agent finished");
    const folder = runFolder(root);
    const benchmark = json(path.join(folder, "benchmark.json"));
    expect(benchmark.metadata).toMatchObject({
      skill_name: "banana-report",
      executor_model: "claude",
      analyzer_model: "judge-m",
      evals_run: [0, 1, 2],
      runs_per_configuration: 2,
    });
    const runs = benchmark.runs as Record<string, unknown>[];
    expect(runs).toHaveLength(12);
    expect(runs[0]).toMatchObject({
      eval_id: 0,
      eval_name: "0",
      configuration: "with_skill",
      run_number: 1,
      result: {
        pass_rate: 1,
        passed: 1,
        failed: 0,
        total: 1,
        tokens: 245,
        tool_calls: 2,
        errors: 0,
      },
      expectations: [
        {
          text: "report.txt begins with the line BANANA-SKILL-OK",
          passed: true,
          // The judge's reason, a pass's too.
          evidence: "report.txt starts with the marker",
        },
      ],
      skill_used: true,
    });
    expect(runs.find((r) => r.configuration === "without_skill" && r.eval_id === 1)).toMatchObject({
      result: { pass_rate: 0.5, passed: 1, failed: 1, total: 2 },
      skill_used: null,
      skill_sha256: null,
    });
    const summary = benchmark.run_summary as Record<string, Record<string, unknown>>;
    expect(Object.keys(summary)).toEqual(["with_skill", "without_skill", "delta"]);
    expect(summary.with_skill!.pass_rate).toEqual({ mean: 1, stddev: 0, min: 1, max: 1 });
    expect(Object.keys(summary.without_skill!.time_seconds!)).toEqual([
      "mean",
      "stddev",
      "min",
      "max",
    ]);
    expect(summary.delta).toMatchObject({ pass_rate: "+0.83", tokens: "+0" });
    const comparison = benchmark.comparison as Record<string, unknown>;
    expect(comparison).toMatchObject({
      delta: 1,
      verdict: "pass",
      helps: true,
      does_not_make_worse: true,
    });
    expect(comparison.ci_low).toBeGreaterThan(0);

    const grading = json(path.join(folder, "with_skill/eval-1/run-2/grading.json"));
    expect(Object.keys(grading)).toEqual(
      expect.arrayContaining(["expectations", "summary", "timing", "execution_metrics"]),
    );
    expect(grading.summary).toEqual({ passed: 2, failed: 0, total: 2, pass_rate: 1 });
    expect(grading.expectations).toEqual([
      {
        text: "report.txt begins with the line BANANA-SKILL-OK",
        passed: true,
        evidence: "report.txt starts with the marker",
      },
      {
        text: "The final answer mentions report.txt",
        passed: true,
        evidence: "report.txt starts with the marker",
      },
    ]);
    expect(grading.execution_metrics).toMatchObject({
      total_tool_calls: 2,
      files_created: ["report.txt"],
    });
    const failed = json(path.join(folder, "without_skill/eval-0/run-1/grading.json"));
    expect(failed.expectations).toEqual([
      {
        text: "report.txt begins with the line BANANA-SKILL-OK",
        passed: false,
        evidence: "no marker in report.txt",
      },
    ]);
    // The arms side by side: eb compare's page of both documents.
    const page = readFileSync(path.join(folder, "report.html"), "utf8");
    expect(page).toContain("without_skill");
    expect(page).toContain("with_skill");
    // It leads with the paired gate's verdict, which decides the run, not the threshold's.
    expect(page).toContain("paired compare with the baseline");
    expect(page).not.toContain("≥ threshold");
    // Each sample keeps its transcript and the files the agent wrote.
    expect(
      readFileSync(path.join(folder, "with_skill/eval-0/run-1/outputs/report.txt"), "utf8"),
    ).toMatch(/^BANANA-SKILL-OK/);
    expect(
      readFileSync(path.join(folder, "with_skill/eval-0/run-1/transcript.jsonl"), "utf8"),
    ).toContain('"type":"result"');

    // Both arms are ordinary eb eval run folders; the skill's digest is on every with-skill row.
    const withRows = sortedRows<Row>(path.join(folder, "with_skill"));
    const digest = withRows[0]!.skill.sha256;
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(withRows.every((row) => row.skill.sha256 === digest && row.skill.used === true)).toBe(
      true,
    );
    expect(withRows.every((row) => row.marks["skill used"] === true)).toBe(true);
    expect(
      sortedRows<Row>(path.join(folder, "without_skill")).every((row) => row.skill.sha256 === null),
    ).toBe(true);
    const compare = await runEb([
      "compare",
      path.join(folder, "without_skill"),
      path.join(folder, "with_skill"),
      "--json",
    ]);
    expect(JSON.parse(compare.stdout)).toMatchObject({ delta: 1, verdict: "pass" });

    // Trigger queries: the one about bananas triggers, the other does not.
    expect(result.stdout).toContain("Trigger queries: 2/2 as expected; false triggers 0/2");
    const triggers = json(path.join(folder, "triggers.json"));
    expect(triggers.results).toMatchObject([
      { id: "0", should_trigger: true, triggers: 2, runs: 2, trigger_rate: 1, pass: true },
      { id: "1", should_trigger: false, triggers: 0, runs: 2, trigger_rate: 0, pass: true },
    ]);
    const [first] = triggers.results as { ci_low: number; ci_high: number }[];
    // Wilson at 2/2, 95%: [0.342, 1].
    expect(first!.ci_low).toBeCloseTo(0.3424, 3);
    expect(first!.ci_high).toBe(1);
  });

  it('the same agent told to ignore the skill is "skill not used", a failure, and with --require-use an error', async () => {
    const { root, env } = project();
    const ignored = await skillRun(root, { ...env, FAKE_SKILL_MODE: "ignore" });
    expect(ignored.code).toBe(1);
    expect(ignored.stdout).toContain(
      "Skill not used: 3 of 3 with-skill samples the agent finished (counted as failures)",
    );
    expect(ignored.stdout).toContain("The skill helps: not shown");
    const rows = sortedRows<Row>(path.join(runFolder(root), "with_skill"));
    expect(rows.map((row) => [row.status, row.marks["skill used"], row.skill.used])).toEqual([
      ["failed", false, false],
      ["failed", false, false],
      ["failed", false, false],
    ]);
    expect(rows[0]!.reason).toMatch(/^skill not used: the transcript shows no read or call of it/);
    expect(ignored.stdout).toContain("FAIL should trigger     0/1");

    // The same answers again: every verdict comes from the judge's cache, which both arms share.
    const asked = judge.server.requests.length;
    const required = await skillRun(
      root,
      { ...env, FAKE_SKILL_MODE: "ignore" },
      ["--require-use"],
      "required",
    );
    expect(required.code).toBe(1);
    expect(required.stdout).toContain("--require-use makes them errors");
    expect(judge.server.requests.length).toBe(asked);
    const errors = sortedRows<Row>(path.join(runFolder(root, "required"), "with_skill"));
    expect(errors.every((row) => row.status === "error")).toBe(true);
  });

  it("proves delivery by a call of the Skill tool, and compares two versions with --baseline-skill", async () => {
    const { root, env } = project();
    const old = path.join(root, "old-skill");
    cpSync(path.join(root, "banana-skill"), old, { recursive: true });
    // The old version has no instruction the agent can follow.
    const skillMd = readFileSync(path.join(old, "SKILL.md"), "utf8");
    writeFileSync(path.join(old, "SKILL.md"), skillMd.replace(/^fake-agent: .*$/m, ""));
    const secret = "sk-skill-test-0123456789abcdef";
    const leaky = {
      ...env,
      FAKE_SKILL_MODE: "invoke",
      FAKE_SKILL_LEAK: "1",
      OPENAI_API_KEY: secret,
    };
    const result = await skillRun(root, leaky, ["--baseline-skill", "old-skill"]);
    expect(result.stdout).toContain("old_skill: 0/3 samples passed");
    expect(result.stdout).toContain("with_skill: 3/3 samples passed");
    const folder = runFolder(root);
    const oldRows = sortedRows<Row>(path.join(folder, "old_skill"));
    const newRows = sortedRows<Row>(path.join(folder, "with_skill"));
    expect(oldRows[0]!.skill.sha256).not.toBe(newRows[0]!.skill.sha256);
    expect([...oldRows, ...newRows].every((row) => row.skill.used === true)).toBe(true);
    const benchmark = json(path.join(folder, "benchmark.json"));
    expect(Object.keys(benchmark.run_summary as object)).toEqual([
      "with_skill",
      "old_skill",
      "delta",
    ]);
    // The agent wrote the key into its report: what eb keeps of it has the key masked.
    const kept = readFileSync(
      path.join(folder, "with_skill/eval-0/run-1/outputs/report.txt"),
      "utf8",
    );
    expect(kept).toMatch(/^BANANA-SKILL-OK\nbananas: 12\nkey: \S+/);
    expect(kept).not.toContain(secret);
    expect(readFileSync(path.join(folder, "with_skill/rows.jsonl"), "utf8")).not.toContain(secret);
  });

  it("installs the skill where codex looks and reads its --json events", async () => {
    const { root, env } = project();
    const result = await skillRun(root, env, ["--agent", "codex"]);
    expect(result.stdout).toContain("with_skill: 3/3 samples passed");
    expect(result.stdout).toContain("without_skill: 0/3 samples passed");
    const rows = sortedRows<Row & { prompt_tokens: number }>(
      path.join(runFolder(root), "with_skill"),
    );
    expect(rows[0]).toMatchObject({
      prompt_tokens: 900,
      skill: { used: true, tool_calls: 2, tokens: 960, files: ["report.txt"] },
    });
    // The trigger queries: the banana one makes it cat the skill, the other does not.
    const triggers = json(path.join(runFolder(root), "triggers.json"));
    expect(triggers.results).toMatchObject([{ triggers: 1 }, { triggers: 0 }]);
  });

  it("an agent that fails is an error sample with its reason, not a failure", async () => {
    const { root, env } = project();
    const result = await skillRun(root, { ...env, FAKE_SKILL_MODE: "crash" });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("with_skill: 0/3 samples passed (0.0%), 3 errors");
    const rows = sortedRows<Row & { error: string }>(path.join(runFolder(root), "with_skill"));
    expect(rows[0]).toMatchObject({
      status: "error",
      error: "the agent exited with code 1: API Error: 500 upstream failed",
    });
    // An agent that never ran proves nothing of the skill either way.
    expect(result.stdout).toContain("Skill not used: 0 of 0 with-skill samples the agent finished");
  });

  it("refuses what it cannot run with exit 2 before any agent starts", async () => {
    const { root, env } = project();
    const noJudge = await runEb(
      ["skill", "run", "banana-skill", "--agent", "claude", "--cwd", root],
      { cwd: root, env },
    );
    expect(noJudge.code).toBe(2);
    expect(noJudge.stderr).toContain("pass --judge MODEL");
    const noSkill = await skillRun(root, env, ["--baseline-skill", "bin"]);
    expect(noSkill.code).toBe(2);
    expect(noSkill.stderr).toContain("no SKILL.md");
    const unknown = await runEb(
      ["skill", "run", "banana-skill", "--agent", "klaude", "--judge", "j", "--cwd", root],
      { cwd: root, env },
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown harness agent: klaude");
    const missing = await runEb(
      ["skill", "run", "banana-skill", "--agent", "codex", "--judge", "j", "--cwd", root],
      { cwd: root, env: { PATH: "/nonexistent" } },
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("not found on PATH");
    expect(existsSync(path.join(root, "out"))).toBe(false);
  });
});
