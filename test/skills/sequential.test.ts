import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sortedRows } from "../helpers/project.js";
import { json, project, type Row, runFolder, skillRun, useJudge } from "./skill-project.js";

useJudge();

describe("eb skill run --sequential", () => {
  it("samples both arms until the uplift's verdict is known, with time, tokens and cost per arm", async () => {
    const { root, env } = project();
    // Both the agent's model and the judge's priced: the arms' cost is known.
    writeFileSync(
      path.join(root, ".eval-banana/config.toml"),
      [
        '[pricing."claude-fake-5"]',
        "input_per_mtok = 3",
        "output_per_mtok = 15",
        '[pricing."judge-m"]',
        "input_per_mtok = 1",
        "output_per_mtok = 1",
        "",
      ].join("\n"),
    );
    const result = await skillRun(root, env, [
      "--sequential",
      "--max-k",
      "20",
      "--seed",
      "3",
      "-m",
      "claude-fake-5",
    ]);
    expect(result.stderr).not.toContain("MaxListeners");
    expect(result.code).toBe(0);
    const folder = runFolder(root);
    const without = sortedRows<Row>(path.join(folder, "without_skill"));
    const withSkill = sortedRows<Row>(path.join(folder, "with_skill"));
    // Paired draws: each step one sample of an eval in each arm, far fewer than the cap's 60.
    expect(withSkill.length).toBe(without.length);
    expect(withSkill.length).toBeGreaterThan(0);
    expect(withSkill.length).toBeLessThan(60);
    expect(result.stdout).toMatch(/sequential/i);
    const benchmark = json(path.join(folder, "benchmark.json"));
    const comparison = benchmark.comparison as Record<string, unknown>;
    expect(comparison).toMatchObject({ verdict: "pass", sequential: { reason: "decided" } });
    // Stopped at "not worse": the confidence sequence, not the fixed-k interval, says "helps".
    expect(result.stdout).toContain("The skill helps: not shown");
    expect(result.stdout).toContain("--sequential stops once the gate's verdict is known");
    // Time, tokens and cost per arm: skill-creator's figures and eb's cost, in both outputs.
    const summary = benchmark.run_summary as Record<string, Record<string, unknown>>;
    expect(summary.with_skill!.tokens).toEqual({ mean: 245, stddev: 0, min: 245, max: 245 });
    expect(summary.with_skill!.cost_usd).toBeGreaterThan(0);
    expect(result.stdout).toMatch(
      /with_skill: \d+\/\d+ samples passed[^\n]*\n {2}per sample: \d+\.\d ± \d+\.\d s, 245 ± 0 tokens \(245–245\); the arm cost \$\d+\.\d{4}/,
    );
    const report = json(path.join(folder, "with_skill/report.json"));
    expect(report.samples_planned).toBe(withSkill.length);
  });

  it("stops at --max-cost, inconclusive, and refuses -k and an agent model without a price", async () => {
    const { root, env } = project();
    writeFileSync(
      path.join(root, ".eval-banana/config.toml"),
      ['[pricing."claude-fake-5"]', "input_per_mtok = 1000", "output_per_mtok = 1000", ""].join(
        "\n",
      ),
    );
    // No price for the judge's model: --max-cost cannot meter it.
    const unpriced = await skillRun(root, env, [
      "--sequential",
      "--max-cost",
      "0.5",
      "-m",
      "claude-fake-5",
    ]);
    expect(unpriced.code).toBe(2);
    expect(unpriced.stderr).toContain('--max-cost needs a price for "judge-m"');
    writeFileSync(
      path.join(root, ".eval-banana/config.toml"),
      [
        '[pricing."claude-fake-5"]',
        "input_per_mtok = 1000",
        "output_per_mtok = 1000",
        '[pricing."judge-m"]',
        "input_per_mtok = 0",
        "output_per_mtok = 0",
        "",
      ].join("\n"),
    );
    // One agent sample costs 245 tokens × $1000/Mtok ≈ $0.245: the samples the first draws
    // started (one per eval and arm: the window is the 3 evals) pass the cap, and none more.
    const capped = await skillRun(
      root,
      env,
      ["--sequential", "--max-cost", "0.5", "-m", "claude-fake-5"],
      "capped",
    );
    expect(capped.stdout).toContain("stopped undecided: the budget");
    expect(capped.code).toBe(1);
    const folder = runFolder(root, "capped");
    const benchmark = json(path.join(folder, "benchmark.json"));
    expect(benchmark.comparison).toMatchObject({ verdict: "inconclusive" });
    const rows = [
      ...sortedRows<Row>(path.join(folder, "without_skill")),
      ...sortedRows<Row>(path.join(folder, "with_skill")),
    ];
    expect(rows.length).toBe(6);
    const report = json(path.join(folder, "with_skill/report.json"));
    expect(report.budget).toMatchObject({ max_cost: 0.5 });

    const both = await skillRun(root, env, ["--sequential", "-k", "2"], "both");
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("-k: a sequential run draws its samples");
    const noSeq = await skillRun(root, env, ["--max-k", "3"], "noseq");
    expect(noSeq.code).toBe(2);
    expect(noSeq.stderr).toContain("--max-k sets a --sequential run");
  });
});
