import path from "node:path";
import { openEndpoint } from "../cases/plan.js";
import { EXIT, InputError } from "../errors.js";
import { loadConfig } from "../index.js";
import { readPairs } from "../pairwise/pairs.js";
import type { PairwiseReport } from "../pairwise/report.js";
import { type PairwisePlan, pairwiseSuite } from "../pairwise/suite.js";
import { pairwiseText } from "../pairwise/text.js";
import { terminalSafe, terminalSafeJson } from "../report/terminal.js";
import { runSuite } from "../run/run-suite.js";
import { redactUrl } from "../secrets/redact.js";
import { compareOptions, type GateFlags } from "./compare.js";
import { configOptions } from "./eval.js";
import { abortOnSignals } from "./interrupt.js";
import { printWarning } from "./output.js";
import { createProgress } from "./progress.js";
import { withRunGate } from "./resume-gate.js";
import { resumeHint } from "./resume-hint.js";
import { runLocations } from "./run-location.js";

export interface PairwiseFlags extends Partial<GateFlags>, Record<string, unknown> {
  cwd: string;
  projectConfig: boolean;
  criteria?: string;
  cases?: string;
  json?: boolean;
  /** undefined or true: read and write the cache; false: --no-cache. */
  cache?: boolean;
  out?: string;
  outputDir?: string;
  flatOutput?: boolean;
  resume?: string;
}

/**
 * `eb pairwise BASE CAND --judge MODEL`: every pair of answers the two case runs share, judged
 * in both orders, as a run folder of its own; gated like eb compare. Exit 0 pass, 1 regression
 * or inconclusive (see --inconclusive), 2 bad input, 130 interrupted.
 */
export async function pairwiseCommand(
  baseline: string,
  candidate: string,
  given: PairwiseFlags,
): Promise<number> {
  const flags = withRunGate(given, ["margin", "inconclusive"]);
  const gate = { margin: flags.margin ?? "0.02", inconclusive: flags.inconclusive ?? "fail" };
  // compareOptions has checked it: a number in [0, 1].
  const margin = compareOptions(gate).margin!;
  const criteria = criteriaOf(flags.criteria);
  const config = await loadConfig(configOptions(flags));
  for (const warning of config.warnings) printWarning(warning);
  const judgeModel = config.eval.judge;
  if (judgeModel === null) {
    throw new InputError(
      "eb pairwise needs a judge model: pass --judge MODEL (or set [eval] judge / EVAL_BANANA_JUDGE)",
    );
  }
  // latest~N counts the case runs of --cases' suite, else of the newest case run's.
  const casesFile = flags.cases === undefined ? undefined : path.resolve(flags.cwd, flags.cases);
  const [base, cand] = (await runLocations([baseline, candidate], flags.cwd, {
    kinds: ["cases"],
    casesFile,
  })) as [string, string];
  const inputs = await readPairs(base, cand, { cwd: flags.cwd, cases: flags.cases, criteria });
  const interrupt = abortOnSignals();
  const progress = createProgress(process.stderr);
  try {
    const signal = interrupt.signal;
    const settings = config.eval;
    const endpoint = await openEndpoint(
      { cache: flags.cache },
      { settings, config },
      { model: undefined, judgeModel },
      signal,
    );
    const argv = process.argv.slice(2);
    const command = argv.map((arg) => redactUrl(endpoint.scrubber.scrub(arg)));
    const plan: PairwisePlan = {
      ...{ config, settings, inputs, endpoint, judgeModel, criteria, margin, command },
      inconclusive: gate.inconclusive,
    };
    const warn = (message: string) => {
      progress.done();
      printWarning(message);
    };
    for (const warning of inputs.warnings) warn(warning);
    const run = await runSuite(pairwiseSuite(plan, signal), {
      config,
      signal,
      flatOutput: flags.flatOutput,
      resume: flags.resume === undefined ? undefined : path.resolve(flags.resume),
      onSample: (_row, where) => progress.update(where),
      onWarning: warn,
    });
    progress.done();
    printReport(run.report, flags.json === true);
    if (run.exitCode === EXIT.interrupted) process.stderr.write(resumeHint(argv, run.runDir));
    return run.exitCode;
  } finally {
    progress.done();
    interrupt.dispose();
  }
}

function criteriaOf(given: string | undefined): string | null {
  if (given === undefined) return null;
  if (given.trim() === "") throw new InputError("--criteria: give the criteria as text");
  return given.trim();
}

function printReport(report: PairwiseReport, json: boolean): void {
  if (!json) {
    process.stdout.write(terminalSafe(`${pairwiseText(report)}run folder: ${report.output_dir}\n`));
    return;
  }
  const { wins, ties, losses, inconsistent, errors, pairs, items, verdict, margin } = report;
  const object = {
    wins,
    ties,
    losses,
    inconsistent,
    errors,
    pairs,
    items,
    net_win_rate: report.net_win_rate,
    ci_low: report.ci_low,
    ci_high: report.ci_high,
    consistency: report.consistency,
    position_bias: report.position_bias,
    margin,
    verdict,
    strata: report.strata,
    cases: report.cases,
    run_dir: report.output_dir,
    warnings: report.warnings,
  };
  process.stdout.write(`${terminalSafeJson(JSON.stringify(object, null, 2))}\n`);
}
