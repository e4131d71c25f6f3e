import { spawn } from "node:child_process";
import { createHash } from "node:crypto";

/** Names the digest scheme, so no consumer assumes two tools' digests compare. */
export const DIRTY_TREE_ALGORITHM = "eb-git-status-v2-sha256";

/** What git says about the work tree at a folder; every field null outside a git tree. */
export interface TreeState {
  commit: string | null;
  /** `sha256:` + hex of `git status --porcelain` ‖ NUL ‖ `git diff` ‖ NUL ‖ `git diff --cached`. */
  dirtyDigest: string | null;
}

/**
 * The HEAD commit and the dirty-tree digest of the work tree at `cwd`, read by git itself (a
 * clean tree has a digest too: that of an empty status). Staged-only changes count, as the
 * cached diff is part of the digest.
 */
export async function observeTree(cwd: string): Promise<TreeState> {
  const commit = await headCommit(cwd);
  const hash = createHash("sha256");
  if (!(await git(["status", "--porcelain"], cwd, hash))) return { commit, dirtyDigest: null };
  for (const args of [["diff"], ["diff", "--cached"]]) {
    hash.update("\0");
    await git(args, cwd, hash);
  }
  return { commit, dirtyDigest: `sha256:${hash.digest("hex")}` };
}

/** `git rev-parse HEAD`, or null (no git, not a tree, no commit yet). */
export async function headCommit(cwd: string): Promise<string | null> {
  const chunks: Buffer[] = [];
  const sink = { update: (chunk: Buffer) => chunks.push(chunk) };
  if (!(await git(["rev-parse", "HEAD"], cwd, sink))) return null;
  return Buffer.concat(chunks).toString("utf8").trim() || null;
}

/**
 * Runs git, streaming its stdout into `sink` (a diff may be large): true when it exited 0. A git
 * that cannot start is false, like a folder outside any tree.
 */
function git(
  args: readonly string[],
  cwd: string,
  sink: { update(chunk: Buffer): unknown },
): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn("git", args, {
      cwd,
      stdio: ["ignore", "pipe", "ignore"],
      env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
    });
    child.stdout.on("data", (chunk: Buffer) => sink.update(chunk));
    child.on("error", () => resolve(false));
    child.on("close", (code) => resolve(code === 0));
  });
}
