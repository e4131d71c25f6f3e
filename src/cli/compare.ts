import path from "node:path";
import pc from "picocolors";
import { EXIT, InputError } from "../errors.js";
import { COMPARE_MARKER, comparisonMarkdown } from "../report/compare-markdown.js";
import {
  compareBlock,
  compareRunRows,
  type RunComparison,
  withComparison,
} from "../report/compare-runs.js";
import { comparisonText, signed } from "../report/compare-text.js";
import { writeJunit } from "../report/junit.js";
import { comparisonItems, runItems } from "../report/junit-items.js";
import { readDocument } from "../report/read-document.js";
import { type RunRows, readRun } from "../report/read-rows.js";
import type { SummaryOptions } from "../report/run-summary.js";
import type { Adjustment } from "../stats/adjust.js";
import type { CompareOptions } from "../stats/compare.js";
import type { IntervalMethod } from "../stats/types.js";
import { type BaselineOutcome, compareToGithub, runsOf } from "./github.js";
import { writeHtmlPage } from "./html-page.js";
import { intervalLevel } from "./options.js";
import { printWarning } from "./output.js";
import { runLocation } from "./run-location.js";
import { terminalSafe, terminalSafeJson } from "./terminal.js";

/** The gate's options, shared by `eb compare` and `eb eval --baseline`. */
export interface GateFlags {
  margin: string;
  inconclusive: "fail" | "pass";
}

export interface CompareFlags extends GateFlags {
  interval: IntervalMethod;
  level: string;
  adjust: Adjustment;
  seed: string;
  json?: boolean;
  markdown?: boolean;
  junit?: string;
  /** Also write the comparison as one self-contained HTML page to this file. */
  html?: string;
  cwd: string;
}

/** `eb compare BASE CAND`: the paired gate. Exit 0 pass, 1 regression (or inconclusive). */
export async function compareCommand(
  baseline: string,
  candidate: string,
  flags: CompareFlags,
): Promise<number> {
  const options = compareOptions(flags);
  if (flags.json && flags.markdown) throw new InputError("--json and --markdown: pass one of them");
  const [base, cand] = await Promise.all([
    runLocation(baseline, flags.cwd),
    runLocation(candidate, flags.cwd),
  ]);
  const [baseRows, candRows] = await Promise.all([readRun(base), readRun(cand)]);
  const comparison = compareRunRows(baseRows, candRows, options);
  const code = gateExitCode(comparison, flags);
  const passed = code === EXIT.passed;
  if (flags.markdown) {
    for (const warning of comparison.warnings) printWarning(warning);
    const body = comparisonMarkdown(comparison, runsOf(baseRows, candRows), passed);
    process.stdout.write(`${[COMPARE_MARKER, "", ...body].join("\n")}\n`);
  } else printComparison(comparison, flags.json === true);
  if (flags.junit !== undefined) {
    const items = comparisonItems(comparison, baseRows.tally, await runItems(cand), passed);
    await writeJunit(flags.junit, `eb compare ${base} ${cand}`, items);
  }
  // Annotations keep off stdout when it carries JSON or the comment body.
  const annotations = flags.json || flags.markdown ? process.stderr : process.stdout;
  await compareToGithub(comparison, baseRows, candRows, passed, annotations);
  if (flags.html !== undefined) {
    const gate = { passed, rule: gateRule(comparison, flags) };
    await writeComparePage(flags.html, [baseRows, candRows], comparison, gate, options);
  }
  return code;
}

/** The page of `--html`: both runs' documents, the candidate's carrying the comparison. */
async function writeComparePage(
  file: string,
  runs: readonly [RunRows, RunRows],
  comparison: RunComparison,
  gate: { passed: boolean; rule: string },
  options: CompareOptions,
): Promise<void> {
  const read = { outcomes: true, ...summaryOptions(options) };
  const [base, cand] = await Promise.all(runs.map((rows) => readDocument(rows.file, read)));
  const block = compareBlock(comparison, base!.document, cand!.document);
  const documents = [base!.document, withComparison(cand!.document, block, gate)];
  const runDirs = runs.map((rows) => path.dirname(rows.file));
  await writeHtmlPage(file, { documents, leaderboard: null }, runDirs);
}

/** `paired delta −0.0833 [−0.2500, +0.0833] over 6 items, margin 0.02 → inconclusive → failed`. */
function gateRule(c: RunComparison, flags: GateFlags): string {
  const ci = `${Math.round(c.level * 100)}% CI [${signed(c.low)}, ${signed(c.high)}]`;
  const policy = c.verdict === "inconclusive" ? ` (--inconclusive ${flags.inconclusive})` : "";
  const outcome = gateExitCode(c, flags) === EXIT.passed ? "passed" : "failed";
  return `paired delta ${signed(c.delta)}, ${ci} over ${c.n} items, margin ${c.margin} → ${c.verdict}${policy} → ${outcome}`;
}

