import { realpathSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { requireHarness } from "../../src/checks/harness-gate.js";
import { loadChecks, type SelectOptions } from "../../src/checks/load.js";
import { DEFAULT_EXCLUDE_DIRS } from "../../src/config/load.js";
import { InputError, InputProblems } from "../../src/errors.js";
import { deterministicYaml, makeProject } from "../helpers/project.js";

function judgeYaml(id: string, extra = ""): string {
  return `schema_version: 1\nid: ${id}\ntype: harness_judge\ndescription: Judge ${id}.\n${extra}instructions: Look at README.md.\n`;
}

function project(files: Record<string, string>): string {
  return realpathSync(makeProject(files));
}

function load(root: string, options: Partial<SelectOptions> = {}) {
  return loadChecks({ projectRoot: root, excludeDirs: [...DEFAULT_EXCLUDE_DIRS], ...options });
}

async function loadError(root: string, options: Partial<SelectOptions> = {}): Promise<string> {
  const error: unknown = await load(root, options).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(InputError);
  return (error as InputError).message;
}

describe("strict loading", () => {
  it("loads every discovered check in path order", async () => {
    const root = project({
      "eval_checks/b.yaml": deterministicYaml("second", "pass"),
      "eval_checks/a.yaml": judgeYaml("first"),
    });
    const checks = await load(root);
    expect(checks.map((check) => [check.id, check.type, check.sourcePath])).toEqual([
      ["first", "harness_judge", path.join(root, "eval_checks/a.yaml")],
      ["second", "deterministic", path.join(root, "eval_checks/b.yaml")],
    ]);
  });

  it("duplicate ids across files name both paths", async () => {
    const root = project({
      "eval_checks/a.yaml": deterministicYaml("same", "pass"),
      "other/eval_checks/b.yaml": judgeYaml("same"),
    });
    const message = await loadError(root);
    const first = path.join(root, "eval_checks/a.yaml");
    const second = path.join(root, "other/eval_checks/b.yaml");
    expect(message).toContain("Duplicate check id 'same'");
    expect(message).toContain(first);
    expect(message).toContain(second);
  });

  it("ids compare exactly: case-different ids are distinct", async () => {
    const root = project({
      "eval_checks/a.yaml": deterministicYaml("judge", "pass"),
      "eval_checks/b.yaml": deterministicYaml("Judge", "pass"),
    });
    expect((await load(root)).map((check) => check.id)).toEqual(["judge", "Judge"]);
  });

  it("ids are compared after trimming", async () => {
    const root = project({
      "eval_checks/a.yaml": deterministicYaml('"dup "', "pass"),
      "eval_checks/b.yaml": deterministicYaml("dup", "pass"),
    });
    expect(await loadError(root)).toContain("Duplicate check id 'dup'");
  });

  it("one invalid file stops everything, naming that file", async () => {
    const root = project({
      "eval_checks/good.yaml": deterministicYaml("good", "pass"),
      "eval_checks/bad.yaml": "schema_version: 1\nid: [oops\n",
    });
    expect(await loadError(root)).toContain(path.join(root, "eval_checks/bad.yaml"));
  });

  it("every invalid file and every duplicate id is a problem of its own, found in one pass", async () => {
    const root = project({
      "eval_checks/good.yaml": deterministicYaml("good", "pass"),
      "eval_checks/bad1.yaml": "schema_version: 1\nid: [oops\n",
      "eval_checks/bad2.yaml": deterministicYaml("bad2", "pass", "foo: 1\n"),
      "eval_checks/dup1.yaml": deterministicYaml("dup", "pass"),
      "eval_checks/dup2.yaml": deterministicYaml("dup", "pass"),
      "eval_checks/dup3.yaml": deterministicYaml("dup", "pass"),
    });
    const error = await load(root).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputProblems);
    const { problems } = error as InputProblems;
    expect(problems).toHaveLength(3);
    expect(problems[0]).toContain(path.join(root, "eval_checks/bad1.yaml"));
    expect(problems[1]).toContain(
      `${path.join(root, "eval_checks/bad2.yaml")}:5:1: unknown field 'foo'`,
    );
    const dups = ["dup1", "dup2", "dup3"].map((f) => path.join(root, `eval_checks/${f}.yaml`));
    expect(problems[2]).toBe(
      `Duplicate check id 'dup' found in ${dups[0]}, ${dups[1]} and ${dups[2]}. Check ids must be unique: rename one of them.`,
    );
  });
});

