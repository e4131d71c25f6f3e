import { chmodSync, existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { CheckReport } from "../../src/checks/report.js";
import { deterministicYaml, makeProject, runEb, writeFile } from "../helpers/project.js";

/** A project whose paths are real (the checks' paths are), so messages can be compared whole. */
function project(files: Record<string, string>): string {
  return realpathSync(makeProject(files));
}

const check = (root: string, name: string) => path.join(root, "eval_checks", name);

/** Error lines of stderr, without the `error: ` prefix. */
function errors(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter((line) => line.startsWith("error: "))
    .map((line) => line.slice("error: ".length));
}

function runFolders(root: string): string[] {
  const results = path.join(root, ".eval-banana", "results");
  return existsSync(results) ? readdirSync(results) : [];
}

function onlyReport(root: string): CheckReport {
  const [run] = runFolders(root);
  expect(run).toBeDefined();
  const file = path.join(root, ".eval-banana", "results", run!, "report.json");
  return JSON.parse(readFileSync(file, "utf8")) as CheckReport;
}

/** A check whose script is `lines`, under `script:` written in the given YAML style. */
function styledYaml(id: string, style: "|" | ">" | "", lines: string[]): string {
  const body = lines.map((line) => `  ${line}`).join("\n");
  const header = style === "" ? "script:" : `script: ${style}`;
  return `schema_version: 1\nid: ${id}\ntype: deterministic\ndescription: Check ${id}.\n${header}\n${body}\n`;
}

describe("eb validate finds what eb run would break on, every problem in one pass", () => {
  it("three broken files, a duplicate id and a missing script_path: one error line each, exit 2", async () => {
    const root = project({
      "eval_checks/a_yaml.yaml":
        "schema_version: 1\nid: a\ntype: deterministic\ndescription: d: e\n",
      "eval_checks/b_field.yaml": deterministicYaml("b", "pass", "foo: 1\n"),
      "eval_checks/c_type.yaml": "schema_version: 1\nid: c\ntype: nope\ndescription: d\n",
      "eval_checks/d1.yaml": deterministicYaml("dup", "pass"),
      "eval_checks/d2.yaml": deterministicYaml("dup", "pass"),
      "eval_checks/e_gone.yaml":
        "schema_version: 1\nid: e\ntype: deterministic\ndescription: d\nscript_path: gone.py\n",
      "eval_checks/f_folder.yaml":
        "schema_version: 1\nid: f\ntype: deterministic\ndescription: d\nscript_path: scripts\n",
      "eval_checks/scripts/keep.txt": "",
      "eval_checks/ok.yaml": deterministicYaml("ok", "pass"),
      "eval_checks/z_judge.yaml":
        "schema_version: 1\nid: z\ntype: harness_judge\ndescription: d\ninstructions: Read it.\n",
    });
    const result = await runEb(["validate", "--cwd", root]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    const lines = errors(result.stderr);
    expect(lines).toHaveLength(7);
    expect(lines[0]).toMatch(
      new RegExp(`^Failed to parse YAML in ${check(root, "a_yaml.yaml")}:4:\\d+: `),
    );
    expect(lines[1]).toBe(`Invalid check definition in ${check(root, "b_field.yaml")}:`);
    expect(result.stderr).toContain(`${check(root, "b_field.yaml")}:5:1: unknown field 'foo'`);
    expect(lines[2]).toBe(`Invalid check definition in ${check(root, "c_type.yaml")}:`);
    expect(lines[3]).toBe(
      `Duplicate check id 'dup' found in ${check(root, "d1.yaml")} and ${check(root, "d2.yaml")}. Check ids must be unique: rename one of them.`,
    );
    expect(lines[4]).toBe(
      `${check(root, "e_gone.yaml")}:5: Deterministic script not found: ${check(root, "gone.py")} (ENOENT)`,
    );
    // A script_path that cannot be read (here a folder) is one too.
    expect(lines[5]).toBe(
      `${check(root, "f_folder.yaml")}:5: Deterministic script not found: ${check(root, "scripts")}`,
    );
    // One check type's stop does not hide the others': the judge has no agent configured.
    expect(lines[6]).toContain(
      `harness_judge check requires a harness but none is configured (first offender: ${check(root, "z_judge.yaml")})`,
    );
    expect(result.stderr.match(/^error: /gm)).toHaveLength(7);
  });

  it("a script that does not compile is an error at the YAML file's line, with the run's Python", async () => {
    const root = project({
      "eval_checks/ok.yaml": deterministicYaml("ok", "import json\nassert json.loads('1') == 1"),
      "eval_checks/bad.yaml": deterministicYaml("bad", "import json\n\nx = (\n"),
      "eval_checks/indent.yaml": deterministicYaml("indent", "if True:\npass"),
      "eval_checks/file.yaml":
        "schema_version: 1\nid: file\ntype: deterministic\ndescription: d\nscript_path: scripts/file.py\n",
      "eval_checks/scripts/file.py": "import sys\n\n\ndef main(:\n    pass\n",
    });
    const result = await runEb(["validate", "--cwd", root]);
    expect(result.code).toBe(2);
    // deterministicYaml puts `script: |` on line 5, so the script's line n is the file's 5 + n.
    expect(errors(result.stderr)).toEqual([
      `${check(root, "bad.yaml")}:8: the script does not compile: SyntaxError: '(' was never closed`,
      `${check(root, "scripts/file.py")}:4: the script does not compile: SyntaxError: invalid syntax`,
      `${check(root, "indent.yaml")}:7: the script does not compile: IndentationError: expected an indented block after 'if' statement on line 1`,
    ]);
    expect(runFolders(root)).toEqual([]);
  });

  it("a script folded into one line by `script: >` or a plain scalar says so", async () => {
    const lines = ["import os", "assert os.path.isdir('.')"];
    const root = project({
      "eval_checks/folded.yaml": styledYaml("folded", ">", lines),
      "eval_checks/plain.yaml": styledYaml("plain", "", lines),
      "eval_checks/literal.yaml": styledYaml("literal", "|", lines),
    });
    const result = await runEb(["validate", "--cwd", root]);
    expect(result.code).toBe(2);
    const hint = `YAML joined the script's lines into one: write it as a block, "script: |"`;
    expect(errors(result.stderr)).toEqual([
      `${check(root, "folded.yaml")}:6: the script does not compile: SyntaxError: invalid syntax; ${hint}`,
      `${check(root, "plain.yaml")}:6: the script does not compile: SyntaxError: invalid syntax; ${hint}`,
    ]);
    // The same script as a `|` block runs and passes.
    const run = await runEb(["run", "--cwd", root, "--check-id", "literal"]);
    expect(run.code).toBe(0);
  });

  it("compiles every script in one Python process, the interpreter the run uses", async () => {
    const root = project({
      "eval_checks/a.yaml": deterministicYaml("a", "pass"),
      "eval_checks/b.yaml": deterministicYaml("b", "x = 1"),
      "eval_checks/c.yaml": deterministicYaml("c", "y = 2"),
    });
    const log = path.join(root, "python.log");
    // Reports itself as sys.executable, so every later process goes through it too.
    const shim = writeFile(
      root,
      "bin/python",
      [
        "#!/bin/sh",
        'if [ "$2" = "import sys; print(sys.executable)" ]; then echo "$0"; exit 0; fi',
        `echo run >> "${log}"`,
        'exec python3 "$@"',
        "",
      ].join("\n"),
    );
    chmodSync(shim, 0o755);
    const result = await runEb(["validate", "--cwd", root, "--python", shim]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Validated 3 checks successfully.\n");
    expect(readFileSync(log, "utf8")).toBe("run\n");
  });

  it("an interpreter that does not exist stops validate and run with exit 2, no row written", async () => {
    const root = project({
      "eval_checks/a.yaml": deterministicYaml("a", 'open("ran.txt", "w").write("x")'),
    });
    for (const command of ["validate", "run"]) {
      const result = await runEb([command, "--cwd", root, "--python", "nopython"]);
      expect(result.code, command).toBe(2);
      expect(errors(result.stderr)[0]).toMatch(
        /^Python interpreter 'nopython' could not be started \(.*ENOENT.*\)\. .*--python.*nothing ran\.$/,
      );
    }
    expect(runFolders(root)).toEqual([]);
    expect(existsSync(path.join(root, "ran.txt"))).toBe(false);
  });

  it("without a Python that starts, validate still reports a missing script_path", async () => {
    const root = project({
      "eval_checks/a.yaml":
        "schema_version: 1\nid: a\ntype: deterministic\ndescription: d\nscript_path: gone.py\n",
    });
    const result = await runEb(["validate", "--cwd", root, "--python", "nopython"]);
    expect(result.code).toBe(2);
    const found = errors(result.stderr);
    expect(found[0]).toMatch(/^Python interpreter 'nopython' could not be started/);
    expect(found.some((line) => /a\.yaml:5: .*gone\.py/.test(line))).toBe(true);
  });

  it("a judge-only suite needs no Python", async () => {
    const root = project({
      "eval_checks/j.yaml":
        "schema_version: 1\nid: j\ntype: harness_judge\ndescription: d\ninstructions: Read README.md.\n",
    });
    const result = await runEb(["validate", "--cwd", root, "--python", "nopython"], {
      env: { EVAL_BANANA_HARNESS_AGENT: "codex" },
    });
    expect(result.code).toBe(0);
  });
});

describe("eb run: a script that does not compile is an error, not a failure", () => {
  it("marks it error with the message at the YAML line; the other checks run", async () => {
    const root = project({
      "eval_checks/bad.yaml": deterministicYaml("bad", 'open("bad-ran.txt", "w")\nx = ('),
      "eval_checks/good.yaml": deterministicYaml("good", 'open("good-ran.txt", "w")'),
      "eval_checks/fails.yaml": deterministicYaml("fails", "assert False, 'no'"),
    });
    const result = await runEb(["run", "--cwd", root]);
    expect(result.code).toBe(1);
    const report = onlyReport(root);
    const byId = Object.fromEntries(report.checks.map((c) => [c.check_id, c]));
    expect(byId.bad?.status).toBe("error");
    expect(byId.bad?.error_detail).toBe(
      `${check(root, "bad.yaml")}:7: the script does not compile: SyntaxError: '(' was never closed`,
    );
    expect(byId.good?.status).toBe("passed");
    expect(byId.fails?.status).toBe("failed");
    expect(existsSync(path.join(root, "bad-ran.txt"))).toBe(false);
    expect(existsSync(path.join(root, "good-ran.txt"))).toBe(true);
    expect(result.stdout).toContain("- bad: error - ");
  });
});

describe("eb eval: a --target program that does not exist stops before any sample", () => {
  it.each([
    ["a name not on PATH", "nosuchprog --flag", "'nosuchprog' was not found on PATH"],
    ["a path that is not there", "./bin/missing.sh", "bin/missing.sh is not an executable file"],
    ["a folder", "./bin", "bin is not an executable file"],
  ])("%s: exit 2, no run folder", async (_label, target, message) => {
    const root = project({
      "cases.jsonl":
        '{"id": "a", "messages": [{"role": "user", "content": "hi"}], "graders": [{"type": "equals", "value": "x"}]}\n',
      "bin/keep.txt": "",
    });
    const result = await runEb(["eval", "cases.jsonl", "--target", target, "--cwd", root]);
    expect(result.code).toBe(2);
    const [line] = errors(result.stderr);
    expect(line).toContain(`--target ${JSON.stringify(target)}: `);
    expect(line).toContain(message);
    expect(line).toMatch(/; nothing ran$/);
    expect(runFolders(root)).toEqual([]);
  });

  it("a program found on PATH or by a path runs", async () => {
    const root = project({
      "cases.jsonl":
        '{"id": "a", "messages": [{"role": "user", "content": "hi"}], "graders": [{"type": "equals", "value": "x"}]}\n',
    });
    const script = writeFile(root, "bin/answer.sh", "#!/bin/sh\necho x\n");
    chmodSync(script, 0o755);
    for (const target of ["./bin/answer.sh", "sh bin/answer.sh"]) {
      const result = await runEb(["eval", "cases.jsonl", "--target", target, "--cwd", root]);
      expect(result.stderr, target).not.toContain("error:");
      expect(result.code, target).toBe(0);
    }
  });
});

describe("selection", () => {
  const files = {
    "eval_checks/schema_a.yaml": deterministicYaml("schema_a", "pass", "tags: [schema]\n"),
    "eval_checks/schema_b.yaml": deterministicYaml("schema_b", "pass", "tags: [schema, slow]\n"),
    "eval_checks/other.yaml": deterministicYaml("other", "pass", "tags: [smoke]\n"),
    "eval_checks/last.yaml": deterministicYaml("last", "pass"),
  };
  const ranIds = (root: string) => onlyReport(root).checks.map((c) => c.check_id);

  it("--check-id takes globs and repeats; broken files with other ids do not matter", async () => {
    const root = project({ ...files, "eval_checks/broken.yaml": "id: [unclosed\n" });
    const result = await runEb([
      "run",
      "--cwd",
      root,
      "--check-id",
      "schema_*",
      "--check-id",
      "last",
    ]);
    expect(result.code).toBe(0);
    expect(ranIds(root)).toEqual(["last", "schema_a", "schema_b"]);
  });

  it("a --check-id that matches nothing is an error naming each one", async () => {
    const root = project(files);
    const result = await runEb([
      "run",
      "--cwd",
      root,
      "--check-id",
      "schema_*",
      "--check-id",
      "nope_*",
      "--check-id",
      "absent",
    ]);
    expect(result.code).toBe(2);
    expect(errors(result.stderr)).toEqual([
      "No check id matches 'nope_*'. Run `eb list` to see the ids.",
      "No check found with id 'absent'. Run `eb list` to see the ids.",
    ]);
    expect(runFolders(root)).toEqual([]);
  });

  it("--tag nope says no check has it and lists the tags in use (run and list)", async () => {
    const root = project(files);
    for (const command of ["run", "list"]) {
      const result = await runEb([command, "--cwd", root, "--tag", "nope"]);
      expect(result.code, command).toBe(2);
      expect(errors(result.stderr), command).toEqual([
        "No check has the tag 'nope' (tags in use: schema, slow, smoke).",
      ]);
    }
    expect(runFolders(root)).toEqual([]);
  });

  it("--check-dir that does not exist is an error for list, validate and run", async () => {
    const root = project(files);
    for (const command of ["list", "validate", "run"]) {
      const result = await runEb([command, "--cwd", root, "--check-dir", "nope"]);
      expect(result.code, command).toBe(2);
      expect(errors(result.stderr), command).toEqual([
        `--check-dir nope: ${path.join(root, "nope")} does not exist (the path is relative to the project root ${root})`,
      ]);
    }
  });
});

describe("--json", () => {
  it("eb list --json prints an array of {id, type, file, line, tags, description}", async () => {
    const root = project({
      "eval_checks/a.yaml": deterministicYaml("a", "pass", "tags: [smoke]\n"),
      "sub/eval_checks/j.yaml":
        "# a judge\nschema_version: 1\nid: j\ntype: harness_judge\ndescription: Judge it.\ninstructions: Read README.md.\n",
    });
    const result = await runEb(["list", "--cwd", root, "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      {
        id: "a",
        type: "deterministic",
        file: "eval_checks/a.yaml",
        line: 2,
        tags: ["smoke"],
        description: "Check a.",
      },
      {
        id: "j",
        type: "harness_judge",
        file: "sub/eval_checks/j.yaml",
        line: 3,
        tags: [],
        description: "Judge it.",
      },
    ]);
  });

  it("eb run --json prints report.json on stdout; warnings stay on stderr; exit codes as ever", async () => {
    const root = project({
      "eval_checks/a.yaml": deterministicYaml("a", "pass", "target_paths: [README.md]\n"),
      "eval_checks/b.yaml": deterministicYaml("b", "assert False, 'b is wrong'"),
    });
    const result = await runEb(["run", "--cwd", root, "--json"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("warning:");
    const printed = JSON.parse(result.stdout) as CheckReport;
    const [run] = runFolders(root);
    const file = path.join(root, ".eval-banana", "results", run!, "report.json");
    expect(result.stdout).toBe(readFileSync(file, "utf8"));
    expect(printed.checks.map((c) => [c.check_id, c.status])).toEqual([
      ["a", "passed"],
      ["b", "failed"],
    ]);
  });
});
