import { stripVTControlCharacters } from "node:util";
import { notRunBanner, passRateScope } from "../render/not-run.js";
import { summaryMarkdown } from "../render/stats-markdown.js";
import { fixed } from "../render/stats-text.js";
import { type Coverage, isIncomplete } from "./coverage.js";
import { type FailingItem, failingItemsMarkdown } from "./failing-items.js";
import { countOf } from "./gate.js";
import { oneLine } from "./reason.js";
import { type ItemPlace, relativeTo } from "./run-definitions.js";
import type { RunSummary } from "./run-summary.js";

/**
 * Annotations printed at most. GitHub keeps 50 per job, and shows 10 errors and 10 warnings per
 * step; the rest are in the job summary and report.md.
 */
export const ANNOTATIONS_SHOWN = 50;

/** Characters of an item id kept in an annotation's title. */
const TITLE_ID_CHARS = 100;

/** One workflow-command annotation on the file and line an item is defined at. */
export interface Annotation {
  level: "error" | "warning";
  title: string;
  message: string;
  place: ItemPlace | null;
}

/** A workflow command's message: GitHub's escapes, so no value can end the line or the command. */
export function escapeData(value: string): string {
  return value.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A property's value: also `:` and `,`, which would end it. */
export function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/**
 * `::error file=…,line=…,title=…::message`, the file relative to `base` (GITHUB_WORKSPACE or
 * the project root), as GitHub matches it against the repository.
 */
export function annotationLine(annotation: Annotation, base: string): string {
  const { place } = annotation;
  const properties = [
    ...(place ? [`file=${escapeProperty(relativeTo(base, place.file))}`] : []),
    ...(place?.line ? [`line=${place.line}`] : []),
    `title=${escapeProperty(annotation.title)}`,
  ];
  return `::${annotation.level} ${properties.join(",")}::${escapeData(annotation.message)}`;
}

/** The first ANNOTATIONS_SHOWN annotations, then a notice of how many more there are. */
export function annotationLines(annotations: readonly Annotation[], base: string): string[] {
  const lines = annotations.slice(0, ANNOTATIONS_SHOWN).map((a) => annotationLine(a, base));
  const more = annotations.length - ANNOTATIONS_SHOWN;
  if (more <= 0) return lines;
  const notice = `${countOf(more, "more item")} fell short, not annotated: see the job summary or report.md`;
  return [...lines, `::notice title=eval-banana::${escapeData(notice)}`];
}

/**
 * An annotation per item that fell short, worst first. A flaky item (some samples passed) is a
 * warning: GitHub shows 10 errors and 10 warnings per step, so flaky items never push the items
 * that fail every time out of sight, and a reader sees at once which failures are steady.
 */
export function failingAnnotations(
  items: readonly FailingItem[],
  places: ReadonlyMap<string, ItemPlace>,
): Annotation[] {
  return items.map((item) => {
    const flaky = item.errors === 0 && item.score > 0;
    const passed = Math.round(item.score * item.samples);
    const what =
      item.errors > 0
        ? `${countOf(item.errors, "error sample")} of ${item.samples}`
        : flaky
          ? `flaky, ${passed} of ${item.samples} samples passed`
          : `failed ${item.samples === 1 ? "its sample" : `all ${item.samples} samples`}`;
    return {
      level: flaky ? "warning" : "error",
      title: `eval-banana: ${titleId(item.id)} (${what})`,
      message: item.reason,
      place: places.get(item.id) ?? null,
    };
  });
}

/** An item that broke in a comparison: an error on the candidate's definition of it. */
export function brokeAnnotation(id: string, reason: string, place: ItemPlace | null): Annotation {
  return { level: "error", title: `eval-banana: ${titleId(id)} broke`, message: reason, place };
}

function titleId(id: string): string {
  return oneLine(id, TITLE_ID_CHARS);
}

/** Items that fell short listed in a job summary; every one is in report.md. */
const SUMMARY_ITEMS = 20;

/** What a job summary says of one run of `eb run` or `eb eval`. */
export interface RunSummaryInput {
  /** `eb run` or `eb eval`. */
  command: string;
  runId: string;
  summary: RunSummary;
  coverage: Coverage | null;
  /** The gate's line as the console printed it (colours stripped here). */
  gate: string;
  failing: readonly FailingItem[];
}

/**
 * A run's section of the job summary: pass rate with its interval, the gate, the items that
 * fell short worst first with why, then the statistics of report.md folded away.
 */
export function runSummaryMarkdown(input: RunSummaryInput): string[] {
  const { stats } = input.summary;
  const level = `${Math.round(stats.ci_level * 100)}%`;
  const scope = passRateScope(input.coverage, stats);
  return [
    `## eval-banana: \`${input.command}\` run \`${input.runId}\``,
    "",
    ...(isIncomplete(input.coverage, stats) ? notRunBanner(input.coverage, stats) : []),
    `**Pass rate ${fixed(stats.pass_rate)}**, ${level} interval [${fixed(stats.ci_low)}, ${fixed(stats.ci_high)}] (${stats.ci_method}) over ${countOf(stats.items, "item")} and ${countOf(stats.samples, "sample")}${scope ? `, ${scope}` : ""}.`,
    "",
    `**${stripVTControlCharacters(input.gate)}**`,
    "",
    ...failingItemsMarkdown(input.failing, SUMMARY_ITEMS),
    "<details><summary>Statistics</summary>",
    "",
    ...summaryMarkdown(input.summary, input.coverage).slice(1),
    "</details>",
    "",
  ];
}
