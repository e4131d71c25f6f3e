/**
 * Words that match the numbers, through the CLI: every count says what it counts (items or
 * samples), and one thing is "1 item", never "1 items".
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { deterministicYaml, makeProject, newestRun, runEb } from "../helpers/project.js";

describe("counts that say what they count", () => {
  it("eb run closes with the items by outcome, report.md says the same", async () => {
    const root = makeProject({
      "eval_checks/ok.yaml": deterministicYaml("ok", 'print("fine")'),
      "eval_checks/bad.yaml": deterministicYaml("bad", 'assert False, "no"'),
    });
    const run = await runEb(["run"], { cwd: root });
    expect(run.code).toBe(1);
    // The items, then the gate's samples under them.
    expect(run.stdout).toMatch(/\n1 item passed, 1 failed, 0 errored in \S+ s\nGate: 1\/2 samples/);
    const markdown = readFileSync(
      path.join(newestRun(path.join(root, ".eval-banana/results")), "report.md"),
      "utf8",
    );
    expect(markdown).toContain("| Items | 1 item passed, 1 failed, 0 errored |");
  });

  it("one item is an item: eb report's strata, eb compare's strata, broke and fixed", async () => {
    const cases = ["a", "b"].map((id) =>
      JSON.stringify({
        id,
        stratum: `s-${id}`,
        messages: [{ role: "user", content: id }],
        graders: [{ type: "equals", value: "yes" }],
      }),
    );
    const root = makeProject({
      "cases.jsonl": `${cases.join("\n")}\n`,
      // Breaks case b when BREAK is set.
      "app.mjs":
        'let s = ""; for await (const c of process.stdin) s += c;\n' +
        "const { id } = JSON.parse(s);\n" +
        'process.stdout.write(process.env.BREAK && id === "b" ? "no" : "yes");\n',
    });
    const evalRun = (out: string, env: NodeJS.ProcessEnv = {}) =>
      runEb(["eval", "cases.jsonl", "--target", "node app.mjs", "--out", out, "--flat-output"], {
        cwd: root,
        env,
      });
    expect((await evalRun("base")).code).toBe(0);
    expect((await evalRun("cand", { BREAK: "1" })).code).toBe(1);

    const report = await runEb(["report", "cand"], { cwd: root });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/^ {2}s-a\s+1\.000 \[\S+, \S+\] {2}1 item$/m);
    expect(report.stdout).toContain("flaky 0 of 2 items");
    // A grader's failures are samples, and say so.
    expect(report.stdout).toMatch(/^ {2}grader equals +failed 1 sample$/m);
    expect(report.stdout).not.toMatch(/\b1 items\b/);

    const compare = await runEb(["compare", "base", "cand"], { cwd: root });
    expect(compare.stdout).toContain("broke 1 item: b");
    expect(compare.stdout).toContain("fixed 0 items");
    expect(compare.stdout).toMatch(/^ {2}s-b: -1\.0000 \[\S+, \S+\] \(1 item\)/m);
    expect(compare.stdout).not.toMatch(/\b1 items\b/);
  });
});
