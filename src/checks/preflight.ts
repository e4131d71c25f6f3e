import type { Config } from "../config/load.js";
import { InputError } from "../errors.js";
import { type Purpose, preflightChecks } from "./executors/registry.js";
import { loadChecks } from "./load.js";
import type { Check } from "./types.js";

/** Which checks a command takes. */
export interface Selection {
  /** Scan only this folder (relative to the project root). */
  checkDir?: string | undefined;
  /** Only the check with this id; other files need not be valid. */
  checkId?: string | undefined;
  /** Checks with at least one of these tags. */
  tags?: readonly string[] | undefined;
}

export interface Preflight {
  checks: Check[];
  /** Worth telling the user, not a reason to stop (a deprecated field, an agent not installed). */
  warnings: string[];
}

/**
 * The one pre-flight of `eb list`, `eb validate` and `eb run`: loads and selects the checks,
 * then (except for list) asks each check type's executor what stops it. Every reason not to run
 * is an InputError before anything runs.
 */
export async function preflight(
  config: Config,
  selection: Selection,
  purpose: "list" | Purpose,
  env: NodeJS.ProcessEnv,
): Promise<Preflight> {
  const checks = await loadChecks({
    projectRoot: config.projectRoot,
    excludeDirs: config.excludeDirs,
    checkDir: selection.checkDir,
    checkId: selection.checkId,
    tags: selection.tags,
  });
  if (purpose === "run" && checks.length === 0) {
    throw new InputError(
      `No checks found under ${selection.checkDir ?? config.projectRoot}. ` +
        "Checks are *.yaml files inside eval_checks/ folders; see `eb list`.",
    );
  }
  const warnings = checks.flatMap((check) => check.warnings);
  if (purpose === "list") return { checks, warnings };
  const found = await preflightChecks(checks, { config, env, purpose });
  if (found.errors.length > 0) throw new InputError(found.errors.join("\n"));
  return { checks, warnings: [...warnings, ...found.warnings] };
}
