import { lstat, mkdir, readdir } from "node:fs/promises";
import path from "node:path";
import { InputError } from "../errors.js";

export interface RunFolderOptions {
  outputDir: string;
  runId: string;
  /** Write straight into `outputDir` (which must be absent or an empty, real folder). */
  flat: boolean;
  outputDirFromFlag: boolean;
}

/** Creates the run folder: `<output_dir>/<run_id>/`, or `output_dir` itself with `--flat-output`. */
export async function createRunFolder(options: RunFolderOptions): Promise<string> {
  if (!options.flat) {
    const dir = path.join(options.outputDir, options.runId);
    await mkdir(dir, { recursive: true });
    return dir;
  }
  await checkFlatTarget(options);
  await mkdir(options.outputDir, { recursive: true });
  return options.outputDir;
}

/** Refuses anything but an absent path or an empty, non-symlink folder; never overwrites. */
export async function checkFlatTarget(options: RunFolderOptions): Promise<void> {
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
