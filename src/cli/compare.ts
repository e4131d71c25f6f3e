import { EXIT } from "../errors.js";
import { compareRuns } from "../report/compare-runs.js";
import { comparisonText } from "../report/compare-text.js";
import type { IntervalMethod } from "../stats/types.js";
import { printWarning } from "./output.js";
import { runLocation } from "./run-location.js";
import { terminalSafe, terminalSafeJson } from "./terminal.js";

export interface CompareFlags {
  margin: string;
  inconclusive: "fail" | "pass";
  interval: IntervalMethod;
  seed: string;
  json?: boolean;
  cwd: string;
}

/** `eb compare BASE CAND`: the paired gate. Exit 0 pass, 1 regression (or inconclusive). */
export async function compareCommand(
  baseline: string,
  candidate: string,
  flags: CompareFlags,
): Promise<number> {
  const [base, cand] = await Promise.all([
    runLocation(baseline, flags.cwd),
    runLocation(candidate, flags.cwd),
  ]);
  const comparison = await compareRuns(base, cand, {
    margin: Number(flags.margin),
    method: flags.interval,
    seed: Number(flags.seed),
  });
  for (const warning of comparison.warnings) printWarning(warning);
  if (flags.json) {
    const { delta, low, high, broke, fixed, margin, verdict } = comparison;
    const missing = [...comparison.missingFromCandidate, ...comparison.missingFromBaseline];
    const json = { delta, ci_low: low, ci_high: high, broke, fixed, missing, margin, verdict };
    process.stdout.write(
      `${terminalSafeJson(JSON.stringify({ ...json, n: comparison.n, mde: comparison.mde, strata: comparison.strata, warnings: comparison.warnings }, null, 2))}\n`,
    );
  } else {
    // Ids and strata come from the rows.
    process.stdout.write(terminalSafe(comparisonText(comparison)));
  }
  if (comparison.verdict === "pass") return EXIT.passed;
  if (comparison.verdict === "inconclusive" && flags.inconclusive === "pass") return EXIT.passed;
  return EXIT.fellShort;
}
