/**
 * GitHub Actions, detected from the environment: the job summary appended to
 * GITHUB_STEP_SUMMARY, `::error` annotations with GITHUB_ACTIONS=true (file and line of each
 * item's definition, relative to GITHUB_WORKSPACE), and `eb compare --markdown`. Real `eb`
 * processes, real Python checks, a real command target.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject, newestRun, runEb, writeFile } from "../helpers/project.js";

function lastRunDir(root: string, results = ".eval-banana/results"): string {
  return newestRun(path.join(root, results));
}

function runIdOf(runDir: string): string {
  return (JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8")) as { run_id: string })
    .run_id;
}

/** The workflow commands a step printed, in order. */
function commands(output: string): string[] {
  return output.split("\n").filter((line) => line.startsWith("::"));
}

/** A check whose `id:` is on line 4 (after a comment and a blank line). */
function checkYaml(id: string, script: string): string {
  const body = script
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
  return `schema_version: 1\n# why this check exists\n\nid: ${id}\ntype: deterministic\ndescription: Check ${id}.\nscript: |\n${body}\n`;
}

const CHECKS = {
  "eval_checks/ok.yaml": checkYaml("ok", 'print("fine")'),
  "eval_checks/api/fails.yaml": checkYaml("fails", 'assert False, "100% sure: a, b"'),
  "eval_checks/api/crashes.yaml": checkYaml("crashes", "import sys\nsys.exit(3)"),
};

/** An environment as a GitHub Actions step has it: the checkout is the project's parent. */
function actionsEnv(root: string, summary: string): NodeJS.ProcessEnv {
  return {
    GITHUB_ACTIONS: "true",
    GITHUB_STEP_SUMMARY: summary,
    GITHUB_WORKSPACE: path.dirname(root),
  };
}

