import { type Config, environmentOf } from "../config/load.js";
import type { PythonInterpreter } from "../process/python.js";
import type { CheckManifest } from "../report/record.js";
import { configOf, flagGiven, type RunOptions, resumedConfig } from "../run/options.js";
import { manifestOfRun } from "../run/run-folder.js";
import { runSuite, type SuiteRun } from "../run/run-suite.js";
import { checkSuiteName } from "../run/suite-name.js";
import { syntaxErrors } from "./compile.js";
import { checkDefinitionSha256 } from "./digest.js";
import type { PreparedCheck } from "./executors/types.js";
import { judgeBudgetOf } from "./judge-price.js";
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
  // Each warning once: a judge check per call would repeat the same one (a missing {env:VAR}).
  const warned = new Set<string>();
  const warn = (message: string) => {
    if (warned.has(message)) return;
    warned.add(message);
    options.onWarning?.(message);
  };
  const resumed = options.resume === undefined ? null : manifestOfRun(options.resume, "checks");
  const config = resumedConfig(await configOf(options), options, resumed);
  const env = environmentOf(options);
  const preflighted = await preflight(config, options, "run", env);
  for (const warning of preflighted.warnings) warn(warning);
  const checks =
    resumed === null ? preflighted.checks : resumedChecks(preflighted.checks, options, resumed);
  const { python } = preflighted;
  // Before the run folder: a cap that cannot price a judge stops the run with nothing run.
  const budget = judgeBudgetOf(checks, config);
  const prepared = prepareChecks(checks, python, { cwd: config.projectRoot, env }, warn);
  const scrubber = checkScrubber(config, checks, env);
  const suite = checkSuite(config, prepared, {
    name: checkSuiteName(options, config.projectRoot),
    samples: options.samples ?? resumedSamples(config, options, resumed),
    python: Promise.resolve(python),
    command: options.argv ? options.argv.map(scrubber.scrub) : null,
    env,
    warn: (message) => warn(scrubber.scrub(message)),
    scrubber,
    budget,
  });
  return { config, ...(await runSuite(suite, { ...options, config })) };
}

/**
 * `--resume` without a selection finishes the checks the run set out with (its manifest's
 * definitions); a check added since is not one of them, one changed or gone is refused later.
 */
export function resumedChecks(checks: Check[], selection: Selection, run: CheckManifest): Check[] {
  const selects = [selection.checkDir, selection.checkIds, selection.tags].some(
    (given) => given !== undefined && given.length > 0,
  );
  return selects ? checks : checks.filter((check) => Object.hasOwn(run.definitions, check.id));
}

/** The run's samples, unless the command line gives them (then a difference is refused). */
export function resumedSamples(
  config: Config,
  options: RunChecksOptions,
  run: CheckManifest | null,
): number {
  return run === null || flagGiven(options, "core.samples") ? config.samples : run.samples;
}

/**
 * Freezes each check's script and compiles them all in one process: a script that does not
 * compile is that check's error, found before it runs (never a `failed` check). The compile
 * goes on while the run folder is set up; each check waits for its verdict before it starts.
 */
export function prepareChecks(
  checks: readonly Check[],
  python: PythonInterpreter,
  where: { cwd: string; env: NodeJS.ProcessEnv },
  warn: (message: string) => void,
): PreparedCheck[] {
  const frozen = checks.map((check) => ({
    check,
    script: check.type === "deterministic" ? readScriptSnapshot(check) : null,
  }));
  // Checks that never run (another shard's, an interrupted run's) never look at their verdict:
  // no rejection may be left for them to leave unhandled.
  const syntax = syntaxErrors(frozen, python.executable, where)
    .catch((error: unknown) => ({ byId: new Map<string, string>(), failure: String(error) }))
    .then(({ byId, failure }) => {
      if (failure !== null) warn(`${failure}; the scripts run unchecked`);
      return byId;
    });
  return frozen.map(({ check, script }) => ({
    check,
    script,
    digest: checkDefinitionSha256(check.yamlBytes, script),
    syntaxError: syntax.then((byId) => byId.get(check.id) ?? null),
  }));
}
