import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  deterministicYaml,
  makeProject,
  rightCases,
  runEb,
  writeFile,
} from "../helpers/project.js";

/**
 * A --target program: answers "right" to every case, "wrong" to one whose id starts with
 * "wrong" (or to all of them once a file named "broken" is in the project), "wrong" to the
 * first sample of a "flaky" case, and crashes on a "crash" case.
 */
const TARGET = `
IFS= read -r input || true
id=\${input#*'"id":"'}
id=\${id%%'"'*}
sample=\${input##*'"sample":'}
sample=\${sample%'}'}
case $id in crash*) exit 3 ;; esac
if [ -e broken ]; then printf wrong; exit 0; fi
case $id in
  wrong*) printf wrong ;;
  flaky*) if [ "$sample" = 0 ]; then printf wrong; else printf right; fi ;;
  *) printf right ;;
esac
`;

function ids(count: number, prefix = "c"): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${i}`);
}

function casesProject(caseIds: readonly string[], config = ""): string {
  return makeProject({
    ".eval-banana/config.toml": config,
    "cases.jsonl": rightCases(caseIds),
    "app.sh": TARGET,
  });
}

function evalIn(root: string, extra: readonly string[] = []) {
  return runEb(["eval", "cases.jsonl", "--target", "sh app.sh", ...extra], { cwd: root });
}

function runFolders(root: string): string[] {
  const dir = path.join(root, ".eval-banana/results");
  return existsSync(dir) ? readdirSync(dir).map((name) => path.join(dir, name)) : [];
}

function lastLines(stdout: string, count: number): string[] {
  return stdout.trimEnd().split("\n").slice(-count);
}

const COUNTS = /^\d+ items? passed, \d+ failed, \d+ errored in \d+\.\d+ s$/;

describe("eb eval: one gate with eb run", () => {
  it("fails a run with a failing sample by default (exit 1); a lower threshold passes it", async () => {
    const root = casesProject([...ids(3), "wrong0"]);
    const strict = await evalIn(root);
    expect(strict.code, strict.stderr).toBe(1);
    const [counts, gate] = lastLines(strict.stdout, 2);
    expect(counts).toMatch(/^3 items passed, 1 failed, 0 errored in \d+\.\d\d s$/);
    expect(gate).toBe("Gate: 3/4 samples passed (75.0%) < threshold 1.0 → failed");
    const report = JSON.parse(readFileSync(path.join(runFolders(root)[0]!, "report.json"), "utf8"));
    expect(report).toMatchObject({ pass_threshold: 1, meets_threshold: false, run_passed: false });

    const lenient = await evalIn(root, ["--pass-threshold", "0.75"]);
    expect(lenient.code, lenient.stderr).toBe(0);
    expect(lastLines(lenient.stdout, 1)[0]).toBe(
      "Gate: 3/4 samples passed (75.0%) ≥ threshold 0.75, no error samples → passed",
    );
  });

  it("takes [eval] pass_threshold from the config, as [core] pass_threshold is for eb run", async () => {
    const root = casesProject([...ids(1), "wrong0"], "[eval]\npass_threshold = 0.5\n");
    const result = await evalIn(root);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Gate: 1/2 samples passed (50.0%) ≥ threshold 0.5");
  });

  it("an error sample fails the run whatever the threshold", async () => {
    const root = casesProject([...ids(2), "crash0"]);
    const result = await evalIn(root, ["--pass-threshold", "0"]);
    expect(result.code, result.stderr).toBe(1);
    expect(lastLines(result.stdout, 2)).toEqual([
      expect.stringMatching(/^2 items passed, 0 failed, 1 errored in /),
      "Gate: 2/3 samples passed (66.7%) ≥ threshold 0.0, but 1 error sample → failed",
    ]);
  });

  it("a small suite gets the counts, not the interval block; 10 items or k > 1 bring it back", async () => {
    const small = casesProject([...ids(2), "wrong0"]);
    const brief = await evalIn(small);
    expect(brief.stdout).not.toContain("95% CI");
    expect(brief.stdout).not.toMatch(/^items \d+/m);
    expect(brief.stdout).toContain(
      '- wrong0: 0/1 - sample 0: equals: expected "right", got "wrong"',
    );
    expect(lastLines(brief.stdout, 2)[0]).toMatch(COUNTS);

    const sampled = casesProject(["flaky0", "c0"]);
    const flaky = await evalIn(sampled, ["-k", "5"]);
    expect(flaky.stdout).toMatch(/^pass rate 0\.900 {2}95% CI/m);
    expect(flaky.stdout).toContain(
      "flaky 1 of 2 items scored strictly between 0 and 1: flaky0 (4/5)",
    );
    expect(flaky.stdout).toContain(
      '- flaky0: 4/5 - sample 0: equals: expected "right", got "wrong"',
    );
    expect(flaky.stdout).toMatch(/\n1 item passed, 1 failed, 0 errored in .*\nGate: 9\/10 samples/);

    const ten = casesProject(ids(10));
    const wide = await evalIn(ten);
    expect(wide.code).toBe(0);
    expect(wide.stdout).toMatch(/^pass rate 1\.000 {2}95% CI \[0\.\d{3}, 1\.000\]/m);
    expect(lastLines(wide.stdout, 2)).toEqual([
      expect.stringMatching(/^10 items passed, 0 failed, 0 errored in /),
      "Gate: 10/10 samples passed (100.0%) ≥ threshold 1.0, no error samples → passed",
    ]);
  });
});

describe("eb eval --baseline RUN: run and compare in one step", () => {
  it("exits with the compare's verdict: pass, regression, inconclusive", async () => {
    const root = casesProject(ids(20));
    expect((await evalIn(root)).code).toBe(0);
    const [baseline] = runFolders(root);

    // 20 of 20 passing in both runs: enough to rule out a drop of 0.25, not one of 0.02.
    const pass = await evalIn(root, ["--baseline", baseline!, "--margin", "0.25"]);
    expect(pass.code, pass.stderr).toBe(0);
    expect(pass.stdout).toContain(`Compared with the baseline ${baseline}:`);
    expect(pass.stdout).toContain("PASS: the candidate is not worse");
    expect(pass.stdout.match(/^Gate: /gm)).toHaveLength(1);
    expect(lastLines(pass.stdout, 1)[0]).toBe(
      `Gate: paired compare with the baseline ${path.basename(baseline!)} at margin 0.25 → pass on these 20 cases → passed`,
    );

    // One sample per case shows nothing of a case's own noise: on these cases, more samples
    // would tell; on cases like these (--scope population), more cases.
    const unsure = await evalIn(root, ["--baseline", baseline!]);
    expect(unsure.code).toBe(1);
    expect(unsure.stdout).toContain("INCONCLUSIVE");
    expect(unsure.stdout).toContain("more samples per case narrow it");
    expect(lastLines(unsure.stdout, 1)[0]).toBe(
      `Gate: paired compare with the baseline ${path.basename(baseline!)} at margin 0.02 → inconclusive on these 20 cases (--inconclusive pass would accept it) → failed`,
    );
    const population = await evalIn(root, ["--baseline", baseline!, "--scope", "population"]);
    expect(population.code).toBe(1);
    expect(population.stdout).toMatch(
      /to tell a drop of 0\.02 from no change, a suite like this one needs about \d[\d,]* items \(it has 20;/,
    );
    expect(lastLines(population.stdout, 1)[0]).toContain("→ inconclusive on cases like these 20 (");
    const accepted = await evalIn(root, ["--baseline", baseline!, "--inconclusive", "pass"]);
    expect(accepted.code).toBe(0);
    expect(lastLines(accepted.stdout, 1)[0]).toContain(
      "→ inconclusive on these 20 cases (--inconclusive pass) → passed",
    );

    writeFile(root, "broken", "");
    const worse = await evalIn(root, ["--baseline", baseline!, "--margin", "0.25"]);
    expect(worse.code).toBe(1);
    expect(worse.stdout).toContain("broke 20 items");
    expect(lastLines(worse.stdout, 1)[0]).toContain("→ regression on these 20 cases → failed");
  });

  it("latest is the newest run before this one", async () => {
    const root = casesProject(ids(20));
    expect((await evalIn(root)).code).toBe(0);
    // Two runs in one second have ids that need not sort in the order they ran.
    const [first] = runFolders(root);
    writeFile(root, "broken", "");
    // Were latest resolved after the run, the run would be compared with itself and pass.
    const result = await evalIn(root, ["--baseline", "latest", "--margin", "0.25"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("REGRESSION");
    expect(result.stdout).toContain(`Compared with the baseline ${first}:`);
  });

  it("refuses a bad baseline or a second gate before anything runs (exit 2)", async () => {
    const root = casesProject(ids(2));
    const missing = await evalIn(root, ["--baseline", "nope"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope: no such run folder or rows file");
    const none = await evalIn(root, ["--baseline", "latest"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("latest: no run folders under");
    const stray = await evalIn(root, ["--margin", "0.1"]);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain("--margin sets the compare of --baseline RUN");
    const scope = await evalIn(root, ["--scope", "population"]);
    expect(scope.code).toBe(2);
    expect(scope.stderr).toContain("--scope sets the compare of --baseline RUN");
    expect(runFolders(root)).toEqual([]);

    expect((await evalIn(root)).code).toBe(0);
    const [baseline] = runFolders(root);
    const both = await evalIn(root, ["--baseline", baseline!, "--pass-threshold", "0.5"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--baseline and --pass-threshold are two gates");
    const margin = await evalIn(root, ["--baseline", baseline!, "--margin", "lots"]);
    expect(margin.code).toBe(2);
    expect(margin.stderr).toContain("--margin lots: expected a number between 0 and 1");
    expect(runFolders(root)).toHaveLength(1);
  });

  it("a baseline sharing no case with the run is exit 2 after the run", async () => {
    const root = casesProject(ids(2, "old"));
    expect((await evalIn(root)).code).toBe(0);
    const [baseline] = runFolders(root);
    writeFileSync(path.join(root, "cases.jsonl"), rightCases(ids(2, "new")));
    const result = await evalIn(root, ["--baseline", baseline!]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("the runs share no item, so there is nothing to compare");
    expect(result.stderr).toContain("2 item(s): old0, old1");
    expect(result.stderr).toContain("2 item(s): new0, new1");
  });
});

describe("eb run: the same closing lines", () => {
  it("keeps the Python original's first lines, then counts, duration and the gate", async () => {
    const project = makeProject({
      "eval_checks/a.yaml": deterministicYaml("a", "pass"),
      "eval_checks/b.yaml": deterministicYaml("b", "pass"),
      "eval_checks/c.yaml": deterministicYaml("c", "raise SystemExit('no')"),
    });
    const result = await runEb(["run", "--cwd", project]);
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines.slice(0, 4)).toEqual([
      expect.stringMatching(/^Run ID: \d{8}_\d{6}_[0-9a-f]{8}$/),
      "Score: 2/3",
      "Percentage: 66.7%",
      "Passed: no",
    ]);
    expect(result.stdout).not.toContain("95% CI");
    expect(lines.slice(-2)).toEqual([
      expect.stringMatching(/^2 items passed, 1 failed, 0 errored in \d+\.\d\d s$/),
      "Gate: 2/3 samples passed (66.7%) < threshold 1.0 → failed",
    ]);
  });

  it("shows 4/5 for a check that passed four of five samples, with the interval block", async () => {
    // The fifth sample's evidence folder ends in .sample-4 (samples count from 0).
    const flaky = [
      "import json, sys",
      "ctx = json.load(open(sys.argv[1]))",
      "sys.exit(1 if ctx['output_dir'].endswith('.sample-4') else 0)",
    ].join("\n");
    const project = makeProject({
      "eval_checks/flaky.yaml": deterministicYaml("flaky", flaky),
      "eval_checks/steady.yaml": deterministicYaml("steady", "pass"),
    });
    const result = await runEb(["run", "--cwd", project, "--samples", "5"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^- flaky: failed 4\/5\b/m);
    // A check that passed is counted, not listed, unless --verbose.
    expect(result.stdout).not.toContain("steady");
    expect(result.stdout).toMatch(/^1 check passed \(--verbose lists them\)$/m);
    const verbose = await runEb(["run", "--cwd", project, "--samples", "5", "--verbose"]);
    expect(verbose.stdout).toMatch(/^- steady: passed 5\/5$/m);
    expect(result.stdout).toMatch(/^pass rate 0\.900 {2}95% CI/m);
    expect(result.stdout).toContain("flaky (4/5)");
    expect(lastLines(result.stdout, 1)[0]).toBe(
      "Gate: 9/10 samples passed (90.0%) < threshold 1.0 → failed",
    );
    const lenient = await runEb([
      "run",
      "--cwd",
      project,
      "--samples",
      "5",
      "--pass-threshold",
      "0.9",
    ]);
    expect(lenient.code).toBe(0);
    expect(lastLines(lenient.stdout, 1)[0]).toBe(
      "Gate: 9/10 samples passed (90.0%) ≥ threshold 0.9, no error samples → passed",
    );
  });

  it("an error check fails the gate even under threshold 0", async () => {
    const project = makeProject({
      "eval_checks/a.yaml": deterministicYaml("a", "pass"),
      "eval_checks/b.yaml": deterministicYaml("b", "import time\ntime.sleep(30)"),
    });
    const args = ["run", "--cwd", project, "--pass-threshold", "0", "--check-timeout-seconds", "1"];
    const result = await runEb(args);
    expect(result.code).toBe(1);
    expect(lastLines(result.stdout, 2)).toEqual([
      expect.stringMatching(/^1 item passed, 0 failed, 1 errored in /),
      "Gate: 1/2 samples passed (50.0%) ≥ threshold 0.0, but 1 error sample → failed",
    ]);
  });
});
