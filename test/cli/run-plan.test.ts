import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { deterministicYaml, makeProject, runEb, writeFile } from "../helpers/project.js";

/** An agent that counts its runs in runs/ (one file each) and passes. */
const AGENT = [
  'import { mkdirSync } from "node:fs";',
  "for (let slot = 0; ; slot++) {",
  "  try { mkdirSync('runs/' + slot); break; } catch {}",
  "}",
  "console.log('{\"score\": 1}');",
  "",
].join("\n");

const judgeYaml = (id: string) =>
  `schema_version: 1\nid: ${id}\ntype: harness_judge\ndescription: d\ninstructions: Say pass.\n`;

/** Three judge checks, one script check, and the counting agent as `counter`, model judge-m. */
function judgedProject(pricing: string): string {
  const root = makeProject({
    "counter.mjs": AGENT,
    "runs/.keep": "",
    "eval_checks/a.yaml": judgeYaml("judge_a"),
    "eval_checks/b.yaml": judgeYaml("judge_b"),
    "eval_checks/c.yaml": judgeYaml("judge_c"),
    "eval_checks/d.yaml": deterministicYaml("script_d", "print('ok')"),
  });
  const agent = `[agents.counter]\ncommand = ["${process.execPath}", "${path.join(root, "counter.mjs")}"]`;
  writeFile(
    root,
    ".eval-banana/config.toml",
    `[harness]\nagent = "counter"\nmodel = "judge-m"\n${agent}\n${pricing}`,
  );
  return root;
}

const agentRuns = (root: string) => readdirSync(path.join(root, "runs")).length - 1;

