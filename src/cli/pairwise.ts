import path from "node:path";
import { EXIT, InputError } from "../errors.js";
import {
  loadConfig,
  type PairwiseReport,
  pairwiseText,
  runPairwise,
  type SuiteRun,
} from "../index.js";
import { terminalSafeJson, terminalSafeStrings } from "../report/terminal.js";
import { compareOptions, type GateFlags } from "./compare-options.js";
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
  // latest~N counts the case runs of --cases' suite, else of the newest case run's.
  const casesFile = flags.cases === undefined ? undefined : path.resolve(flags.cwd, flags.cases);
  const [base, cand] = (await runLocations([baseline, candidate], flags.cwd, {
    kinds: ["cases"],
    casesFile,
  })) as [string, string];
  const interrupt = abortOnSignals();
  const progress = createProgress(process.stderr);
  const argv = process.argv.slice(2);
  try {
    const run = await runPairwise({
      ...{ config, baseline: base, candidate: cand, criteria, margin, argv },
      ...{ cwd: flags.cwd, cases: flags.cases, cache: flags.cache, flatOutput: flags.flatOutput },
      inconclusive: gate.inconclusive,
      resume: flags.resume === undefined ? undefined : path.resolve(flags.resume),
      signal: interrupt.signal,
      onSample: (_row, where) => progress.update(where),
      onWarning: (message) => {
        progress.done();
        printWarning(message);
      },
    });
    progress.done();
    printReport(run, flags.json === true);
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

/** What --json prints: the figures of report.json, and where the run folder is. */
const JSON_FIELDS = [
  ...["wins", "ties", "losses", "inconsistent", "errors", "pairs", "items", "net_win_rate"],
  ...["ci_low", "ci_high", "consistency", "position_bias", "order_effect", "margin", "verdict"],
  ...["strata", "cases"],
] as const;

function printReport(run: SuiteRun<PairwiseReport>, json: boolean): void {
  const { report, document } = run;
  if (!json) {
    if (document.pairwise === null) return;
    const safe = terminalSafeStrings(document);
    const text = pairwiseText({ ...safe, pairwise: terminalSafeStrings(document.pairwise) });
    process.stdout.write(`${text}run folder: ${safe.output_dir}
`);
    return;
  }
  const object = {
    ...Object.fromEntries(JSON_FIELDS.map((key) => [key, report[key]])),
    run_dir: report.output_dir,
    warnings: report.warnings,
  };
  process.stdout.write(`${terminalSafeJson(JSON.stringify(object, null, 2))}\n`);
}
