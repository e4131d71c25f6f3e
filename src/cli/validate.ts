import path from "node:path";
import { loadConfig, validateCases, validateChecks } from "../index.js";
import { printWarning } from "./output.js";
import { configOptions, type RunFlags } from "./run.js";

/**
 * Without files: loads every check strictly and runs the pre-flight of `eb run`. With case
 * files: what `eb eval` checks before its first call. Nothing runs either way.
 */
export async function validateCommand(cases: string[], flags: RunFlags): Promise<number> {
  if (cases.length > 0) return validateCaseFiles(cases, flags);
  const { checks, warnings } = await validateChecks({
    ...configOptions(flags),
    checkDir: flags.checkDir,
  });
  for (const warning of warnings) printWarning(warning);
  process.stdout.write(`Validated ${checks.length} checks successfully.\n`);
  return 0;
}

async function validateCaseFiles(files: string[], flags: RunFlags): Promise<number> {
  const config = await loadConfig(configOptions(flags));
  for (const warning of config.warnings) printWarning(warning);
  const cwd = path.resolve(flags.cwd);
  for (const file of files) {
    const shown = path.relative(process.cwd(), path.resolve(cwd, file)) || file;
    const { cases } = await validateCases(shown, { config, cwd, env: process.env });
    process.stdout.write(`Validated ${cases} ${cases === 1 ? "case" : "cases"} in ${shown}.\n`);
  }
  return 0;
}
