import { readFile } from "node:fs/promises";
import path from "node:path";
import { loadConfig } from "../config/load.js";
import { EXIT, InputError } from "../errors.js";
import { COMPARE_MARKER, comparisonMarkdown } from "../render/compare-markdown.js";
import { comparisonText } from "../render/compare-text.js";
import { type RunFormat, runFiles } from "../render/files.js";
import { compareJunit } from "../render/junit.js";
import { gateLine } from "../render/run-text.js";
import type { CompareBlock, CompareFigures, LeaderboardBlock } from "../report/blocks.js";
import {
  compareBlock,
  compareRunFiles,
  compareRunRows,
  comparisonGate,
  withComparison,
} from "../report/compare-runs.js";
import type { RunDocument } from "../report/document.js";
import { documentJson } from "../report/json.js";
import { readDocument } from "../report/read-document.js";
import type { RunRows } from "../report/read-rows.js";
import type { SummaryOptions } from "../report/run-summary.js";
import { terminalSafeJson, terminalSafeLine, terminalSafeStrings } from "../report/terminal.js";
import { writeReports } from "../run/reports.js";
import type { CompareOptions } from "../stats/compare.js";
import { type CompareFlags, compareOptions, type GateFlags } from "./compare-options.js";
import { githubAsked } from "./github-env.js";
import { writeHtmlPage } from "./html-page.js";
import { settingFlags } from "./options.js";
import { printWarning } from "./output.js";
import { runLocation, runLocations, suiteAt } from "./run-location.js";
import { writeJunit } from "./write-whole.js";

/** `eb compare BASE CAND`: the paired gate. Exit 0 pass, 1 regression (or inconclusive). */
export async function compareCommand(
  baseline: string,
  candidate: string,
  flags: CompareFlags,
): Promise<number> {
  const config = await loadConfig({ cwd: flags.cwd, flags: settingFlags({ ...flags }) });
  const options = compareOptions({ ...flags, scope: config.scope });
  if (flags.json && flags.markdown) throw new InputError("--json and --markdown: pass one of them");
  const [base, cand] = (await runLocations([baseline, candidate], flags.cwd)) as [string, string];
  // Each sample's outcome, and what the runs wrote beside their rows (each item's input and
  // source, the threshold), only for the outputs that show them.
  const pages = flags.junit !== undefined || flags.html !== undefined;
  const read = { ...summaryOptions(options), outcomes: pages, writtenReport: pages };
  const compared = await compareRunFiles(base, cand, options, read, (figures) =>
    comparisonGate(figures, flags.inconclusive, base),
  );
  const code = compared.gate.passed ? EXIT.passed : EXIT.fellShort;
  if (flags.markdown) {
    for (const warning of compared.figures.warnings) printWarning(warning);
    const { baseDoc, candDoc } = await compared.documents();
    const body = comparisonMarkdown(baseDoc, candDoc);
    process.stdout.write(`${[COMPARE_MARKER, "", ...body].join("\n")}\n`);
  } else printComparison(compared.figures, flags.json === true);
  if (flags.junit !== undefined) {
    const { baseDoc, candDoc } = await compared.documents();
    await writeJunit(flags.junit, compareJunit(baseDoc, candDoc));
  }
  // Annotations keep off stdout when it carries JSON or the comment body.
  const annotations = flags.json || flags.markdown ? process.stderr : process.stdout;
  // Loaded on a runner only: its renderers (and the check parser) cost every other start.
  if (githubAsked()) {
    await (await import("./github.js")).compareToGithub(compared.documents, annotations);
  }
  if (flags.html !== undefined) {
    const { baseDoc, candDoc, baseFile, candFile } = await compared.documents();
    const runDirs = [baseFile, candFile].map((file) => path.dirname(file));
    await writeHtmlPage(flags.html, { documents: [baseDoc, candDoc], leaderboard: null }, runDirs);
  }
  return code;
}

/** The per-run statistics, at the comparison's interval settings. */
function summaryOptions(options: CompareOptions): SummaryOptions {
  const { method, level, adjust, seed } = options;
  return { method, level, adjust, seed };
}

/** The warnings on stderr, then the comparison as text or JSON on stdout. */
export function printComparison(c: CompareFigures, json: boolean): void {
  for (const warning of c.warnings) printWarning(warning);
  if (json) {
    const object = {
      delta: c.delta,
      ci_low: c.ci_low,
      ci_high: c.ci_high,
      broke: c.broke,
      fixed: c.fixed,
      missing: [...c.missing_from_candidate, ...c.missing_from_baseline],
      margin: c.margin,
      verdict: c.verdict,
      scope: c.scope,
      n: c.paired,
      mde: c.mde,
      items_needed: c.items_needed,
      samples_needed: c.samples_needed,
      strata: c.strata,
      warnings: c.warnings,
    };
    process.stdout.write(terminalSafeJson(documentJson(object)));
  } else {
    // Ids and strata come from the rows.
    process.stdout.write(comparisonText(terminalSafeStrings(c)));
  }
}

