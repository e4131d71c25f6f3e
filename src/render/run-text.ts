import pc from "picocolors";
import { isIncomplete } from "../report/coverage.js";
import type { DocumentItem, RunDocument } from "../report/document.js";
import { countOf } from "../report/gate.js";
import { oneLine } from "../report/reason.js";
import { sequentialRunText } from "./compare-text.js";
import { type ItemStatus, itemCounts, itemStatus } from "./item-status.js";
import { notRunLine } from "./not-run.js";
import { passedOf } from "./numbers.js";
import { runSummaryText, seconds } from "./stats-text.js";

/** Items listed under "Fell short"; the rest are in report.md and report.json. */
const LISTED_ITEMS = 10;
const PROBLEM_CHARS = 200;

const STATUS_COLOR = { passed: pc.green, failed: pc.red, error: pc.yellow } as const;

export interface RunTextOptions {
  /** `baseline`: the comparison that follows prints the gate's line (`--baseline`). */
  gate?: "threshold" | "baseline";
  /** List the checks that passed too (`eb run --verbose`); else they are counted. */
  all?: boolean;
}

/**
 * What `eb run`, `eb eval` and `eb merge` print of a finished run: who and what, the statistics,
 * the items that fell short with why, where the report is, the counts, and the gate's line.
 */
export function runText(doc: RunDocument, options: RunTextOptions = {}): string {
  const lines = [
    `Run ID: ${doc.run_id ?? doc.output_dir}`,
    ...(doc.kind === "checks" ? checkLines(doc, options.all === true) : caseLines(doc)),
    statsBlock(doc),
    ...(doc.kind === "checks" ? [] : fellShort(doc.items)),
    ...(isIncomplete(doc, doc.stats) ? [pc.yellow(notRunLine(doc, doc.stats))] : []),
    ...(doc.verdict.outcome === "budget_exhausted" ? [pc.yellow(budgetLine(doc))] : []),
    judgeCacheLine(doc),
    `Report: ${doc.output_dir}/report.md`,
    countsLine(doc),
    ...(options.gate === "baseline" ? [] : [gateLine(doc)]),
  ];
  return `${lines.filter((line) => line !== "").join("\n")}\n`;
}

/**
 * The Python original's lines: the score, the percentage, passed or not; then the checks that
 * fell short with why, and how many passed (every check with `all`).
 */
function checkLines(doc: RunDocument, all: boolean): string[] {
  const points = doc.items.reduce((sum, item) => sum + item.score, 0);
  const total = doc.items.length;
  const percentage = total === 0 ? 0 : Math.round((points / total) * 1000) / 10;
  const listed = all ? doc.items : doc.items.filter((item) => itemStatus(item) !== "passed");
  const unlisted = total - listed.length;
  return [
    `Score: ${points}/${total}`,
    `Percentage: ${percentage.toFixed(1)}%`,
    `Passed: ${doc.run_passed ? pc.green("yes") : pc.red("no")}`,
    ...listed.map((item) => {
      const status = itemStatus(item);
      const samples = item.samples > 1 ? ` ${passedOf(item.score, item.samples)}` : "";
      const why = sampleReason(item);
      return `- ${item.id}: ${STATUS_COLOR[status](`${status}${samples}`)}${why ? ` - ${why}` : ""}`;
    }),
    ...(unlisted > 0
      ? [`${pc.green(countOf(unlisted, "check"))} passed (--verbose lists them)`]
      : []),
  ];
}

/** The statistics, set apart by a blank line after a check run's list of checks. */
function statsBlock(doc: RunDocument): string {
  const block = runSummaryText({ stats: doc.stats, ...doc.summary }, doc).trimEnd();
  return doc.kind === "checks" && block !== "" ? `\n${block}` : block;
}

function caseLines(doc: RunDocument): string[] {
  const { run } = doc;
  const target = run.target ?? "(unknown)";
  const time = doc.duration_ms === null ? "" : `, time ${(doc.duration_ms / 1000).toFixed(2)} s`;
  return [
    `Target: ${run.judge === null ? target : `${target}; judge ${run.judge}`}`,
    `Samples: ${doc.stats.samples} ${plannedText(doc)}${time}`,
  ];
}

