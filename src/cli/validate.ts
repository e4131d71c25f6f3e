import { validateChecks } from "../index.js";
import { printWarning } from "./output.js";
import { configOptions, type RunFlags } from "./run.js";

/** Loads every check strictly and runs the pre-flight of `eb run`, without running anything. */
export async function validateCommand(flags: RunFlags): Promise<number> {
  const { checks, warnings } = await validateChecks({
    ...configOptions(flags),
    checkDir: flags.checkDir,
  });
  for (const warning of warnings) printWarning(warning);
  process.stdout.write(`Validated ${checks.length} checks successfully.\n`);
  return 0;
}
