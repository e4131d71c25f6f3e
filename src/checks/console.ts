import pc from "picocolors";
import { notRunLine } from "../report/coverage.js";
import { countsLine, gateLine, gateOf } from "../report/gate.js";
import { passedOf, runSummaryText } from "../report/summary-text.js";
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
  const block = runSummaryText({ stats: report.stats, ...report.summary }, report).trimEnd();
  if (block !== "") lines.push("", block);
  lines.push(`Report: ${report.output_dir}/report.md`, ...closingLines(report));
  return `${lines.join("\n")}\n`;
}

/** Counts of checks by status with the run's duration, then what the gate decided. */
function closingLines(report: CheckReport): string[] {
  const counts = {
    passed: report.passed_checks,
    failed: report.failed_checks,
    errors: report.errored_checks,
    durationMs: report.duration_ms,
  };
  return [countsLine(counts), gateLine(gateOf(report))];
}

function checkLine(check: CheckResult): string {
  const samples = check.samples ? ` ${passedOf(check.score, check.samples.length)}` : "";
  const status = STATUS_COLOR[check.status](`${check.status}${samples}`);
  return `- ${check.check_id}: ${status}${check.reason ? ` - ${check.reason}` : ""}`;
}
