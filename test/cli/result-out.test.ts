import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { deterministicYaml, makeProject, newestRun, runEb } from "../helpers/project.js";

const KEYS = [
  "schema_version",
  "tool_version",
  "status",
  "run_passed",
  "pass_threshold",
  "harness",
  "observed",
  "produced_at",
  "provenance",
  "checks",
  "error",
];
const FENCE = "```eval-banana-result v1\n";

interface ResultObject {
  status: string;
  run_passed: boolean;
  pass_threshold: number;
  harness: { family: string | null; effort: string | null };
  observed: Record<string, string | null>;
  produced_at: string;
  provenance: Record<string, string | null>;
  checks: { id: string; status: string; reason: string | null; model: string | null }[];
  error: string | null;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8" });

/** The digest as the issue defines it, computed here without eb. */
function dirtyDigest(cwd: string): string {
  const hash = createHash("sha256");
  hash.update(git(cwd, "status", "--porcelain"));
  hash.update("\0");
  hash.update(git(cwd, "diff"));
  hash.update("\0");
  hash.update(git(cwd, "diff", "--cached"));
  return `sha256:${hash.digest("hex")}`;
}

/** A git repository with a passing check, a failing one, and one that edits the tree. */
function gitProject(): string {
  const root = makeProject({
    "eval_checks/ok.yaml": deterministicYaml("ok", "import sys\nsys.exit(0)"),
    "eval_checks/bad.yaml": deterministicYaml("bad", "assert 1 + 1 == 3, 'arithmetic is off'"),
    "eval_checks/edits.yaml": deterministicYaml(
      "edits",
      [
        "import json, subprocess, sys, pathlib",
        "root = pathlib.Path(json.load(open(sys.argv[1]))['project_root'])",
        "(root / 'tracked.txt').write_text('changed by the run')",
        "subprocess.run(['git', 'commit', '-qam', 'made by a check'], cwd=root, check=True)",
      ].join("\n"),
    ),
    "tracked.txt": "v1",
    ".gitignore": ".eval-banana/\nout/\n",
  });
  for (const args of [
    ["init", "-q"],
    ["config", "user.email", "t@example.com"],
    ["config", "user.name", "t"],
    ["add", "-A"],
    ["commit", "-qm", "start"],
  ])
    git(root, ...args);
  // A staged change and an unstaged one, so the digest has something to hash.
  writeFileSync(path.join(root, "staged.txt"), "new");
  git(root, "add", "staged.txt");
  writeFileSync(path.join(root, "tracked.txt"), "v2");
  return root;
}

function fenced(text: string): ResultObject {
  expect(text.startsWith(FENCE)).toBe(true);
  const end = text.indexOf("\n```\n", FENCE.length);
  const json = text.slice(FENCE.length, end);
  expect(Object.keys(JSON.parse(json))).toEqual(KEYS);
  return JSON.parse(json) as ResultObject;
}

describe("eb run --result-out", () => {
  it("writes the md result file: the object in its fence, then report.md, git observed at the start", async () => {
    const root = gitProject();
    const commitBefore = git(root, "rev-parse", "HEAD").trim();
    const digestBefore = dirtyDigest(root);
    const result = await runEb(
      [
        "run",
        "--result-out",
        "out/deep/result.md",
        "--provenance-attempt",
        "attempt-7",
        "--provenance-field",
        "session=s1",
        "--provenance-field",
        "query=a=b",
      ],
      { cwd: root },
    );
    expect(result.code, result.stderr).toBe(1);
    const text = readFileSync(path.join(root, "out/deep/result.md"), "utf8");
    const object = fenced(text);
    expect(object).toMatchObject({
      schema_version: 1,
      status: "completed",
      run_passed: false,
      pass_threshold: 1,
      harness: { family: null, effort: null },
      provenance: { attempt: "attempt-7", session: "s1", query: "a=b" },
      error: null,
    });
    expect(Object.keys(object.provenance)).toEqual(["attempt", "session", "query"]);
    expect(object.checks).toEqual(
      [
        {
          id: "bad",
          status: "failed",
          reason: expect.stringContaining("arithmetic is off"),
          model: null,
        },
        { id: "edits", status: "passed", reason: null, model: null },
        { id: "ok", status: "passed", reason: null, model: null },
      ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
    // The check committed and edited the tree: before is what the run started from.
    const commitAfter = git(root, "rev-parse", "HEAD").trim();
    expect(commitAfter).not.toBe(commitBefore);
    expect(dirtyDigest(root)).not.toBe(digestBefore);
    expect(object.observed).toEqual({
      commit_before: commitBefore,
      commit_after: commitAfter,
      dirty_tree_digest: digestBefore,
      dirty_tree_algorithm: "eb-git-status-v2-sha256",
    });
    expect(object.produced_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/);
    // After the fence: an empty line, then the run folder's report.md, byte for byte.
    const body = text.slice(text.indexOf("\n```\n", FENCE.length) + 5);
    expect(body).toBe(
      `\n${readFileSync(path.join(newestRun(path.join(root, ".eval-banana/results")), "report.md"), "utf8")}`,
    );
    expect(readdirSync(path.join(root, "out/deep"))).toEqual(["result.md"]);
  }, 60_000);

  it("--result-format json writes the object alone; --pass-threshold is the effective one", async () => {
    const root = makeProject({ "eval_checks/ok.yaml": deterministicYaml("ok", "pass") });
    const result = await runEb(
      ["run", "--result-out", "r.json", "--result-format", "json", "--pass-threshold", "0.5"],
      { cwd: root },
    );
    expect(result.code, result.stderr).toBe(0);
    const text = readFileSync(path.join(root, "r.json"), "utf8");
    expect(text.endsWith("}\n")).toBe(true);
    const object = JSON.parse(text) as ResultObject;
    expect(Object.keys(object)).toEqual(KEYS);
    expect(object).toMatchObject({ status: "completed", run_passed: true, pass_threshold: 0.5 });
    expect(object.provenance).toEqual({ attempt: null });
    // Outside a git tree, nothing is guessed.
    expect(object.observed).toEqual({
      commit_before: null,
      commit_after: null,
      dirty_tree_digest: null,
      dirty_tree_algorithm: null,
    });
  });

  const stops: [string, Record<string, string>, string, string][] = [
    ["no_checks", {}, "No checks found", "no checks"],
    [
      "config_error",
      {
        ".eval-banana/config.toml": "[core\n",
        "eval_checks/ok.yaml": deterministicYaml("ok", "pass"),
      },
      "config.toml",
      "a bad config file",
    ],
    [
      "harness_error",
      {
        "eval_checks/judge.yaml":
          "schema_version: 1\nid: judge\ntype: harness_judge\ndescription: d\ninstructions: Score 1.\n",
      },
      "requires a harness",
      "a judge check with no agent",
    ],
  ];
  for (const [status, files, message, what] of stops) {
    it(`still writes the file when the run stops before a report: ${what} → ${status}`, async () => {
      const root = makeProject(files);
      const result = await runEb(["run", "--result-out", "r.md"], { cwd: root });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
      const text = readFileSync(path.join(root, "r.md"), "utf8");
      const object = fenced(text);
      expect(object).toMatchObject({ status, run_passed: false, checks: [] });
      expect(object.error).toContain(message);
      expect(text.endsWith("```\n\n")).toBe(true);
    });
  }

  it("refuses a symlink at the path and leaves the link's target untouched", async () => {
    const root = makeProject({ "eval_checks/ok.yaml": deterministicYaml("ok", "pass") });
    const target = path.join(root, "precious.txt");
    writeFileSync(target, "keep me");
    mkdirSync(path.join(root, "out"));
    symlinkSync(target, path.join(root, "out/result.md"));
    const result = await runEb(["run", "--result-out", "out/result.md"], { cwd: root });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("symlink");
    expect(readFileSync(target, "utf8")).toBe("keep me");
    expect(lstatSync(path.join(root, "out/result.md")).isSymbolicLink()).toBe(true);
    expect(existsSync(path.join(root, ".eval-banana/results"))).toBe(false);
  });

  it("--provenance-field without = is a usage error", async () => {
    const root = makeProject({ "eval_checks/ok.yaml": deterministicYaml("ok", "pass") });
    const result = await runEb(["run", "--result-out", "r.md", "--provenance-field", "nokey"], {
      cwd: root,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--provenance-field must be key=value");
    expect(existsSync(path.join(root, "r.md"))).toBe(false);
  });
});
