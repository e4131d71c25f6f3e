import { HarnessError } from "../agents/resolve.js";
import type { Config } from "../config/load.js";
import { InputError, throwProblems } from "../errors.js";
import { type PythonInterpreter, resolvePython } from "../process/python.js";
import { type Purpose, preflightChecks } from "./executors/registry.js";
import { findChecks, loadChecks, type SelectOptions } from "./load.js";
import type { Check } from "./types.js";

/** Which checks a command takes. */
export type Selection = Pick<SelectOptions, "checkDir" | "checkIds" | "tags">;

export interface Selected {
  checks: Check[];
  /** Worth telling the user, not a reason to stop (a deprecated field, an agent not installed). */
  warnings: string[];
}

export interface Preflight extends Selected {
  /** The interpreter deterministic checks run with (found to start, when there are any). */
  python: PythonInterpreter;
}

/** The checks `eb list` shows: loaded and selected (every problem of every file, at once). */
export async function selectChecks(config: Config, selection: Selection): Promise<Selected> {
  const checks = await loadChecks(selectOptions(config, selection));
  return { checks, warnings: checks.flatMap((check) => check.warnings) };
}

function selectOptions(config: Config, selection: Selection): SelectOptions {
  return {
    projectRoot: config.projectRoot,
    excludeDirs: config.excludeDirs,
    checkDir: selection.checkDir,
    skipDirs: [config.outputDir, config.eval.cacheDir],
    checkIds: selection.checkIds,
    tags: selection.tags,
  };
}

/** Nothing to run: its own class, as the result file reports it as `no_checks`. */
export class NoChecksError extends InputError {}

/**
 * The one pre-flight of `eb validate` and `eb run`: selects the checks as `eb list` does, then
 * asks each check type's executor what stops it. Every reason not to run is an InputError
 * (all of them together) before anything runs.
 */
export async function preflight(
  config: Config,
  selection: Selection,
  purpose: Purpose,
  env: NodeJS.ProcessEnv,
): Promise<Preflight> {
  // Asked while the checks load (it never rejects): a version-manager shim takes ~0.1 s.
  const python = resolvePython(config.python, config.projectRoot, env);
  const { checks, problems } = await findChecks(selectOptions(config, selection));
  if (purpose === "run" && checks.length === 0 && problems.length === 0) {
    throw new NoChecksError(
      `No checks found under ${selection.checkDir ?? config.projectRoot}. ` +
        "Checks are *.yaml files inside eval_checks/ folders; see `eb list`.",
    );
  }
  const found = await preflightChecks(checks, { config, env, purpose, python });
  const stops = [...problems, ...found.errors];
  if (found.harness) throw new HarnessError(stops);
  throwProblems(stops);
  const warnings = [...checks.flatMap((check) => check.warnings), ...found.warnings];
  return { checks, warnings, python: await python };
}
