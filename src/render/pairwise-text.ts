import {
  MIN_CONSISTENCY,
  type PairCase,
  type PairStats,
  type PairwiseBlock,
  POSITION_FOLLOWER,
} from "../report/blocks.js";
import type { RunDocument } from "../report/document.js";
import { countOf } from "../report/gate.js";
import { signed } from "./compare-text.js";
import { cell, code } from "./markdown.js";
import { fixed } from "./numbers.js";
import { PAIR_VERDICT_TEXT } from "./pair-verdict-text.js";
import { judgeCacheLine } from "./run-text.js";

/** A document of `eb pairwise`: one with its block. */
type PairwiseDocument = RunDocument & { pairwise: PairwiseBlock };

/** Cases listed on the console; report.md lists every one. */
const CASES_SHOWN = 20;

/** What `eb pairwise` prints: totals, interval, consistency, position bias, strata, cases, gate. */
export function pairwiseText(doc: PairwiseDocument): string {
  const r = doc.pairwise;
  const lines = [
    `net win rate ${signed(r.net_win_rate)}  ${level(r)} CI [${signed(r.ci_low)}, ${signed(r.ci_high)}] over ${countOf(r.items, "case")}, ${countOf(r.pairs, "pair")} each judged in both orders`,
    countsLine(r),
    consistencyLine(r),
    biasLine(r),
    ...strataLines(r),
    ...caseLines(r.cases),
    ...[judgeCacheLine(doc)].filter((line) => line !== ""),
    `${PAIR_VERDICT_TEXT[r.verdict]} (margin ${r.margin})`,
    ...whyInconclusive(doc).map((why) => `  ${why}`),
  ];
  return `${lines.join("\n")}\n`;
}

function countsLine(c: PairStats | PairCase): string {
  const errors = c.errors > 0 ? `, ${countOf(c.errors, "error")} (not judged)` : "";
  const outcomes = `${countOf(c.wins, "win")}, ${countOf(c.ties, "tie")}, ${countOf(c.losses, "loss", "losses")}`;
  return `${outcomes}, ${c.inconsistent} inconsistent${errors}`;
}

function consistencyLine(s: PairStats): string {
  if (s.consistency === null) return "swap consistency n/a (no pair judged in both orders)";
  const consistent = s.pairs - s.inconsistent;
  return `swap consistency ${s.consistency.toFixed(4)} (${consistent} of ${countOf(s.pairs, "pair")} got the same verdict in both orders)`;
}

function biasLine(s: PairStats): string {
  if (s.position_bias === null) return "position bias n/a (no verdict named a winner)";
  return `position bias ${s.position_bias.toFixed(4)} (share of the verdicts naming a winner that named the answer shown first; 0.5 is none)`;
}

function strataLines(r: PairwiseBlock): string[] {
  // One stratum is the whole run, already above.
  if (r.strata.length < 2) return [];
  return [
    `by stratum (${level(r)} each, unadjusted):`,
    ...r.strata.map(
      (s) =>
        `  ${s.stratum}: ${signed(s.net_win_rate)} [${signed(s.ci_low)}, ${signed(s.ci_high)}] (${countOf(s.items, "case")}; ${countsLine(s)}; consistency ${fixed(s.consistency, 4)}, position bias ${fixed(s.position_bias, 4)})`,
    ),
  ];
}

function caseLines(cases: readonly PairCase[]): string[] {
  const shown = cases.slice(0, CASES_SHOWN);
  const more = cases.length - shown.length;
  return [
    "by case:",
    ...shown.map((c) => `  ${c.id}: ${signed(c.net_win_rate)} (${countsLine(c)})`),
    ...(more > 0 ? [`  … ${more} more (report.md lists every case)`] : []),
  ];
}

/** Why an inconclusive gate could not decide. */
function whyInconclusive(doc: PairwiseDocument): string[] {
  const r = doc.pairwise;
  if (r.verdict !== "inconclusive") return [];
  if (r.consistency !== null && r.consistency < MIN_CONSISTENCY) return [POSITION_FOLLOWER];
  if (r.errors > 0) {
    return [
      `${countOf(r.errors, "pair has", "pairs have")} no verdict: run eb pairwise again (the cache answers the pairs already judged)`,
    ];
  }
  if (doc.verdict.outcome === "interrupted") {
    return ["the run was interrupted: finish it with --resume RUN"];
  }
  if (doc.verdict.outcome === "budget_exhausted") {
    return ["--max-cost left pairs unjudged: --resume RUN with a higher --max-cost judges them"];
  }
  return [`the interval holds both a gain and a loss of more than the margin: judge more cases`];
}

/** `report.md` of `eb pairwise`. */
export function pairwiseMarkdown(doc: PairwiseDocument): string {
  const r = doc.pairwise;
  const { outcome } = doc.verdict;
  const lines = [
    "# eval-banana report (pairwise)",
    "",
    "| Field | Value |",
    "| --- | --- |",
    `| Run ID | ${code(doc.run_id ?? "")} |`,
    `| Baseline | ${code(r.baseline.rows)} |`,
    `| Candidate | ${code(r.candidate.rows)} |`,
    `| Cases | ${code(r.cases_file)} |`,
    `| Judge | ${code(r.judge_model)} |`,
    `| Criteria | ${cell(r.criteria ?? "each case's judge graders")} |`,
    `| Verdict | ${r.verdict} (margin ${r.margin}) |`,
    ...(outcome === "interrupted" ? ["| Interrupted | yes: some pairs were not judged |"] : []),
    ...(outcome === "budget_exhausted"
      ? ["| Budget exceeded | yes: some pairs were not judged |"]
      : []),
    ...(doc.duration_ms === null
      ? []
      : [`| Duration | ${(doc.duration_ms / 1000).toFixed(2)} s |`]),
    "",
    "| Net win rate | CI | Wins | Ties | Losses | Inconsistent | Errors | Consistency | Position bias |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    statsRow(r),
    "",
    `${PAIR_VERDICT_TEXT[r.verdict]}.${whyInconclusive(doc)
      .map((why) => ` ${why}.`)
      .join("")}`,
    "",
    ...strataTable(r),
    "## Cases",
    "",
    "| Case | Stratum | Net | Wins | Ties | Losses | Inconsistent | Errors |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...r.cases.map(
      (c) =>
        `| ${code(c.id)} | ${code(c.stratum)} | ${signed(c.net_win_rate)} | ${c.wins} | ${c.ties} | ${c.losses} | ${c.inconsistent} | ${c.errors} |`,
    ),
    ...(r.warnings.length > 0
      ? ["", "## Warnings", "", ...r.warnings.map((w) => `- ${code(w)}`)]
      : []),
  ];
  return `${lines.join("\n")}\n`;
}

function statsRow(s: PairStats): string {
  const ci = `[${signed(s.ci_low)}, ${signed(s.ci_high)}]`;
  return `| ${signed(s.net_win_rate)} | ${ci} | ${s.wins} | ${s.ties} | ${s.losses} | ${s.inconsistent} | ${s.errors} | ${fixed(s.consistency, 4)} | ${fixed(s.position_bias, 4)} |`;
}

function strataTable(r: PairwiseBlock): string[] {
  if (r.strata.length < 2) return [];
  return [
    `## By stratum (${level(r)} each, unadjusted)`,
    "",
    "| Stratum | Net win rate | CI | Wins | Ties | Losses | Inconsistent | Errors | Consistency | Position bias |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...r.strata.map((s) => `| ${code(s.stratum)} ${statsRow(s)}`),
    "",
  ];
}

function level(r: PairwiseBlock): string {
  return `${Math.round(r.level * 100)}%`;
}
