import { notRunBanner, notRunText } from "../report/coverage.js";
import { cell, summaryMarkdown } from "../report/summary-markdown.js";
import { budgetLine, targetLine, whyNot } from "./console.js";
import type { CaseReport, ItemSummary } from "./report.js";

/** `report.md` of `eb eval`: summary table, strata, graders, then every item that fell short. */
export function caseReportMarkdown(report: CaseReport): string {
  const lines = [
    "# eval-banana report (cases)",
    "",
    ...(report.interrupted ? notRunBanner(report, report.stats) : []),
    "| Field | Value |",
    "| --- | --- |",
    `| Run ID | \`${report.run_id}\` |`,
    `| Cases | \`${cell(report.cases_file)}\` (sha256 \`${report.cases_sha256.slice(0, 12)}…\`) |`,
    `| Target | ${cell(targetLine(report))} |`,
    `| Samples | ${report.stats.samples} of ${report.samples_planned} planned (k=${report.k}) |`,
    `| Pass threshold | ${report.pass_threshold} |`,
    `| Run passed | ${report.run_passed ? "yes" : `no (${whyNot(report)})`} |`,
    ...(report.interrupted ? [`| Interrupted | yes (${notRunText(report, report.stats)}) |`] : []),
    ...(report.budget_exceeded ? [`| Budget exceeded | ${cell(budgetLine(report))} |`] : []),
    `| Duration | ${(report.duration_ms / 1000).toFixed(2)} s |`,
    "",
    ...summaryMarkdown({ stats: report.stats, ...report.summary }, report),
    ...itemSections(report.items),
  ];
  return `${lines.join("\n")}\n`;
}

function itemSections(items: readonly ItemSummary[]): string[] {
  const short = items.filter((item) => item.score < 1);
  if (short.length === 0) return ["## Items", "", "Every item passed every sample."];
  return [
    "## Items that fell short",
    "",
    "| Item | Stratum | Score | Samples | Errors | Reason |",
    "| --- | --- | --- | --- | --- | --- |",
    ...short.map(
      (item) =>
        `| \`${cell(item.id)}\` | ${cell(item.stratum)} | ${item.score.toFixed(2)} | ${item.samples} | ${item.errors} | ${cell(item.problem ?? "")} |`,
    ),
  ];
}
