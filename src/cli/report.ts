import path from "node:path";
import pc from "picocolors";
import { loadConfig } from "../config/load.js";
import { EXIT } from "../errors.js";
import { calibrationText } from "../render/calibrate-text.js";
import {
  FAILING_LISTED,
  type FailingItem,
  type FailingLine,
  failingItems,
  failingItemsText,
  noneFellShort,
} from "../render/failing.js";
import { notRunLine } from "../render/not-run.js";
import { plannedText } from "../render/run-text.js";
import { FLAKY_SHOWN, summaryText } from "../render/stats-text.js";
import { type Calibration, readCalibratedRun } from "../report/calibrate.js";
import { type Coverage, isIncomplete } from "../report/coverage.js";
import type { RunDocument } from "../report/document.js";
import { documentJson } from "../report/json.js";
import { documentOf, readWrittenReport } from "../report/read-document.js";
import { type RunRows, readRun } from "../report/read-rows.js";
import type { RunSummary } from "../report/run-summary.js";
import { fractionalScoreWarning } from "../report/score-warnings.js";
import { terminalSafeJson, terminalSafeStrings } from "../report/terminal.js";
import type { Adjustment } from "../stats/adjust.js";
import type { IntervalMethod } from "../stats/types.js";
import { writeHtmlPage } from "./html-page.js";
import { intervalLevel } from "./options.js";
import { printWarning } from "./output.js";
import { runLocation } from "./run-location.js";

export interface ReportFlags {
  json?: boolean;
  /** List every item that fell short, not only the worst few. */
  all?: boolean;
  /** Also write the run as one self-contained HTML page to this file. */
  html?: string;
  /** People's labels: each labelled grader's rate corrected beside the raw one. */
  labels?: string;
  interval: IntervalMethod;
  level: string;
  adjust: Adjustment;
  seed: string;
  cwd: string;
}

/** `eb report RUN`: the statistics of a finished run (a run folder or a rows file). */
export async function reportCommand(run: string, flags: ReportFlags): Promise<number> {
  const config = await loadConfig({ cwd: flags.cwd });
  const { rows, calibration } = await readReported(await runLocation(run, flags.cwd), flags);
  // The page shows what the run wrote beside its rows, as the run's own page does.
  const written = flags.html === undefined ? null : await readWrittenReport(rows.file);
  const warnings = [
    ...rows.warnings,
    ...fractionalScoreWarning(rows.tally.items.values(), "run"),
    ...(calibration?.warnings ?? []),
  ];
  for (const warning of warnings) printWarning(warning);
  const summaryOptions = {
    method: flags.interval,
    level: intervalLevel(flags.level),
    adjust: flags.adjust,
    seed: Number(flags.seed),
    pricing: config.pricing,
    judgeModel: rows.manifest?.judge_model ?? null,
  };
  const doc = documentOf(rows, summaryOptions, written);
  const summary = { stats: doc.stats, ...doc.summary };
  const coverage = rows.manifest?.planned ? doc : null;
  const failing = failingItems(doc.items);
  // Ids, strata, tags, grader names and reasons come from the rows: made safe for the terminal.
  const output = flags.json
    ? `${terminalSafeJson(documentJson({ ...summary.stats, ...(coverage && { items_planned: doc.items_planned, items_not_run: doc.items_not_run, samples_planned: doc.samples_planned }), ...(doc.run.sequential && { sequential: doc.run.sequential }), breakdown: summary.breakdown, flaky_items: summary.flaky, failing_items: failing.map(failingField), graders: summary.graders, latency: summary.latency, tokens: summary.tokens, ...calibrationField(calibration), warnings }))}`
    : `${notRun(doc)}${reportText(printable({ summary, calibration, failing }, flags.all === true), coverage, flags.all === true)}`;
  process.stdout.write(output);
  if (flags.html !== undefined) {
    const page = { documents: [doc], leaderboard: null };
    await writeHtmlPage(flags.html, page, [path.dirname(rows.file)]);
  }
  return EXIT.passed;
}

/**
 * The run's rows, and with --labels their marks joined with people's labels in the same pass;
 * each sample's outcome is kept only for the page, the one output that shows it.
 */
async function readReported(
  location: string,
  flags: ReportFlags,
): Promise<{ rows: RunRows; calibration: Calibration | null }> {
  const tally = { outcomes: flags.html !== undefined };
  if (flags.labels === undefined) {
    return { rows: await readRun(location, undefined, tally), calibration: null };
  }
  return readCalibratedRun(location, flags.labels, intervalLevel(flags.level), tally);
}

/** An item in `failing_items` of report --json. */
function failingField({ id, score, samples, errors, problem }: FailingItem) {
  return { id, score, samples, errors, reason: problem };
}

interface Reported {
  summary: RunSummary;
  calibration: Calibration | null;
  failing: FailingLine[];
}

/**
 * The report made safe for the terminal as far as the text shows it: of the flaky and failing
 * items it prints the first few and counts the rest, so only those few are copied (a copy of
 * each of 100,000 items cost ~30 MB and ~0.5 s of CPU); with --all, each failing item's line.
 */
function printable({ summary, calibration, failing }: Reported, all: boolean): Reported {
  const safe = terminalSafeStrings({ summary: { ...summary, flaky: [] }, calibration });
  return {
    summary: { ...safe.summary, flaky: safeHead(summary.flaky, FLAKY_SHOWN) },
    calibration: safe.calibration,
    failing: all ? terminalSafeStrings(failing.map(lineOf)) : safeHead(failing, FAILING_LISTED),
  };
}

/** What a line of the list shows of an item, and no more. */
function lineOf({ id, score, samples, errors, problem }: FailingLine): FailingLine {
  return { id, score, samples, errors, problem };
}

/** The list with its first `count` entries made safe; the others are only counted. */
function safeHead<T>(list: readonly T[], count: number): T[] {
  const head = terminalSafeStrings(list.slice(0, count));
  return list.length > count ? head.concat(list.slice(count)) : head;
}

/** The statistics, the calibration with --labels, and the items that fell short. */
function reportText(
  { summary, calibration, failing }: Reported,
  coverage: Coverage | null,
  all: boolean,
): string {
  const calibrated = calibration ? calibrationText(calibration) : "";
  const none = noneFellShort(coverage, summary.stats);
  return `${summaryText(summary, coverage)}${calibrated}${failingItemsText(failing, all ? null : FAILING_LISTED, none)}`;
}

/** `calibration` in report --json: the graders' figures as eb calibrate --json gives them. */
function calibrationField(calibration: Calibration | null) {
  if (calibration === null) return {};
  const { warnings: _, ...figures } = calibration;
  return { calibration: figures };
}

/**
 * A run that never finished (interrupted, stopped, killed) says so before any figure; a
 * sequential run says why it stopped drawing.
 */
function notRun(doc: RunDocument): string {
  const coverage: Coverage = doc;
  if (isIncomplete(coverage, doc.stats)) return `${pc.yellow(notRunLine(coverage, doc.stats))}\n`;
  return doc.run.sequential ? `Samples: ${doc.stats.samples} ${plannedText(doc)}\n` : "";
}
