import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject, newestRun, runEb, sortedRows } from "../helpers/project.js";

interface Row {
  id: string;
  sample: number;
  status: string;
  marks: Record<string, boolean>;
  reasons?: Record<string, string>;
  error: string | null;
}

const line = (id: string, graders: object[]) =>
  `${JSON.stringify({ id, messages: [{ role: "user", content: `question ${id}` }], graders })}\n`;

const READ = "import json, sys\nctx = json.load(open(sys.argv[1]))\n";
/** Reads the context JSON on stdin; passes when the answer holds `want`, else says why on stderr. */
const GRADE_MJS = [
  "let text = '';",
  "process.stdin.on('data', (c) => (text += c));",
  "process.stdin.on('end', () => {",
  "  const ctx = JSON.parse(text);",
  "  if (ctx.answer.includes(process.argv[2]) && ctx.case.id === 'cmd') process.exit(0);",
  "  process.stderr.write('no ' + process.argv[2] + ' in ' + ctx.answer.trim() + '\\n');",
  "  process.exit(1);",
  "});",
].join("\n");

function project(cases: string, extra: Record<string, string> = {}): string {
  return makeProject({
    "evals/cases.jsonl": cases,
    "answer.cjs": "process.stdout.write('42\\n')",
    "grade.mjs": GRADE_MJS,
    ...extra,
  });
}

const evalRun = (root: string, args: string[] = []) =>
  runEb(["eval", "evals/cases.jsonl", "--target", "node answer.cjs", ...args], { cwd: root });

describe("script and command graders from the case file", () => {
  it("run Python with the check's contract and any program on stdin, per sample", async () => {
    const root = project(
      line("inline", [
        { type: "script", name: "is42", script: `${READ}assert ctx['answer'].strip() == '42'` },
        {
          type: "script",
          name: "is43",
          script: `${READ}assert ctx['answer'].strip() == '43', 'wanted 43, got ' + ctx['answer'].strip()`,
        },
      ]) +
        line("file", [{ type: "script", script_path: "graders/context.py" }]) +
        line("cmd", [
          { type: "command", name: "has4", command: "node grade.mjs 4" },
          { type: "command", name: "has7", command: "node grade.mjs 7" },
        ]),
      {
        // Relative to the case file: evals/graders/context.py.
        "evals/graders/context.py":
          `${READ}assert ctx['case']['id'] == 'file', ctx\n` +
          "assert ctx['case']['messages'] == [{'role': 'user', 'content': 'question file'}], ctx\n" +
          "assert ctx['sample'] in (0, 1) and ctx['answer'] == '42\\n', ctx\n",
      },
    );
    const result = await evalRun(root, ["-k", "2"]);
    expect(result.code, result.stderr).toBe(1);
    const rows = sortedRows<Row>(newestRun(path.join(root, ".eval-banana/results")));
    expect(rows.map((row) => [row.id, row.sample, row.status])).toEqual([
      ["cmd", 0, "failed"],
      ["cmd", 1, "failed"],
      ["file", 0, "passed"],
      ["file", 1, "passed"],
      ["inline", 0, "failed"],
      ["inline", 1, "failed"],
    ]);
    const [cmd, , , , inline] = rows;
    expect(inline!.marks).toEqual({ is42: true, is43: false });
    expect(inline!.reasons!.is43).toBe("AssertionError: wanted 43, got 42 (exit 1)");
    expect(cmd!.marks).toEqual({ has4: true, has7: false });
    expect(cmd!.reasons!.has7).toBe("no 7 in 42 (exit 1)");
  }, 60_000);

  it("a missing script_path, a script that does not compile and a bad spec stop the run at their lines", async () => {
    const root = project(
      line("ok", [{ type: "equals", value: "42" }]) +
        line("missing", [{ type: "script", script_path: "graders/nope.py" }]) +
        line("broken", [{ type: "script", script: "def f(:\n  pass" }]) +
        line("both", [{ type: "script", script: "pass", script_path: "x.py" }]),
    );
    const result = await evalRun(root);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("evals/cases.jsonl:4");
    expect(result.stderr).toContain("exactly one of script and script_path");
    // Both found at once are reported only after the spec errors are fixed: fix the spec and run.
    const fixed = project(
      line("ok", [{ type: "equals", value: "42" }]) +
        line("missing", [{ type: "script", script_path: "graders/nope.py" }]) +
        line("broken", [{ type: "script", script: "def f(:\n  pass" }]),
    );
    const again = await evalRun(fixed);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(
      "evals/cases.jsonl:2: graders[0] (script): script_path graders/nope.py: no such file",
    );
    expect(again.stderr).toMatch(
      /evals\/cases\.jsonl:3: graders\[0\] \(script\): SyntaxError: .* \(line 1 of the script\)/,
    );
    expect(again.stdout).toBe("");
  }, 60_000);

  it("eb validate CASES checks the same before anything runs", async () => {
    const good = project(line("ok", [{ type: "script", script: "pass" }]));
    const ok = await runEb(["validate", "evals/cases.jsonl"], { cwd: good });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe("Validated 1 case in evals/cases.jsonl.\n");
    const bad = project(
      line("missing", [{ type: "script", script_path: "graders/nope.py" }]) +
        line("broken", [{ type: "script", script: "def f(:\n  pass" }]),
    );
    const refused = await runEb(["validate", "evals/cases.jsonl"], { cwd: bad });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("evals/cases.jsonl:1: graders[0] (script): script_path");
    expect(refused.stderr).toContain("evals/cases.jsonl:2: graders[0] (script): SyntaxError");
    expect(existsSync(path.join(bad, ".eval-banana/results"))).toBe(false);
  });

  it("a grader program that hangs past the check timeout is an error sample; the run goes on", async () => {
    const root = project(
      line("slow", [{ type: "script", script: "import time\ntime.sleep(30)" }]) +
        line("fast", [{ type: "equals", value: "42" }]),
      { ".eval-banana/config.toml": "[core]\ncheck_timeout_seconds = 1\n" },
    );
    const result = await evalRun(root);
    expect(result.code).toBe(1);
    const rows = sortedRows<Row>(newestRun(path.join(root, ".eval-banana/results")));
    expect(rows.map((row) => [row.id, row.status])).toEqual([
      ["fast", "passed"],
      ["slow", "error"],
    ]);
    expect(rows[1]!.error).toContain("timed out after 1s");
  }, 60_000);
});
