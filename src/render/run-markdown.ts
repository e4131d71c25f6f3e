import { isIncomplete } from "../report/coverage.js";
import type { DocumentItem, RunDocument } from "../report/document.js";
import { capitalized, noneFellShort } from "./failing.js";
import { itemStatus } from "./item-status.js";
import { leaderboardMarkdown } from "./leaderboard-text.js";
import { cell, code, codeBlock } from "./markdown.js";
import { notRunBanner, notRunText } from "./not-run.js";
import { budgetLine, itemCountsText, plannedText } from "./run-text.js";
import { summaryMarkdown } from "./stats-markdown.js";

/** report.md of a run: the Field table, then the checks (the seed's layout) or the cases. */
export function runMarkdown(doc: RunDocument): string {
  const body = doc.kind === "checks" ? checkSections(doc) : caseSections(doc);
  const lines = [
    doc.kind === "checks" ? "# eval-banana report" : `# eval-banana report (${doc.kind ?? "rows"})`,
    "",
    ...(isIncomplete(doc, doc.stats) ? notRunBanner(doc, doc.stats) : []),
    "| Field | Value |",
    "| --- | --- |",
    `| Run ID | ${code(doc.run_id ?? "")} |`,
    `| Items | ${itemCountsText(doc.items)} |`,
    ...(doc.kind === "checks" ? checkFields(doc) : caseFields(doc)),
    ...(doc.verdict.outcome === "interrupted"
      ? [`| Interrupted | yes (${notRunText(doc, doc.stats)}) |`]
      : []),
    ...(doc.verdict.outcome === "budget_exhausted"
      ? [`| Budget exceeded | ${cell(budgetLine(doc))} |`]
      : []),
    ...(doc.leaderboard ? ["", ...leaderboardMarkdown(doc.leaderboard)] : []),
    ...body,
  ];
  return `${lines.join("\n")}\n`;
}

function checkFields(doc: RunDocument): string[] {
  const points = doc.items.reduce((sum, item) => sum + item.score, 0);
  const total = doc.items.length;
  const percentage = total === 0 ? 0 : Math.round((points / total) * 1000) / 10;
  return [
    `| Score | ${points}/${total} |`,
    `| Percentage | ${percentage.toFixed(1)}% |`,
    `| Pass Threshold | ${doc.pass_threshold} |`,
    `| Run Passed | ${doc.run_passed ? "yes" : "no"} |`,
  ];
}

function caseFields(doc: RunDocument): string[] {
  const { run } = doc;
  const target = run.judge === null ? run.target : `${run.target}; judge ${run.judge}`;
  return [
    `| Target | ${code(target ?? "")} |`,
    `| Samples | ${doc.stats.samples} ${plannedText(doc)} |`,
    `| Pass threshold | ${doc.pass_threshold} |`,
    `| Run passed | ${doc.run_passed ? "yes" : `no (${cell(doc.verdict.rule)})`} |`,
    ...(doc.duration_ms === null
      ? []
      : [`| Duration | ${(doc.duration_ms / 1000).toFixed(2)} s |`]),
  ];
}

/** The seed's table of checks, the statistics, then each check's reason and error. */
function checkSections(doc: RunDocument): string[] {
  const lines = [
    "",
    "| Check ID | Type | Status | Score | Duration (ms) | Reason |",
    "| --- | --- | --- | --- | --- | --- |",
    ...doc.items.map((item) => {
      const worst = worstOutcome(item);
      const ms = item.outcomes.reduce((sum, o) => sum + (o.ms ?? 0), 0);
      return `| ${code(item.id)} | ${code(item.type ?? "")} | \`${itemStatus(item)}\` | ${item.score} | ${ms} | ${code(worst?.reason ?? "")} |`;
    }),
    "",
    ...summaryMarkdown({ stats: doc.stats, ...doc.summary }, doc),
  ];
  for (const item of doc.items) {
    const worst = worstOutcome(item);
    if (!worst || (worst.reason === null && worst.error === null)) continue;
    lines.push("", `## ${code(item.id)}`, "", `- Status: \`${itemStatus(item)}\``);
    if (worst.reason !== null) lines.push(`- Reason: ${code(worst.reason)}`);
    // An error's reason is its detail on one line: the detail is shown when it says more.
    if (worst.error !== null && worst.error !== worst.reason) {
      lines.push("- Error:", "", ...codeBlock(worst.error));
    }
  }
  return lines;
}

/** The sample that decided the item's status: its first error, else its first failure. */
function worstOutcome(item: DocumentItem) {
  const status = itemStatus(item);
  return item.outcomes.find((o) => o.status === status) ?? item.outcomes[0] ?? null;
}

function caseSections(doc: RunDocument): string[] {
  const short = doc.items.filter((item) => item.score < 1);
  const stats = ["", ...summaryMarkdown({ stats: doc.stats, ...doc.summary }, doc)];
  if (short.length === 0) {
    return [...stats, "## Items", "", `${capitalized(noneFellShort(doc, doc.stats))}.`];
  }
  return [
    ...stats,
    "## Items that fell short",
    "",
    "| Item | Stratum | Score | Samples | Errors | Reason |",
    "| --- | --- | --- | --- | --- | --- |",
    ...short.map(
      (item) =>
        `| ${code(item.id)} | ${code(item.stratum)} | ${item.score.toFixed(2)} | ${item.samples} | ${item.errors} | ${code(item.problem ?? "")} |`,
    ),
  ];
}
