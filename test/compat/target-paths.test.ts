/**
 * A check suite written for Eval Banana 0.2 (writeitai/eval-banana v0.2.0, commit 6ebb3ee),
 * which had `target_paths`, runs with the verdicts 0.2 gives on the same files.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, realpathSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject, runEb, writeFile } from "../helpers/project.js";

const AGENT = path.resolve(import.meta.dirname, "fixtures/reads-named-file-agent.mjs");

const WARNING = "target_paths is deprecated (Eval Banana 0.2)";

function check(id: string, type: string, description: string, body: string[]): string {
  return [`schema_version: 1`, `id: ${id}`, `type: ${type}`, `description: ${description}`, ...body]
    .map((line) => `${line}\n`)
    .join("");
}

const READ_CTX = [
  "  import json, sys",
  "  from pathlib import Path",
  "  ctx = json.loads(Path(sys.argv[1]).read_text())",
];

/** The suite; `root` is the project's real path, for an absolute entry. */
function suite(root: string): Record<string, string> {
  return {
    "eval_checks/targets_exist.yaml": check(
      "targets_exist",
      "deterministic",
      "Every target exists.",
      [
        "target_paths:",
        "  - README.md",
        "  - docs",
        "  - link.md",
        "  - linked_dir/../app.txt",
        "  - nowhere/../README.md",
        `  - ${root}/README.md`,
        "script: |",
        ...READ_CTX,
        "  print(json.dumps(ctx))",
        "  root = Path(ctx['project_root'])",
        "  for t in ctx['targets']:",
        "      # 0.2's runners/deterministic.py computed exactly this.",
        "      resolved = (root / t['path']).resolve()",
        "      expected = {'path': t['path'], 'resolved_path': str(resolved),",
        "                  'exists': resolved.exists(), 'is_dir': resolved.is_dir()}",
        "      assert t == expected, (t, expected)",
        "      assert t['exists'], f\"missing target: {t['path']}\"",
      ],
    ),
    "eval_checks/target_missing.yaml": check(
      "target_missing",
      "deterministic",
      "Every target exists.",
      [
        "target_paths: [README.md, missing.txt]",
        "script: |",
        ...READ_CTX,
        "  for t in ctx['targets']:",
        "      assert t['exists'], f\"missing target: {t['path']}\"",
      ],
    ),
    "eval_checks/no_targets.yaml": check("no_targets", "deterministic", "Today's context.", [
      "script: |",
      ...READ_CTX,
      "  keys = ['check_id', 'description', 'project_root', 'source_path', 'output_dir']",
      "  assert list(ctx) == keys, list(ctx)",
    ]),
    // Neither the description nor the instructions name the file: only target_paths does.
    "eval_checks/readme_judge.yaml": check(
      "readme_judge",
      "harness_judge",
      "The target file explains installation.",
      [
        "target_paths: [README.md]",
        "instructions: Score 1 if the target file says how to install the package, 0 if not.",
      ],
    ),
  };
}

const CONFIG = [
  "[harness]",
  'agent = "reader"',
  "[agents.reader]",
  `command = ["${process.execPath}", "${AGENT}", "README.md"]`,
  "",
].join("\n");

/** The suite in a fresh project (makeProject's folders last one test); returns its real path. */
function setup(): string {
  const root = realpathSync(
    makeProject({
      ".eval-banana/config.toml": CONFIG,
      "README.md": "# Demo\n\nInstall it with `npm install demo`.\n",
      "docs/sub/.keep": "",
      "docs/app.txt": "app\n",
    }),
  );
  for (const [file, text] of Object.entries(suite(root))) writeFile(root, file, text);
  symlinkSync("README.md", path.join(root, "link.md"));
  symlinkSync("docs/sub", path.join(root, "linked_dir"));
  return root;
}

const checkFile = (root: string, id: string) => path.join(root, "eval_checks", `${id}.yaml`);

/** Every check with target_paths warns once, naming its file and the field's line. */
function expectWarnings(root: string, stderr: string): void {
  for (const id of ["targets_exist", "target_missing", "readme_judge"]) {
    expect(stderr).toContain(`warning: ${checkFile(root, id)}:5: ${WARNING}`);
  }
  expect(stderr.split(WARNING)).toHaveLength(4);
}

