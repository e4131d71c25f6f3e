import { createHash } from "node:crypto";
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { SkillFolder } from "./skill-dir.js";

/** A file the agent created or changed in its workspace. */
export interface ChangedFile {
  /** Relative to the workspace, with `/`. */
  path: string;
  /** Its start, as text, for the judge (a binary file reads as its size). */
  excerpt: string;
  bytes: number;
}

/** A fresh folder for one sample: the eval's files, and the skill where the agent looks. */
export interface Workspace {
  dir: string;
  /** Files new or changed since the agent started (the installed skill left out). */
  changes(): Promise<ChangedFile[]>;
  /**
   * Copies the changed files into `into` (the sample's outputs folder in the run folder), text
   * files through `scrub`: the agent had the environment, and may have written a secret down.
   */
  keep(
    changes: readonly ChangedFile[],
    into: string,
    scrub: (text: string) => string,
  ): Promise<void>;
  remove(): Promise<void>;
}

/** Of each changed file, this much is shown to the judge. */
const EXCERPT_BYTES = 4000;

/**
 * Creates the workspace: each of `files` copied in under its own name, and `skill` (when given)
 * copied to `<skillsDir>/<name>/` without its evals.
 */
export async function openWorkspace(
  files: readonly string[],
  skill: { folder: SkillFolder; skillsDir: string } | null,
): Promise<Workspace> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "eb-skill-"));
  await Promise.all(
    files.map((file) => cp(file, path.join(dir, path.basename(file)), { recursive: true })),
  );
  const installed = skill === null ? null : path.join(skill.skillsDir, skill.folder.name);
  if (skill !== null && installed !== null) {
    for (const file of skill.folder.files) {
      const to = path.join(dir, installed, file);
      await mkdir(path.dirname(to), { recursive: true });
      await copyFile(path.join(skill.folder.dir, file), to);
    }
  }
  const skip = installed === null ? null : installed.split(path.sep).join("/");
  const before = await digests(dir, skip);
  return {
    dir,
    changes: async () => {
      const after = await digests(dir, skip);
      const changed = [...after].filter(([file, digest]) => before.get(file) !== digest);
      return Promise.all(changed.map(([file]) => changedFile(dir, file)));
    },
    keep: async (changes, into, scrub) => {
      for (const change of changes) {
        const to = path.join(into, change.path);
        await mkdir(path.dirname(to), { recursive: true });
        const bytes = await readFile(path.join(dir, change.path));
        await writeFile(to, bytes.includes(0) ? bytes : scrub(bytes.toString("utf8")));
      }
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** sha256 of every file under `dir` by relative path, the folder `skip` left out. */
async function digests(dir: string, skip: string | null): Promise<Map<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile())
    .map((entry) =>
      path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"),
    )
    .filter((file) => skip === null || !file.startsWith(`${skip}/`));
  const pairs = await Promise.all(
    files.map(async (file): Promise<[string, string]> => {
      const bytes = await readFile(path.join(dir, file));
      return [file, createHash("sha256").update(bytes).digest("hex")];
    }),
  );
  return new Map(pairs.sort(([a], [b]) => (a < b ? -1 : 1)));
}

async function changedFile(dir: string, file: string): Promise<ChangedFile> {
  const bytes = await readFile(path.join(dir, file));
  const head = bytes.subarray(0, EXCERPT_BYTES);
  const binary = head.includes(0);
  const excerpt = binary ? `(binary, ${bytes.length} bytes)` : head.toString("utf8");
  return { path: file, excerpt, bytes: bytes.length };
}