describe("checkId (relaxed)", () => {
  it("selects one check even when another file is broken or duplicates another id", async () => {
    const root = project({
      "eval_checks/target.yaml": deterministicYaml("target", "pass"),
      "eval_checks/broken.yaml": "schema_version: 1\nid: [unclosed\n",
      "eval_checks/list.yaml": "- a\n- b\n",
      "eval_checks/invalid.yaml": "schema_version: 2\nid: invalid\n",
      "eval_checks/dup1.yaml": deterministicYaml("dup", "pass"),
      "eval_checks/dup2.yaml": deterministicYaml("dup", "pass"),
      "eval_checks/bin.yaml": "\u0000\u0001",
    });
    const checks = await load(root, { checkIds: ["target"] });
    expect(checks.map((check) => [check.id, check.sourcePath])).toEqual([
      ["target", path.join(root, "eval_checks/target.yaml")],
    ]);
  });

  it("an id found in two files is an error listing both", async () => {
    const root = project({
      "eval_checks/one.yaml": deterministicYaml("twice", "pass"),
      "sub/eval_checks/two.yaml": judgeYaml("twice"),
      "eval_checks/other.yaml": deterministicYaml("other", "pass"),
    });
    const message = await loadError(root, { checkIds: ["twice"] });
    expect(message).toContain("twice");
    expect(message).toContain(path.join(root, "eval_checks/one.yaml"));
    expect(message).toContain(path.join(root, "sub/eval_checks/two.yaml"));
  });

  it("an id not found is an error naming it", async () => {
    const root = project({ "eval_checks/a.yaml": deterministicYaml("present", "pass") });
    const message = await loadError(root, { checkIds: ["absent"] });
    expect(message).toContain("No check found with id 'absent'");
  });

  it("the matched file is validated fully", async () => {
    const root = project({
      "eval_checks/a.yaml": deterministicYaml("chosen", "pass", "foo: 1\n"),
    });
    const message = await loadError(root, { checkIds: ["chosen"] });
    expect(message).toContain(path.join(root, "eval_checks/a.yaml"));
    expect(message).toContain("foo");
  });

  it.each(["y", "on", "no", '"  padded  "'])(
    "reads id %s the same way as the strict loader",
    async (raw) => {
      const root = project({ "eval_checks/a.yaml": deterministicYaml(raw, "pass") });
      const strict = await load(root).then(
        (checks) => checks.map((check) => check.id),
        () => null,
      );
      if (strict === null) {
        // Not a valid id under the YAML schema in use: --check-id must not find it either.
        await expect(load(root, { checkIds: [raw] })).rejects.toBeInstanceOf(InputError);
        return;
      }
      const id = strict[0]!;
      const selected = await load(root, { checkIds: [id] });
      expect(selected.map((check) => check.id)).toEqual([id]);
    },
  );

  it("does not match a different id", async () => {
    const root = project({
      "eval_checks/a.yaml": deterministicYaml("alpha", "pass"),
      "eval_checks/b.yaml": deterministicYaml("alphabet", "pass"),
    });
    const checks = await load(root, { checkIds: ["alpha"] });
    expect(checks.map((check) => check.id)).toEqual(["alpha"]);
  });

  it("several ids and globs: each must match, only matching files need be valid", async () => {
    const root = project({
      "eval_checks/a.yaml": deterministicYaml("schema_a", "pass"),
      "eval_checks/b.yaml": deterministicYaml("schema_b", "pass"),
      "eval_checks/c.yaml": deterministicYaml("other", "pass"),
      "eval_checks/d.yaml": deterministicYaml("unrelated", "pass"),
      "eval_checks/broken.yaml": "schema_version: 1\nid: [unclosed\n",
    });
    const ids = async (checkIds: string[]) => (await load(root, { checkIds })).map((c) => c.id);
    expect(await ids(["schema_*"])).toEqual(["schema_a", "schema_b"]);
    expect(await ids(["schema_?", "other"])).toEqual(["schema_a", "schema_b", "other"]);
    expect(await ids(["other", "oth*"])).toEqual(["other"]);
    const message = await loadError(root, { checkIds: ["nope_*", "other", "absent"] });
    expect(message).toContain("No check id matches 'nope_*'");
    expect(message).toContain("No check found with id 'absent'");
  });

  it("is combined with tags", async () => {
    const root = project({
      "eval_checks/a.yaml": deterministicYaml("tagged", "pass", "tags: [x]\n"),
    });
    expect(await loadError(root, { checkIds: ["tagged"], tags: ["y"] })).toBe(
      "No check has the tag 'y' (tags in use: x).",
    );
    expect((await load(root, { checkIds: ["tagged"], tags: ["x"] })).map((c) => c.id)).toEqual([
      "tagged",
    ]);
  });
});

