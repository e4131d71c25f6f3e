import { type Coverage, isIncomplete } from "../report/coverage.js";
import type { RunStats } from "../report/run-summary.js";

type Ran = Pick<RunStats, "items" | "samples">;

/** `7 of 20 items never ran`, plus the samples when some items ran only in part. */
export function notRunText(coverage: Coverage, ran: Ran): string {
  const samples = coverage.samples_planned - ran.samples;
  const perItem = coverage.samples_planned / coverage.items_planned;
  const partly =
    samples > coverage.items_not_run * perItem
      ? ` (${samples} of ${coverage.samples_planned} samples)`
      : "";
  return `${coverage.items_not_run} of ${coverage.items_planned} items never ran${partly}`;
}

/** The console's and `eb report`'s line for a run that did not finish. */
export function notRunLine(coverage: Coverage, ran: Ran): string {
  return `Interrupted: ${notRunText(coverage, ran)}`;
}

/** The lines report.md of an interrupted run opens with, before any figure. */
export function notRunBanner(coverage: Coverage, ran: Ran): string[] {
  return [
    `> **${notRunLine(coverage, ran)}.** The statistics below are over the items that ran.`,
    "",
  ];
}

/** How the pass rate is labelled: empty for a complete run, else over what it is. */
export function passRateScope(coverage: Coverage | null, ran: Ran): string {
  if (!isIncomplete(coverage, ran)) return "";
  return `over the ${ran.items} of ${coverage.items_planned} items that ran`;
}
