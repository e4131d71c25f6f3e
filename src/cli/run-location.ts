import { existsSync, statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { loadConfig } from "../config/load.js";
import { InputError } from "../errors.js";

const LATEST = /^latest(?:~(\d+))?$/;
/** `<output_dir>/<run_id>/` folders: `YYYYMMDD_HHMMSS_<random>`. */
const RUN_ID = /^\d{8}_\d{6}_[0-9a-f]{8}$/;

/**
 * A run as given on the command line: a run folder or rows file, or `latest` (`latest~1`, …):
 * the newest (the one before it, …) run folder under the project's output_dir.
 */
export async function runLocation(arg: string, cwd: string): Promise<string> {
  const match = LATEST.exec(arg);
  if (!match || existsSync(arg)) return arg;
  const { outputDir } = await loadConfig({ cwd });
  const names = await readdir(outputDir).catch(() => []);
  const runs = names
    .filter((name) => RUN_ID.test(name) && existsSync(path.join(outputDir, name, "rows.jsonl")))
    .map((name) => {
      const info = statSync(path.join(outputDir, name));
      return { name, stamp: name.slice(0, 15), born: info.birthtimeMs || info.ctimeMs };
    })
    .sort(newestFirst)
    .map((run) => run.name);
  const run = runs[Number(match[1] ?? 0)];
  if (run !== undefined) return path.join(outputDir, run);
  const found = runs.length === 0 ? "no run folders" : `only ${runs.length} run folder(s)`;
  throw new InputError(
    `${arg}: ${found} under ${outputDir}. Pass a run folder or a rows file, or --cwd of the project.`,
  );
}

/** Newest first, by the start second in the name, then by when the folder was made. */
function newestFirst(
  a: { stamp: string; born: number },
  b: { stamp: string; born: number },
): number {
  if (a.stamp !== b.stamp) return a.stamp < b.stamp ? 1 : -1;
  return b.born - a.born;
}
