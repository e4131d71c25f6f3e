import { type Dirent, realpathSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { InputError } from "../errors.js";
import { byCodePoint } from "../report/order.js";

export interface DiscoverOptions {
  projectRoot: string;
  excludeDirs: readonly string[];
  /** Scan only this folder (relative to the project root), whatever its name. */
  checkDir?: string | undefined;
  /**
   * Absolute folders never scanned: eb's own output (run folders, the cache). They grow with
   * every run, and a check's evidence folder holds whatever its script wrote, YAML included.
   */
  skipDirs?: readonly string[] | undefined;
}

const CHECKS_DIR_NAME = "eval_checks";

/**
 * Finds check files: every `*.yaml`/`*.yml` under `eval_checks/` folders at any depth (or under
 * `checkDir`), skipping excluded folder names and never following directory symlinks.
 * Returns real absolute paths, de-duplicated, sorted by code point.
 */
export async function discoverCheckFiles(options: DiscoverOptions): Promise<string[]> {
  const walk: Walk = {
    exclude: new Set(options.excludeDirs),
    skip: new Set(options.skipDirs),
    found: new Set<string>(),
  };
  if (options.checkDir !== undefined) {
    await scanChecksDir(await checkDirOf(options.projectRoot, options.checkDir), walk);
  } else {
    await findChecksDirs(options.projectRoot, walk);
  }
  return [...walk.found].sort(byCodePoint);
}

interface Walk {
  /** Folder names not entered. */
  exclude: Set<string>;
  /** Absolute folders not entered (the folder a walk starts from is always scanned). */
  skip: Set<string>;
  found: Set<string>;
}

/** `--check-dir` as an absolute folder; one that is not there is an error, not an empty list. */
async function checkDirOf(projectRoot: string, checkDir: string): Promise<string> {
  const dir = path.resolve(projectRoot, checkDir);
  const info = await stat(dir).catch(() => null);
  if (info?.isDirectory()) return dir;
  const what = info === null ? "does not exist" : "is not a folder";
  throw new InputError(
    `--check-dir ${checkDir}: ${dir} ${what} (the path is relative to the project root ${projectRoot})`,
  );
}

async function findChecksDirs(dir: string, walk: Walk) {
  if (path.basename(dir) === CHECKS_DIR_NAME) return scanChecksDir(dir, walk);
  const entries = await listDir(dir);
  await Promise.all(
    entries
      .filter((entry) => entry.isDirectory() && enters(walk, dir, entry.name))
      .map((entry) => findChecksDirs(path.join(dir, entry.name), walk)),
  );
}

async function scanChecksDir(dir: string, walk: Walk) {
  const entries = await listDir(dir);
  await Promise.all(
    entries.map(async (entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (enters(walk, dir, entry.name)) await scanChecksDir(full, walk);
        return;
      }
      if (!isCheckFileName(entry.name)) return;
      if (entry.isFile() || (entry.isSymbolicLink() && (await isFileTarget(full)))) {
        walk.found.add(realpathSync(full));
      }
    }),
  );
}

function enters(walk: Walk, parent: string, name: string): boolean {
  return !walk.exclude.has(name) && !walk.skip.has(path.join(parent, name));
}

function isCheckFileName(name: string): boolean {
  return name.endsWith(".yaml") || name.endsWith(".yml");
}

async function isFileTarget(link: string): Promise<boolean> {
  const info = await stat(link).catch(() => null);
  return info?.isFile() ?? false;
}

async function listDir(dir: string): Promise<Dirent[]> {
  return readdir(dir, { withFileTypes: true }).catch(() => []);
}
