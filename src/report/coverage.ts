import { z } from "zod";
import { countOf } from "./gate.js";
import type { RunStats } from "./run-summary.js";

const count = z.number().int().min(0);

/**
 * What a run set out to do, beside what ran (report.json of both kinds): an interrupted run's
 * statistics are those of the items that ran, and these say how many never did.
 */
export const coverageShape = {
  items_planned: count,
  items_not_run: count.describe("Items of which no sample ran."),
  samples_planned: count.describe("Items × samples per item."),
};
export type Coverage = z.output<z.ZodObject<typeof coverageShape>>;

type Ran = Pick<RunStats, "items" | "samples">;

export function coverageOf(itemsPlanned: number, samplesPerItem: number, ran: Ran): Coverage {
  return {
    items_planned: itemsPlanned,
    items_not_run: Math.max(0, itemsPlanned - ran.items),
    samples_planned: itemsPlanned * samplesPerItem,
  };
}

/** Whether some planned sample never ran. */
export function isIncomplete(coverage: Coverage | null, ran: Ran): coverage is Coverage {
  return coverage !== null && ran.samples < coverage.samples_planned;
}

/** `7 of 20 items never ran`, plus the samples when some items ran only in part. */
export function notRunText(coverage: Coverage, ran: Ran): string {
  const samples = coverage.samples_planned - ran.samples;
  const perItem = coverage.samples_planned / coverage.items_planned;
  const partly =
    samples > coverage.items_not_run * perItem
      ? ` (${samples} of ${countOf(coverage.samples_planned, "sample")})`
      : "";
  return `${coverage.items_not_run} of ${countOf(coverage.items_planned, "item")} never ran${partly}`;
}

/** The console's and `eb report`'s line for a run that did not finish. */
export function notRunLine(coverage: Coverage, ran: Ran): string {
  return `Interrupted: ${notRunText(coverage, ran)}`;
}
