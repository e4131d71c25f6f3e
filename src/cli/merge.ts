import { mergeRuns, runText } from "../index.js";
import { terminalSafeStrings } from "../report/terminal.js";
import { settingFlags } from "./options.js";
import { printWarning, reportJson } from "./output.js";

export interface MergeFlags extends Record<string, unknown> {
  cwd: string;
  flatOutput?: boolean;
  requireAll?: boolean;
  json?: boolean;
}

/** `eb merge RUN…`: the shards' run folders joined into one; the exit code of its gate. */
export async function mergeCommand(runs: string[], flags: MergeFlags): Promise<number> {
  const merged = await mergeRuns({
    runs,
    cwd: flags.cwd,
    // --output-dir (or --out), as eb run and eb eval read it: relative to the project root.
    flags: settingFlags(flags),
    flatOutput: flags.flatOutput,
    requireAll: flags.requireAll,
    argv: process.argv.slice(2),
    onWarning: printWarning,
  });
  process.stdout.write(
    flags.json ? await reportJson(merged.runDir) : runText(terminalSafeStrings(merged.report)),
  );
  return merged.exitCode;
}
