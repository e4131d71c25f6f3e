import { statSync } from "node:fs";
import { lstat, mkdir, readdir, rmdir } from "node:fs/promises";
import path from "node:path";
import { InputError } from "../errors.js";
import { parseManifest } from "../report/manifest.js";
import {
  COMMAND_OF,
  type Manifest,
  type ManifestBase,
  type ManifestOf,
  RESUME_KEYS,
  type RunKind,
  type SettingsOf,
} from "../report/record.js";
import { describeFsError } from "./fs-errors.js";
import { RowWriter, readManifest } from "./rows.js";

export interface RunFolderOptions {
  outputDir: string;
  runId: string;
  /** Write straight into `outputDir` (which must be absent or an empty, real folder). */
  flat: boolean;
  outputDirFromFlag: boolean;
}

/** Creates the run folder: `<output_dir>/<run_id>/`, or `output_dir` itself with `--flat-output`. */
export async function createRunFolder(options: RunFolderOptions): Promise<string> {
  const dir = options.flat ? options.outputDir : path.join(options.outputDir, options.runId);
  if (options.flat) await checkFlatTarget(options);
  await mkdir(dir, { recursive: true }).catch(async (error: unknown) => {
    throw new InputError(
      `cannot create the run folder ${dir}: ${describeFsError(await realCause(dir, error))}. ` +
        "Pass --output-dir (or set [core] output_dir) to a folder eb can write; nothing was run.",
    );
  });
  return dir;
}

/**
 * A recursive mkdir reports ENOENT for a read-only mount; creating the first missing folder on
 * its own says what is really wrong (EROFS, EACCES, ...).
 */
async function realCause(dir: string, error: unknown): Promise<unknown> {
  let missing = dir;
  while (path.dirname(missing) !== missing && !(await exists(path.dirname(missing)))) {
    missing = path.dirname(missing);
  }
  return mkdir(missing).then(
    // It worked this time: leave nothing behind, and report the first failure.
    () => rmdir(missing).then(() => error),
    (cause: unknown) => cause,
  );
}

async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}

/** Refuses anything but an absent path or an empty, non-symlink folder; never overwrites. */
async function checkFlatTarget(options: RunFolderOptions): Promise<void> {
  const dir = options.outputDir;
  if (!options.outputDirFromFlag) {
    throw new InputError(
      "--flat-output requires an explicit --output-dir (the exact folder to write into).",
    );
  }
  const info = await lstat(dir).catch(() => null);
  if (!info) return;
  const refuse = (what: string) =>
    new InputError(
      `--flat-output refuses ${dir}: ${what}. Pass an absent path or an empty folder; nothing was written.`,
    );
  if (info.isSymbolicLink()) throw refuse("it is a symbolic link");
  if (!info.isDirectory()) throw refuse("it is not a folder");
  if ((await readdir(dir)).length > 0) throw refuse("the folder is not empty");
}

export const ROWS_FILE = "rows.jsonl";

/** The rows file of a run folder given to `--resume`, or an InputError saying it is not one. */
export function rowsFileOf(runDir: string): string {
  const file = path.join(runDir, ROWS_FILE);
  if (!statSync(file, { throwIfNoEntry: false })?.isFile()) {
    throw new InputError(`--resume ${runDir}: not a run folder (no ${ROWS_FILE} file in it)`);
  }
  return file;
}

/** What a resumed run must have as its manifest has it. */
type Compared<K extends RunKind> = SettingsOf<K> & {
  definitions: Record<string, string>;
  shard?: string | undefined;
  item_set?: string | undefined;
};

/** What a resumed run needs of its manifest. */
export type Resumed = Pick<
  ManifestBase,
  "run_id" | "started_at" | "resumes" | "version" | "git_commit" | "command"
>;

/**
 * Reopens an interrupted run of the same kind, items and settings (else an InputError naming
 * what differs) to append the rows still missing.
 */
export function reopenRunFolder<K extends RunKind>(
  runDir: string,
  kind: K,
  now: Compared<K>,
): { writer: RowWriter<Manifest>; manifest: Resumed } {
  const file = rowsFileOf(runDir);
  // Refused before the file is opened for writing, so a refused resume changes nothing.
  return RowWriter.reopen<Manifest>(file, (original) => {
    const manifest = parseManifest(original);
    if (manifest === null) throw refusal(runDir, "its manifest is not one eb wrote");
    const why = mismatch(manifest, kind, now);
    if (why !== null) throw refusal(runDir, why);
    return manifest;
  });
}

/**
 * The manifest of the run of this kind in `runDir`, read before anything else: `--resume` takes
 * from it the target and settings the command line leaves out.
 */
export function manifestOfRun<K extends RunKind>(runDir: string, kind: K): ManifestOf<K> {
  const manifest = parseManifest(readManifest(rowsFileOf(runDir)));
  if (manifest === null) throw refusal(runDir, "its manifest is not one eb wrote");
  if (manifest.kind !== kind) throw refusal(runDir, `it is not a run of ${COMMAND_OF[kind]}`);
  return manifest as ManifestOf<K>;
}

function refusal(runDir: string, why: string): InputError {
  return new InputError(`--resume ${runDir}: ${why}. Start a new run instead.`);
}

function mismatch<K extends RunKind>(manifest: Manifest, kind: K, now: Compared<K>): string | null {
  if (manifest.kind !== kind) return `it is not a run of ${COMMAND_OF[kind]}`;
  const before = new Map(Object.entries(manifest));
  const after = new Map(Object.entries(now));
  const changed = RESUME_KEYS[kind].filter(
    (key) => JSON.stringify(before.get(String(key))) !== JSON.stringify(after.get(String(key))),
  );
  return changed.length > 0 ? `${changed.join(", ")} changed` : null;
}
