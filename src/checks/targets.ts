import { lstat, readlink, stat } from "node:fs/promises";
import path from "node:path";

/** One `targets` entry of a deterministic script's context.json, as Eval Banana 0.2 wrote it. */
export interface TargetEntry {
  /** The entry as written in the YAML. */
  path: string;
  /** Absolute, symlinks resolved, like Python's `(project_root / path).resolve()`. */
  resolved_path: string;
  exists: boolean;
  is_dir: boolean;
}

/**
 * The context.json keys a check's `target_paths` adds: `targets`, one entry per path in order,
 * or nothing when the check has no `target_paths` (current Eval Banana gives no `targets` key).
 */
export async function targetsContext(
  projectRoot: string,
  targetPaths: readonly string[] | null,
): Promise<{ targets?: TargetEntry[] }> {
  if (targetPaths === null) return {};
  return {
    targets: await Promise.all(targetPaths.map((entry) => targetEntry(projectRoot, entry))),
  };
}

async function targetEntry(projectRoot: string, entry: string): Promise<TargetEntry> {
  // pathlib's `/`: an absolute entry replaces the root.
  const joined = path.isAbsolute(entry) ? entry : `${projectRoot}${path.sep}${entry}`;
  const resolved = await resolveLoose(joined);
  const stats = await stat(resolved).catch(() => null);
  return {
    path: entry,
    resolved_path: resolved,
    exists: stats !== null,
    is_dir: stats?.isDirectory() ?? false,
  };
}

/**
 * Python's `os.path.realpath(strict=False)` (what `Path.resolve()` calls) for an absolute
 * path: components are resolved left to right, so `link/..` is the parent of the link's
 * target, not of the link (Node's path.resolve would get this wrong), and a missing part is
 * kept as written instead of failing (Node's fs.realpath would throw).
 */
async function resolveLoose(absolute: string): Promise<string> {
  const { resolved } = await walk(path.parse(absolute).root, absolute, new Map());
  return path.resolve(resolved);
}

interface Walked {
  resolved: string;
  /** false: a symlink loop stopped the walk; the rest was appended unresolved. */
  ok: boolean;
}

/** Resolves `rest` from the already-resolved `base`; `seen` maps links to their targets. */
async function walk(base: string, rest: string, seen: Map<string, string | null>): Promise<Walked> {
  let resolved = path.isAbsolute(rest) ? path.parse(rest).root : base;
  const names = rest.split(path.sep);
  for (const [index, name] of names.entries()) {
    if (name === "" || name === ".") continue;
    if (name === "..") {
      resolved = path.dirname(resolved);
      continue;
    }
    const candidate = path.join(resolved, name);
    const isLink = (await lstat(candidate).catch(() => null))?.isSymbolicLink() ?? false;
    if (!isLink) {
      resolved = candidate;
      continue;
    }
    const remaining = names.slice(index + 1).join(path.sep);
    const known = seen.get(candidate);
    if (known !== undefined) {
      if (known === null) return { resolved: path.join(candidate, remaining), ok: false };
      resolved = known;
      continue;
    }
    seen.set(candidate, null);
    const target = await walk(resolved, await readlink(candidate), seen);
    if (!target.ok) return { resolved: path.join(target.resolved, remaining), ok: false };
    seen.set(candidate, target.resolved);
    resolved = target.resolved;
  }
  return { resolved, ok: true };
}
