/**
 * The leaderboard of several runs of one suite: each run's pass rate with its interval, cost,
 * latency and errors, best first, and which runs the data cannot tell from the best.
 *
 * The rule (multiple comparisons with the best, after Hsu 1984): every run but the best is paired
 * with the best by item, as `eb compare` pairs a candidate with its baseline, and its interval of
 * run − best is taken at level 1 − (1 − level)/(runs − 1), Bonferroni over the runs − 1
 * comparisons. A run whose interval reaches 0 is indistinguishable from the best. Why the
 * adjustment: if the truly best run is not the observed best, it is marked "worse" only when its
 * interval with the observed best misses; with all runs − 1 intervals holding together at the
 * level, the runs marked best or indistinguishable include the truly best run at the level (each
 * interval is two-sided, so each one-sided miss is half as likely as this needs: conservative).
 * Unadjusted, ten runs as good as one another would see some run called worse far more often
 * than 5% of the time.
 */

import path from "node:path";
import { InputError } from "../errors.js";
import { adjustedLevel } from "../stats/adjust.js";
import { type Comparison, comparePaired } from "../stats/compare.js";
import type { IntervalMethod } from "../stats/types.js";
import { type LeaderboardBlock, type LeaderboardEntry, NO_TOKENS } from "./blocks.js";
import { itemsText, manifestWarnings, preview } from "./compare-runs.js";
import { isIncomplete, notRunLine } from "./coverage.js";
import type { RunDocument } from "./document.js";
import type { RunRows } from "./read-rows.js";
import type { TokenCost } from "./run-summary.js";
import { fractionalScoreWarning } from "./score-warnings.js";

/** A run as read, with where it was given and its document. */
export interface LeaderboardRun {
  location: string;
  rows: RunRows;
  document: RunDocument;
}

export interface LeaderboardOptions {
  method: IntervalMethod;
  /** The level of each run's own interval; the paired ones are adjusted from it. */
  level: number;
  seed: number;
}

export type { LeaderboardEntry };

/** Cost when every run's is known, else latency p50 when every run has one. */
type ParetoAxis = NonNullable<LeaderboardEntry["pareto_axis"]>;

export interface Leaderboard {
  /** Best first. */
  entries: LeaderboardEntry[];
  /** The runs in the entries' order. */
  runs: LeaderboardRun[];
  /** Comparisons with the best (runs − 1), and the level of each paired interval. */
  comparisons: number;
  pairedLevel: number;
  level: number;
  /** Reasons to read the table with care: rows left out, differing item sets or definitions. */
  warnings: string[];
}

/** The board as a document carries it: its entries and the rule's levels. */
export function leaderboardBlock(board: Leaderboard): LeaderboardBlock {
  const { entries, level, pairedLevel, comparisons } = board;
  return { entries, level, paired_level: pairedLevel, comparisons };
}

/** Ranks runs of one suite; refuses (InputError) runs of different kinds or disjoint item sets. */
export function leaderboard(
  runs: readonly LeaderboardRun[],
  options: LeaderboardOptions,
): Leaderboard {
  refuseOtherSuites(runs);
  const ranked = [...runs].sort(byPassRate);
  const best = ranked[0]!;
  const comparisons = runs.length - 1;
  const pairedLevel = adjustedLevel(options.level, comparisons, "bonferroni");
  const entries = ranked.map((run, index) => {
    const paired = run === best ? null : pairWithBest(best, run, { ...options, pairedLevel });
    return entryOf(run, index + 1, paired);
  });
  markParetoFront(entries, paretoAxisOf(entries));
  const warnings = warningsOf(ranked);
  return { entries, runs: ranked, comparisons, pairedLevel, level: options.level, warnings };
}

function pairWithBest(
  best: LeaderboardRun,
  run: LeaderboardRun,
  options: LeaderboardOptions & { pairedLevel: number },
): Comparison {
  const { method, seed, pairedLevel: level } = options;
  return comparePaired(best.rows.tally.items, run.rows.tally.items, { method, seed, level });
}

function entryOf(run: LeaderboardRun, rank: number, paired: Comparison | null): LeaderboardEntry {
  const { stats, summary } = run.document;
  const manifest = run.rows.manifest;
  const { tokens } = summary;
  return {
    rank,
    run_id: runId(run),
    location: run.location,
    kind: manifest?.kind ?? null,
    model: manifest?.target ?? (tokens.target.map((t) => t.model).join(", ") || null),
    items: stats.items,
    samples: stats.samples,
    pass_rate: stats.pass_rate,
    ci_low: stats.ci_low,
    ci_high: stats.ci_high,
    ci_level: stats.ci_level,
    ci_method: stats.ci_method,
    cost: run.document.run.cost,
    cost_note: costNote([...tokens.target, ...(tokens.judge ? [tokens.judge] : [])]),
    latency_p50_ms: summary.latency?.p50 ?? null,
    latency_p95_ms: summary.latency?.p95 ?? null,
    errors: stats.errors,
    best: paired === null,
    indistinguishable_from_best: paired === null || paired.high >= 0,
    delta_vs_best: paired?.delta ?? null,
    delta_ci_low: paired?.low ?? null,
    delta_ci_high: paired?.high ?? null,
    delta_ci_level: paired?.level ?? null,
    paired_items: paired?.n ?? null,
    pareto_front: null,
    pareto_axis: null,
  };
}