describe("eb run --dry-run", () => {
  it("says what would run, which agent and model judge, the runs and their cost; runs nothing", async () => {
    const root = judgedProject('[pricing."judge-m"]\nper_run = 0.5\n');
    const run = await runEb(["run", "--dry-run", "--samples", "2"], { cwd: root });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Dry run of eb run: nothing was run.");
    expect(run.stdout).toContain("Checks: 4 checks × 2 samples: 8 samples to run");
    expect(run.stdout).toContain("  judge_a (harness_judge)");
    expect(run.stdout).toContain("  script_d (deterministic)");
    expect(run.stdout).toContain("Harness judges: 3 checks, 6 agent runs");
    expect(run.stdout).toContain("counter, model judge-m: 6 runs of 3 checks; est. $3.0000");
    expect(run.stdout).toContain("Estimated cost: $3.0000");
    expect(agentRuns(root)).toBe(0);
    expect(existsSync(path.join(root, ".eval-banana", "results"))).toBe(false);
  });

  it("says a judge's cost is unknown, and why, rather than guess", async () => {
    const root = judgedProject("");
    const run = await runEb(["run", "--dry-run"], { cwd: root });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('cost unknown: no [pricing."judge-m"] per_run');
    expect(run.stdout).toContain("Estimated cost: unknown");
  });
  it("says where eb run would stop: a judge agent whose program is not there", async () => {
    const root = makeProject({ "eval_checks/a.yaml": judgeYaml("judge_a") });
    writeFile(root, ".eval-banana/config.toml", '[harness]\nagent = "codex"\n');
    const env = { PATH: path.dirname(process.execPath) };
    const run = await runEb(["run", "--dry-run"], { cwd: root, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("  codex, model gpt-5.6-sol: 1 run of 1 check; cost unknown");
    expect(run.stdout).toContain(
      "    eb run would stop here (exit 2): Harness agent 'codex' runs 'codex', which was not found on PATH.",
    );
  });

  it("writes no result file: --result-out is refused", async () => {
    const root = judgedProject("");
    const run = await runEb(["run", "--dry-run", "--result-out", "result.md"], { cwd: root });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--dry-run runs nothing, so it writes no result file");
  });
});

describe("eb run --max-cost", () => {
  it("starts no judge run past the cap: the run ends budget_exceeded, exit 1", async () => {
    const root = judgedProject('[pricing."judge-m"]\nper_run = 0.5\n');
    const run = await runEb(["run", "--max-cost", "1.2", "--max-parallel-checks", "1", "--json"], {
      cwd: root,
    });
    expect(run.code).toBe(1);
    expect(agentRuns(root)).toBe(2);
    const report = JSON.parse(run.stdout) as {
      verdict: { outcome: string };
      budget: { max_cost: number; spent: number };
      items_not_run: number;
      output_dir: string;
    };
    expect(report.verdict.outcome).toBe("budget_exhausted");
    expect(report.budget).toEqual({ max_cost: 1.2, spent: 1 });
    // The script check costs nothing and still runs; one judge does not.
    expect(report.items_not_run).toBe(1);
    // The manifest says so too: eb report reads the run's verdict back from it.
    const manifest = readFileSync(path.join(report.output_dir, "rows.jsonl"), "utf8").split(
      "\n",
    )[0]!;
    expect(JSON.parse(manifest)).toMatchObject({ manifest: { budget_exceeded: true } });

    // What finishing it would run: the one judge run it does not have.
    const plan = await runEb(["run", "--dry-run", "--resume", report.output_dir], { cwd: root });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(
      `Finishing ${report.output_dir}: only the samples it does not have`,
    );
    expect(plan.stdout).toContain("Checks: 4 checks × 1 sample: 1 sample to run");
    expect(plan.stdout).toContain("counter, model judge-m: 1 run of 3 checks; est. $0.5000");
    expect(agentRuns(root)).toBe(2);

    const resumed = await runEb(
      ["run", "--resume", report.output_dir, "--max-cost", "2", "--json"],
      { cwd: root },
    );
    expect(resumed.code).toBe(0);
    expect(agentRuns(root)).toBe(3);
    const finished = JSON.parse(resumed.stdout) as typeof report;
    expect(finished.verdict.outcome).toBe("passed");
    // The earlier attempt's two judge runs count against the cap too.
    expect(finished.budget).toEqual({ max_cost: 2, spent: 1.5 });
  });

  it("refuses a judge with no price before anything runs (exit 2)", async () => {
    const root = judgedProject("");
    const run = await runEb(["run", "--max-cost", "5"], { cwd: root });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "--max-cost needs a price for every judge run, and 3 have none: check 'judge_a': no [pricing.\"judge-m\"] per_run",
    );
    expect(agentRuns(root)).toBe(0);
  });

  it("is read from EVAL_BANANA_MAX_COST, the variable of eb eval's --max-cost too", async () => {
    const root = judgedProject("");
    const run = await runEb(["run"], { cwd: root, env: { EVAL_BANANA_MAX_COST: "5" } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--max-cost needs a price for every judge run");
  });
});

describe("--out and --output-dir", () => {
  it("eb run takes --out as --output-dir, and eb merge --output-dir as --out", async () => {
    const root = makeProject({ "eval_checks/a.yaml": deterministicYaml("a", "print('ok')") });
    const shards = [];
    for (const shard of ["1/2", "2/2"]) {
      const run = await runEb(["run", "--shard", shard, "--out", `shard-${shard[0]}`], {
        cwd: root,
      });
      expect(run.stderr).toBe("");
      const [folder] = readdirSync(path.join(root, `shard-${shard[0]}`));
      shards.push(path.join(root, `shard-${shard[0]}`, folder!));
    }
    const merged = await runEb(["merge", ...shards, "--output-dir", "merged", "--flat-output"], {
      cwd: root,
    });
    expect(merged.stderr).toBe("");
    expect(merged.code).toBe(0);
    expect(readFileSync(path.join(root, "merged", "rows.jsonl"), "utf8")).toContain('"id":"a"');
  });

  it("refuses --out and --output-dir that disagree", async () => {
    const root = makeProject({ "eval_checks/a.yaml": deterministicYaml("a", "print('ok')") });
    const run = await runEb(["run", "--out", "x", "--output-dir", "y"], { cwd: root });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--out is another name for --output-dir: pass one of them");
  });
});

describe("--pass-threshold", () => {
  it("is EVAL_BANANA_PASS_THRESHOLD in eb eval as in eb run; the old eb eval name is refused", async () => {
    const root = makeProject({
      "cases.jsonl": `${JSON.stringify({ id: "c", messages: [{ role: "user", content: "q" }], graders: [{ type: "equals", value: "yes" }] })}\n`,
      "app.mjs": 'process.stdout.write("no");\n',
    });
    const args = ["eval", "cases.jsonl", "--target", "node app.mjs"];
    const gated = await runEb(args, { cwd: root, env: { EVAL_BANANA_PASS_THRESHOLD: "0" } });
    expect(gated.code).toBe(0);
    const old = await runEb(args, { cwd: root, env: { EVAL_BANANA_EVAL_PASS_THRESHOLD: "0" } });
    expect(old.code).toBe(2);
    expect(old.stderr).toContain(
      "EVAL_BANANA_EVAL_PASS_THRESHOLD is no longer read: --pass-threshold is one setting in every command",
    );
  });
});
