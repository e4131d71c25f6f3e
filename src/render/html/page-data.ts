import type { LeaderboardEntry } from "../../report/blocks.js";
import { isIncomplete } from "../../report/coverage.js";
import { documentShape, type RunDocument } from "../../report/document.js";
import { countOf } from "../../report/gate.js";
import { EXCERPT_CHARS } from "../../report/row-tally.js";
import { cells, costUnknownText, mark } from "../leaderboard-text.js";
import { notRunLine } from "../not-run.js";
import { judgeNoiseText } from "../stats-text.js";
import type { BoardData, Page, PageData, RunData } from "./model.js";

const DOCUMENT_KEYS = Object.keys(documentShape) as (keyof RunDocument)[];

/**
 * The page's embedded data: each document as the schema has it (a run's report.json keeps other
 * fields beside it, which the page neither needs nor should carry), and the lines the terminal
 * prints of it and of a leaderboard, so the page says them in the same words.
 */
export function pageData(page: Page): PageData {
  const runs = page.documents.map((doc, i) => runData(doc, page.runHrefs?.[i] ?? ""));
  return {
    title: page.title ?? titleOf(page),
    excerptChars: EXCERPT_CHARS,
    runs,
    leaderboard: page.leaderboard && boardData(page.leaderboard),
    rule: page.rule ?? null,
    warnings: page.warnings ?? [],
  };
}

function runData(document: RunDocument, href: string): RunData {
  const doc = Object.fromEntries(DOCUMENT_KEYS.map((key) => [key, document[key]])) as RunDocument;
  return {
    doc,
    href: href === "" || href.endsWith("/") ? href : `${href}/`,
    notRun: isIncomplete(doc, doc.stats) ? notRunLine(doc, doc.stats) : null,
    judges: doc.summary.judges.map((j) => `judge ${j.grader}: ${judgeNoiseText(j)}`),
    board: doc.leaderboard && boardData(doc.leaderboard.entries),
  };
}

function boardData(entries: LeaderboardEntry[]): BoardData {
  return {
    rows: entries.map((entry) => ({ entry, cells: cells(entry), mark: mark(entry) })),
    costUnknown: costUnknownText(entries),
  };
}

function titleOf(page: Page): string {
  const last = page.documents.at(-1);
  if (page.leaderboard) return `eval-banana leaderboard: ${countOf(page.documents.length, "run")}`;
  const what = last?.compare ? "compare" : last?.pairwise ? "pairwise" : "report";
  return last?.run_id ? `eval-banana ${what} · ${last.run_id}` : `eval-banana ${what}`;
}
