import { type Config, environmentOf } from "../config/load.js";
import { type PythonInterpreter, resolvePython } from "../process/python.js";
import { configOf, flagGiven, type RunOptions } from "../run/options.js";
import type { CheckManifest } from "../run/record.js";
import { manifestOfRun } from "../run/run-folder.js";
import { runSuite, type SuiteRun } from "../run/run-suite.js";
import { checkDefinitionSha256 } from "./digest.js";
import type { PreparedCheck } from "./executors/types.js";
import { preflight, type Selection } from "./preflight.js";
import type { CheckReport } from "./report.js";
import { readScriptSnapshot } from "./script.js";
import { checkScrubber } from "./secrets.js";
import { checkSuite } from "./suite.js";
import type { Check } from "./types.js";

export interface RunChecksOptions extends RunOptions<"checks">, Selection {
  /** Runs of each check (judge reliability); a check's score is its pass fraction. Default 1. */
  samples?: number | undefined;
}

export interface CheckRun extends SuiteRun<CheckReport> {
  config: Config;
}

/**
 * Runs the selected checks and writes the run folder: `rows.jsonl` as checks finish, then
 * `checks/<stem>.json`, `report.json` and `report.md`. Bad input throws InputError before any
 * check runs; a failing, hanging or crashing check becomes an `error` result instead.
 */
export async function runChecks(options: RunChecksOptions = {}): Promise<CheckRun> {
  const warn = options.onWarning ?? (() => {});
  const config = await configOf(options);
  const env = environmentOf(options);
  // Asked while the checks load (it never rejects): a version-manager shim takes ~0.1 s.
  const interpreter = resolvePython(config.python, config.projectRoot, env);
  const resumed = options.resume === undefined ? null : manifestOfRun(options.resume, "checks");
  const preflighted = await preflight(config, options, "run", env);
  for (const warning of preflighted.warnings) warn(warning);
  const checks =
    resumed === null ? preflighted.checks : resumedChecks(preflighted.checks, options, resumed);
  const prepared = await Promise.all(checks.map(prepareCheck));
  const scrubber = checkScrubber(config, checks, env);
  const suite = checkSuite(config, prepared, {
    samples: options.samples ?? resumedSamples(config, options, resumed),
    python: interpreterFor(checks, interpreter),
    command: options.argv ? options.argv.map(scrubber.scrub) : null,
    env,
    warn: (message) => warn(scrubber.scrub(message)),
    scrubber,
  });
  return { config, ...(await runSuite(suite, { ...options, config })) };
}

/**
 * `--resume` without a selection finishes the checks the run set out with (its manifest's
 * definitions); a check added since is not one of them, one changed or gone is refused later.
 */
function resumedChecks(checks: Check[], selection: Selection, run: CheckManifest): Check[] {
  const selects = [selection.checkDir, selection.checkId, selection.tags].some(
    (given) => given !== undefined && given.length > 0,
  );
  return selects ? checks : checks.filter((check) => Object.hasOwn(run.definitions, check.id));
}

/** The run's samples, unless the command line gives them (then a difference is refused). */
function resumedSamples(
  config: Config,
  options: RunChecksOptions,
  run: CheckManifest | null,
): number {
  return run === null || flagGiven(options, "core.samples") ? config.samples : run.samples;
}

async function prepareCheck(check: Check): Promise<PreparedCheck> {
  const script = check.type === "deterministic" ? await readScriptSnapshot(check) : null;
  return { check, script, digest: checkDefinitionSha256(check.yamlBytes, script) };
}

/** Only deterministic checks need Python: a judge-only run must not fail for the lack of it. */
async function interpreterFor(
  checks: readonly Check[],
  interpreter: Promise<PythonInterpreter>,
): Promise<PythonInterpreter> {
  if (!checks.some((check) => check.type === "deterministic")) {
    return { executable: "python3", error: null };
  }
  return interpreter;
}
