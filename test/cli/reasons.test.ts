/**
 * Why every failing item failed, from what a run leaves behind: rows.jsonl, report.json,
 * report.md, the console, and `eb report RUN` (real Python scripts, a real command target).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { deterministicYaml, makeProject, newestRun, runEb } from "../helpers/project.js";

interface Row {
  id: string;
  sample: number;
  status: string;
  reason: string | null;
  error: string | null;
  reasons?: Record<string, string>;
}

function lastRunDir(root: string): string {
  const results = path.join(root, ".eval-banana/results");
  return newestRun(results);
}

function rowsOf(runDir: string): Row[] {
  const lines = readFileSync(path.join(runDir, "rows.jsonl"), "utf8").trim().split("\n");
  return lines.slice(1).map((line) => JSON.parse(line) as Row);
}

function byId(rows: readonly Row[]): Record<string, Row> {
  return Object.fromEntries(rows.map((row) => [row.id, row]));
}

function read(runDir: string, file: string): string {
  return readFileSync(path.join(runDir, file), "utf8");
}

/** The check files of one run: which line of the YAML each script's failing line is on. */
const CHECKS: Record<string, string> = {
  // deterministicYaml puts the script's first line on line 6 of the file.
  "eval_checks/bare.yaml": deterministicYaml("bare", "count = 4\n\nassert count == 3"),
  "eval_checks/message.yaml": deterministicYaml(
    "message",
    'def check(n):\n    assert n == 3, f"expected 3 items, got {n}"\n\ncheck(4)',
  ),
  "eval_checks/quiet.yaml": deterministicYaml("quiet", "import sys\nsys.exit(2)"),
  "eval_checks/talks.yaml": deterministicYaml(
    "talks",
    'print("step 1 ok")\nprint("FAIL: no README")\nraise SystemExit(1)',
  ),
  "eval_checks/passes.yaml": deterministicYaml("passes", "assert True"),
  "eval_checks/by-path.yaml":
    "schema_version: 1\nid: by-path\ntype: deterministic\ndescription: A script file.\nscript_path: ../scripts/by_path.py\n",
  "scripts/by_path.py": 'import sys\n\nsys.exit("config.toml has no [core] section")\n',
};