/** The per-run statistics of the compare page, at the comparison's interval settings. */
function summaryOptions(options: CompareOptions): SummaryOptions {
  const { method, level, adjust, seed } = options;
  return { method, level, adjust, seed };
}

/** Validates --margin (and the bootstrap's --seed) before anything is read or run. */
export function compareOptions(flags: GateFlags & Partial<CompareFlags>): CompareOptions {
  const margin = flags.margin.trim() === "" ? Number.NaN : Number(flags.margin);
  if (!(margin >= 0 && margin <= 1)) {
    throw new InputError(`--margin ${flags.margin}: expected a number between 0 and 1`);
  }
  const seed = Number(flags.seed ?? 0);
  if (!Number.isInteger(seed))
    throw new InputError(`--seed ${flags.seed}: expected a whole number`);
  const level = flags.level === undefined ? undefined : intervalLevel(flags.level);
  return { margin, method: flags.interval, seed, level, adjust: flags.adjust };
}

/** The warnings on stderr, then the comparison as text or JSON on stdout. */
export function printComparison(comparison: RunComparison, json: boolean): void {
  for (const warning of comparison.warnings) printWarning(warning);
  if (json) {
    const { delta, low, high, broke, fixed, margin, verdict, n, mde, strata, warnings } =
      comparison;
    const missing = [...comparison.missingFromCandidate, ...comparison.missingFromBaseline];
    const object = {
      delta,
      ci_low: low,
      ci_high: high,
      broke,
      fixed,
      missing,
      margin,
      verdict,
      n,
      mde,
      items_needed: comparison.itemsNeeded,
      strata,
      warnings,
    };
    process.stdout.write(`${terminalSafeJson(JSON.stringify(object, null, 2))}\n`);
  } else {
    // Ids and strata come from the rows.
    process.stdout.write(terminalSafe(comparisonText(comparison)));
  }
}

/** 0 for pass, 1 for regression; an inconclusive verdict as --inconclusive says. */
export function gateExitCode(comparison: RunComparison, flags: GateFlags): number {
  if (comparison.verdict === "pass") return EXIT.passed;
  if (comparison.verdict === "inconclusive" && flags.inconclusive === "pass") return EXIT.passed;
  return EXIT.fellShort;
}

/** What `eb eval --baseline` decided: its exit code, the gate's line, and the comparison. */
export interface BaselineCompared {
  code: number;
  gateLine: string;
  outcome: BaselineOutcome;
}

/**
 * `eb eval --baseline RUN`: the baseline is found and read before the run (so `latest` is the
 * newest run before this one, and a bad baseline stops the run before any call); the returned
 * function compares the finished run with it, prints the comparison and says what the gate
 * decided, and returns the exit code.
 */
export async function baselineGate(
  baseline: string,
  flags: Partial<GateFlags> & { cwd: string },
): Promise<{ location: string; compare: (candidate: string) => Promise<BaselineCompared> }> {
  const gate: GateFlags = {
    margin: flags.margin ?? "0.02",
    inconclusive: flags.inconclusive ?? "fail",
  };
  const options = compareOptions(gate);
  const location = await runLocation(baseline, flags.cwd);
  const base = await readRun(location);
  const compare = async (candidate: string): Promise<BaselineCompared> => {
    const comparison = compareRunRows(base, await readRun(candidate), options);
    process.stdout.write(terminalSafe(`Compared with the baseline ${location}:\n`));
    printComparison(comparison, false);
    const code = gateExitCode(comparison, gate);
    const line = terminalSafe(baselineGateLine(comparison, location, gate, code));
    process.stdout.write(`${line}\n`);
    return {
      code,
      gateLine: line,
      outcome: { baseline: base, comparison, passed: code === EXIT.passed },
    };
  };
  return { location, compare };
}

const INCONCLUSIVE_NOTE = {
  pass: " (--inconclusive pass)",
  fail: " (--inconclusive pass would accept it)",
} as const;

function baselineGateLine(
  comparison: RunComparison,
  location: string,
  gate: GateFlags,
  code: number,
): string {
  const outcome = code === EXIT.passed ? pc.green("passed") : pc.red("failed");
  const policy = comparison.verdict === "inconclusive" ? INCONCLUSIVE_NOTE[gate.inconclusive] : "";
  return `Gate: paired compare with the baseline ${location} at margin ${comparison.margin} → ${comparison.verdict} → ${outcome}${policy}`;
}
