import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { runProcess } from "../process/run.js";

/** The commit checked out in the project under test, for the run manifest; null outside git. */
export async function gitCommit(
  projectRoot: string,
  env: NodeJS.ProcessEnv,
): Promise<string | null> {
  const read = commitFromFiles(projectRoot, env);
  if (read !== undefined) return read;
  const result = await runProcess({
    command: "git",
    args: ["rev-parse", "HEAD"],
    cwd: projectRoot,
    env,
    timeoutMs: 5000,
  });
  const sha = result.stdout.trim();
  return result.exitCode === 0 && SHA.test(sha) ? sha : null;
}

const SHA = /^[0-9a-f]{40,64}$/;

/**
 * HEAD's commit read from the repository's files, as `git rev-parse HEAD` would say, in the
 * common layouts (a .git folder or a worktree's .git file; HEAD a commit, or a branch whose ref
 * is loose or packed); undefined when the files do not say for sure (a variable that moves the
 * repository, an unborn branch, another ref storage), and git is asked instead. Starting git took
 * a 1-case `eb eval` ~10 ms of its wall time on a quiet machine, and ~100 ms on a loaded one.
 */
function commitFromFiles(projectRoot: string, env: NodeJS.ProcessEnv): string | null | undefined {
  if (REPOSITORY_VARIABLES.some((name) => env[name])) return undefined;
  const gitDir = gitDirAbove(resolve(projectRoot));
  if (gitDir === null) return null;
  const head = textOf(join(gitDir, "HEAD"));
  if (head !== null && SHA.test(head)) return head;
  const ref = /^ref: (refs\/[^\s]+)$/.exec(head ?? "")?.[1];
  if (ref === undefined) return undefined;
  const common = resolve(gitDir, textOf(join(gitDir, "commondir")) ?? ".");
  const loose = textOf(join(common, ref));
  if (loose !== null) return SHA.test(loose) ? loose : undefined;
  const packed = (textOf(join(common, "packed-refs")) ?? "").split("\n");
  const sha = packed.find((line) => line.endsWith(` ${ref}`))?.split(" ")[0];
  return sha !== undefined && SHA.test(sha) ? sha : undefined;
}

/** What tells git where the repository and its refs are, other than the working directory. */
const REPOSITORY_VARIABLES = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
  "GIT_CEILING_DIRECTORIES",
  "GIT_DISCOVERY_ACROSS_FILESYSTEM",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
];

/**
 * The git folder of the repository `dir` is in (a worktree's .git file says where), or null. Like
 * git, it looks no further up than the file system `dir` is on.
 */
function gitDirAbove(dir: string): string | null {
  const device = deviceOf(dir);
  for (let at = dir; deviceOf(at) === device; at = dirname(at)) {
    const dotGit = join(at, ".git");
    if (existsSync(join(dotGit, "HEAD"))) return dotGit;
    const pointer = /^gitdir: (.+)$/.exec(textOf(dotGit) ?? "")?.[1];
    if (pointer !== undefined) return resolve(at, pointer);
    if (dirname(at) === at) return null;
  }
  return null;
}

function deviceOf(dir: string): number | null {
  try {
    return statSync(dir).dev;
  } catch {
    return null;
  }
}

/** A file's text, trimmed; null when it cannot be read (absent, a folder). */
function textOf(file: string): string | null {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return null;
  }
}

/** ISO-8601 UTC with microseconds and an explicit offset, as the Python original writes it. */
export function isoUtc(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000+00:00");
}

/** `YYYYMMDD_HHMMSS_<8 hex>` in UTC. */
export function newRunId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "_").slice(0, 15);
  return `${stamp}_${randomBytes(4).toString("hex")}`;
}
