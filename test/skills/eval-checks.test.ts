import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sortedRows, writeFile } from "../helpers/project.js";
import { json, project, type Row, runFolder, skillRun, useJudge } from "./skill-project.js";

useJudge();

const CHECKS = "banana-skill/evals/eval_checks";

describe("eb skill run: the skill's eval_checks/", () => {
  it("runs each deterministic check on each eval sample's workspace; a failing check fails the sample", async () => {
    const { root, env } = project();
    writeFile(
      root,
      `${CHECKS}/report_exists.yaml`,
      [
        "schema_version: 1",
        "id: report_exists",
        "type: deterministic",
        "description: the agent wrote report.txt",
        "script: |",
        "  import json, sys",
        "  from pathlib import Path",
        "  ctx = json.loads(Path(sys.argv[1]).read_text())",
        '  assert (Path(ctx["project_root"]) / "report.txt").exists(), "no report.txt"',
        "",
      ].join("\n"),
    );
    // Tagged eval-2: it runs on eval 2's samples only, and asks for what no agent writes.
    writeFile(
      root,
      `${CHECKS}/scripts/counts.py`,
      [
        "import json, sys",
        "from pathlib import Path",
        "ctx = json.loads(Path(sys.argv[1]).read_text())",
        'report = (Path(ctx["project_root"]) / "report.txt").read_text()',
        'assert "total:" in report, "report.txt has no total: line"',
        "",
      ].join("\n"),
    );
    writeFile(
      root,
      `${CHECKS}/counts.yaml`,
      [
        "schema_version: 1",
        "id: counts",
        "type: deterministic",
        "description: the report states a total",
        "tags: [eval-2]",
        "script_path: scripts/counts.py",
        "",
      ].join("\n"),
    );
    const result = await skillRun(root, env);
    // Eval 2's check fails in both arms; the other evals pass with the skill only.
    expect(result.stdout).toContain("with_skill: 2/3 samples passed");
    expect(result.stdout).toContain("without_skill: 0/3 samples passed");
    const folder = runFolder(root);
    const withRows = sortedRows<Row>(path.join(folder, "with_skill"));
    expect(withRows.map((row) => [row.id, row.status, row.marks])).toEqual([
      ["0", "passed", expect.objectContaining({ "check report_exists": true })],
      ["1", "passed", expect.objectContaining({ "check report_exists": true })],
      [
        "2",
        "failed",
        expect.objectContaining({ "check report_exists": true, "check counts": false }),
      ],
    ]);
    expect(withRows[0]!.marks).not.toHaveProperty("check counts");
    expect(withRows[2]!.reason).toContain("check counts:");
    expect(withRows[2]!.reason).toContain("report.txt has no total: line");
    // The check's verdicts are expectations of grading.json, with their evidence.
    const grading = json(path.join(folder, "with_skill/eval-2/run-1/grading.json"));
    expect(grading.expectations).toEqual(
      expect.arrayContaining([
        { text: "check report_exists", passed: true, evidence: "the check's script exited 0" },
        {
          text: "check counts",
          passed: false,
          evidence: expect.stringContaining("report.txt has no total: line"),
        },
      ]),
    );
    expect(grading.summary).toMatchObject({ passed: 2, failed: 1, total: 3 });
    // The trigger queries are not checked.
    const triggers = sortedRows<Row>(path.join(folder, "triggers"));
    expect(triggers.every((row) => !("check report_exists" in row.marks))).toBe(true);
  });

  it("refuses a check eb cannot run before any agent starts", async () => {
    const { root, env } = project();
    writeFile(
      root,
      `${CHECKS}/broken.yaml`,
      "schema_version: 1\nid: broken\ntype: deterministic\ndescription: x\n",
    );
    const result = await skillRun(root, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("broken.yaml");
    expect(existsSync(path.join(root, "out"))).toBe(false);
  });
});