/** `latest~N` of --baseline: the finished runs of the case file's suite (or the resumed run's). */
function baselineScope(flags: { cwd: string; resume?: string | undefined }, cases?: string) {
  if (cases !== undefined) return { casesFile: path.resolve(flags.cwd, cases), finished: true };
  const resumed = flags.resume === undefined ? undefined : suiteAt(path.resolve(flags.resume));
  return { suite: resumed ?? undefined, finished: true };
}

/** What `eb eval --baseline` decided: its exit code, the gate's line, and both documents. */
export interface BaselineCompared {
  code: number;
  gateLine: string;
  baseDoc: RunDocument;
  candDoc: RunDocument;
}

/** How the terminal names the two runs of a comparison: eb eval's arms by model or target. */
export interface ComparedNames {
  baseline: string;
  candidate: string;
}

/** What a compare after a run can change: the names shown, and the block (a sequential gate's). */
export interface CompareAfterRun {
  names?: ComparedNames | undefined;
  /** The block as the run's own gate decided it (`--sequential`), from the one of its rows. */
  adjust?: ((block: CompareBlock) => CompareBlock) | undefined;
  /** eb eval's arms (three or more): their leaderboard, in the last arm's reports. */
  leaderboard?: LeaderboardBlock | undefined;
}

/**
 * `eb eval --baseline RUN` and eb eval's arms: the baseline is found and read before the run
 * (so `latest` is the newest finished run of the same suite before this one, and a bad baseline
 * stops the run before any call); the returned function compares a finished run with it, prints
 * the comparison and what the gate decided, writes the comparison into the run's report.json
 * (and its other reports), and returns the exit code.
 */
export async function baselineGate(
  baseline: string,
  flags: Partial<GateFlags> & { cwd: string; resume?: string | undefined },
  cases: string | undefined,
): Promise<{
  location: string;
  rows: RunRows;
  compare: (
    candidate: string,
    formats?: readonly RunFormat[],
    after?: CompareAfterRun,
  ) => Promise<BaselineCompared>;
}> {
  const gate: GateFlags = {
    margin: flags.margin ?? "0.02",
    inconclusive: flags.inconclusive ?? "fail",
    scope: flags.scope,
  };
  const options = compareOptions(gate);
  const location = await runLocation(baseline, flags.cwd, baselineScope(flags, cases));
  const base = await readDocument(location);
  const compare = async (
    candidate: string,
    formats?: readonly RunFormat[],
    after: CompareAfterRun = {},
  ): Promise<BaselineCompared> => {
    const c = await readDocument(candidate);
    const comparison = compareRunRows(base.rows, c.rows, options);
    const paired = compareBlock(comparison, base.document, c.document);
    const block = after.adjust ? after.adjust(paired) : paired;
    const { names } = after;
    const verdict = comparisonGate(block, gate.inconclusive, location, names?.baseline);
    const candDoc = {
      ...withComparison(c.document, block, verdict),
      leaderboard: after.leaderboard ?? null,
    };
    const header = names
      ? `${names.candidate.charAt(0).toUpperCase()}${names.candidate.slice(1)} against the baseline ${names.baseline}`
      : `Compared with the baseline ${location}`;
    process.stdout.write(`${terminalSafeLine(header)}:\n`);
    printComparison(block, false);
    const gated = gateLine({ ...candDoc, verdict: terminalSafeStrings(candDoc.verdict) });
    const line = names
      ? gated.replace(/^Gate:/, `Gate of ${terminalSafeLine(names.candidate)}:`)
      : gated;
    process.stdout.write(`${line}\n`);
    // The run's own reports, when it names their formats (eb eval's runs).
    const unwritten = formats ? await recordComparison(candidate, candDoc, formats) : [];
    for (const warning of unwritten) printWarning(warning);
    const code = candDoc.verdict.outcome === "passed" ? EXIT.passed : EXIT.fellShort;
    return { code, gateLine: line, baseDoc: base.document, candDoc };
  };
  return { location, rows: base.rows, compare };
}

/**
 * The run's reports with the comparison in them: report.json as the run wrote it, with the
 * `compare` block and the gate's verdict; report.md and report.html rendered from it again.
 * What cannot be written is a warning: the rows and the exit code stand.
 */
async function recordComparison(
  runDir: string,
  compared: RunDocument,
  formats: readonly RunFormat[],
): Promise<string[]> {
  const file = path.join(runDir, "report.json");
  try {
    const written = JSON.parse(await readFile(file, "utf8")) as RunDocument;
    const { compare, verdict, run_passed, leaderboard } = compared;
    const report = { ...written, compare, verdict, run_passed, leaderboard };
    const { files, problems } = runFiles(report, formats);
    return [...problems, ...(await writeReports(runDir, { report, files }, (text) => text))];
  } catch (error) {
    return [`${file}: the comparison was not written into it: ${describe(error)}`];
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
