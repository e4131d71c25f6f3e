import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startLoopbackServer } from "../helpers/loopback-server.js";
import { runEb, sortedRows } from "../helpers/project.js";
import { json, project, type Row, runFolder, skillRun, useJudge } from "./skill-project.js";

useJudge();

/** Keeps the manifest line and the first `rows` sample rows of an arm: a run cut short. */
function cut(armDir: string, rows: number): void {
  const file = path.join(armDir, "rows.jsonl");
  const lines = readFileSync(file, "utf8").trimEnd().split("\n");
  writeFileSync(file, `${lines.slice(0, rows + 1).join("\n")}\n`);
}

describe("eb skill run --resume", () => {
  it("finishes both arms and the trigger queries where their rows end", async () => {
    const { root, env } = project();
    const first = await skillRun(root, env, ["-k", "2"]);
    expect(first.code).toBe(0);
    const folder = runFolder(root);
    // An interrupt left 2 of 6 samples without the skill, 5 with it, and no trigger run.
    cut(path.join(folder, "without_skill"), 2);
    cut(path.join(folder, "with_skill"), 5);
    rmSync(path.join(folder, "triggers"), { recursive: true });
    rmSync(path.join(folder, "benchmark.json"));
    const resumed = await skillRun(root, env, ["-k", "2", "--resume", folder]);
    expect(resumed.stderr).not.toContain("Error");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(`Skill run folder: ${folder}`);
    expect(resumed.stdout).toContain("without_skill: 0/6 samples passed");
    expect(resumed.stdout).toContain("with_skill: 6/6 samples passed");
    // 6 rows per arm: the kept ones are not run again (they would be 8 and 11), the cut ones are.
    for (const arm of ["without_skill", "with_skill"]) {
      expect(sortedRows<Row>(path.join(folder, arm))).toHaveLength(6);
      expect(json(path.join(folder, arm, "report.json")).run).toMatchObject({ resumes: 1 });
    }
    expect(sortedRows<Row>(path.join(folder, "triggers"))).toHaveLength(4);
    expect(existsSync(path.join(folder, "benchmark.json"))).toBe(true);
    // Other settings are another run: refused.
    const again = await skillRun(root, env, ["-k", "3", "--resume", folder], "other");
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("k changed");
    const notSkillRun = await skillRun(root, env, ["--resume", path.join(root, "bin")]);
    expect(notSkillRun.code).toBe(2);
    expect(notSkillRun.stderr).toContain("not a skill run's folder");
  });

  it("a --sequential run replays its draws from the rows and goes on to the verdict", async () => {
    const { root, env } = project();
    const flags = ["--sequential", "--max-k", "20", "--seed", "3"];
    const first = await skillRun(root, env, flags);
    expect(first.code).toBe(0);
    const folder = runFolder(root);
    const drawsOf = () => {
      const report = json(path.join(folder, "with_skill", "report.json"));
      return (report.compare as { sequential: { draws: number } }).sequential.draws;
    };
    const draws = drawsOf();
    cut(path.join(folder, "without_skill"), 3);
    cut(path.join(folder, "with_skill"), 4);
    const resumed = await skillRun(root, env, [...flags, "--resume", folder]);
    expect(resumed.code).toBe(0);
    // The same seed and outcomes: the same draws, so the verdict rests on as many as before
    // (the rows may differ by the samples in flight when it was known).
    expect(drawsOf()).toBe(draws);
    expect(sortedRows<Row>(path.join(folder, "with_skill")).length).toBeGreaterThanOrEqual(draws);
    expect(json(path.join(folder, "benchmark.json")).comparison).toMatchObject({ verdict: "pass" });
  });

  it("a run stopped by a refused key says how to resume the whole skill run", async () => {
    const { root, env } = project();
    const refusing = await startLoopbackServer(() => ({
      status: 401,
      body: { error: { message: "bad key" } },
    }));
    try {
      const args = ["skill", "run", "banana-skill", "--agent", "claude", "--judge", "judge-m"];
      const result = await runEb(
        [...args, "--api-base", refusing.baseURL, "--out", "out", "--cwd", root],
        { cwd: root, env, timeoutMs: 120_000 },
      );
      expect(result.code).not.toBe(0);
      const folder = runFolder(root);
      expect(result.stderr).toContain(`--resume ${folder} `);
      expect(result.stderr).not.toContain(`--resume ${path.join(folder, "with_skill")}`);
      expect(result.stderr).not.toContain(`--resume ${path.join(folder, "without_skill")}`);
    } finally {
      await refusing.close();
    }
  });
});
