/**
 * `eb calibrate`: people's labels joined with a run's marks, per grader, into how far the grader
 * agrees with people and the pass rate people would give (src/stats/calibration.ts).
 */

import { InputError } from "../errors.js";
import {
  agreement,
  type Confusion,
  correctedPassRate,
  type Estimate,
  type Refusal,
  refusal,
} from "../stats/calibration.js";
import { effectiveTrials, type ItemAgg, itemScores, passRateInterval } from "../stats/interval.js";
import { type Label, labelKey, readLabels } from "./labels.js";
import { type RunRows, readRun } from "./read-rows.js";
import type { RunKind, StoredRow } from "./record.js";
import type { TallyOptions } from "./row-tally.js";

/** The figures of one grader (`--json` field names). */
export type GraderCalibration = ReturnType<typeof graderCalibration>;

export interface Calibration {
  labels_file: string;
  ci_level: number;
  /** TPR/TNR: Wilson; κ: Fleiss–Cohen–Everitt; corrected rate: Lang–Reiczigel. */
  ci_method: "lang-reiczigel";
  graders: GraderCalibration[];
  /** What each grader's rate is over: items, or for a check run the check's samples. */
  rate_over: "items" | "samples";
  /** Labels that name no graded sample of the run (left out). */
  unmatched_labels: number;
  warnings: string[];
}

/** A run's rows read once: its tally for the report, and its marks joined with the labels. */
export async function readCalibratedRun(
  location: string,
  labelsFile: string,
  level: number,
  tally: TallyOptions = {},
): Promise<{ rows: RunRows; calibration: Calibration }> {
  const join = new LabelJoin(labelsFile, await readLabels(labelsFile));
  const rows = await readRun(location, (row, kind) => join.add(row, kind), tally);
  return { rows, calibration: join.result(level) };
}

interface JoinedLabel extends Label {
  /** The grader's verdict on the labelled sample; null until a row gives it. */
  mark: boolean | null;
}

/**
 * Fed the run's rows one by one, keeps per grader named in the labels the sums of its marks per
 * unit, and the mark of each labelled sample: memory grows with items and labels, not rows.
 */
export class LabelJoin {
  private readonly labels = new Map<string, JoinedLabel>();
  private readonly units = new Map<string, Map<string, ItemAgg>>();
  /** Every grader the rows name, for the message about a label naming none of them. */
  private readonly runGraders = new Set<string>();
  private kind: RunKind | null = null;

  constructor(
    private readonly file: string,
    labels: readonly Label[],
  ) {
    for (const label of labels) {
      this.labels.set(labelKey(label.id, label.sample, label.grader), { ...label, mark: null });
      this.units.set(label.grader, new Map());
    }
  }

  /**
   * A check run's grader is the check itself (its id; the mark is the score) and its units are
   * the check's samples; a case run's graders are its marks and its units the items. An error
   * row has no verdict to calibrate.
   */
  add(row: StoredRow, kind: RunKind | null): void {
    if (row.status === "error" || (row.status === undefined && row.error)) return;
    this.kind = kind;
    const sample = row.sample ?? 0;
    const marks = kind === "checks" ? { [row.id]: row.score >= 1 } : (row.marks ?? {});
    const unit = kind === "checks" ? String(sample) : row.id;
    for (const grader in marks) {
      this.runGraders.add(grader);
      const units = this.units.get(grader);
      if (units === undefined) continue;
      const pass = marks[grader]!;
      const agg = units.get(unit) ?? { id: unit, sum: 0, n: 0 };
      agg.sum += pass ? 1 : 0;
      agg.n++;
      units.set(unit, agg);
      const label = this.labels.get(labelKey(row.id, sample, grader));
      if (label) label.mark = pass;
    }
  }

