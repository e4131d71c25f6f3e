import { realpath } from "node:fs/promises";
import path from "node:path";
import type { Check } from "../index.js";
import { listChecks } from "../index.js";
import { terminalSafeLine } from "../report/terminal.js";
import { printWarning } from "./output.js";
import { configOptions, type RunFlags } from "./run.js";

/**
 * One tab-separated line per check: id, type, description, source path; or with --json a JSON
 * array of {id, type, file (relative to the project root), line, tags, description}.
 */
export async function listCommand(flags: RunFlags): Promise<number> {
  const { checks, warnings, projectRoot } = await listChecks({
    ...configOptions(flags),
    checkDir: flags.checkDir,
    tags: flags.tag,
  });
  for (const warning of warnings) printWarning(warning);
  if (flags.json) {
    // Relative to the real root, as the check paths are real paths.
    const root = await realpath(projectRoot).catch(() => projectRoot);
    const entries = checks.map((check) => listEntry(check, root));
    process.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
    return 0;
  }
  // Descriptions are the user's text: no escape sequence or line break of theirs gets through.
  const lines = checks.map((c) =>
    terminalSafeLine([c.id, c.type, c.description, c.sourcePath].join("\t")),
  );
  process.stdout.write(lines.map((line) => `${line}\n`).join(""));
  return 0;
}

function listEntry(check: Check, projectRoot: string) {
  return {
    id: check.id,
    type: check.type,
    file: path.relative(projectRoot, check.sourcePath),
    line: check.line,
    tags: check.tags,
    description: check.description,
  };
}