/** The manifest's run id, else the run folder's name (or the rows file's path). */
export function runId(run: { location: string; rows: RunRows }): string {
  const id = run.rows.manifest?.run_id;
  if (id) return id;
  const file = run.rows.file;
  return path.basename(file) === "rows.jsonl" ? path.basename(path.dirname(file)) : file;
}

/** Highest pass rate first; a tie goes to the higher lower bound, then to the order given. */
function byPassRate(a: LeaderboardRun, b: LeaderboardRun): number {
  const rate = (run: LeaderboardRun) => run.document.stats.pass_rate ?? -1;
  const low = (run: LeaderboardRun) => run.document.stats.ci_low ?? -1;
  return rate(b) - rate(a) || low(b) - low(a);
}

function costNote(priced: readonly TokenCost[]): string | null {
  if (priced.length === 0) return NO_TOKENS;
  const unpriced = priced.filter((t) => t.cost === null).map((t) => t.model || "(unnamed)");
  return unpriced.length === 0 ? null : `no price in [pricing] for ${unpriced.join(", ")}`;
}

function paretoAxisOf(entries: readonly LeaderboardEntry[]): ParetoAxis | null {
  if (entries.every((e) => e.cost !== null)) return "cost";
  if (entries.every((e) => e.latency_p50_ms !== null)) return "latency_p50_ms";
  return null;
}

/** A run is on the front when no other run has a pass rate as high at a price as low, and better in one. */
function markParetoFront(entries: LeaderboardEntry[], axis: ParetoAxis | null): void {
  if (axis === null) return;
  const point = (e: LeaderboardEntry) => ({ y: e.pass_rate ?? -1, x: e[axis] ?? 0 });
  for (const entry of entries) {
    const p = point(entry);
    const beaten = entries.some((other) => {
      const q = point(other);
      return other !== entry && q.y >= p.y && q.x <= p.x && (q.y > p.y || q.x < p.x);
    });
    entry.pareto_front = !beaten;
    entry.pareto_axis = axis;
  }
}

/** Runs of another kind, or sharing no item with some other run, are not of the same suite. */
function refuseOtherSuites(runs: readonly LeaderboardRun[]): void {
  const kinds = new Set(runs.flatMap((run) => run.rows.manifest?.kind ?? []));
  if (kinds.size > 1) {
    const each = runs.map((run) => `${runId(run)} is a ${run.rows.manifest?.kind ?? "?"} run`);
    throw new InputError(
      `the runs are of different kinds (${each.join("; ")}): a leaderboard ranks runs of the same checks or case file`,
    );
  }
  runs.forEach((a, i) => {
    for (const b of runs.slice(i + 1)) {
      if (sharedItems(a, b) === 0) throw new InputError(noSharedItem(a, b));
    }
  });
}

function sharedItems(a: LeaderboardRun, b: LeaderboardRun): number {
  let shared = 0;
  for (const id of a.rows.tally.items.keys()) if (b.rows.tally.items.has(id)) shared += 1;
  return shared;
}

function noSharedItem(a: LeaderboardRun, b: LeaderboardRun): string {
  return (
    `the runs ${runId(a)} and ${runId(b)} share no item, so they are not runs of the same suite: ` +
    `${a.rows.file} has ${itemsText(a.rows)}; ${b.rows.file} has ${itemsText(b.rows)}. Rank runs of the same checks or case file.`
  );
}

function warningsOf(ranked: readonly LeaderboardRun[]): string[] {
  const best = ranked[0]!;
  return [
    ...ranked.flatMap((run) => [
      ...run.rows.warnings,
      ...notRunWarning(run),
      ...fractionalScoreWarning(run.rows.tally.items.values(), `run ${runId(run)}`),
    ]),
    ...itemSetWarning(ranked),
    ...ranked
      .slice(1)
      .flatMap((run) =>
        manifestWarnings(best.rows.manifest, run.rows.manifest).map(
          (warning) => `${runId(run)} and the best ${runId(best)}: ${warning}`,
        ),
      ),
  ];
}

/** A run that never finished is ranked on what ran; the reader should know it. */
function notRunWarning(run: LeaderboardRun): string[] {
  const { document } = run;
  if (!isIncomplete(document, document.stats)) return [];
  return [
    `${runId(run)}: ${notRunLine(document, document.stats)}; its figures are over what ran (finish it with --resume)`,
  ];
}

/** Item sets that differ in part: pass rates are over different items, pairs over shared ones. */
function itemSetWarning(runs: readonly LeaderboardRun[]): string[] {
  const union = new Set(runs.flatMap((run) => [...run.rows.tally.items.keys()]));
  const lacking = runs.flatMap((run) => {
    const missing = [...union].filter((id) => !run.rows.tally.items.has(id)).sort();
    return missing.length === 0
      ? []
      : [`${runId(run)} lacks ${missing.length}: ${preview(missing)}`];
  });
  if (lacking.length === 0) return [];
  return [
    `the runs' item sets differ (${union.size} items in all; ${lacking.join("; ")}): each pass rate is over the run's own items, and each run is paired with the best over the items both have`,
  ];
}
