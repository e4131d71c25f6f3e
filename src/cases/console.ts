import pc from "picocolors";
import { notRunLine } from "../report/coverage.js";
import { countOf, countsLine, gateLine, gateOf } from "../report/gate.js";
import { oneLine } from "../report/reason.js";
import { passedOf, runSummaryText } from "../report/summary-text.js";
import type { CaseReport, ItemSummary } from "./report.js";

/** Items listed under "Fell short"; the rest are in report.md and report.json. */
const LISTED_ITEMS = 10;
const PROBLEM_CHARS = 200;

/**
 * The console summary of `eb eval`. It closes with the counts of items and the gate's line;
 * `gate: "baseline"` leaves the gate's line to the comparison that follows (`--baseline`).
 */
export function caseReportConsole(
  report: CaseReport,
  gate: "threshold" | "baseline" = "threshold",
): string {
  const lines = [
    `Run ID: ${report.run_id}`,
    `Target: ${targetLine(report)}`,
    `Samples: ${report.stats.samples} of ${report.samples_planned} (k=${report.k}), time ${(report.duration_ms / 1000).toFixed(2)} s`,
    runSummaryText({ stats: report.stats, ...report.summary }, report).trimEnd(),
    ...itemLines(report.items),
    ...(report.interrupted ? [pc.yellow(notRunLine(report, report.stats))] : []),
    ...(report.budget_exceeded ? [pc.yellow(budgetLine(report))] : []),
    `Report: ${report.output_dir}/report.md`,
    countsLine(itemCounts(report)),
    ...(gate === "threshold" ? [thresholdGateLine(report)] : []),
  ];
  return `${lines.filter((line) => line !== "").join("\n")}\n`;
}

function thresholdGateLine(report: CaseReport): string {
  if (!report.budget_exceeded) return gateLine(gateOf(report));
  return `Gate: budget exceeded after ${countOf(report.stats.samples, "sample")} → ${pc.red("failed")}`;
}

/** An item is an error when any sample was, else passed only when every sample passed. */
function itemCounts(report: CaseReport) {
  const errors = report.items.filter((item) => item.errors > 0).length;
  const passed = report.items.filter((item) => item.errors === 0 && item.score === 1).length;
  const failed = report.items.length - errors - passed;
  return { passed, failed, errors, durationMs: report.duration_ms };
}

export function targetLine(report: CaseReport): string {
  const t = report.target;
  const versions = report.model_versions.length > 0 ? ` (${report.model_versions.join(", ")})` : "";
  const what =
    t.kind === "model" ? `model ${t.model}${versions} at ${t.api_base}` : `command ${t.command}`;
  return report.judge_model === null ? what : `${what}; judge ${report.judge_model}`;
}

/** `Budget: $0.0950 spent of --max-cost $0.10; 12 of 40 samples not run: …` */
export function budgetLine(report: CaseReport): string {
  const money = (x: number) => `$${x.toFixed(4)}`;
  const { max_cost: max, spent } = report.budget ?? { max_cost: 0, spent: 0 };
  const left = report.samples_planned - report.stats.samples;
  return (
    `Budget: ${money(spent)} spent of --max-cost ${money(max)}; ${left} of ` +
    `${report.samples_planned} samples not run: finish them with --resume ${report.output_dir} ` +
    "and a higher --max-cost"
  );
}

export function whyNot(report: CaseReport): string {
  if (report.interrupted) return "interrupted";
  if (report.budget_exceeded) return "budget exceeded";
  const { passed, samples, errors } = report.stats;
  const below = `${passed}/${samples} samples passed, below the threshold ${report.pass_threshold}`;
  const reasons = [
    ...(errors > 0 ? [countOf(errors, "error sample")] : []),
    ...(!report.meets_threshold && samples > 0 ? [below] : []),
  ];
  return reasons.join("; ") || "no sample ran";
}

function itemLines(items: readonly ItemSummary[]): string[] {
  const short = items.filter((item) => item.score < 1);
  if (short.length === 0) return [];
  const shown = short.slice(0, LISTED_ITEMS).map((item) => {
    const color = item.errors > 0 ? pc.yellow : pc.red;
    const why = item.problem ? ` - ${oneLine(item.problem, PROBLEM_CHARS)}` : "";
    return `- ${item.id}: ${color(passedOf(item.score, item.samples))}${why}`;
  });
  const more = short.length - shown.length;
  return [
    `Fell short (${short.length} item${short.length === 1 ? "" : "s"}):`,
    ...shown,
    ...(more > 0 ? [`  … and ${more} more (see report.md)`] : []),
  ];
}
