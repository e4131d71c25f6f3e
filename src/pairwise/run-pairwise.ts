import { openEndpoint } from "../cases/plan.js";
import { InputError } from "../errors.js";
import { configOf, type RunOptions } from "../run/options.js";
import { runSuite, type SuiteRun } from "../run/run-suite.js";
import { redactUrl } from "../secrets/redact.js";
import { readPairs } from "./pairs.js";
import type { PairwiseReport } from "./report.js";
import { pairwiseSuite } from "./suite.js";

/**
 * Options of one `eb pairwise` run. The judge and endpoint settings ([eval] judge, api_base,
 * workers, max_cost, …) come from `flags`, EVAL_BANANA_* variables and the config file.
 */
export interface RunPairwiseOptions extends RunOptions<"pairwise"> {
  /** The two case runs (folders or rows files), found as given. */
  baseline: string;
  candidate: string;
  /** The case file both runs answered; default: the one their manifests name. */
  cases?: string | undefined;
  /** One criterion for every case; default: each case's judge graders'. */
  criteria?: string | null | undefined;
  /** The largest net loss still accepted (default 0.02). */
  margin?: number | undefined;
  /** What an inconclusive verdict makes the gate (default fail). */
  inconclusive?: "fail" | "pass" | undefined;
  /** false: neither read nor write the judge cache. */
  cache?: boolean | undefined;
  /** Default: EVAL_BANANA_API_KEY, else OPENAI_API_KEY, from `env`. Never written anywhere. */
  apiKey?: string | undefined;
}

/**
 * Judges every pair of answers the two case runs share, in both orders, and writes a run folder
 * of its own, gated like `eb compare` on the net win rate. Bad input throws InputError before
 * any call; a failed judge call becomes an error pair.
 */
export async function runPairwise(options: RunPairwiseOptions): Promise<SuiteRun<PairwiseReport>> {
  const config = await configOf(options);
  const judgeModel = config.eval.judge;
  if (judgeModel === null) {
    throw new InputError(
      "eb pairwise needs a judge model: pass --judge MODEL (or set [eval] judge / EVAL_BANANA_JUDGE)",
    );
  }
  const criteria = options.criteria ?? null;
  const inputs = await readPairs(options.baseline, options.candidate, {
    cwd: options.cwd ?? ".",
    cases: options.cases,
    criteria,
  });
  for (const warning of inputs.warnings) options.onWarning?.(warning);
  const signal = options.signal ?? new AbortController().signal;
  const settings = config.eval;
  const endpoint = await openEndpoint(
    { cache: options.cache, apiKey: options.apiKey, env: options.env },
    { settings, config },
    { model: undefined, judgeModel },
    signal,
  );
  const command = (options.argv ?? []).map((arg) => redactUrl(endpoint.scrubber.scrub(arg)));
  const plan = {
    ...{ config, settings, inputs, endpoint, judgeModel, criteria, command },
    margin: options.margin ?? 0.02,
    inconclusive: options.inconclusive ?? "fail",
  };
  return runSuite(pairwiseSuite(plan, signal), { ...options, config, signal });
}
