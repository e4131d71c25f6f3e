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
  return (await planCases(options)).run();
}

/** A case run checked and ready (every InputError thrown, nothing called), not started yet. */
export interface PlannedCases {
  plan: Plan;
  /** Runs it; `more` adds to the options it was planned with (what only the start knows). */
  run(more?: Pick<RunCasesOptions, "draws" | "onStart">): Promise<CaseRun>;
}

/** The first half of runCases: several arms are all planned before any of them calls. */
export async function planCases(options: RunCasesOptions): Promise<PlannedCases> {
  const signal = options.signal ?? new AbortController().signal;
  const plan = await planRun(options, signal);
  const run = async (more: Pick<RunCasesOptions, "draws" | "onStart"> = {}) => {
    const all = { ...options, ...more };
    const onSample = options.onSample;
    const suiteRun = await runSuite(caseSuite(plan, all, signal), {
      ...all,
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
    return { config: plan.config, ...suiteRun };
  };
  return { plan, run };
}

/** The limits of the models called so far: the target's, then the judge's when it is another. */
function limits(plan: Plan): number[] {
  const models = [plan.info.kind === "model" ? plan.info.model : null, plan.settings.judge];
  return [...new Set(models)].flatMap((model) => {
    const limit = model === null ? null : plan.limiters.limitOf(model);
    return limit === null ? [] : [limit];
  });
}