describe("eb run: the reason of each failing script", () => {
  it("is its assertion message or last output line, with the YAML line, in every file", async () => {
    const root = makeProject(CHECKS);
    const run = await runEb(["run", "--cwd", root]);
    expect(run.code).toBe(1);
    const runDir = lastRunDir(root);
    const expected = {
      bare: "AssertionError at eval_checks/bare.yaml:8: assert count == 3",
      message: "AssertionError: expected 3 items, got 4 (eval_checks/message.yaml:7)",
      quiet: "exited with code 2 without printing anything",
      talks: "FAIL: no README",
      "by-path": "config.toml has no [core] section",
    };
    const rows = byId(rowsOf(runDir));
    const report = JSON.parse(read(runDir, "report.json")) as { checks: Row[] };
    const results = Object.fromEntries(
      report.checks.map((c) => [(c as { check_id?: string }).check_id, c]),
    );
    const markdown = read(runDir, "report.md");
    for (const [id, reason] of Object.entries(expected)) {
      expect(rows[id]).toMatchObject({ status: "failed", reason });
      expect(results[id]).toMatchObject({ status: "failed", reason });
      expect(run.stdout).toContain(`- ${id}: failed - ${reason}\n`);
      expect(markdown).toMatch(new RegExp(`\\| \`${id}\` \\|.*\\| \`${literal(reason)}\` \\|\\n`));
    }
    expect(rows.passes).toMatchObject({ status: "passed", reason: null });
    expect(markdown).toContain("| Check ID | Type | Status | Score | Duration (ms) | Reason |");

    const listed = await runEb(["report", "latest", "--cwd", root]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("fell short: 5 items, worst first\n");
    expect(listed.stdout).toMatch(
      /\n {2}bare {5}0\.00 \(1 sample\) {2}sample 0: AssertionError at eval_checks\/bare\.yaml:8: assert count == 3\n/,
    );
    expect(listed.stdout).not.toMatch(/^ {2}passes/m);
  });

  it("names the YAML file and the script's line in it in the traceback, not a temporary file", async () => {
    const root = makeProject(CHECKS);
    await runEb(["run", "--cwd", root, "--check-id", "message"]);
    const runDir = lastRunDir(root);
    const stem = readdirSync(path.join(runDir, "checks")).find((f) => f.endsWith(".stderr.txt"))!;
    const stderr = read(runDir, `checks/${stem}`);
    expect(stderr).toContain(
      'File "eval_checks/message.yaml", line 9, in <module>\n    check(4)\n',
    );
    expect(stderr).toContain(
      'File "eval_checks/message.yaml", line 7, in check\n    assert n == 3, f"expected 3 items, got {n}"\n           ^^^^^^\n',
    );
    // Line 7 of the file is that assert: the traceback can be followed as printed.
    const yamlLine = readFileSync(path.join(root, "eval_checks/message.yaml"), "utf8").split(
      "\n",
    )[6];
    expect(yamlLine?.trim()).toBe('assert n == 3, f"expected 3 items, got {n}"');
    expect(stderr).not.toMatch(/inline_check|eval-banana-|File "<string>"/);
    const report = read(runDir, "report.json");
    expect(report).toContain('File \\"eval_checks/message.yaml\\", line 7, in check');
    expect(report).not.toContain("inline_check");
  });

  it("quotes the lines that ran in the tracebacks and warnings the script prints itself", async () => {
    const script = [
      "import traceback, warnings",
      'warnings.warn("careful")',
      "try:",
      "    1 / 0",
      "except ZeroDivisionError:",
      "    traceback.print_exc()",
    ].join("\n");
    const root = makeProject({ "eval_checks/own.yaml": deterministicYaml("own", script) });
    expect((await runEb(["run", "--cwd", root])).code).toBe(0);
    const runDir = lastRunDir(root);
    const stem = readdirSync(path.join(runDir, "checks")).find((f) => f.endsWith(".stderr.txt"))!;
    const stderr = read(runDir, `checks/${stem}`);
    expect(stderr).toContain(
      'eval_checks/own.yaml:7: UserWarning: careful\n  warnings.warn("careful")\n',
    );
    expect(stderr).toContain(
      'File "eval_checks/own.yaml", line 9, in <module>\n    1 / 0\n    ~~^~~\n',
    );
  });

  it("points at the key's line for a one-line script; counts from the script for an escaped one", async () => {
    const head = (id: string) =>
      `schema_version: 1\nid: ${id}\ntype: deterministic\ndescription: D.\n`;
    const root = makeProject({
      "eval_checks/one.yaml": `${head("one")}script: assert 1 == 2\n`,
      "eval_checks/escaped.yaml": `${head("escaped")}script: "x = 1\\nassert x == 2"\n`,
    });
    await runEb(["run", "--cwd", root]);
    const rows = byId(rowsOf(lastRunDir(root)));
    expect(rows.one?.reason).toBe("AssertionError at eval_checks/one.yaml:5: assert 1 == 2");
    expect(rows.escaped?.reason).toBe(
      "AssertionError at eval_checks/escaped.yaml (inline script):2: assert x == 2",
    );
  });

  it("keeps the script's own behaviour: __file__, argv and sys.path are the scratch file's", async () => {
    const script = [
      "import os, sys",
      "assert os.path.basename(__file__) == 'inline_check.py', __file__",
      "assert sys.argv[0] == __file__ and sys.argv[1].endswith('context.json'), sys.argv",
      "assert sys.path[0] == os.path.dirname(__file__), sys.path[0]",
      "assert __name__ == '__main__'",
    ].join("\n");
    const root = makeProject({ "eval_checks/self.yaml": deterministicYaml("self", script) });
    const run = await runEb(["run", "--cwd", root, "--verbose"]);
    expect(run.stdout).toContain("- self: passed");
    expect(run.code).toBe(0);
  });

  it("is cut to one line, and keeps secrets out", async () => {
    const long = "x".repeat(1000);
    const root = makeProject({
      ".eval-banana/config.toml": '[harness.env]\nAPI_TOKEN = "tok-SECRET-123456"\n',
      "eval_checks/long.yaml": deterministicYaml(
        "long",
        `import sys\nsys.exit("line one\\n\\x1b[31m${long} tok-SECRET-123456")`,
      ),
      "eval_checks/secret.yaml": deterministicYaml(
        "secret",
        'import sys\nsys.exit("the token tok-SECRET-123456 was refused")',
      ),
    });
    const run = await runEb(["run", "--cwd", root]);
    const rows = byId(rowsOf(lastRunDir(root)));
    // The last line, its escape sequence made visible, cut to 300 characters.
    expect(rows.long?.reason).toMatch(/^␛\[31mx+…$/);
    expect(rows.long?.reason).toHaveLength(300);
    expect(rows.secret?.reason).toBe("the token [redacted] was refused");
    expect(run.stdout).not.toContain("tok-SECRET");
    expect(read(lastRunDir(root), "report.md")).not.toContain("tok-SECRET");
  });
});

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A command target: answers each case by id; "boom" makes it fail as a broken program does. */
const TARGET = `
let input = "";
for await (const chunk of process.stdin) input += chunk;
const { id } = JSON.parse(input);
const answers = {
  sum: "43",
  greet: "Hi there, nice to meet you. How can I help you today? Ask me anything at all. I am here all day.",
  invoice: "Sure! The invoice number is A-1.",
  refund: "Sorry, what is your order number?",
};
if (id === "boom") {
  process.stderr.write("fatal: no model file\\n");
  process.exit(3);
}
process.stdout.write(answers[id]);
`;

const CASES = [
  { id: "sum", graders: [{ type: "equals", value: "42" }] },
  { id: "greet", graders: [{ type: "regex", name: "names_ada", pattern: "\\bAda\\b" }] },
  { id: "invoice", graders: [{ type: "json" }, { type: "contains", all: ["total"] }] },
  { id: "refund", graders: [{ type: "contains", all: ["order number"] }] },
  { id: "boom", graders: [{ type: "equals", value: "x" }] },
]
  .map((c) => JSON.stringify({ ...c, messages: [{ role: "user", content: `case ${c.id}` }] }))
  .join("\n");

describe("eb eval: the reason of each failing case", () => {
  it("says what each grader expected and what came, in rows, report.md and on the console", async () => {
    const root = makeProject({ "cases.jsonl": `${CASES}\n`, "target.mjs": TARGET });
    const run = await runEb(
      ["eval", "cases.jsonl", "--target", "node target.mjs", "--pass-threshold", "0"],
      { cwd: root },
    );
    const runDir = lastRunDir(root);
    const expected = {
      sum: 'equals: expected "42", got "43"',
      greet:
        'names_ada: no match for /\\bAda\\b/ in "Hi there, nice to meet you. How can I help you today? Ask me anything at all. I …"',
      invoice: `json: not valid JSON (${jsonError("Sure! The invoice number is A-1.")}); got "Sure! The invoice number is A-1."; contains: missing "total" in "Sure! The invoice number is A-1."`,
      boom: expect.stringContaining("exited with code 3: fatal: no model file"),
    };
    const rows = byId(rowsOf(runDir));
    for (const [id, reason] of Object.entries(expected)) expect(rows[id]?.reason).toEqual(reason);
    expect(rows.sum?.status).toBe("failed");
    expect(rows.boom).toMatchObject({ status: "error", reason: rows.boom?.error });
    expect(rows.refund).toMatchObject({ status: "passed", reason: null });

    const markdown = read(runDir, "report.md");
    expect(markdown).toContain("| Item | Stratum | Score | Samples | Errors | Reason |");
    expect(markdown).toContain(
      '| `sum` | `none` | 0.00 | 1 | 0 | `sample 0: equals: expected "42", got "43"` |',
    );
    expect(markdown).toContain(
      '| `boom` | `none` | 0.00 | 1 | 1 | `sample 0: error: command "node target.mjs" exited with code 3',
    );
    expect(markdown).toContain("names_ada: no match for /\\bAda\\b/ in");
    expect(run.stdout).toContain('- sum: 0/1 - sample 0: equals: expected "42", got "43"');
  });
});

/** What this Node says about text that is not JSON. */
function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  return "";
}

/** A rows file as older runs and other tools leave it: some rows have no reason at all. */
function rowsFile(): string {
  const rows: object[] = [];
  for (let i = 1; i <= 12; i++) {
    const id = `f${String(i).padStart(2, "0")}`;
    rows.push({ id, sample: 0, score: 0, status: "failed", reason: `reason of ${id}` });
  }
  rows.push(
    { id: "flaky", sample: 0, score: 1, status: "passed", reason: null },
    { id: "flaky", sample: 1, score: 0, status: "failed", reason: "second try failed" },
    { id: "broken", sample: 0, score: 0, status: "error", reason: "timed out", error: "timed out" },
    {
      id: "old-check",
      sample: 0,
      score: 0,
      status: "failed",
      reason: null,
      marks: { deterministic: false },
    },
    {
      id: "old-case",
      sample: 0,
      score: 0,
      status: "failed",
      marks: { exact: false },
      reasons: { exact: 'expected "42", got "43"' },
    },
    { id: "article", score: 0, error: "HTTP 500" },
    { id: "fine", sample: 0, score: 1, status: "passed", reason: null },
  );
  return `${rows.map((row) => JSON.stringify(row)).join("\n")}\n`;
}

describe("eb report RUN: the items that fell short", () => {
  it("lists them worst first with their reasons, the worst 10 unless --all", async () => {
    const root = makeProject({ "rows.jsonl": rowsFile() });
    const capped = await runEb(["report", "rows.jsonl"], { cwd: root });
    expect(capped.code).toBe(0);
    const listing = (stdout: string) => stdout.slice(stdout.indexOf("fell short:")).split("\n");
    expect(listing(capped.stdout)).toEqual([
      "fell short: 17 items, worst first",
      "  article  0.00 (1 sample, 1 error)  sample 0: error: HTTP 500",
      "  broken   0.00 (1 sample, 1 error)  sample 0: error: timed out",
      "  f01      0.00 (1 sample)  sample 0: reason of f01",
      "  f02      0.00 (1 sample)  sample 0: reason of f02",
      "  f03      0.00 (1 sample)  sample 0: reason of f03",
      "  f04      0.00 (1 sample)  sample 0: reason of f04",
      "  f05      0.00 (1 sample)  sample 0: reason of f05",
      "  f06      0.00 (1 sample)  sample 0: reason of f06",
      "  f07      0.00 (1 sample)  sample 0: reason of f07",
      "  f08      0.00 (1 sample)  sample 0: reason of f08",
      "  … and 7 more (--all lists every one)",
      "",
    ]);

    const all = listing((await runEb(["report", "rows.jsonl", "--all"], { cwd: root })).stdout);
    expect(all).toHaveLength(19);
    expect(all.slice(12)).toEqual([
      "  f10        0.00 (1 sample)  sample 0: reason of f10",
      "  f11        0.00 (1 sample)  sample 0: reason of f11",
      "  f12        0.00 (1 sample)  sample 0: reason of f12",
      '  old-case   0.00 (1 sample)  sample 0: exact: expected "42", got "43"',
      "  old-check  0.00 (1 sample)  sample 0: deterministic failed",
      "  flaky      0.50 (2 samples)  sample 1: second try failed",
      "",
    ]);

    const json = await runEb(["report", "rows.jsonl", "--json"], { cwd: root });
    const failing = (JSON.parse(json.stdout) as { failing_items: { id: string }[] }).failing_items;
    expect(failing.map((item) => item.id)).toEqual(
      all.slice(1, -1).map((line) => line.trim().split(" ")[0]),
    );
    expect(failing[0]).toEqual({
      id: "article",
      score: 0,
      samples: 1,
      errors: 1,
      reason: "sample 0: error: HTTP 500",
    });
  });

  it("says so when every item passed", async () => {
    const root = makeProject({
      "rows.jsonl": `${JSON.stringify({ id: "a", sample: 0, score: 1, status: "passed" })}\n`,
    });
    const report = await runEb(["report", "rows.jsonl"], { cwd: root });
    expect(report.stdout).toContain("every item passed every sample\n");
  });
});