describe("tags", () => {
  const files = {
    "eval_checks/a.yaml": deterministicYaml("a", "pass", "tags: [smoke, fast]\n"),
    "eval_checks/b.yaml": deterministicYaml("b", "pass", "tags: [slow]\n"),
    "eval_checks/c.yaml": deterministicYaml("c", "pass"),
    "eval_checks/d.yaml": judgeYaml("d", "tags: [Smoke, fast]\n"),
  };

  it("keeps checks having any of the tags (OR), exact match", async () => {
    const root = project(files);
    const ids = async (tags: string[]) => (await load(root, { tags })).map((check) => check.id);
    expect(await ids(["smoke"])).toEqual(["a"]);
    expect(await ids(["fast"])).toEqual(["a", "d"]);
    expect(await ids(["smoke", "slow"])).toEqual(["a", "b"]);
    expect(await loadError(root, { tags: ["none"] })).toBe(
      "No check has the tag 'none' (tags in use: Smoke, fast, slow, smoke).",
    );
    expect(await loadError(root, { tags: ["smoke", "nope", "gone"] })).toContain(
      "No check has the tags 'nope', 'gone'",
    );
    expect(await ids([])).toEqual(["a", "b", "c", "d"]);
  });

  it("keeps the full tag list on selected checks", async () => {
    const root = project(files);
    const [check] = await load(root, { tags: ["fast"] });
    expect(check?.tags).toEqual(["smoke", "fast"]);
  });
});

describe("harness gate (requireHarness)", () => {
  it("judge checks without an agent name the lowest path as first offender", async () => {
    const root = project({
      "z/eval_checks/z.yaml": judgeYaml("z_judge"),
      "eval_checks/b.yaml": judgeYaml("b_judge"),
      "eval_checks/a.yaml": deterministicYaml("a_det", "pass"),
      "eval_checks/c.yaml": judgeYaml("c_judge"),
    });
    const checks = await load(root);
    let caught: unknown = null;
    try {
      requireHarness([...checks].reverse(), null);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InputError);
    const message = (caught as InputError).message;
    expect(message).toContain(
      `harness_judge check requires a harness but none is configured (first offender: ${path.join(root, "eval_checks/b.yaml")})`,
    );
    expect(message).toContain("--harness-agent");
  });

  it("with an agent there is no error", async () => {
    const root = project({ "eval_checks/j.yaml": judgeYaml("j") });
    const checks = await load(root);
    expect(() => requireHarness(checks, "codex")).not.toThrow();
  });

  it("deterministic checks alone need no agent", async () => {
    const root = project({ "eval_checks/d.yaml": deterministicYaml("d", "pass") });
    const checks = await load(root);
    expect(() => requireHarness(checks, null)).not.toThrow();
    expect(() => requireHarness([], null)).not.toThrow();
  });
});
