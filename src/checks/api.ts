import { environmentOf, type LoadConfigOptions, loadConfig } from "../config/load.js";
import { takeShard } from "../run/shard.js";
import { preflight, type Selected, type Selection, selectChecks } from "./preflight.js";

export interface ChecksQuery extends LoadConfigOptions, Selection {}

/**
 * The checks `eb list` shows, in discovery order, and the warnings found loading them (config
 * legacy keys, deprecated fields). Throws InputError naming every invalid file.
 */
export async function listChecks(
  query: ChecksQuery = {},
): Promise<Selected & { projectRoot: string }> {
  const config = await loadConfig(query);
  const found = await selectChecks(config, query);
  const warnings = [...config.warnings, ...found.warnings];
  const { items: checks } = takeShard(found.checks, config.shard);
  return { checks, warnings, projectRoot: config.projectRoot };
}

/**
 * What `eb validate` checks: every definition, and the pre-flight of `eb run` where it is about
 * the definitions: each script_path is there, every script compiles with the run's interpreter
 * (an agent that is not installed here is a warning). Throws InputError with every problem.
 */
export async function validateChecks(query: ChecksQuery = {}): Promise<Selected> {
  const config = await loadConfig(query);
  const { checks, warnings } = await preflight(
    config,
    { checkDir: query.checkDir },
    "validate",
    environmentOf(query),
  );
  return { checks, warnings: [...config.warnings, ...warnings] };
}
