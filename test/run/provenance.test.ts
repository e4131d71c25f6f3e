import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gitCommit } from "../../src/run/provenance.js";

const root = mkdtempSync(path.join(tmpdir(), "eb-provenance-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** git's own environment-free answer; the tests' env has no GIT_* variable either. */
const env = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_")),
);

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env, encoding: "utf8" }).trim();
}

function repo(name: string): string {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  git(dir, "config", "user.email", "t@example.com");
  git(dir, "config", "user.name", "t");
  return dir;
}

function commit(dir: string, message: string): void {
  writeFileSync(path.join(dir, "file.txt"), message);
  git(dir, "add", "file.txt");
  git(dir, "commit", "-q", "-m", message);
}

describe("gitCommit", () => {
  it("says what git rev-parse HEAD says: a branch, packed refs, a detached HEAD, a worktree", async () => {
    const dir = repo("main");
    commit(dir, "one");
    mkdirSync(path.join(dir, "sub/deeper"), { recursive: true });
    const places = [dir, path.join(dir, "sub/deeper")];
    for (const at of places) expect(await gitCommit(at, env)).toBe(git(dir, "rev-parse", "HEAD"));
    commit(dir, "two");
    git(dir, "pack-refs", "--all");
    expect(await gitCommit(dir, env)).toBe(git(dir, "rev-parse", "HEAD"));
    git(dir, "checkout", "-q", "--detach", "HEAD~1");
    expect(await gitCommit(dir, env)).toBe(git(dir, "rev-parse", "HEAD"));
    const worktree = path.join(root, "linked");
    git(dir, "worktree", "add", "-q", "-b", "other", worktree, "main");
    commit(worktree, "three");
    expect(await gitCommit(worktree, env)).toBe(git(worktree, "rev-parse", "HEAD"));
    expect(await gitCommit(worktree, env)).not.toBe(await gitCommit(dir, env));
  });

  it("is null outside git and on a branch with no commit yet", async () => {
    const outside = mkdtempSync(path.join(tmpdir(), "eb-no-git-"));
    try {
      expect(await gitCommit(outside, env)).toBeNull();
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
    expect(await gitCommit(repo("empty"), env)).toBeNull();
  });

  it("asks git when a variable points it elsewhere, and minds no other GIT_* variable", async () => {
    const dir = repo("pointed");
    commit(dir, "one");
    const other = repo("elsewhere");
    commit(other, "other");
    const pointed = { ...env, GIT_DIR: path.join(other, ".git") };
    expect(await gitCommit(dir, pointed)).toBe(git(other, "rev-parse", "HEAD"));
    const unrelated = { ...env, GIT_SSL_CAINFO: "/nowhere", GIT_TERMINAL_PROMPT: "0" };
    expect(await gitCommit(dir, unrelated)).toBe(git(dir, "rev-parse", "HEAD"));
  });
});
