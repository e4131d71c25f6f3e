import { existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { deterministicYaml, makeProject, runEb } from "../helpers/project.js";

/** A deterministic check that leaves `ran.txt` in the project root when it runs. */
const MARKER_CHECK = deterministicYaml("marker", 'open("ran.txt", "w").write("x")');

function judgeYaml(id: string): string {
  return `schema_version: 1\nid: ${id}\ntype: harness_judge\ndescription: Judge ${id}.\ninstructions: Look at README.md.\n`;
}

function project(files: Record<string, string>): string {
  return realpathSync(makeProject({ "eval_checks/marker.yaml": MARKER_CHECK, ...files }));
}

function escapeRegExp(text: string): string {
  return text.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Runs `eb run` and asserts: exit 2, no run folder, the marker check did not run. */
async function runFails(root: string, extraArgs: string[] = []): Promise<string> {
  const result = await runEb(["run", "--cwd", root, ...extraArgs]);
  expect(result.code).toBe(2);
  expect(result.stdout).not.toContain("Run ID");
  expect(existsSync(path.join(root, ".eval-banana", "results"))).toBe(false);
  expect(existsSync(path.join(root, "ran.txt"))).toBe(false);
  return result.stderr;
}

describe("eb run refuses bad input with exit 2 before running anything", () => {
  it("sanity: the marker check runs when the input is good", async () => {
    const root = project({});
    const result = await runEb(["run", "--cwd", root]);
    expect(result.code).toBe(0);
    expect(existsSync(path.join(root, "ran.txt"))).toBe(true);
    expect(existsSync(path.join(root, ".eval-banana", "results"))).toBe(true);
  });

  it("malformed YAML: stderr names file:line:col", async () => {
    const root = project({
      "eval_checks/bad.yaml":
        "schema_version: 1\nid: bad\ntype: deterministic\ndescription: d: e\n",
    });
    const stderr = await runFails(root);
    const file = path.join(root, "eval_checks", "bad.yaml");
    expect(stderr).toMatch(new RegExp(`${escapeRegExp(file)}:4:\\d+`));
  });

  it("unknown field", async () => {
    const root = project({ "eval_checks/bad.yaml": deterministicYaml("bad", "pass", "foo: 1\n") });
    const stderr = await runFails(root);
    expect(stderr).toContain(path.join(root, "eval_checks", "bad.yaml"));
    expect(stderr).toContain("foo");
  });

  it("duplicate id", async () => {
    const root = project({
      "eval_checks/a.yaml": deterministicYaml("same", "pass"),
      "sub/eval_checks/b.yaml": deterministicYaml("same", "pass"),
    });
    const stderr = await runFails(root);
    expect(stderr).toContain("Duplicate check id 'same'");
    expect(stderr).toContain(path.join(root, "eval_checks", "a.yaml"));
    expect(stderr).toContain(path.join(root, "sub", "eval_checks", "b.yaml"));
  });

  it("bad id", async () => {
    const root = project({ "eval_checks/bad.yaml": deterministicYaml('"bad id"', "pass") });
    const stderr = await runFails(root);
    expect(stderr).toContain(path.join(root, "eval_checks", "bad.yaml"));
    expect(stderr).toContain("id must match");
  });

  it("a blank target_paths entry", async () => {
    const root = project({
      "eval_checks/bad.yaml": deterministicYaml("bad", "pass", 'target_paths: [a.md, " "]\n'),
    });
    const stderr = await runFails(root);
    const file = path.join(root, "eval_checks", "bad.yaml");
    expect(stderr).toContain(`${file}:5:22: target_paths entries must be non-empty strings`);
  });

  it("target_paths that is not a list", async () => {
    const root = project({
      "eval_checks/bad.yaml": deterministicYaml("bad", "pass", "target_paths: README.md\n"),
    });
    const stderr = await runFails(root);
    const file = path.join(root, "eval_checks", "bad.yaml");
    expect(stderr).toContain(`${file}:5:15: target_paths must be a list of strings`);
  });

  it("legacy llm_judge type", async () => {
    const root = project({
      "eval_checks/bad.yaml": judgeYaml("old").replace("harness_judge", "llm_judge"),
    });
    const stderr = await runFails(root);
    expect(stderr).toContain(path.join(root, "eval_checks", "bad.yaml"));
    expect(stderr).toContain("Check type 'llm_judge' was renamed to 'harness_judge'");
  });

  it("[llm] config section", async () => {
    const root = project({ ".eval-banana/config.toml": '[llm]\nmodel = "x"\n' });
    const stderr = await runFails(root);
    expect(stderr).toContain(path.join(root, ".eval-banana", "config.toml"));
    expect(stderr).toContain("Legacy [llm] section was removed");
  });

  it("pass_threshold = 2 in the config", async () => {
    const root = project({ ".eval-banana/config.toml": "[core]\npass_threshold = 2\n" });
    const stderr = await runFails(root);
    expect(stderr).toContain(`${path.join(root, ".eval-banana", "config.toml")}:2`);
    expect(stderr).toContain("pass_threshold");
  });

  it("--pass-threshold 2", async () => {
    const root = project({});
    const stderr = await runFails(root, ["--pass-threshold", "2"]);
    expect(stderr).toContain("--pass-threshold");
  });

  it("EVAL_BANANA_PASS_THRESHOLD=abc", async () => {
    const root = project({});
    const result = await runEb(["run", "--cwd", root], {
      env: { EVAL_BANANA_PASS_THRESHOLD: "abc" },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("EVAL_BANANA_PASS_THRESHOLD");
    expect(existsSync(path.join(root, ".eval-banana", "results"))).toBe(false);
  });

  it("unknown flag --skip-harness", async () => {
    const root = project({});
    const stderr = await runFails(root, ["--skip-harness"]);
    expect(stderr).toContain("--skip-harness");
  });

  it("a judge check with no agent configured names the judge file", async () => {
    const root = project({ "eval_checks/j.yaml": judgeYaml("j") });
    const stderr = await runFails(root);
    expect(stderr).toContain(`first offender: ${path.join(root, "eval_checks", "j.yaml")}`);
  });

  it("an unknown --harness-agent", async () => {
    const root = project({ "eval_checks/j.yaml": judgeYaml("j") });
    const stderr = await runFails(root, ["--harness-agent", "nope"]);
    expect(stderr).toContain("nope");
  });

  it("no checks found", async () => {
    const root = realpathSync(makeProject());
    const result = await runEb(["run", "--cwd", root]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("No checks found");
    expect(existsSync(path.join(root, ".eval-banana", "results"))).toBe(false);
  });

  it("--check-id not found", async () => {
    const root = project({});
    const stderr = await runFails(root, ["--check-id", "absent"]);
    expect(stderr).toContain("absent");
  });
});

describe("eb validate", () => {
  it("prints the count of a valid project", async () => {
    const root = project({
      "eval_checks/b.yaml": deterministicYaml("b", "pass"),
      "other/eval_checks/c.yml": deterministicYaml("c", "pass"),
    });
    const result = await runEb(["validate", "--cwd", root]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Validated 3 checks successfully.\n");
    expect(existsSync(path.join(root, "ran.txt"))).toBe(false);
    expect(existsSync(path.join(root, ".eval-banana", "results"))).toBe(false);
  });

  it("a missing script_path is an error naming file:line (exit 2)", async () => {
    const root = project({
      "eval_checks/s.yaml":
        "schema_version: 1\nid: s\ntype: deterministic\ndescription: d\nscript_path: gone.py\n",
    });
    const result = await runEb(["validate", "--cwd", root]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `error: ${path.join(root, "eval_checks", "s.yaml")}:5: Deterministic script not found: ${path.join(root, "eval_checks", "gone.py")} (ENOENT)\n`,
    );
  });

  it("enforces the harness gate (exit 2)", async () => {
    const root = project({ "eval_checks/j.yaml": judgeYaml("j") });
    const result = await runEb(["validate", "--cwd", root]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(path.join(root, "eval_checks", "j.yaml"));
  });

  it("reports an invalid file (exit 2)", async () => {
    const root = project({ "eval_checks/bad.yaml": deterministicYaml("bad", "pass", "foo: 1\n") });
    const result = await runEb(["validate", "--cwd", root]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(path.join(root, "eval_checks", "bad.yaml"));
  });

  it("reports every problem of a file in one round, a misspelt type too, with the nearest names", async () => {
    const root = project({
      "eval_checks/bad.yaml":
        "schema_version: 1\nid: bad one\ntype: determinstic\ndescripton: Output exists.\nscript: pass\n",
    });
    const result = await runEb(["validate", "--cwd", root]);
    expect(result.code).toBe(2);
    const file = path.join(root, "eval_checks", "bad.yaml");
    expect(result.stderr.split("\n").slice(1, -1).sort()).toEqual(
      [
        `  ${file}:1:1: description must be a string (field 'description' is missing)`,
        `  ${file}:2:5: id must match ^[a-zA-Z0-9_-]+$ (letters, digits, _ and -)`,
        `  ${file}:3:7: type must be 'deterministic' or 'harness_judge': did you mean 'deterministic'?`,
        `  ${file}:4:1: unknown field 'descripton': did you mean 'description'?`,
      ].sort(),
    );
  });

  it("suggests the nearest agent, and the nearest key of the config's table", async () => {
    const root = project({
      "eval_checks/j.yaml": judgeYaml("j"),
      ".eval-banana/config.toml":
        '[core]\npass_treshold = 0.5\n[harness]\nmodle = "m"\n[agents.claud]\nprompt_flag = "-p"\n',
    });
    const config = path.join(root, ".eval-banana", "config.toml");
    const result = await runEb(["validate", "--cwd", root]);
    expect(result.code).toBe(2);
    for (const line of [
      `${config}:2: [core] has unknown key pass_treshold: did you mean 'pass_threshold'?`,
      `${config}:4: [harness] has unknown key modle: did you mean 'model'?`,
      `${config}:5: [agents.claud] command is required for a custom agent`,
      "; did you mean 'claude'?",
    ]) {
      expect(result.stderr).toContain(line);
    }
    writeFileSync(config, "");
    const agent = await runEb(["validate", "--cwd", root, "--harness-agent", "codx"]);
    expect(agent.code).toBe(2);
    expect(agent.stderr).toContain(
      "Unknown harness agent: codx (did you mean 'codex'?). Known agents: codex, claude,",
    );
    const far = await runEb(["validate", "--cwd", root, "--harness-agent", "nope"]);
    expect(far.stderr).toContain("Unknown harness agent: nope. Known agents:");
  });
});

describe("eb list", () => {
  it("prints tab-separated id, type, description, path and ignores the harness gate", async () => {
    const root = project({ "eval_checks/j.yaml": judgeYaml("j") });
    const result = await runEb(["list", "--cwd", root]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        ["j", "harness_judge", "Judge j.", path.join(root, "eval_checks", "j.yaml")].join("\t"),
        [
          "marker",
          "deterministic",
          "Check marker.",
          path.join(root, "eval_checks", "marker.yaml"),
        ].join("\t"),
        "",
      ].join("\n"),
    );
  });

  it("--tag filters (any of the tags)", async () => {
    const root = project({
      "eval_checks/a.yaml": deterministicYaml("a", "pass", "tags: [smoke]\n"),
      "eval_checks/b.yaml": deterministicYaml("b", "pass", "tags: [slow]\n"),
      "eval_checks/c.yaml": deterministicYaml("c", "pass", "tags: [other]\n"),
    });
    const one = await runEb(["list", "--cwd", root, "--tag", "smoke"]);
    expect(one.code).toBe(0);
    expect(
      one.stdout
        .split("\n")
        .filter(Boolean)
        .map((line) => line.split("\t")[0]),
    ).toEqual(["a"]);
    const two = await runEb(["list", "--cwd", root, "--tag", "smoke", "--tag", "slow"]);
    expect(
      two.stdout
        .split("\n")
        .filter(Boolean)
        .map((line) => line.split("\t")[0]),
    ).toEqual(["a", "b"]);
    const none = await runEb(["list", "--cwd", root, "--tag", "nothing"]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe("");
    expect(none.stderr).toBe(
      "error: No check has the tag 'nothing' (tags in use: other, slow, smoke).\n",
    );
  });

  it("uses the project config found upward from --cwd (root and exclude_dirs)", async () => {
    const root = project({
      ".eval-banana/config.toml": '[discovery]\nexclude_dirs = ["skipme"]\n',
      "skipme/eval_checks/s.yaml": deterministicYaml("s", "pass"),
    });
    mkdirSync(path.join(root, "nested"));
    const result = await runEb(["list", "--cwd", path.join(root, "nested")]);
    expect(result.code).toBe(0);
    expect(
      result.stdout
        .split("\n")
        .filter(Boolean)
        .map((line) => line.split("\t")[0]),
    ).toEqual(["marker"]);
  });

  it("never looks into the run folders: what a check's script wrote there is no check", async () => {
    const writer = [
      "import json, os, sys",
      'out = os.path.join(json.load(open(sys.argv[1]))["output_dir"], "eval_checks")',
      "os.makedirs(out)",
      `open(os.path.join(out, "planted.yaml"), "w").write(${JSON.stringify(deterministicYaml("planted", "pass"))})`,
    ].join("\n");
    const root = project({ "eval_checks/writer.yaml": deterministicYaml("writer", writer) });
    expect((await runEb(["run", "--cwd", root])).code).toBe(0);
    const result = await runEb(["list", "--cwd", root]);
    expect(result.code).toBe(0);
    const ids = result.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => line.split("\t")[0]);
    expect(ids).toEqual(["marker", "writer"]);
  });

  it("reports a config error (exit 2)", async () => {
    const root = project({ ".eval-banana/config.toml": '[llm]\nmodel = "x"\n' });
    const result = await runEb(["list", "--cwd", root]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Legacy [llm] section was removed");
  });
});

describe("Eval Banana 0.2's target_paths", () => {
  it("runs, with a deprecation warning naming file:line", async () => {
    const root = project({
      "eval_checks/old.yaml": deterministicYaml("old", "pass", "target_paths: [README.md]\n"),
    });
    const result = await runEb(["run", "--cwd", root]);
    expect(result.code).toBe(0);
    expect(existsSync(path.join(root, "ran.txt"))).toBe(true);
    const file = path.join(root, "eval_checks", "old.yaml");
    expect(result.stderr).toContain(`warning: ${file}:5: target_paths is deprecated`);
  });
});
