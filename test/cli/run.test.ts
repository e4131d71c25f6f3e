import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { CheckReport } from "../../src/checks/report.js";
import { alive } from "../helpers/pids.js";
import {
  CLI,
  cleanEnv,
  deterministicYaml,
  makeProject,
  runEb,
  writeFile,
} from "../helpers/project.js";

/** report.json as read back from disk. */
type ReportJson = CheckReport;

function onlyRunDir(project: string): string {
  const results = path.join(project, ".eval-banana/results");
  const runs = readdirSync(results);
  expect(runs).toHaveLength(1);
  expect(runs[0]).toMatch(/^\d{8}_\d{6}_[0-9a-f]{8}$/);
  return path.join(results, runs[0]!);
}

function readReport(runDir: string): ReportJson {
  return JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8")) as ReportJson;
}

function readRows(runDir: string): Record<string, unknown>[] {
  const lines = readFileSync(path.join(runDir, "rows.jsonl"), "utf8").trim().split("\n");
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

const PASS = "import sys\nsys.exit(0)";
const FAIL = "raise AssertionError('nope')";

describe("eb run with deterministic checks", () => {
  it("scores, reports and writes every file of the seed layout", async () => {
    const project = makeProject({
      "eval_checks/a_pass.yaml": deterministicYaml(
        "a_pass",
        "print('hello from a')",
        "tags: [x]\n",
      ),
      "eval_checks/b_fail.yaml": deterministicYaml("b_fail", FAIL),
      "sub/eval_checks/c_pass.yaml": deterministicYaml("c_pass", PASS, "tags: [y]\n"),
    });
    const result = await runEb(["run", "--cwd", project]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("Score: 2/3");
    expect(result.stdout).toContain("Percentage: 66.7%");
    expect(result.stdout).toContain("- b_fail: failed - AssertionError: nope");
    const runDir = onlyRunDir(project);
    const report = readReport(runDir);
    expect(report).toMatchObject({
      schema_version: 1,
      total_checks: 3,
      passed_checks: 2,
      failed_checks: 1,
      errored_checks: 0,
      points_earned: 2,
      total_points: 3,
      percentage: 66.7,
      pass_threshold: 1,
      meets_threshold: false,
      run_passed: false,
      output_dir: runDir,
    });
    expect(report.checks.map((c) => c.check_id)).toEqual(["a_pass", "b_fail", "c_pass"]);
    const [a, b] = report.checks;
    expect(a).toMatchObject({ status: "passed", score: 1, exit_code: 0, tags: ["x"] });
    expect(a!.stdout).toBe("hello from a\n");
    expect(a!.started_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
    expect(a!.check_definition_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(b).toMatchObject({ status: "failed", score: 0, exit_code: 1, error_detail: null });
    expect(b!.stderr).toContain("AssertionError: nope");

    const files = readdirSync(path.join(runDir, "checks"));
    const aFiles = files.filter((name) => name.startsWith("a_pass-"));
    expect(aFiles.map((name) => name.replace(/^a_pass-[0-9a-f]{64}/, "")).sort()).toEqual([
      "",
      ".json",
      ".stdout.txt",
    ]);
    const aJson = aFiles.find((name) => name.endsWith(".json"))!;
    expect(JSON.parse(readFileSync(path.join(runDir, "checks", aJson), "utf8"))).toEqual(a);
    expect(files.some((name) => name.startsWith("a_pass-") && name.endsWith(".stderr.txt"))).toBe(
      false,
    );
    expect(files.some((name) => name.startsWith("b_fail-") && name.endsWith(".stderr.txt"))).toBe(
      true,
    );

    const md = readFileSync(path.join(runDir, "report.md"), "utf8");
    expect(md).toContain("| Field | Value |");
    expect(md).toContain("| Check ID | Type | Status | Score | Duration (ms) |");
    expect(md).toContain("| `b_fail` | `deterministic` | `failed` | 0 |");

    const rows = readRows(runDir);
    expect(rows[0]).toHaveProperty("manifest.kind", "checks");
    expect(rows[0]).toHaveProperty("manifest.ended_at");
    expect(
      rows
        .slice(1)
        .map((row) => [row.id, row.score, row.status])
        .sort(),
    ).toEqual([
      ["a_pass", 1, "passed"],
      ["b_fail", 0, "failed"],
      ["c_pass", 1, "passed"],
    ]);
  });

  it("passes with exit 0 when every check passes, and honours --pass-threshold", async () => {
    const project = makeProject({
      "eval_checks/a.yaml": deterministicYaml("a", PASS),
      "eval_checks/b.yaml": deterministicYaml("b", FAIL),
    });
    const all = await runEb(["run", "--cwd", project, "--check-id", "a"]);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain("Passed: yes");
    const half = await runEb(["run", "--cwd", project, "--pass-threshold", "0.5"]);
    expect(half.code).toBe(0);
  });

  it("--json prints report.json with the characters that drive a terminal escaped", async () => {
    // A C1 CSI and a right-to-left override in the check's output: JSON.stringify leaves both raw.
    const script = 'print("a\\u009b31mred \\u202eevil")\nraise SystemExit(1)';
    const project = makeProject({ "eval_checks/a.yaml": deterministicYaml("a", script) });
    const result = await runEb(["run", "--cwd", project, "--json"]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).not.toMatch(/[\u009b\u202e]/);
    expect(result.stdout).toContain("\\u009b31mred \\u202eevil");
    const report = JSON.parse(result.stdout) as CheckReport;
    expect(report.checks[0]?.stdout).toContain("a\u009b31mred \u202eevil");
  });

  it("runs the seed README's example check unchanged", async () => {
    const seed = [
      "schema_version: 1",
      "id: output_file_exists",
      "type: deterministic",
      "description: Verify that output.json was generated.",
      "script: |",
      "  import json, sys",
      "  from pathlib import Path",
      "  ctx = json.loads(Path(sys.argv[1]).read_text())",
      '  output = Path(ctx["project_root"]) / "output.json"',
      '  assert output.exists(), "output.json not found"',
      "",
    ].join("\n");
    const project = makeProject({ "eval_checks/output.yaml": seed });
    const missing = await runEb(["run", "--cwd", project]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain("output.json not found");
    writeFile(project, "output.json", "{}");
    const present = await runEb(["run", "--cwd", project]);
    expect(present.code).toBe(0);
  });

  it("writes context.json as specified and runs in the project root", async () => {
    const script = [
      "import json, os, sys",
      "ctx = json.loads(open(sys.argv[1]).read())",
      "print(json.dumps({'ctx': ctx, 'cwd': os.getcwd()}))",
    ].join("\n");
    const project = makeProject({ "eval_checks/ctx.yaml": deterministicYaml("ctx", script) });
    expect((await runEb(["run", "--cwd", project])).code).toBe(0);
    const runDir = onlyRunDir(project);
    const printed = JSON.parse(readReport(runDir).checks[0]!.stdout) as {
      ctx: Record<string, string>;
      cwd: string;
    };
    expect(Object.keys(printed.ctx).sort()).toEqual([
      "check_id",
      "description",
      "output_dir",
      "project_root",
      "source_path",
    ]);
    expect(printed.ctx.check_id).toBe("ctx");
    expect(printed.ctx.project_root).toBe(project);
    expect(printed.cwd).toBe(project);
    expect(printed.ctx.source_path).toBe(path.join(project, "eval_checks/ctx.yaml"));
    expect(path.dirname(printed.ctx.output_dir!)).toBe(path.join(runDir, "checks"));
    expect(existsSync(printed.ctx.output_dir!)).toBe(true);
  });

  it("runs script_path through the launcher: __file__, argv[0], sys.path[0], sibling imports", async () => {
    const script = [
      "import json, sys",
      "import sibling",
      "print(json.dumps({'file': __file__, 'argv0': sys.argv[0], 'path0': sys.path[0],",
      "  'name': __name__, 'sibling': sibling.VALUE, 'main': sys.modules['__main__'].__file__}))",
    ].join("\n");
    const project = makeProject({
      "eval_checks/launch.yaml":
        "schema_version: 1\nid: launch\ntype: deterministic\ndescription: d\nscript_path: scripts/launch.py\n",
      "eval_checks/scripts/launch.py": script,
      "eval_checks/scripts/sibling.py": "VALUE = 42\n",
    });
    const result = await runEb(["run", "--cwd", project]);
    expect(result.code).toBe(0);
    const printed = JSON.parse(readReport(onlyRunDir(project)).checks[0]!.stdout) as Record<
      string,
      unknown
    >;
    const original = path.join(project, "eval_checks/scripts/launch.py");
    expect(printed).toEqual({
      file: original,
      argv0: original,
      path0: path.dirname(original),
      name: "__main__",
      sibling: 42,
      main: original,
    });
  });

  it("runs the script frozen at the start, and its digest binds those bytes", async () => {
    // `a` rewrites b's script while the run is under way; b must still run (and hash) the original.
    const project = makeProject({
      "eval_checks/a.yaml": deterministicYaml(
        "a",
        "import pathlib, sys, json\nctx = json.load(open(sys.argv[1]))\np = pathlib.Path(ctx['project_root']) / 'eval_checks/b.py'\np.write_text('raise SystemExit(3)\\n')",
      ),
      "eval_checks/b.yaml":
        "schema_version: 1\nid: b\ntype: deterministic\ndescription: d\nscript_path: b.py\n",
      "eval_checks/b.py": "print('original')\n",
    });
    const result = await runEb(["run", "--cwd", project, "--max-parallel-checks", "1"]);
    expect(result.code).toBe(0);
    const report = readReport(onlyRunDir(project));
    expect(report.checks[1]).toMatchObject({
      check_id: "b",
      status: "passed",
      stdout: "original\n",
    });
    expect(readFileSync(path.join(project, "eval_checks/b.py"), "utf8")).toContain("SystemExit(3)");
    const { computeCheckDefinitionSha256 } = await import("../../src/checks/digest.js");
    const now = await computeCheckDefinitionSha256(path.join(project, "eval_checks/b.yaml"));
    expect(report.checks[1]!.check_definition_sha256).not.toBe(now);
  });

  it("reports a missing script_path as an error with the path, and exit 1", async () => {
    const project = makeProject({
      "eval_checks/m.yaml":
        "schema_version: 1\nid: m\ntype: deterministic\ndescription: d\nscript_path: missing.py\n",
    });
    const result = await runEb(["run", "--cwd", project]);
    expect(result.code).toBe(1);
    const check = readReport(onlyRunDir(project)).checks[0]!;
    expect(check.status).toBe("error");
    expect(check.exit_code).toBeNull();
    expect(check.error_detail).toContain(path.join(project, "eval_checks/missing.py"));
  });

  it("bounds stdout in the report to its last 2000 characters with a banner", async () => {
    const project = makeProject({
      "eval_checks/big.yaml": deterministicYaml(
        "big",
        "import sys\nsys.stdout.write('x' * 5000 + 'THE-END')",
      ),
    });
    await runEb(["run", "--cwd", project]);
    const runDir = onlyRunDir(project);
    const check = readReport(runDir).checks[0]!;
    const [banner, tail] = check.stdout.split("\n");
    expect(banner).toMatch(
      /last 2000 of 5007 characters; full output in checks\/big-[0-9a-f]{64}\.stdout\.txt/,
    );
    expect(tail).toHaveLength(2000);
    expect(tail!.endsWith("THE-END")).toBe(true);
    const file = banner!.match(/checks\/\S+\.stdout\.txt/)![0];
    expect(readFileSync(path.join(runDir, file), "utf8")).toHaveLength(5007);
  });

  it("kills a hung script's whole process group at the timeout and records an error", async () => {
    const script = [
      "import subprocess, sys, time, json",
      "ctx = json.load(open(sys.argv[1]))",
      "child = subprocess.Popen([sys.executable, '-c', 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)'])",
      "open(ctx['project_root'] + '/child.pid', 'w').write(str(child.pid))",
      "time.sleep(60)",
    ].join("\n");
    const project = makeProject({
      "eval_checks/hang.yaml": deterministicYaml("hang", script),
      "eval_checks/ok.yaml": deterministicYaml("ok", PASS),
    });
    const started = Date.now();
    const result = await runEb(["run", "--cwd", project, "--check-timeout-seconds", "1"]);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.code).toBe(1);
    const report = readReport(onlyRunDir(project));
    expect(report.checks[0]).toMatchObject({ check_id: "hang", status: "error" });
    expect(report.checks[0]!.error_detail).toContain("timed out after 1 seconds");
    expect(report.checks[1]).toMatchObject({ check_id: "ok", status: "passed" });
    const pid = Number(readFileSync(path.join(project, "child.pid"), "utf8"));
    expect(alive(pid)).toBe(false);
  });

  it("keeps the report in sorted order whatever the completion order", async () => {
    const project = makeProject({
      "eval_checks/a.yaml": deterministicYaml("a", "import time\ntime.sleep(0.6)"),
      "eval_checks/b.yaml": deterministicYaml("b", "import time\ntime.sleep(0.3)"),
      "eval_checks/c.yaml": deterministicYaml("c", PASS),
    });
    const result = await runEb(["run", "--cwd", project, "--max-parallel-checks", "3"]);
    expect(result.code).toBe(0);
    const runDir = onlyRunDir(project);
    expect(readReport(runDir).checks.map((c) => c.check_id)).toEqual(["a", "b", "c"]);
    // rows.jsonl is in completion order: the slow one last.
    expect(
      readRows(runDir)
        .slice(1)
        .map((row) => row.id),
    ).toEqual(["c", "b", "a"]);
  });

  it("selects by --tag (any of several) and by --check-id despite a broken file elsewhere", async () => {
    const project = makeProject({
      "eval_checks/a.yaml": deterministicYaml("a", PASS, "tags: [fast]\n"),
      "eval_checks/b.yaml": deterministicYaml("b", PASS, "tags: [slow]\n"),
      "eval_checks/c.yaml": deterministicYaml("c", PASS, "tags: [other]\n"),
    });
    await runEb(["run", "--cwd", project, "--tag", "fast", "--tag", "slow"]);
    expect(readReport(onlyRunDir(project)).checks.map((c) => c.check_id)).toEqual(["a", "b"]);
    writeFile(project, "eval_checks/broken.yaml", "id: [unclosed\n");
    const one = await runEb(["run", "--cwd", project, "--check-id", "c", "--output-dir", "o2"]);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain("Score: 1/1");
    const { rmSync } = await import("node:fs");
    rmSync(path.join(project, "eval_checks/broken.yaml"));
    const none = await runEb(["run", "--cwd", project, "--tag", "nope"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("No check has the tag 'nope' (tags in use: fast, other, slow)");
  });

  it("resolves the interpreter once per run, and [core] python picks another", async () => {
    const project = makeProject({
      "eval_checks/a.yaml": deterministicYaml("a", "import sys\nprint(sys.executable)"),
      "eval_checks/b.yaml": deterministicYaml("b", PASS),
      "eval_checks/c.yaml": deterministicYaml("c", PASS),
    });
    const log = path.join(project, "shim.log");
    const shim = writeFile(
      project,
      "bin/python-shim",
      `#!/bin/sh\necho "$@" >> "${log}"\nexec python3 "$@"\n`,
    );
    const { chmodSync } = await import("node:fs");
    chmodSync(shim, 0o755);
    const result = await runEb(["run", "--cwd", project], { env: { EVAL_BANANA_PYTHON: shim } });
    expect(result.code).toBe(0);
    expect(readFileSync(log, "utf8").trim().split("\n")).toHaveLength(1);

    // An interpreter that cannot start stops the run before any row is written.
    const bad = await runEb(["run", "--cwd", project, "--output-dir", "bad"], {
      env: { EVAL_BANANA_PYTHON: path.join(project, "no-such-python") },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Python interpreter");
    expect(existsSync(path.join(project, "bad"))).toBe(false);
  });

  it("writes flat output into an empty --output-dir and refuses anything else", async () => {
    const project = makeProject({ "eval_checks/a.yaml": deterministicYaml("a", PASS) });
    const flat = path.join(project, "attempt/eval");
    const ok = await runEb(["run", "--cwd", project, "--flat-output", "--output-dir", flat]);
    expect(ok.code).toBe(0);
    expect(readdirSync(flat).sort()).toEqual([
      "checks",
      "report.html",
      "report.json",
      "report.md",
      "rows.jsonl",
    ]);
    expect(readReport(flat).output_dir).toBe(flat);

    const again = await runEb(["run", "--cwd", project, "--flat-output", "--output-dir", flat]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("not empty");

    const noDir = await runEb(["run", "--cwd", project, "--flat-output"]);
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toContain("--flat-output requires an explicit --output-dir");

    const { symlinkSync, mkdirSync } = await import("node:fs");
    mkdirSync(path.join(project, "empty"));
    symlinkSync(path.join(project, "empty"), path.join(project, "link"));
    const link = await runEb(["run", "--cwd", project, "--flat-output", "--output-dir", "link"]);
    expect(link.code).toBe(2);
    expect(link.stderr).toContain("symbolic link");
    expect(readdirSync(path.join(project, "empty"))).toEqual([]);
  });

  it("on SIGINT keeps finished rows, marks the report interrupted and exits 130", async () => {
    const project = makeProject({
      "eval_checks/a.yaml": deterministicYaml("a", PASS),
      "eval_checks/b.yaml": deterministicYaml("b", "import time\ntime.sleep(60)"),
    });
    const { spawn } = await import("node:child_process");
    const child = spawn(process.execPath, [CLI, "run", "--cwd", project], {
      stdio: "pipe",
      env: cleanEnv(),
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
    });
    const rowsFile = () => {
      const results = path.join(project, ".eval-banana/results");
      const runs = existsSync(results) ? readdirSync(results) : [];
      return runs[0] ? path.join(results, runs[0], "rows.jsonl") : null;
    };
    // Wait until check a has its row, then interrupt while b sleeps.
    const deadline = Date.now() + 15_000;
    for (;;) {
      const file = rowsFile();
      // The run folder appears a moment before its rows file.
      if (file && existsSync(file) && readFileSync(file, "utf8").includes('"id":"a"')) break;
      if (Date.now() > deadline) throw new Error("check a never finished");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill("SIGINT");
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(130);
    const runDir = onlyRunDir(project);
    const report = readReport(runDir);
    expect(report.interrupted).toBe(true);
    expect(report.run_passed).toBe(false);
    expect(report.checks.map((c) => c.check_id)).toEqual(["a"]);
    const rows = readRows(runDir);
    expect(rows.map((row) => row.id ?? "manifest")).toEqual(["manifest", "a"]);
    expect(rows[0]).toHaveProperty("manifest.interrupted", true);
    expect(stdout).toContain("Interrupted");
    expect(stdout.trimEnd().split("\n").at(-1)).toBe("Gate: interrupted after 1 sample → failed");
  });
});

/** Alive = exists and is not a zombie (a killed orphan may wait for PID 1 to reap it). */

describe("eb run --resume", () => {
  it("runs only the missing checks of an interrupted run and ends as an uninterrupted run", async () => {
    const project = makeProject({
      "eval_checks/a.yaml": deterministicYaml("a", PASS),
      "eval_checks/b.yaml": deterministicYaml("b", FAIL),
      "eval_checks/c.yaml": deterministicYaml(
        "c",
        "import json, sys, pathlib, time\nctx = json.load(open(sys.argv[1]))\nroot = pathlib.Path(ctx['project_root'])\nif not (root / 'go').exists(): time.sleep(60)",
      ),
    });
    const { spawn } = await import("node:child_process");
    const child = spawn(process.execPath, [
      CLI,
      "run",
      "--cwd",
      project,
      "--max-parallel-checks",
      "3",
    ]);
    // A bound on the wait, not a timing assert: a loaded machine starts Python slowly.
    const deadline = Date.now() + 60_000;
    let runDir = "";
    for (;;) {
      const results = path.join(project, ".eval-banana/results");
      const runs = existsSync(results) ? readdirSync(results) : [];
      runDir = runs[0] ? path.join(results, runs[0]) : "";
      const rows = runDir && existsSync(path.join(runDir, "rows.jsonl"));
      if (rows && readRows(runDir).length === 3) break;
      if (Date.now() > deadline) throw new Error("a and b never finished");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill("SIGTERM");
    expect(await new Promise((resolve) => child.on("close", resolve))).toBe(130);
    expect(readReport(runDir).checks.map((c) => c.check_id)).toEqual(["a", "b"]);

    writeFile(project, "go", "");
    const resumed = await runEb(["run", "--cwd", project, "--resume", runDir]);
    expect(resumed.code).toBe(1);
    const report = readReport(runDir);
    expect(report.interrupted).toBeUndefined();
    expect(report.checks.map((c) => [c.check_id, c.status])).toEqual([
      ["a", "passed"],
      ["b", "failed"],
      ["c", "passed"],
    ]);
    const rows = readRows(runDir);
    expect(
      rows
        .slice(1)
        .map((row) => row.id)
        .sort(),
    ).toEqual(["a", "b", "c"]);
    expect(rows[0]).toHaveProperty("manifest.resumes", 1);
    expect(rows[0]).toHaveProperty("manifest.interrupted", false);

    writeFile(project, "eval_checks/b.yaml", deterministicYaml("b", PASS));
    const changed = await runEb(["run", "--cwd", project, "--resume", runDir]);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain("definitions changed");
  }, 120_000);
});