  /** The figures per grader, in name order; an InputError for a label naming no grader of the run. */
  result(level: number): Calibration {
    this.checkGraders();
    const joined = [...this.labels.values()];
    const unmatched = joined.filter((label) => label.mark === null);
    if (unmatched.length === joined.length) {
      throw new InputError(
        `${this.file}: none of its ${joined.length} labels names a graded sample of the run (${where(unmatched[0]!)}) — were they made for another run? Label samples of this run (id, sample and grader as in its rows)`,
      );
    }
    const graders = [...this.units.keys()].sort().map((grader) => {
      const counts = confusion(joined.filter((l) => l.grader === grader && l.mark !== null));
      return graderCalibration(grader, [...this.units.get(grader)!.values()], counts, level);
    });
    const warnings =
      unmatched.length === 0
        ? []
        : [
            `${this.file}:${unmatched[0]!.line}: ${unmatched.length} label${unmatched.length === 1 ? "" : "s"} name no graded sample of the run (first here: ${where(unmatched[0]!)}): left out — an id, sample or grader not in the run, or a sample that errored`,
          ];
    return {
      labels_file: this.file,
      ci_level: level,
      ci_method: "lang-reiczigel",
      graders,
      rate_over: this.kind === "checks" ? "samples" : "items",
      unmatched_labels: unmatched.length,
      warnings,
    };
  }

  private checkGraders(): void {
    for (const grader of this.units.keys()) {
      if (this.runGraders.has(grader)) continue;
      const line = [...this.labels.values()].find((label) => label.grader === grader)!.line;
      const known = [...this.runGraders].sort();
      const shown = known.length > 10 ? `${known.slice(0, 10).join(", ")}, …` : known.join(", ");
      throw new InputError(
        `${this.file}:${line}: grader ${JSON.stringify(grader)} is not in the run (its graders: ${shown || "none"}; in a check run, a grader is a check id) — fix the name, or label a run that has it`,
      );
    }
  }
}

function where(label: Label): string {
  return `id ${JSON.stringify(label.id)}, sample ${label.sample}, grader ${JSON.stringify(label.grader)}`;
}

function confusion(labels: readonly JoinedLabel[]): Confusion {
  const counts: Confusion = { tp: 0, fn: 0, tn: 0, fp: 0 };
  for (const { label, mark } of labels) {
    counts[label === 1 ? (mark ? "tp" : "fn") : mark ? "fp" : "tn"]++;
  }
  return counts;
}

function graderCalibration(
  grader: string,
  units: readonly ItemAgg[],
  counts: Confusion,
  level: number,
) {
  const raw = passRateInterval(units, "clopper-pearson", { level });
  const trials = effectiveTrials(
    itemScores(units),
    units.map((unit) => unit.n),
  );
  const { tpr, tnr, kappa } = agreement(counts, level);
  const corrected = correctedPassRate({ estimate: raw.estimate, trials }, counts, level);
  const why = refusal(counts);
  return {
    grader,
    /** Labels joined with a mark of the grader. */
    labels: counts.tp + counts.fn + counts.tn + counts.fp,
    labelled_pass: counts.tp + counts.fn,
    labelled_fail: counts.tn + counts.fp,
    /** What the run's rate is over: items (for a check, the check's samples). */
    units: units.length,
    ...flat("tpr", tpr),
    ...flat("tnr", tnr),
    ...flat("kappa", kappa),
    raw_pass_rate: raw.estimate,
    raw_ci_low: raw.low,
    raw_ci_high: raw.high,
    corrected_pass_rate: corrected.estimate,
    corrected_ci_low: corrected.low,
    corrected_ci_high: corrected.high,
    /** Why there is no corrected rate; null when there is one. */
    problem: why === null ? null : refusalText(why),
  };
}

type Flat<N extends string> = Record<N | `${N}_ci_low` | `${N}_ci_high`, number | null>;

function flat<N extends string>(name: N, { estimate, low, high }: Estimate): Flat<N> {
  return { [name]: estimate, [`${name}_ci_low`]: low, [`${name}_ci_high`]: high } as Flat<N>;
}

function refusalText(why: Refusal): string {
  if (why.kind === "too-few-labels") {
    return `too few labels to correct the rate: ${why.passes} samples people passed and ${why.fails} they failed, and it takes ${why.need} of each — label more samples, picked at random (not by the grader's verdict)`;
  }
  return `TPR + TNR = ${(1 + why.youden).toFixed(3)} ≤ 1: the grader agrees with people no better than chance, so its rate cannot be corrected — improve the grader (its prompt, its model) before trusting its rate`;
}
