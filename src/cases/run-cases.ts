import type { Config } from "../config/load.js";
import { runSuite, type SuiteRun } from "../run/run-suite.js";
import type { RunCasesOptions } from "./options.js";
import { type Plan, planRun } from "./plan.js";
import type { CaseReport } from "./report.js";
import { caseSuite } from "./suite.js";

export interface CaseRun extends SuiteRun<CaseReport> {
  config: Config;
}

/**
 * Sends every case to the target k times, grades the outputs and writes the run folder:
 * `rows.jsonl` as samples finish, then `report.json` and `report.md`. Bad input (flags, config,
 * case file, missing judge model or API key) throws InputError before any call is made; a failing
 * or hanging call becomes an `error` row instead.
 */
export async function runCases(options: RunCasesOptions): Promise<CaseRun> {
  const signal = options.signal ?? new AbortController().signal;
  const plan = await planRun(options, signal);
  const onSample = options.onSample;
  const run = await runSuite(caseSuite(plan, options, signal), {
    ...options,
    config: plan.config,
    signal,
    // The limits are worked out when a progress line is drawn, not for every sample.
    ...(onSample
      ? {
          onSample: (row, where) =>
            onSample(row, {
              ...where,
              get limits() {
                return limits(plan);
              },
            }),
        }
      : {}),
  });
  return { config: plan.config, ...run };
}

/** The limits of the models called so far: the target's, then the judge's when it is another. */
function limits(plan: Plan): number[] {
  const models = [plan.info.kind === "model" ? plan.info.model : null, plan.settings.judge];
  return [...new Set(models)].flatMap((model) => {
    const limit = model === null ? null : plan.limiters.limitOf(model);
    return limit === null ? [] : [limit];
  });
}
