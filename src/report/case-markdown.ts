import { percent, share, targetLine, whyNot } from "./case-console.js";
import type { CaseReport, ItemSummary } from "./case-report.js";

/** `report.md` of `eb eval`: summary table, strata, graders, then every item that fell short. */
export function caseReportMarkdown(report: CaseReport): string {
  const s = report.stats;
  const lines = [
    "# eval-banana report (cases)",
    "",
    "| Field | Value |",
    "| --- | --- |",
    `| Run ID | \`${report.run_id}\` |`,
    `| Cases | \`${cell(report.cases_file)}\` (sha256 \`${report.cases_sha256.slice(0, 12)}…\`) |`,
    `| Target | ${cell(targetLine(report))} |`,
    `| Items | ${s.items} |`,
    `| Samples | ${s.samples} of ${report.samples_planned} planned (k=${report.k}) |`,
    `| Pass rate | ${percent(s.pass_rate)} (mean of item means) |`,
    `| Interval | ${intervalCell(report)} |`,
    `| Flaky items | ${s.flaky} |`,
    `| Error samples | ${s.errors} |`,
    `| Cached samples | ${s.cached} (${percent(share(s.cached, s.samples))}) |`,
    `| Pass threshold | ${report.pass_threshold ?? "none"} |`,
    `| Run passed | ${report.run_passed ? "yes" : `no (${whyNot(report)})`} |`,
    ...(report.interrupted ? ["| Interrupted | yes (not every sample ran) |"] : []),
    `| Duration | ${(report.duration_ms / 1000).toFixed(2)} s |`,
    ...(report.latency_note ? [`| Latency | ${report.latency_note} |`] : []),
    "",
    ...strataTable(report),
    ...graderTable(report),
    ...itemSections(report.items),
  ];
  return `${lines.join("\n")}\n`;
}

function intervalCell(report: CaseReport): string {
  const s = report.stats;
  if (s.ci_low === null || s.ci_high === null) return "not computed";
  return `[${percent(s.ci_low)}, ${percent(s.ci_high)}] (${s.ci_level ?? "?"}, ${s.ci_method ?? "?"})`;
}

function strataTable(report: CaseReport): string[] {
  const rows = Object.entries(report.strata).map(
    ([name, st]) =>
      `| \`${cell(name)}\` | ${st.items} | ${st.samples} | ${percent(st.pass_rate)} |`,
  );
  return [
    "## Strata",
    "",
    "| Stratum | Items | Samples | Pass rate |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
  ];
}

function graderTable(report: CaseReport): string[] {
  const entries = Object.entries(report.failures_by_grader);
  if (entries.length === 0) return ["## Failures by grader", "", "None.", ""];
  return [
    "## Failures by grader",
    "",
    "| Grader | Failed samples |",
    "| --- | --- |",
    ...entries.map(([name, count]) => `| \`${cell(name)}\` | ${count} |`),
    "",
  ];
}

function itemSections(items: readonly ItemSummary[]): string[] {
  const short = items.filter((item) => item.score < 1);
  if (short.length === 0) return ["## Items", "", "Every item passed every sample."];
  return [
    "## Items that fell short",
    "",
    "| Item | Stratum | Score | Samples | Errors | First problem |",
    "| --- | --- | --- | --- | --- | --- |",
    ...short.map(
      (item) =>
        `| \`${cell(item.id)}\` | ${cell(item.stratum)} | ${item.score.toFixed(2)} | ${item.samples} | ${item.errors} | ${cell(item.problem ?? "")} |`,
    ),
  ];
}

/** Keeps a value inside one table cell. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\s+/g, " ");
}
