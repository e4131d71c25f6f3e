import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { isIncomplete } from "../report/coverage.js";
import type { DocumentItem, RunDocument } from "../report/document.js";
import { countOf } from "../report/gate.js";
import { oneLine } from "../report/reason.js";
import { failingItems, failingItemsMarkdown, noneFellShort } from "./failing.js";
import { code, ID_CHARS } from "./markdown.js";
import { notRunBanner, passRateScope } from "./not-run.js";
import { fixed } from "./numbers.js";
import { gateLine } from "./run-text.js";
import { summaryMarkdown } from "./stats-markdown.js";

/**
 * Annotations printed at most. GitHub keeps 50 per job, and shows 10 errors and 10 warnings per
 * step; the rest are in the job summary and report.md.
 */
export const ANNOTATIONS_SHOWN = 50;

/** Characters of an item id kept in an annotation's title. */
const TITLE_ID_CHARS = 100;

/** Where an item is defined: its file (absolute) and the line of its id, when known. */
export interface ItemPlace {
  file: string;
  line: number | null;
}

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
 * An annotation per item that fell short, worst first, on the line its reason names (else on its
 * definition's id). A flaky item (some
 * samples passed) is a warning: GitHub shows 10 errors and 10 warnings per step, so flaky items
 * never push the items that fail every time out of sight, and a reader sees at once which
 * failures are steady.
 */
export function runAnnotations(doc: RunDocument, base: string): string[] {
  const annotations = failingItems(doc.items).map((item): Annotation => {
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
      message: item.problem,
      place: placeOf(item, doc.project_root),
    };
  });
  return annotationLines(annotations, base);
}

/**
 * Where an item fell short (absolute): the line its reason names (a failing assertion's), else
 * the line of its id in its definition; null when the document knows neither.
 */
export function placeOf(item: DocumentItem, projectRoot: string | null): ItemPlace | null {
  const at = item.problem_at ?? (item.source ? { source: item.source, line: item.line } : null);
  if (at === null || projectRoot === null) return null;
  return { file: path.resolve(projectRoot, at.source), line: at.line };
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

/**
 * A run's section of the job summary: pass rate with its interval, the gate, the items that
 * fell short worst first with why, then the statistics of report.md folded away.
 */
export function runSummaryMarkdown(
  doc: RunDocument,
  command: string,
  gate = gateLine(doc),
): string[] {
  const { stats } = doc;
  const level = `${Math.round(stats.ci_level * 100)}%`;
  const scope = passRateScope(doc, stats);
  return [
    `## eval-banana: \`${command}\` run ${code(doc.run_id ?? "", ID_CHARS)}`,
    "",
    ...(isIncomplete(doc, stats) ? notRunBanner(doc, stats) : []),
    `**Pass rate ${fixed(stats.pass_rate)}**, ${level} interval [${fixed(stats.ci_low)}, ${fixed(stats.ci_high)}] (${stats.ci_method}) over ${countOf(stats.items, "item")} and ${countOf(stats.samples, "sample")}${scope ? `, ${scope}` : ""}.`,
    "",
    `**${stripVTControlCharacters(gate)}**`,
    "",
    ...failingItemsMarkdown(failingItems(doc.items), SUMMARY_ITEMS, noneFellShort(doc, doc.stats)),
    "<details><summary>Statistics</summary>",
    "",
    ...summaryMarkdown({ stats, ...doc.summary }, doc).slice(1),
    "</details>",
    "",
  ];
}

/**
 * GitHub drops a step's summary over 1 MiB: the step's whole file, with what its other commands
 * appended before and after eb's part. A run of thousands of strata, graders or flaky items with
 * long names made a summary of 1.3 MB, and the step showed none of it.
 */
export const STEP_SUMMARY_BYTES = 1024 * 1024;

/** Left free by eb's part for what the step's later commands append (a line, a table). */
export const SUMMARY_MARGIN_BYTES = 64 * 1024;

/**
 * A job summary's section in `budget` bytes: `body` cut at a whole line when all of it does
 * not fit, with what was left out said after it (and where it all is: `seeAlso`), then `tail`
 * (a comparison: it is short, and what a gate decided). Null when not even that fits.
 */
export function summaryWithin(
  body: readonly string[],
  tail: readonly string[],
  budget: number,
  seeAlso: string,
): string[] | null {
  const whole = [...body, ...tail];
  if (byteSize(whole) <= budget) return whole;
  // The notice, its count up to ten digits long, and a line that closes a <details>.
  const reserved = byteSize([leftOutLine(10 ** 10, seeAlso), "", "</details>", "", ...tail]);
  if (budget < reserved) return null;
  let room = budget - reserved;
  let kept = 0;
  while (kept < body.length && room >= Buffer.byteLength(body[kept]!) + 1) {
    room -= Buffer.byteLength(body[kept]!) + 1;
    kept++;
  }
  const shown = body.slice(0, kept);
  // A cut inside the statistics' <details> closes it, so the notice is not folded away.
  const open = shown.filter((line) => line.startsWith("<details>")).length;
  const closed = shown.filter((line) => line === "</details>").length;
  return [
    ...shown,
    "",
    ...(open > closed ? ["</details>", ""] : []),
    leftOutLine(body.length - kept, seeAlso),
    "",
    ...tail,
  ];
}

function leftOutLine(lines: number, seeAlso: string): string {
  const count = countOf(lines, "more line", undefined, (n) => n.toLocaleString("en-US"));
  return `… and ${count} of this summary left out (GitHub drops a step summary over 1 MiB): every item is in ${seeAlso}.`;
}

/** Bytes of `lines` as a file holds them: each ends with a newline. */
function byteSize(lines: readonly string[]): number {
  return lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
}

/** `file` relative to `root`, with forward slashes (as GitHub and JUnit readers want). */
export function relativeTo(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join("/");
}