describe("eb run on GitHub Actions", () => {
  it("annotates each failing check on the line its reason names, else its id: line, and appends the summary", async () => {
    const root = makeProject(CHECKS);
    const summary = writeFile(root, "step-summary.md", "# an earlier step\n");
    const run = await runEb(["run"], { cwd: root, env: actionsEnv(root, summary) });
    expect(run.code).toBe(1);
    const dir = path.basename(root);
    // Worst first: both scored 0 with no error sample, so by id. `:` and `%` escaped as GitHub
    // wants them (`:` and `,` only in properties). The assertion's line (8), where the reason
    // names it; the exit names none, so its check's id: line (4).
    expect(commands(run.stdout)).toEqual([
      `::error file=${dir}/eval_checks/api/crashes.yaml,line=4,title=eval-banana%3A crashes (failed its sample)::sample 0: exited with code 3 without printing anything`,
      `::error file=${dir}/eval_checks/api/fails.yaml,line=8,title=eval-banana%3A fails (failed its sample)::sample 0: AssertionError: 100%25 sure: a, b (eval_checks/api/fails.yaml:8)`,
    ]);
    const text = readFileSync(summary, "utf8");
    expect(text.startsWith("# an earlier step\n## eval-banana: `eb run` run `")).toBe(true);
    expect(text).toContain(`run \`${runIdOf(lastRunDir(root))}\``);
    expect(text).toContain(
      "**Pass rate 0.333**, 95% interval [0.008, 0.906] (clopper-pearson) over 3 items and 3 samples.",
    );
    expect(text).toContain("**Gate: 1/3 samples passed (33.3%) < threshold 1.0 → failed**");
    expect(text).toContain("### Fell short: 2 items, worst first");
    expect(text).toContain(
      "| `fails` | 0.00 (1 sample) | `sample 0: AssertionError: 100% sure: a, b (eval_checks/api/fails.yaml:8)` |",
    );
    expect(text).toContain("<details><summary>Statistics</summary>");
  });

  it("takes paths relative to the project root without GITHUB_WORKSPACE", async () => {
    const root = makeProject(CHECKS);
    const env = { GITHUB_ACTIONS: "true" };
    const run = await runEb(["run", "--check-id", "fails"], { cwd: root, env });
    expect(commands(run.stdout)).toHaveLength(1);
    expect(commands(run.stdout)[0]).toMatch(/^::error file=eval_checks\/api\/fails\.yaml,line=8,/);
  });

  it("annotates a script_path check on the failing line of its script", async () => {
    const root = makeProject({
      "eval_checks/api/file.yaml":
        "schema_version: 1\nid: file\ntype: deterministic\ndescription: d\nscript_path: file.py\n",
      "eval_checks/api/file.py": 'x = 1\n\nassert x == 2, "x is not 2"\n',
    });
    const run = await runEb(["run"], { cwd: root, env: { GITHUB_ACTIONS: "true" } });
    expect(run.code).toBe(1);
    expect(commands(run.stdout)).toEqual([
      "::error file=eval_checks/api/file.py,line=3,title=eval-banana%3A file (failed its sample)::sample 0: AssertionError: x is not 2 (eval_checks/api/file.py:3)",
    ]);
    const report = JSON.parse(readFileSync(path.join(lastRunDir(root), "report.json"), "utf8"));
    expect(report.items[0].problem_at).toEqual({ source: "eval_checks/api/file.py", line: 3 });
  });

  it("keeps annotations off stdout under --json, and strips colours from the summary", async () => {
    const root = makeProject(CHECKS);
    const summary = path.join(root, "summary.md");
    const env = { ...actionsEnv(root, summary), FORCE_COLOR: "1", NO_COLOR: undefined };
    const run = await runEb(["run", "--json"], { cwd: root, env });
    expect(run.code).toBe(1);
    expect(() => JSON.parse(run.stdout)).not.toThrow();
    expect(commands(run.stderr)).toHaveLength(2);
    const text = readFileSync(summary, "utf8");
    expect(text).toContain("**Gate: 1/3 samples passed (33.3%) < threshold 1.0 → failed**");
    expect(text).not.toContain("\x1b[");
  });

  it("warns when the summary file cannot be written, and keeps the exit code", async () => {
    const root = makeProject({ "eval_checks/ok.yaml": CHECKS["eval_checks/ok.yaml"] });
    const summary = path.join(root, "a-folder");
    mkdirSync(summary);
    const run = await runEb(["run"], { cwd: root, env: { GITHUB_STEP_SUMMARY: summary } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `warning: GITHUB_STEP_SUMMARY ${summary}: could not append the job summary`,
    );
    expect(commands(run.stdout)).toEqual([]);
  });

  it("does neither outside GitHub Actions: the test helper drops the runner's variables", async () => {
    const root = makeProject(CHECKS);
    const summary = path.join(root, "leaked-summary.md");
    const saved = { ...process.env };
    Object.assign(process.env, actionsEnv(root, summary));
    try {
      const run = await runEb(["run"], { cwd: root });
      expect(run.code).toBe(1);
      expect(commands(run.stdout)).toEqual([]);
    } finally {
      for (const key of ["GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE"]) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
    expect(readdirSync(root)).not.toContain("leaked-summary.md");
  });
});

/**
 * Answers by case id: `flaky` passes its first sample only, `boom` crashes, `ok*` say yes, the
 * rest say no. BROKEN (an env variable) makes `good` say no. Shell that starts no program: a
 * node target's start was most of these tests' CPU.
 */
const TARGET = `IFS= read -r input || :
id=\${input#*'"id":"'}; id=\${id%%'"'*}
sample=\${input##*'"sample":'}; sample=\${sample%%[!0-9]*}
if [ "$id" = boom ]; then echo "no model" >&2; exit 3; fi
case $id in
  ok*) yes=1 ;;
  good) [ -z "$BROKEN" ] && yes=1 ;;
  flaky) [ "$sample" = 0 ] && yes=1 ;;
esac
if [ -n "$yes" ]; then printf yes; else printf 'no, 100%%: sure'; fi
`;

const HOSTILE = "we:ird,%id";

function caseLine(id: string, stratum = "math"): string {
  return JSON.stringify({
    id,
    stratum,
    messages: [{ role: "user", content: id }],
    graders: [{ type: "contains", all: ["yes"] }],
  });
}

/** Blank lines between cases, so a case's line is not its index. */
const CASES = [
  caseLine("good"),
  "",
  caseLine("flaky"),
  caseLine("boom", "tools"),
  "",
  "",
  caseLine(HOSTILE, "tools"),
  caseLine("ok-1", "tools"),
].join("\n");

function evalArgs(out: string, extra: readonly string[] = []): string[] {
  return ["eval", "cases.jsonl", "--target", "sh target.sh", "-k", "2", "--out", out, ...extra];
}

describe("eb compare on GitHub Actions, of check runs", () => {
  it("annotates a check that broke on the line its reason names", async () => {
    const root = makeProject({
      "eval_checks/api/flips.yaml": checkYaml(
        "flips",
        "import pathlib\nassert not pathlib.Path('broken').exists(), 'it broke'",
      ),
    });
    const env = { GITHUB_ACTIONS: "true" };
    expect((await runEb(["run"], { cwd: root, env })).code).toBe(0);
    const before = lastRunDir(root);
    writeFile(root, "broken", "");
    expect((await runEb(["run"], { cwd: root, env })).code).toBe(1);
    const compare = await runEb(["compare", before, lastRunDir(root)], { cwd: root, env });
    expect(compare.code).toBe(1);
    // The assertion is the script's line 2, the YAML file's line 9; the id: line is 4.
    expect(commands(compare.stdout)).toEqual([
      expect.stringMatching(
        /^::error file=eval_checks\/api\/flips\.yaml,line=9,title=eval-banana%3A flips broke::/,
      ),
    ]);
  });
});

describe("eb eval on GitHub Actions", () => {
  it("annotates each case on its JSONL line: errors, failures, flaky ones as warnings", async () => {
    const root = makeProject({ "cases.jsonl": `${CASES}\n`, "target.sh": TARGET });
    const summary = path.join(root, "summary.md");
    const run = await runEb(evalArgs("runs"), { cwd: root, env: actionsEnv(root, summary) });
    expect(run.code).toBe(1);
    const file = `${path.basename(root)}/cases.jsonl`;
    expect(commands(run.stdout)).toEqual([
      `::error file=${file},line=4,title=eval-banana%3A boom (2 error samples of 2)::sample 0: error: command "sh target.sh" exited with code 3: no model`,
      `::error file=${file},line=7,title=eval-banana%3A we%3Aird%2C%25id (failed all 2 samples)::sample 0: contains: missing "yes" in "no, 100%25: sure"`,
      `::warning file=${file},line=3,title=eval-banana%3A flaky (flaky%2C 1 of 2 samples passed)::sample 1: contains: missing "yes" in "no, 100%25: sure"`,
    ]);
    const text = readFileSync(summary, "utf8");
    expect(text.startsWith("## eval-banana: `eb eval` run `")).toBe(true);
    expect(text).toContain("over 5 items and 10 samples.");
    expect(text).toContain("### Fell short: 3 items, worst first");
    expect(text).toContain("| `we:ird,%id` | 0.00 (2 samples) |");
    expect(text).toContain("### By stratum");
  });

  it("caps the annotations at 50 and says how many more fell short", async () => {
    const lines = Array.from({ length: 53 }, (_, i) =>
      caseLine(`bad-${String(i).padStart(2, "0")}`),
    );
    const root = makeProject({ "cases.jsonl": `${lines.join("\n")}\n`, "target.sh": TARGET });
    const run = await runEb(["eval", "cases.jsonl", "--target", "sh target.sh"], {
      cwd: root,
      env: { GITHUB_ACTIONS: "true" },
    });
    expect(run.code).toBe(1);
    const printed = commands(run.stdout);
    expect(printed).toHaveLength(51);
    expect(printed[0]).toMatch(/^::error file=cases\.jsonl,line=1,title=eval-banana%3A bad-00 /);
    expect(printed[49]).toMatch(/^::error file=cases\.jsonl,line=50,title=eval-banana%3A bad-49 /);
    expect(printed[50]).toBe(
      "::notice title=eval-banana::3 more items fell short, not annotated: see the job summary or report.md",
    );
  });

  it("with --baseline, the summary holds the run and the comparison, its gate line the baseline's", async () => {
    const root = makeProject({ "cases.jsonl": `${CASES}\n`, "target.sh": TARGET });
    expect((await runEb(evalArgs("base"), { cwd: root })).code).toBe(1);
    const base = lastRunDir(root, "base");
    const summary = path.join(root, "summary.md");
    const env = { GITHUB_STEP_SUMMARY: summary, BROKEN: "1" };
    const run = await runEb(evalArgs("cand", ["--baseline", base]), { cwd: root, env });
    expect(run.code).toBe(1);
    const text = readFileSync(summary, "utf8");
    expect(text).toContain("## eval-banana: `eb eval` run `");
    expect(text).toMatch(
      /\*\*Gate: paired compare with the baseline .* at margin 0\.02 → (regression|inconclusive).* → failed/,
    );
    expect(text).toContain("## eval-banana compare: ");
    expect(text).toContain("### Broke: 1 item");
    expect(text).toContain(
      '| `good` | 1.00 | 0.00 | `sample 0: contains: missing "yes" in "no, 100%: sure"` |',
    );
    expect(text.indexOf("## eval-banana compare")).toBeGreaterThan(text.indexOf("### Fell short"));
  });
});

describe("eb compare on GitHub Actions, and --markdown", () => {
  let root = "";
  let base = "";
  let cand = "";

  async function twoRuns(): Promise<void> {
    root = makeProject({ "cases.jsonl": `${CASES}\n`, "target.sh": TARGET });
    expect((await runEb(evalArgs("base"), { cwd: root })).code).toBe(1);
    expect((await runEb(evalArgs("cand"), { cwd: root, env: { BROKEN: "1" } })).code).toBe(1);
    base = lastRunDir(root, "base");
    cand = lastRunDir(root, "cand");
  }

  it("prints a comment body behind the marker; annotations of broke items go to stderr", async () => {
    await twoRuns();
    const summary = path.join(root, "summary.md");
    const compare = await runEb(["compare", base, cand, "--markdown"], {
      cwd: root,
      env: actionsEnv(root, summary),
    });
    expect(compare.code).toBe(1);
    const body = compare.stdout;
    expect(body.split("\n")[0]).toBe("<!-- eval-banana:compare -->");
    expect(body).toMatch(/^## eval-banana compare: (❌ REGRESSION|⚠️ INCONCLUSIVE)$/m);
    expect(body).toMatch(
      /^\*\*Paired delta -0\.2000\*\*, 95% interval \[-\d\.\d{4}, \+\d\.\d{4}\] over 5 paired items \(miettinen-nurminen\); margin 0\.02\.$/m,
    );
    expect(body).toContain("**Gate: failed (exit 1).**");
    expect(body).toContain(`| Run | \`${runIdOf(base)}\` | \`${runIdOf(cand)}\` |`);
    expect(body).toContain("### Broke: 1 item");
    expect(body).toContain(
      '| `good` | 1.00 | 0.00 | `sample 0: contains: missing "yes" in "no, 100%: sure"` |',
    );
    expect(body).toContain("**Fixed:** none.");
    expect(body).toContain("| Stratum | Items | Delta | Interval | Verdict |");
    expect(body).toMatch(/^\| `tools` \| 3 \| \+0\.0000 \|/m);
    expect(commands(body)).toEqual([]);
    expect(commands(compare.stderr)).toEqual([
      `::error file=${path.basename(root)}/cases.jsonl,line=1,title=eval-banana%3A good broke::baseline 1.00 → candidate 0.00; sample 0: contains: missing "yes" in "no, 100%25: sure"`,
    ]);
    const text = readFileSync(summary, "utf8");
    expect(text.startsWith("## eval-banana compare: ")).toBe(true);
    expect(text).toContain("### Broke: 1 item");
  });

  it("passes the same runs with the same body shape, and refuses --json with --markdown", async () => {
    await twoRuns();
    const same = await runEb(["compare", base, base, "--markdown", "--inconclusive", "pass"], {
      cwd: root,
    });
    expect(same.code).toBe(0);
    expect(same.stdout.split("\n")[0]).toBe("<!-- eval-banana:compare -->");
    expect(same.stdout).toContain("**Broke:** none.");
    expect(same.stdout).toContain("**Gate: passed (exit 0).**");
    const both = await runEb(["compare", base, cand, "--markdown", "--json"], { cwd: root });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--json and --markdown: pass one of them");
  });

  it("annotates broke items on stdout without --markdown, after the comparison", async () => {
    await twoRuns();
    // From another folder: the case file is found from the run's project root.
    const elsewhere = path.join(root, "elsewhere");
    mkdirSync(elsewhere);
    const compare = await runEb(["compare", base, cand], {
      cwd: elsewhere,
      env: { GITHUB_ACTIONS: "true" },
    });
    expect(compare.code).toBe(1);
    expect(commands(compare.stdout)).toEqual([
      `::error file=cases.jsonl,line=1,title=eval-banana%3A good broke::baseline 1.00 → candidate 0.00; sample 0: contains: missing "yes" in "no, 100%25: sure"`,
    ]);
    // A case file changed since the run: its lines might be other cases', so none is given.
    writeFileSync(path.join(root, "cases.jsonl"), `\n${CASES}\n`);
    const changed = await runEb(["compare", base, cand], {
      cwd: root,
      env: { GITHUB_ACTIONS: "true" },
    });
    expect(commands(changed.stdout)).toEqual([
      `::error title=eval-banana%3A good broke::baseline 1.00 → candidate 0.00; sample 0: contains: missing "yes" in "no, 100%25: sure"`,
    ]);
  });
});
