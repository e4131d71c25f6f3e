import { readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  deterministicYaml,
  makeProject,
  runEb,
  runFolders,
  writeFile,
} from "../helpers/project.js";

// Passes until a file named "broken" appears in the project.
const FLIP =
  "import json, sys, pathlib\nctx = json.load(open(sys.argv[1]))\nsys.exit(1 if (pathlib.Path(ctx['project_root']) / 'broken').exists() else 0)";

/** A case asking for "42"; the target (shell that starts no program) answers the file "answer". */
const caseLine = (id: string) =>
  `${JSON.stringify({ id, messages: [{ role: "user", content: "6 x 7?" }], graders: [{ type: "equals", value: "42" }] })}\n`;
const TARGET = 'IFS= read -r input || :\nIFS= read -r answer < answer || :\nprintf %s "$answer"\n';

function project(): string {
  return realpathSync(
    makeProject({
      "eval_checks/flip.yaml": deterministicYaml("flip", FLIP),
      "a.jsonl": caseLine("a1") + caseLine("a2"),
      "evals/b.jsonl": caseLine("b1"),
      "answer.sh": TARGET,
      answer: "42",
    }),
  );
}

const RESULTS = ".eval-banana/results";

/** The run folders' names, oldest first. */
function runs(root: string): string[] {
  return runFolders(path.join(root, RESULTS)).map((run) => path.basename(run));
}

async function evalRun(root: string, cases: string, extra: string[] = []) {
  return runEb(["eval", cases, "--target", "sh answer.sh", ...extra], { cwd: root });
}

describe("latest, latest~N", () => {
  it("name the newest run folders for eb report and eb compare", async () => {
    const project = makeProject({ "eval_checks/flip.yaml": deterministicYaml("flip", FLIP) });
    expect((await runEb(["run", "--cwd", project])).code).toBe(0);
    writeFile(project, "broken", "");
    expect((await runEb(["run", "--cwd", project])).code).toBe(1);

    const rate = async (run: string) => {
      const result = await runEb(["report", run, "--json", "--cwd", project]);
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as { pass_rate: number }).pass_rate;
    };
    expect(await rate("latest")).toBe(0);
    expect(await rate("latest~1")).toBe(1);
    const compare = await runEb(["compare", "latest~1", "latest", "--json", "--cwd", project]);
    expect((JSON.parse(compare.stdout) as { delta: number }).delta).toBe(-1);
    expect(compare.code).toBe(1);

    const missing = await runEb(["report", "latest~2", "--cwd", project]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("latest~2: only 2 runs of the suite 'eb run' under");
    expect(missing.stderr).toContain("Name the run by its folder");
  });

  it("count the runs of one suite: eb compare latest~1 latest pairs the newest run with its own suite's", async () => {
    const root = project();
    expect((await runEb(["run"], { cwd: root })).code).toBe(0);
    expect((await evalRun(root, "a.jsonl")).code).toBe(0);
    expect((await evalRun(root, "evals/b.jsonl")).code).toBe(0);
    writeFile(root, "broken", "");
    expect((await runEb(["run"], { cwd: root })).code).toBe(1);
    const [checks1, a1, b1, checks2] = runs(root);
    const manifest = (run: string | undefined) =>
      JSON.parse(readFileSync(path.join(root, RESULTS, run!, "rows.jsonl"), "utf8").split("\n")[0]!)
        .manifest;
    expect([checks1, a1, b1, checks2].map((run) => manifest(run).suite)).toEqual([
      "eb run",
      "eb eval a.jsonl",
      "eb eval evals/b.jsonl",
      "eb run",
    ]);

    // The checks: the newest run is one, and latest~1 the check run before it.
    const checks = await runEb(["compare", "latest~1", "latest", "--json"], { cwd: root });
    expect(checks.code, checks.stderr).toBe(1);
    expect(JSON.parse(checks.stdout)).toMatchObject({ delta: -1, n: 1 });

    // Two case files: a.jsonl's runs pair with each other, past the b.jsonl run between them.
    writeFile(root, "answer", "41");
    expect((await evalRun(root, "a.jsonl")).code).toBe(1);
    const cases = await runEb(["compare", "latest~1", "latest", "--json"], { cwd: root });
    expect(cases.code, cases.stderr).toBe(1);
    expect(JSON.parse(cases.stdout)).toMatchObject({ delta: -1, n: 2 });
    // A run named by its folder names the suite of latest beside it: the newest check run.
    const named = await runEb(["compare", path.join(RESULTS, checks1!), "latest", "--json"], {
      cwd: root,
    });
    expect(named.code, named.stderr).toBe(1);
    expect(JSON.parse(named.stdout)).toMatchObject({ delta: -1, n: 1 });
    // A leaderboard of the newest three runs of a.jsonl's suite has only two.
    const board = await runEb(["report", "latest~2", "latest~1", "latest"], { cwd: root });
    expect(board.code).toBe(2);
    expect(board.stderr).toContain(
      "latest~2: only 2 runs of the suite 'eb eval a.jsonl' under " +
        `${path.join(root, RESULTS)}; other suites there: 'eb run' (2 runs), 'eb eval evals/b.jsonl' (1 run). ` +
        `Name the run by its folder (${path.join(root, RESULTS, "<run_id>")}`,
    );
  }, 120_000);

  it("eb eval CASES --baseline latest is the newest finished run of CASES' suite", async () => {
    const root = project();
    expect((await evalRun(root, "a.jsonl")).code).toBe(0);
    expect((await evalRun(root, "evals/b.jsonl")).code).toBe(0);
    expect((await runEb(["run"], { cwd: root })).code).toBe(0);
    const [a1] = runs(root);

    writeFile(root, "answer", "41");
    const gated = await evalRun(root, "a.jsonl", ["--baseline", "latest"]);
    expect(gated.code, gated.stderr).toBe(1);
    expect(gated.stdout).toContain(`Compared with the baseline ${path.join(root, RESULTS, a1!)}:`);
    expect(gated.stdout).toContain(`Gate: paired compare with the baseline ${a1} at margin 0.02`);

    // No finished run of this suite yet: the error says so, and what there is.
    writeFile(root, "c.jsonl", caseLine("c1"));
    const none = await evalRun(root, "c.jsonl", ["--baseline", "latest"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("latest: no finished runs of the suite 'eb eval c.jsonl' under");
    expect(none.stderr).toContain("'eb eval a.jsonl' (2 runs)");
  }, 120_000);
});
