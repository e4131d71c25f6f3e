import { InputError } from "../errors.js";
import type { ManifestSummary } from "../run/manifest.js";
import { type CompareOptions, type Comparison, comparePaired } from "../stats/compare.js";
import type { RunRows } from "./read-rows.js";
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

function noSharedItem(base: RunRows, cand: RunRows): string {
  const ids = (run: RunRows) => {
    const list = [...run.tally.items.keys()].sort();
    return list.length === 0 ? "no items" : `${list.length} item(s): ${preview(list)}`;
  };
  return (
    `the runs share no item, so there is nothing to compare: the baseline ${base.file} has ` +
    `${ids(base)}; the candidate ${cand.file} has ${ids(cand)}. Compare runs of the same checks or case file.`
  );
}

export function preview(ids: readonly string[]): string {
  const shown = ids.slice(0, 5).join(", ");
  return ids.length > 5 ? `${shown}, … ${ids.length - 5} more` : shown;
}
