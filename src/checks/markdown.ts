import { notRunBanner, notRunText } from "../report/coverage.js";
import { cell, summaryMarkdown } from "../report/summary-markdown.js";
import type { CheckReport } from "./report.js";

/** `report.md`: the summary table, one row per check with its reason, then each one's error. */
export function checkReportMarkdown(report: CheckReport): string {
  const lines = [
    "# eval-banana report",
    "",
    ...(report.interrupted ? notRunBanner(report, report.stats) : []),
    "| Field | Value |",
    "| --- | --- |",
    `| Run ID | \`${report.run_id}\` |`,
    `| Score | ${report.points_earned}/${report.total_points} |`,
    `| Percentage | ${report.percentage.toFixed(1)}% |`,
    `| Pass Threshold | ${report.pass_threshold} |`,
    `| Run Passed | ${report.run_passed ? "yes" : "no"} |`,
    ...(report.interrupted ? [`| Interrupted | yes (${notRunText(report, report.stats)}) |`] : []),
    "",
    "| Check ID | Type | Status | Score | Duration (ms) | Reason |",
    "| --- | --- | --- | --- | --- | --- |",
    ...report.checks.map(
      (c) =>
        `| \`${c.check_id}\` | \`${c.check_type}\` | \`${c.status}\` | ${c.score} | ${c.duration_ms} | ${cell(c.reason ?? "")} |`,
    ),
  ];
  lines.push("", ...summaryMarkdown({ stats: report.stats, ...report.summary }, report));
  for (const check of report.checks) {
    if (check.reason === null && check.error_detail === null) continue;
    lines.push("", `## ${check.check_id}`, "", `- Status: \`${check.status}\``);
    if (check.reason !== null) lines.push(`- Reason: ${check.reason}`);
    // An error's reason is its detail on one line: the detail is shown when it says more.
    if (check.error_detail !== null && check.error_detail !== check.reason) {
      lines.push(`- Error: ${check.error_detail}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
