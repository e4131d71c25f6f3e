import { execFile, execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLI } from "../helpers/project.js";

const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

/** Paths of a folder beside the repository: a user's clone has no such folder. */
const OUTSIDE_REFERENCE = /\.\.\/shared\b|\bshared\/(spec|seeds|vectors|DESIGN)/;

function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z"], { cwd: REPO_ROOT, encoding: "utf8" })
    .split("\0")
    .filter((file) => file !== "" && file !== "package-lock.json");
}

describe("the repository stands alone", () => {
  it("no tracked file reads or cites a folder outside the repository", () => {
    const offenders = trackedFiles().filter((file) => {
      const text = readFileSync(path.join(REPO_ROOT, file), "utf8");
      return OUTSIDE_REFERENCE.test(text);
    });
    expect(offenders).toEqual([]);
  });

  it("keeps the built CLI executable, so `npx eb` runs after every build", async () => {
    expect(statSync(CLI).mode & 0o111).toBe(0o111);
    const version = await new Promise<string>((resolve, reject) => {
      execFile(CLI, ["--version"], (error, stdout) => (error ? reject(error) : resolve(stdout)));
    });
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    expect(version.trim()).toBe(pkg.version);
  });
});
