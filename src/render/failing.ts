import { type Coverage, isIncomplete, notRunText } from "../report/coverage.js";
import type { DocumentItem } from "../report/document.js";
import { countOf } from "../report/gate.js";
import { REASON_CHARS } from "../report/reason.js";
import type { RunStats } from "../report/run-summary.js";
import { code, ID_CHARS } from "./markdown.js";
import { fixed } from "./numbers.js";

/** An item with a failed or errored sample, and why the first of them fell short. */
export type FailingItem = DocumentItem & { problem: string };

/** What a line of the list shows of an item. */
export type FailingLine = Pick<FailingItem, "id" | "score" | "samples" | "errors" | "problem">;

/** Items `eb report` lists unless `--all` is given. */
export const FAILING_LISTED = 10;

/** Ids are padded to line up up to this width; a longer one just pushes its line on. */
const ID_WIDTH = 40;

/** Every item that fell short, worst first (the document's order). */
export function failingItems(items: readonly DocumentItem[]): FailingItem[] {
  return items.filter((item): item is FailingItem => item.problem !== null);
}

/**
 * What to say when no item fell short: that every item passed only when every item ran (a run
 * stopped by its budget or an interrupt passed only the samples it ran).
 */
export function noneFellShort(
  coverage: Coverage | null,
  ran: Pick<RunStats, "items" | "samples">,
): string {
  if (!isIncomplete(coverage, ran)) return "every item passed every sample";
  return `every sample that ran passed, but ${notRunText(coverage, ran)}`;
}

/** `eb report`'s list of the items that fell short, at most `limit` of them (null: all). */
export function failingItemsText(
  items: readonly FailingLine[],
  limit: number | null,
  none: string,
): string {
  if (items.length === 0) return `${none}\n`;
  const shown = limit === null ? items : items.slice(0, limit);
  // A loop, not Math.max(...shown): --all shows every item, and a spread of 200,000 overflows.
  const width = Math.min(
    ID_WIDTH,
    shown.reduce((w, item) => Math.max(w, item.id.length), 0),
  );
  const lines = shown.map(
    (item) => `  ${item.id.padEnd(width)}  ${scoreOf(item)}  ${item.problem}`,
  );
  const more = items.length - shown.length;
  return [
    `fell short: ${countOf(items.length, "item")}, worst first`,
    ...lines,
    ...(more > 0 ? [`  … and ${more} more (--all lists every one)`] : []),
    "",
  ].join("\n");
}

/** The same list as a Markdown table (a job summary's), at most `limit` rows. */
export function failingItemsMarkdown(
  items: readonly FailingItem[],
  limit: number,
  none: string,
): string[] {
  if (items.length === 0) return [`${capitalized(none)}.`, ""];
  const shown = items.slice(0, limit);
  const more = items.length - shown.length;
  return [
    `### Fell short: ${countOf(items.length, "item")}, worst first`,
    "",
    "| Item | Score | Reason |",
    "| --- | --- | --- |",
    ...shown.map(
      (item) =>
        `| ${code(item.id, ID_CHARS)} | ${scoreOf(item)} | ${code(item.problem, REASON_CHARS)} |`,
    ),
    "",
    ...(more > 0 ? [`… and ${more} more: every one is in the run folder's report.md.`, ""] : []),
  ];
}

function scoreOf(item: FailingLine): string {
  const errors = item.errors > 0 ? `, ${countOf(item.errors, "error")}` : "";
  return `${fixed(item.score, 2)} (${countOf(item.samples, "sample")}${errors})`;
}

export function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
