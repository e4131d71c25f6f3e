import path from "node:path";
import { InputError } from "../errors.js";
import { type CompareOptions, type Comparison, comparePaired } from "../stats/compare.js";
import type { Change, CompareBlock, CompareFigures } from "./blocks.js";
import type { DocumentItem, RunDocument } from "./document.js";
import type { ManifestSummary } from "./manifest.js";
import { question } from "./question.js";
import {
  documentOf,
  locationOf,
  type ReadDocumentOptions,
  readWrittenReport,
} from "./read-document.js";
import { type RunRows, readRun } from "./read-rows.js";
import { fractionalScoreWarning, samplesPerItemWarning } from "./score-warnings.js";

export interface RunComparison extends Comparison {
  /**
   * Reasons to distrust the pairing: fields either run's rows had wrong, different definitions,
   * kinds or item sets.
   */
  warnings: string[];
}

/** The paired gate of two runs already read; runs that share no item cannot be compared. */
export function compareRunRows(
  base: RunRows,
  cand: RunRows,
  options: CompareOptions = {},
): RunComparison {
  const comparison = comparePaired(base.tally.items, cand.tally.items, options);
  if (comparison.n === 0) throw new InputError(noSharedItem(base, cand));
  const warnings = [
    ...sameRunWarning(base, cand),
    ...base.warnings,
    ...cand.warnings,
    ...manifestWarnings(base.manifest, cand.manifest),
    ...missingWarnings(comparison),
    ...samplesPerItemWarning(base.tally.items.values(), cand.tally.items.values()),
    ...fractionalScoreWarning(base.tally.items.values(), "baseline"),
    ...fractionalScoreWarning(cand.tally.items.values(), "candidate"),
  ];
  return { ...comparison, warnings };
}

/** A run given as both sides (`eb compare latest latest`) can only show no change. */
function sameRunWarning(base: RunRows, cand: RunRows): string[] {
  const id = base.manifest?.run_id ?? null;
  const same =
    path.resolve(base.file) === path.resolve(cand.file) ||
    (id !== null && id === cand.manifest?.run_id);
  if (!same) return [];
  const named = id ?? path.resolve(base.file);
  return [
    `the baseline and the candidate are the same run (${named}): a run compared with itself shows no change — name two runs`,
  ];
}

export function manifestWarnings(
  base: ManifestSummary | null,
  cand: ManifestSummary | null,
): string[] {
  if (!base || !cand) return [];
  const warnings: string[] = [];
  if (base.kind !== cand.kind) {
    warnings.push(`the runs are of different kinds (${String(base.kind)} vs ${String(cand.kind)})`);
  }
  const baseDefs = new Map(Object.entries(base.definitions));
  const candDefs = new Map(Object.entries(cand.definitions));
  const changed = [...baseDefs.keys()].filter(
    (key) => candDefs.has(key) && candDefs.get(key) !== baseDefs.get(key),
  );
  if (changed.length > 0) {
    warnings.push(
      `definitions differ between the runs for ${changed.length} item(s) or file(s): ${preview(changed)} — the runs did not grade the same thing`,
    );
  }
  return warnings;
}

function missingWarnings(comparison: Comparison): string[] {
  const warnings: string[] = [];
  const { missingFromCandidate: fromCand, missingFromBaseline: fromBase } = comparison;
  if (fromCand.length > 0) {
    warnings.push(`${fromCand.length} item(s) missing from the candidate: ${preview(fromCand)}`);
  }
  if (fromBase.length > 0) {
    warnings.push(`${fromBase.length} item(s) missing from the baseline: ${preview(fromBase)}`);
  }
  return warnings;
}

/** `3 item(s): a, b, c`: what a run holds, for a message about runs that share none. */
export function itemsText(run: RunRows): string {
  const list = [...run.tally.items.keys()].sort();
  return list.length === 0 ? "no items" : `${list.length} item(s): ${preview(list)}`;
}

function noSharedItem(base: RunRows, cand: RunRows): string {
  return (
    `the runs share no item, so there is nothing to compare: the baseline ${base.file} has ` +
    `${itemsText(base)}; the candidate ${cand.file} has ${itemsText(cand)}. Compare runs of the same checks or case file.`
  );
}

export function preview(ids: readonly string[]): string {
  const shown = ids.slice(0, 5).join(", ");
  return ids.length > 5 ? `${shown}, … ${ids.length - 5} more` : shown;
}

/**
 * The comparison as a block of the candidate's document, with how each item moved: broke and
 * fixed are the comparison's own lists; changed is a paired item whose score held but whose
 * outcome or answer per sample did not.
 */
export function compareBlock(c: RunComparison, base: RunDocument, cand: RunDocument): CompareBlock {
  const baseline = { run_id: base.run_id, location: base.output_dir };
  const { warnings, ...figures } = compareFigures(c, baseline);
  return { ...figures, changes: changesOf(c, base, cand), warnings };
}

/** The block but for `changes`, which needs both runs' documents. */
export function compareFigures(
  c: RunComparison,
  baseline: CompareBlock["baseline"],
): CompareFigures {
  return {
    baseline,
    delta: c.delta,
    ci_low: c.low,
    ci_high: c.high,
    ci_level: c.level,
    ci_method: c.method,
    paired_interval: pairedInterval(c),
    paired: c.n,
    margin: c.margin,
    verdict: c.verdict,
    scope: c.scope,
    mde: Number.isNaN(c.mde) ? null : c.mde,
    items_needed: c.itemsNeeded,
    samples_needed: c.samplesNeeded,
    broke: c.broke,
    fixed: c.fixed,
    missing_from_candidate: c.missingFromCandidate,
    missing_from_baseline: c.missingFromBaseline,
    strata: c.strata,
    warnings: c.warnings,
  };
}

