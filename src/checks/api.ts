import { environmentOf, type LoadConfigOptions, loadConfig } from "../config/load.js";
import { type Preflight, preflight } from "./preflight.js";

export interface ChecksQuery extends LoadConfigOptions {
  checkDir?: string | undefined;
  tags?: readonly string[] | undefined;
}

/**
 * The checks `eb list` shows, in discovery order, and the warnings found loading them (config
 * legacy keys, deprecated fields). Throws InputError on any invalid file.
 */
export async function listChecks(query: ChecksQuery = {}): Promise<Preflight> {
  const config = await loadConfig(query);
  const found = await preflight(config, query, "list", environmentOf(query));
  return { ...found, warnings: [...config.warnings, ...found.warnings] };
}

/**
 * What `eb validate` checks: every definition, and the pre-flight of `eb run` where it is about
 * the definitions (an agent that is not installed here is a warning). Throws InputError.
 */
export async function validateChecks(query: ChecksQuery = {}): Promise<Preflight> {
  const config = await loadConfig(query);
  const found = await preflight(
    config,
    { checkDir: query.checkDir },
    "validate",
    environmentOf(query),
  );
  return { ...found, warnings: [...config.warnings, ...found.warnings] };
}
