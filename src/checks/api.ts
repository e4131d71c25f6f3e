import { type LoadConfigOptions, loadConfig } from "../config/load.js";
import { validateHarness } from "../executors/harness-judge.js";
import { requireHarness } from "./harness-gate.js";
import { loadChecks } from "./load.js";
import { readScriptSnapshot } from "./script.js";
import type { Check } from "./types.js";

export interface ChecksQuery extends LoadConfigOptions {
  checkDir?: string | undefined;
  tags?: readonly string[] | undefined;
}

/**
 * The checks `eb list` shows, in discovery order, each with its own `warnings`. Throws
 * InputError on any invalid file.
 */
export async function listChecks(query: ChecksQuery = {}): Promise<Check[]> {
  const config = await loadConfig(query);
  return loadChecks({ projectRoot: config.projectRoot, excludeDirs: config.excludeDirs, ...query });
}

export interface Validation {
  checks: Check[];
  /**
   * Problems that do not stop a run (legacy config keys, deprecated check fields, a missing
   * script_path file).
   */
  warnings: string[];
}

/** What `eb validate` checks: every definition and the harness pre-flight. Throws InputError. */
export async function validateChecks(query: ChecksQuery = {}): Promise<Validation> {
  const config = await loadConfig(query);
  const checks = await loadChecks({
    projectRoot: config.projectRoot,
    excludeDirs: config.excludeDirs,
    checkDir: query.checkDir,
  });
  requireHarness(checks, config.harness.agent);
  await validateHarness(checks, config);
  const warnings = [...config.warnings];
  for (const check of checks) {
    warnings.push(...check.warnings);
    if (check.type !== "deterministic") continue;
    const snapshot = await readScriptSnapshot(check);
    if (snapshot?.state === "unavailable") {
      warnings.push(`${check.sourcePath}: ${snapshot.reason} (eb run will report it as an error)`);
    }
  }
  return { checks, warnings };
}
