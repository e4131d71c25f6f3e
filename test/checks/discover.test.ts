import { mkdirSync, realpathSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { discoverCheckFiles } from "../../src/checks/discover.js";
import { DEFAULT_EXCLUDE_DIRS } from "../../src/config/load.js";
import { makeProject } from "../helpers/project.js";

const YAML = "schema_version: 1\n";

/** A project with `files` (all with placeholder content); returns its real path. */
function project(files: string[]): string {
  return realpathSync(makeProject(Object.fromEntries(files.map((file) => [file, YAML]))));
}

function discover(
  root: string,
  options: { excludeDirs?: string[]; checkDir?: string; skipDirs?: string[] } = {},
) {
  return discoverCheckFiles({
    projectRoot: root,
    excludeDirs: options.excludeDirs ?? [...DEFAULT_EXCLUDE_DIRS],
    checkDir: options.checkDir,
    skipDirs: options.skipDirs,
  });
}

const abs = (root: string, ...files: string[]) => files.map((file) => path.join(root, file));

describe("auto-discovery", () => {
  it("finds eval_checks folders at any depth and ignores YAML outside them", async () => {
    const root = project([
      "eval_checks/top.yaml",
      "a/eval_checks/one.yaml",
      "a/b/c/d/eval_checks/deep.yml",
      "a/outside.yaml",
      "top_level.yaml",
      "a/checks/not_eval_checks.yaml",
      "eval_checks_other/x.yaml",
      "Eval_Checks/x.yaml",
    ]);
    expect(await discover(root)).toEqual(
      abs(root, "a/b/c/d/eval_checks/deep.yml", "a/eval_checks/one.yaml", "eval_checks/top.yaml"),
    );
  });

  it("takes .yaml, .yml and hidden files; ignores .YAML, .YML and other extensions", async () => {
    const root = project([
      "eval_checks/a.yaml",
      "eval_checks/b.yml",
      "eval_checks/.hidden.yaml",
      "eval_checks/C.YAML",
      "eval_checks/d.YML",
      "eval_checks/e.yaml.bak",
      "eval_checks/f.json",
      "eval_checks/yaml",
    ]);
    expect(await discover(root)).toEqual(
      abs(root, "eval_checks/.hidden.yaml", "eval_checks/a.yaml", "eval_checks/b.yml"),
    );
  });

  it("scans subfolders inside eval_checks (including nested eval_checks)", async () => {
    const root = project([
      "eval_checks/x/y/z.yaml",
      "eval_checks/sub/eval_checks/n.yaml",
      "eval_checks/.hidden_dir/h.yaml",
    ]);
    expect(await discover(root)).toEqual(
      abs(
        root,
        "eval_checks/.hidden_dir/h.yaml",
        "eval_checks/sub/eval_checks/n.yaml",
        "eval_checks/x/y/z.yaml",
      ),
    );
  });

  it("scans the project root itself when it is named eval_checks", async () => {
    const parent = project(["eval_checks/r.yaml", "eval_checks/sub/s.yaml"]);
    const root = path.join(parent, "eval_checks");
    expect(await discover(root)).toEqual(abs(root, "r.yaml", "sub/s.yaml"));
  });

  it("prunes excluded folder names at any depth, inside eval_checks too", async () => {
    const root = project([
      "eval_checks/keep.yaml",
      "node_modules/eval_checks/a.yaml",
      "pkg/node_modules/dep/eval_checks/b.yaml",
      ".venv/lib/eval_checks/c.yaml",
      "x/.git/eval_checks/d.yaml",
      "x/build/eval_checks/e.yaml",
      "eval_checks/node_modules/f.yaml",
      "eval_checks/sub/__pycache__/g.yaml",
      "Node_Modules/eval_checks/h.yaml",
    ]);
    expect(await discover(root)).toEqual(
      abs(root, "Node_Modules/eval_checks/h.yaml", "eval_checks/keep.yaml"),
    );
  });

  it("a custom exclude list replaces the default one", async () => {
    const root = project([
      "eval_checks/keep.yaml",
      "node_modules/eval_checks/a.yaml",
      "custom/eval_checks/b.yaml",
      "eval_checks/custom/c.yaml",
      "deep/custom/eval_checks/d.yaml",
    ]);
    expect(await discover(root, { excludeDirs: ["custom"] })).toEqual(
      abs(root, "eval_checks/keep.yaml", "node_modules/eval_checks/a.yaml"),
    );
  });

  it("an empty exclude list excludes nothing", async () => {
    const root = project(["node_modules/eval_checks/a.yaml", ".git/eval_checks/b.yaml"]);
    expect(await discover(root, { excludeDirs: [] })).toEqual(
      abs(root, ".git/eval_checks/b.yaml", "node_modules/eval_checks/a.yaml"),
    );
  });

  it("does not follow a directory symlink to an eval_checks folder or to a folder holding one", async () => {
    const root = project(["eval_checks/real.yaml"]);
    const outside = project(["store/eval_checks/o.yaml", "plain/p.yaml"]);
    symlinkSync(path.join(outside, "store"), path.join(root, "linked_store"));
    mkdirSync(path.join(root, "pkg"));
    symlinkSync(path.join(outside, "store", "eval_checks"), path.join(root, "pkg", "eval_checks"));
    expect(await discover(root)).toEqual(abs(root, "eval_checks/real.yaml"));
  });

  it("does not follow a directory symlink inside an eval_checks folder", async () => {
    const root = project(["eval_checks/real.yaml"]);
    const outside = project(["plain/p.yaml", "plain/deeper/q.yaml"]);
    symlinkSync(path.join(outside, "plain"), path.join(root, "eval_checks", "linked"));
    symlinkSync(path.join(outside, "plain"), path.join(root, "eval_checks", "linked.yaml"));
    expect(await discover(root)).toEqual(abs(root, "eval_checks/real.yaml"));
  });

  it("follows file symlinks, reports real paths and de-duplicates", async () => {
    const root = project(["eval_checks/a.yaml", "elsewhere/target.yaml"]);
    symlinkSync(path.join(root, "eval_checks", "a.yaml"), path.join(root, "eval_checks", "z.yaml"));
    symlinkSync("../elsewhere/target.yaml", path.join(root, "eval_checks", "rel.yml"));
    symlinkSync(path.join(root, "missing.yaml"), path.join(root, "eval_checks", "dangling.yaml"));
    expect(await discover(root)).toEqual(abs(root, "elsewhere/target.yaml", "eval_checks/a.yaml"));
  });

  it("returns paths sorted by code point", async () => {
    const root = project([
      "eval_checks/b.yaml",
      "eval_checks/B.yaml",
      "eval_checks/a-b.yaml",
      "eval_checks/a_b.yaml",
      "eval_checks/_x.yaml",
      "z/eval_checks/0.yaml",
      "A/eval_checks/0.yaml",
    ]);
    const found = await discover(root);
    const expected = abs(
      root,
      "A/eval_checks/0.yaml",
      "eval_checks/B.yaml",
      "eval_checks/_x.yaml",
      "eval_checks/a-b.yaml",
      "eval_checks/a_b.yaml",
      "eval_checks/b.yaml",
      "z/eval_checks/0.yaml",
    );
    expect(found).toEqual(expected);
  });

  it("never enters the skipped folders (eb's output), inside eval_checks too", async () => {
    const root = project([
      "eval_checks/keep.yaml",
      ".eval-banana/results/run1/checks/c/eval_checks/written.yaml",
      ".eval-banana/cache/eval_checks/cached.yaml",
      "eval_checks/out/x.yaml",
      "other/results/eval_checks/same-name.yaml",
    ]);
    const skipDirs = abs(root, ".eval-banana/results", ".eval-banana/cache", "eval_checks/out");
    expect(await discover(root, { skipDirs })).toEqual(
      abs(root, "eval_checks/keep.yaml", "other/results/eval_checks/same-name.yaml"),
    );
  });

  it("scans the folder it starts from even when it is skipped", async () => {
    const root = project(["eval_checks/a.yaml"]);
    expect(await discover(root, { skipDirs: [root] })).toEqual(abs(root, "eval_checks/a.yaml"));
  });

  it("returns nothing for a project without eval_checks", async () => {
    expect(await discover(project(["a.yaml", "x/b.yml"]))).toEqual([]);
  });
});

describe("checkDir", () => {
  it("scans only that folder, whatever its name, relative to the project root", async () => {
    const root = project([
      "eval_checks/ignored.yaml",
      "my/checks/a.yaml",
      "my/checks/sub/b.yml",
      "my/checks/node_modules/c.yaml",
      "my/other.yaml",
    ]);
    expect(await discover(root, { checkDir: "my/checks" })).toEqual(
      abs(root, "my/checks/a.yaml", "my/checks/sub/b.yml"),
    );
  });

  it("accepts an absolute path", async () => {
    const root = project(["eval_checks/ignored.yaml", "my/checks/a.yaml"]);
    expect(await discover(root, { checkDir: path.join(root, "my", "checks") })).toEqual(
      abs(root, "my/checks/a.yaml"),
    );
  });

  it("is resolved against the project root, not the process cwd", async () => {
    const root = project(["checks/a.yaml"]);
    expect(process.cwd()).not.toBe(root);
    expect(await discover(root, { checkDir: "checks" })).toEqual(abs(root, "checks/a.yaml"));
  });

  it("does not follow directory symlinks inside it", async () => {
    const root = project(["checks/a.yaml"]);
    const outside = project(["plain/p.yaml"]);
    symlinkSync(path.join(outside, "plain"), path.join(root, "checks", "linked"));
    expect(await discover(root, { checkDir: "checks" })).toEqual(abs(root, "checks/a.yaml"));
  });

  it("a folder that is not there, or a file, is an error naming the path", async () => {
    const root = project(["eval_checks/a.yaml"]);
    await expect(discover(root, { checkDir: "does/not/exist" })).rejects.toThrow(
      `--check-dir does/not/exist: ${path.join(root, "does/not/exist")} does not exist`,
    );
    await expect(discover(root, { checkDir: "eval_checks/a.yaml" })).rejects.toThrow(
      "is not a folder",
    );
  });
});