/** The canonical digest computed here from the file's bytes, not by the code under test. */
function digestOfBytes(file: string): string {
  const frame = (bytes: Uint8Array) => {
    const length = Buffer.alloc(8);
    length.writeBigUInt64BE(BigInt(bytes.length));
    return [length, bytes];
  };
  const hash = createHash("sha256").update("eval-banana/check-definition-sha256/v1\0");
  for (const part of [...frame(Buffer.from("definition.yaml")), ...frame(readFileSync(file))]) {
    hash.update(part);
  }
  return `sha256:${hash.digest("hex")}`;
}

/** The fields of a report.json check result this test reads. */
interface Result {
  check_id: string;
  status: string;
  reason: string | null;
  exit_code: number | null;
  stdout: string;
  stderr: string;
  check_definition_sha256: string;
}

function readResults(root: string): Map<string, Result> {
  const results = path.join(root, ".eval-banana/results");
  const runDir = path.join(results, readdirSync(results)[0]!);
  const report = JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8")) as {
    checks: Result[];
  };
  return new Map(report.checks.map((result) => [result.check_id, result]));
}

describe("eb run on an Eval Banana 0.2 suite with target_paths", () => {
  it("gets 0.2's verdicts, exit code and targets, warns, and keeps the digest", async () => {
    const root = setup();
    const run = await runEb(["run", "--cwd", root]);
    const checks = readResults(root);
    expectVerdicts(run.code, run.stdout, checks);
    expectTargets(root, checks.get("targets_exist")!.stdout);
    expectWarnings(root, run.stderr);
    for (const [id, result] of checks) {
      expect(result.check_definition_sha256).toBe(digestOfBytes(checkFile(root, id)));
    }
  });
});

function expectVerdicts(code: number, stdout: string, checks: Map<string, Result>): void {
  // 0.2: exit 0 passes, any other exit fails (not an error), and the run fails (exit 1)
  // when points / total (3/4) is under pass_threshold 1.0.
  expect(code).toBe(1);
  expect(stdout).toContain("Score: 3/4");
  expect(checks.get("targets_exist")).toMatchObject({ status: "passed", exit_code: 0 });
  expect(checks.get("target_missing")).toMatchObject({ status: "failed", exit_code: 1 });
  expect(checks.get("target_missing")!.stderr).toContain("missing target: missing.txt");
  // 0.2 put the file in the judge's prompt; the judge now reads the file the prompt names.
  expect(checks.get("readme_judge")).toMatchObject({ status: "passed", reason: "read README.md" });
  // Not 0.2 (it always gave `targets`, [] without target_paths): today's 5-key context.
  expect(checks.get("no_targets")).toMatchObject({ status: "passed" });
}

/** 0.2's targets: in order, as written, resolved from the project root. */
function expectTargets(root: string, stdout: string): void {
  const ctx = JSON.parse(stdout) as Record<string, unknown>;
  // 0.2's payload order: the five keys, then targets.
  expect(Object.keys(ctx)).toEqual([
    "check_id",
    "description",
    "project_root",
    "source_path",
    "output_dir",
    "targets",
  ]);
  const target = (entry: string, resolved: string, isDir = false) => ({
    path: entry,
    resolved_path: path.join(root, resolved),
    exists: true,
    is_dir: isDir,
  });
  // Path.resolve(): absolute, symlinks followed, `..` taken after a symlink is resolved.
  expect(ctx.targets).toEqual([
    target("README.md", "README.md"),
    target("docs", "docs", true),
    target("link.md", "README.md"),
    target("linked_dir/../app.txt", "docs/app.txt"),
    target("nowhere/../README.md", "README.md"),
    target(`${root}/README.md`, "README.md"),
  ]);
}

describe("eb list and eb validate on the 0.2 suite", () => {
  it("eb list lists every check and warns on stderr", async () => {
    const root = setup();
    const result = await runEb(["list", "--cwd", root]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split("\n")).toHaveLength(4);
    expectWarnings(root, result.stderr);
  });

  it("eb validate accepts every check and warns on stderr", async () => {
    const root = setup();
    const result = await runEb(["validate", "--cwd", root]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Validated 4 checks successfully.");
    expectWarnings(root, result.stderr);
  });
});
