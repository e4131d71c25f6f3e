import pc from "picocolors";
import { notRunLine } from "../report/coverage.js";
import { summaryText } from "../report/summary-text.js";
import type { CheckReport, CheckResult } from "./report.js";

const STATUS_COLOR = { passed: pc.green, failed: pc.red, error: pc.yellow } as const;

/** The console summary of `eb run` (same lines as the Python original, plus where files are). */
export function checkReportConsole(report: CheckReport): string {
  const lines = [
    `Run ID: ${report.run_id}`,
    `Score: ${report.points_earned}/${report.total_points}`,
    `Percentage: ${report.percentage.toFixed(1)}%`,
    `Passed: ${report.run_passed ? pc.green("yes") : pc.red("no")}`,
    ...report.checks.map(checkLine),
  ];
  if (report.interrupted) lines.push(pc.yellow(notRunLine(report, report.stats)));
  lines.push("", summaryText({ stats: report.stats, ...report.summary }, report).trimEnd());
  lines.push(`Report: ${report.output_dir}/report.md`);
  return `${lines.join("\n")}\n`;
}

function checkLine(check: CheckResult): string {
  const status = STATUS_COLOR[check.status](check.status);
  return `- ${check.check_id}: ${status}${check.reason ? ` - ${check.reason}` : ""}`;
}