/** `of 40 (k=2)`, or a sequential run's `(sequential, at most 10 per case per arm; …)`. */
export function plannedText(doc: RunDocument): string {
  const { sequential, samples_per_item: k } = doc.run;
  if (sequential) return `(${sequentialRunText(sequential)})`;
  return `of ${doc.samples_planned} (k=${k ?? 1})`;
}

/** Why the item's worst sample fell short, as the sample said it (no `sample N:` prefix). */
function sampleReason(item: DocumentItem): string | null {
  const status = itemStatus(item);
  const worst = item.outcomes.find((o) => o.status === status) ?? null;
  if (worst === null) return item.problem;
  return worst.reason ?? worst.error;
}

function fellShort(items: readonly DocumentItem[]): string[] {
  const short = items.filter((item) => item.score < 1);
  if (short.length === 0) return [];
  const shown = short.slice(0, LISTED_ITEMS).map((item) => {
    const color = item.errors > 0 ? pc.yellow : pc.red;
    const why = item.problem ? ` - ${oneLine(item.problem, PROBLEM_CHARS)}` : "";
    return `- ${item.id}: ${color(passedOf(item.score, item.samples))}${why}`;
  });
  const more = short.length - shown.length;
  return [
    `Fell short (${countOf(short.length, "item")}):`,
    ...shown,
    ...(more > 0 ? [`  … and ${more} more (see report.md)`] : []),
  ];
}

/** How many judge verdicts the cache gave: a changed judge behind the same name is not asked. */
export function judgeCacheLine(doc: RunDocument): string {
  const counted = doc.judge_cache;
  if (counted === null || counted.verdicts === 0) return "";
  const again = counted.cached === 0 ? "" : " (--no-cache asks the judge again)";
  return `Judge verdicts: ${counted.cached} of ${counted.verdicts} from the cache${again}`;
}

/** `Budget: $0.0950 spent of --max-cost $0.10; 12 of 40 samples not run: …` */
export function budgetLine(doc: RunDocument): string {
  const money = (x: number) => `$${x.toFixed(4)}`;
  const { max_cost: max, spent } = doc.budget ?? { max_cost: 0, spent: 0 };
  const left = doc.samples_planned - doc.stats.samples;
  if (doc.run.sequential) {
    return `Budget: ${money(spent)} spent of --max-cost ${money(max)}: the sequential draws stopped there (--resume ${doc.output_dir} with a higher --max-cost draws on)`;
  }
  return (
    `Budget: ${money(spent)} spent of --max-cost ${money(max)}; ${left} of ` +
    `${countOf(doc.samples_planned, "sample")} not run: finish them with --resume ${doc.output_dir} ` +
    "and a higher --max-cost"
  );
}

/**
 * `2 items passed, 1 failed, 0 errored`: the items' outcomes, said to be of items, as the gate's
 * line beside them counts samples. Each count is coloured when it is not 0.
 */
export function itemCountsText(
  items: readonly DocumentItem[],
  paint: (status: ItemStatus, text: string) => string = (_, text) => text,
): string {
  const { passed, failed, error } = itemCounts(items);
  return [
    paint("passed", `${countOf(passed, "item")} passed`),
    paint("failed", `${failed} failed`),
    paint("error", `${error} errored`),
  ].join(", ");
}

/** The pytest-like closing line: `2 items passed, 1 failed, 0 errored in 1.20 s`. */
function countsLine(doc: RunDocument): string {
  const counts = itemCounts(doc.items);
  const paint = (status: ItemStatus, text: string) =>
    counts[status] > 0 ? STATUS_COLOR[status](text) : text;
  return `${itemCountsText(doc.items, paint)} in ${seconds(doc.duration_ms ?? 0)}`;
}

/**
 * `Gate: 18/20 samples passed (90.0%) < threshold 1.0 → failed`: what was gated, and how; every
 * verdict but passed (a regression, an interrupt, …) is a failed gate.
 */
export function gateLine(doc: RunDocument): string {
  const passed = doc.verdict.outcome === "passed";
  return `Gate: ${doc.verdict.rule} → ${passed ? pc.green("passed") : pc.red("failed")}`;
}
