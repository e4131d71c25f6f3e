import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runChecks } from "../../src/checks/run-checks.js";
import { deterministicYaml, makeProject } from "../helpers/project.js";

// Passes on every other run: a counter file in the project decides.
const ALTERNATING = [
  "import json, sys, pathlib",
  "ctx = json.load(open(sys.argv[1]))",
  "counter = pathlib.Path(ctx['project_root']) / 'count.txt'",
  "n = int(counter.read_text()) if counter.exists() else 0",
  "counter.write_text(str(n + 1))",
  "sys.exit(n % 2)",
].join("\n");

describe("runChecks with several samples", () => {
  it("scores a check by its pass fraction and keeps every sample's files and rows", async () => {
    const project = makeProject({
      "eval_checks/flaky.yaml": deterministicYaml("flaky", ALTERNATING),
      "eval_checks/steady.yaml": deterministicYaml("steady", "print('ok')"),
    });
    const run = await runChecks({
      cwd: project,
      samples: 3,
      flags: { "core.max_parallel_checks": "1" },
    });
    const [flaky, steady] = run.report.checks;
    expect(flaky).toMatchObject({ check_id: "flaky", status: "failed", score: 2 / 3 });
    expect(flaky!.samples!.map((s) => s.status)).toEqual(["passed", "failed", "passed"]);
    expect(steady).toMatchObject({ status: "passed", score: 1 });
    expect(run.report.points_earned).toBeCloseTo(5 / 3);
    expect(run.report.percentage).toBe(83.3);
    expect(run.exitCode).toBe(1);

    const files = readdirSync(path.join(run.runDir, "checks"));
    const flakyFiles = files.filter((f) => f.startsWith("flaky-") && f.endsWith(".json"));
    expect(flakyFiles.map((f) => f.replace(/^flaky-[0-9a-f]{64}/, "")).sort()).toEqual([
      ".json",
      ".sample-0.json",
      ".sample-1.json",
      ".sample-2.json",
    ]);
    const rows = readFileSync(path.join(run.runDir, "rows.jsonl"), "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => JSON.parse(line) as { id: string; sample: number; score: number });
    expect(rows.filter((r) => r.id === "flaky").map((r) => [r.sample, r.score])).toEqual([
      [0, 1],
      [1, 0],
      [2, 1],
    ]);
  });

  it("keeps the seed's shape with one sample: no samples field, integer score", async () => {
    const project = makeProject({ "eval_checks/a.yaml": deterministicYaml("a", "print(1)") });
    const run = await runChecks({ cwd: project });
    expect(run.report.checks[0]).not.toHaveProperty("samples");
    expect(run.report.checks[0]!.score).toBe(1);
  });
});