/** The candidate's document with the comparison as its verdict (the gate of `eb compare`). */
export function withComparison(
  cand: RunDocument,
  block: CompareBlock,
  gate: { passed: boolean; rule: string },
): RunDocument {
  const failed = block.verdict === "pass" ? "failed" : block.verdict;
  return {
    ...cand,
    compare: block,
    verdict: { outcome: gate.passed ? "passed" : failed, rule: gate.rule },
    run_passed: gate.passed,
  };
}

function changesOf(c: Comparison, base: RunDocument, cand: RunDocument): Record<string, Change> {
  const changes: Record<string, Change> = {};
  const before = new Map(base.items.map((item) => [item.id, item]));
  const candIds = new Set(cand.items.map((item) => item.id));
  for (const item of cand.items) {
    const was = before.get(item.id);
    changes[item.id] = was === undefined ? "new" : differs(was, item) ? "changed" : "same";
  }
  for (const item of base.items) if (!candIds.has(item.id)) changes[item.id] = "gone";
  for (const id of c.broke) changes[id] = "broke";
  for (const id of c.fixed) changes[id] = "fixed";
  return changes;
}

function differs(a: DocumentItem, b: DocumentItem): boolean {
  if (a.outcomes.length !== b.outcomes.length) return true;
  return a.outcomes.some((outcome, i) => {
    const other = b.outcomes[i]!;
    return outcome.status !== other.status || outcome.excerpt !== other.excerpt;
  });
}

export interface ComparedRuns {
  comparison: RunComparison;
  baseDoc: RunDocument;
  /** The candidate's document with the comparison as its `compare` and the gate's verdict. */
  candDoc: RunDocument;
  baseFile: string;
  candFile: string;
}

type Gate = (figures: CompareFigures) => { passed: boolean; rule: string };

/** Both runs' documents, the candidate's with the comparison and the gate's verdict in it. */
export async function compareRuns(
  base: string,
  cand: string,
  options: CompareOptions,
  read: ReadDocumentOptions,
  gate: Gate,
): Promise<ComparedRuns> {
  const compared = await compareRunFiles(base, cand, options, read, gate);
  return { comparison: compared.comparison, ...(await compared.documents()) };
}

/** Two runs compared, their documents not built yet. */
export interface ComparedFiles {
  comparison: RunComparison;
  figures: CompareFigures;
  gate: { passed: boolean; rule: string };
  /**
   * Builds both runs' documents (on the first call; later calls give the same), the
   * candidate's with the comparison and the gate's verdict in it, and the rows files.
   */
  documents: () => Promise<Omit<ComparedRuns, "comparison">>;
}

/**
 * The paired gate of two runs (folders or rows files) from their rows alone: what the terminal
 * and `--json` print. The documents, a pass over every item of both runs, wait until an output
 * shows them.
 */
export async function compareRunFiles(
  base: string,
  cand: string,
  options: CompareOptions,
  read: ReadDocumentOptions,
  gate: Gate,
): Promise<ComparedFiles> {
  const tally = { outcomes: read.outcomes };
  // One after the other: reading is work for this one thread either way, and the first run's
  // reader (an entry per item) is done with before the second's starts.
  const b = await readRun(base, undefined, tally);
  const c = await readRun(cand, undefined, tally);
  const comparison = compareRunRows(b, c, options);
  const baseline = { run_id: b.manifest?.run_id ?? null, location: locationOf(b.file) };
  const figures = compareFigures(comparison, baseline);
  const passed = gate(figures);
  let documents: ReturnType<ComparedFiles["documents"]> | null = null;
  const build = async () => {
    const [baseDoc, candDoc] = await Promise.all([documentRead(b, read), documentRead(c, read)]);
    const block = compareBlock(comparison, baseDoc, candDoc);
    return {
      baseDoc,
      candDoc: withComparison(candDoc, block, passed),
      baseFile: b.file,
      candFile: c.file,
    };
  };
  return { comparison, figures, gate: passed, documents: () => (documents ??= build()) };
}

/** The document of rows read, with what the run wrote beside them when `read` asks for it. */
async function documentRead(rows: RunRows, read: ReadDocumentOptions): Promise<RunDocument> {
  const written = read.writtenReport ? await readWrittenReport(rows.file) : null;
  return documentOf(rows, read, written);
}

/**
 * The paired gate: pass, or inconclusive under `--inconclusive pass`; its rule in words,
 * naming the baseline by `named` (eb eval's arms: `arm 1 (gpt-4.1)`), else its run id, else its
 * path from here.
 */
export function comparisonGate(
  block: CompareFigures,
  inconclusive: "fail" | "pass",
  baseline: string,
  named?: string,
): { passed: boolean; rule: string } {
  const passed =
    block.verdict === "pass" || (block.verdict === "inconclusive" && inconclusive === "pass");
  const policy = block.verdict === "inconclusive" ? INCONCLUSIVE_NOTE[inconclusive] : "";
  // By its run id: a page or a log shows no absolute path of the machine that ran it.
  named ??= block.baseline.run_id ?? path.relative(process.cwd(), baseline);
  const rule = `paired compare with the baseline ${named} at margin ${block.margin} → ${block.verdict} ${question(block)}${policy}`;
  return { passed, rule };
}

const INCONCLUSIVE_NOTE = {
  pass: " (--inconclusive pass)",
  fail: " (--inconclusive pass would accept it)",
} as const;

/** Which paired interval the comparison computed, by name. */
function pairedInterval(c: RunComparison): CompareFigures["paired_interval"] {
  if (c.method === "bootstrap") return "bootstrap";
  return c.interval === "cases" ? "miettinen-nurminen" : "tango";
}
