import { type Coverage, isIncomplete, notRunLine } from "../report/coverage.js";
import { countOf } from "../report/gate.js";

export { notRunLine, notRunText } from "../report/coverage.js";

import type { RunStats } from "../report/run-summary.js";

type Ran = Pick<RunStats, "items" | "samples">;

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
  const ofPlanned = `${ran.items} of ${countOf(coverage.items_planned, "item")}`;
  return `over the ${ofPlanned} that ran`;
}
