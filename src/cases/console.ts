import pc from "picocolors";
import { notRunLine } from "../report/coverage.js";
import { oneLine } from "../report/reason.js";
import { summaryText } from "../report/summary-text.js";
import type { CaseReport, ItemSummary } from "./report.js";

/** Items listed under "Fell short"; the rest are in report.md and report.json. */
const LISTED_ITEMS = 10;
const PROBLEM_CHARS = 200;

/** The console summary of `eb eval`. */
export function caseReportConsole(report: CaseReport): string {
  const lines = [
    `Run ID: ${report.run_id}`,
    `Target: ${targetLine(report)}`,
    `Samples: ${report.stats.samples} of ${report.samples_planned} (k=${report.k}), time ${(report.duration_ms / 1000).toFixed(2)} s`,
    summaryText({ stats: report.stats, ...report.summary }, report).trimEnd(),
    ...itemLines(report.items),
    ...(report.interrupted ? [pc.yellow(notRunLine(report, report.stats))] : []),
    `Passed: ${report.run_passed ? pc.green(`yes (${whyPassed(report)})`) : pc.red(`no (${whyNot(report)})`)}`,
    `Report: ${report.output_dir}/report.md`,
  ];
  return `${lines.join("\n")}\n`;
}

export function percent(value: number | null): string {
  return value === null ? "n/a" : `${(value * 100).toFixed(1)}%`;
}

export function share(part: number, whole: number): number | null {
  return whole === 0 ? null : part / whole;
}

export function targetLine(report: CaseReport): string {
  const t = report.target;
  const versions = report.model_versions.length > 0 ? ` (${report.model_versions.join(", ")})` : "";
  const what =
    t.kind === "model" ? `model ${t.model}${versions} at ${t.api_base}` : `command ${t.command}`;
  return report.judge_model === null ? what : `${what}; judge ${report.judge_model}`;
}

export function whyNot(report: CaseReport): string {
  if (report.interrupted) return "interrupted";
  const reasons = [
    ...(report.stats.errors > 0 ? [`${report.stats.errors} error samples`] : []),
    ...(report.meets_threshold === false
      ? [`pass rate below the threshold ${percent(report.pass_threshold)}`]
      : []),
  ];
  return reasons.join("; ") || "no items ran";
}

function whyPassed(report: CaseReport): string {
  const threshold = report.pass_threshold;
  if (threshold === null) return "no error samples; no --pass-threshold given";
  return `no error samples; pass rate at least ${percent(threshold)}`;
}

function itemLines(items: readonly ItemSummary[]): string[] {
  const short = items.filter((item) => item.score < 1);
  if (short.length === 0) return [];
  const shown = short.slice(0, LISTED_ITEMS).map((item) => {
    const color = item.errors > 0 ? pc.yellow : pc.red;
    const why = item.problem ? ` - ${oneLine(item.problem, PROBLEM_CHARS)}` : "";
    return `- ${item.id}: ${color(item.score.toFixed(2))}${why}`;
  });
  const more = short.length - shown.length;
  return [
    `Fell short (${short.length} item${short.length === 1 ? "" : "s"}):`,
    ...shown,
    ...(more > 0 ? [`  … and ${more} more (see report.md)`] : []),
  ];
}
