import { listChecks } from "../checks/api.js";
import { printWarning } from "./output.js";
import { configOptions, type RunFlags } from "./run.js";
import { terminalSafe } from "./terminal.js";

/** One tab-separated line per check: id, type, description, source path. */
export async function listCommand(flags: RunFlags): Promise<number> {
  const { checks, warnings } = await listChecks({
    ...configOptions(flags),
    checkDir: flags.checkDir,
    tags: flags.tag,
  });
  for (const warning of warnings) printWarning(warning);
  const lines = checks.map((c) => [c.id, c.type, c.description, c.sourcePath].join("\t"));
  // Descriptions are the user's text: no escape sequence of theirs reaches the terminal.
  process.stdout.write(terminalSafe(lines.map((line) => `${line}\n`).join("")));
  return 0;
}
