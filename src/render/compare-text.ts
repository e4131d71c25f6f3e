import type { CompareFigures } from "../report/blocks.js";
import { countOf } from "../report/gate.js";
import { question } from "../report/question.js";
import type { SequentialRun } from "../report/record.js";

const IDS_SHOWN = 10;

export const VERDICT_TEXT = {
  pass: "PASS: the candidate is not worse than the baseline by more than the margin",
  regression: "REGRESSION: the candidate is worse, beyond the margin",
  inconclusive: "INCONCLUSIVE: this run cannot tell a regression from noise",
} as const;

/** What `eb compare` prints: delta and interval, broke/fixed, strata, MDE, verdict. */
export function comparisonText(c: CompareFigures): string {
  const level = `${Math.round(c.ci_level * 100)}%`;
  const lines = [
    `paired delta ${signed(c.delta)}  ${level} CI [${signed(c.ci_low)}, ${signed(c.ci_high)}] over ${countOf(c.paired, "item")} (${c.paired_interval})`,
    sequentialLine(c),
    idsLine("broke", c.broke),
    idsLine("fixed", c.fixed),
    ...strataLines(c),
    `smallest regression this run could detect (80% power): ${mdeText(c)}`,
    `${verdictSentence(c)} (margin ${c.margin})`,
    ...(c.verdict === "inconclusive" ? [neededLine(c)] : []),
  ];
  return `${lines.filter((line) => line !== "").join("\n")}\n`;
}

const STOPPED = {
  decided: "stopped: the verdict is known",
  "max-k": "stopped undecided at --max-k",
  budget: "stopped undecided: the budget (--max-samples, --max-cost) ran out",
} as const;

/**
 * What a sequential arm planned, as its run shows it: `sequential, at most 10 per case per arm;
 * stopped: the verdict is known`.
 */
export function sequentialRunText(s: SequentialRun): string {
  const how = s.stopped === null ? "interrupted before it stopped" : STOPPED[s.stopped];
  return `sequential, at most ${s.max_k} per case per arm; ${how}`;
}

/**
 * `eb eval --sequential`: what its verdict rests on and what it took, beside what a fixed run
 * takes; "" for a fixed-k comparison.
 */
export function sequentialLine(c: Pick<CompareFigures, "sequential" | "ci_level">): string {
  const s = c.sequential;
  if (s === undefined) return "";
  const level = `${Math.round(c.ci_level * 100)}%`;
  const estimate = s.estimate === null ? "n/a" : signed(s.estimate);
  const samples = s.samples.join(" and ");
  return (
    `sequential: estimate ${estimate}  ${level} confidence sequence [${signed(s.ci_low)}, ${signed(s.ci_high)}] after ${countOf(s.draws, "paired draw")} (${STOPPED[s.reason]}); ` +
    `samples taken per arm ${samples}, where a fixed run at -k ${s.max_k} takes ${s.fixed_k_samples} per arm`
  );
}

/** The verdict and the question it answered: `PASS: … on these 50 cases`. */
export function verdictSentence(c: CompareFigures): string {
  return `${VERDICT_TEXT[c.verdict]}, ${question(c)}`;
}

/**
 * The MDE with why it is what it is: a regression verdict needs the drop beyond the margin, so
 * the MDE moves with --margin; n/a says why there is no figure.
 */
export function mdeText(c: Pick<CompareFigures, "mde" | "margin">): string {
  if (c.mde === null) {
    return "n/a: no drop, up to every item that passed breaking, would be caught in 80% of runs of this size";
  }
  return `${c.mde.toFixed(4)} (a regression also needs a drop beyond the margin ${c.margin}, so this moves with --margin)`;
}

/** Per-stratum deltas, saying whether their intervals hold one by one or together. */
function strataLines(c: CompareFigures): string[] {
  // One stratum is the whole run, already above.
  if (c.strata.length < 2) return [];
  return [
    `by stratum (${strataLevel(c)}):`,
    ...c.strata.map((s) => {
      const verdict = s.verdict === null ? "" : `  ${s.verdict}`;
      return `  ${s.stratum}: ${signed(s.delta)} [${signed(s.low)}, ${signed(s.high)}] (${countOf(s.n, "item")})${verdict}`;
    }),
  ];
}

/** How the per-stratum intervals hold: one by one, or (Bonferroni) all together. */
export function strataLevel(c: CompareFigures): string {
  const each = `${Math.round(c.strata[0]!.level * 1000) / 10}%`;
  return c.strata[0]!.verdict !== null
    ? `Bonferroni-adjusted: ${each} each, so all ${c.strata.length} hold together`
    : `${each} each, unadjusted: with ${c.strata.length}, some may miss by chance; --adjust bonferroni for verdicts`;
}

/** What an inconclusive gate needs to decide, estimated from this comparison's scores. */
export function neededLine(c: CompareFigures): string {
  const drop = `a drop of ${c.margin} from no change`;
  if (c.scope === "cases") return samplesLine(c, drop);
  if (c.items_needed === null) return "";
  if (c.items_needed <= c.paired) {
    return `  ${c.paired} items are enough to tell ${drop}; this delta (${signed(c.delta)}) lies too close to the margin to call either way`;
  }
  const about = c.items_needed.toLocaleString("en-US");
  return `  to tell ${drop}, a suite like this one needs about ${about} items (it has ${c.paired}; an estimate from this run's item scores)`;
}

/** The cases scope's remedy: more samples of the same cases. */
function samplesLine(c: CompareFigures, drop: string): string {
  if (c.samples_needed === null) {
    return `  more samples per case narrow it: with fewer than 2 samples of a case on either side its own noise does not show, and the gate falls back to the population's interval`;
  }
  const about = c.samples_needed.toLocaleString("en-US");
  return `  to tell ${drop} on these cases, about ${about} samples per case on each side would do (an estimate from this run's pass shares)`;
}

function idsLine(label: string, ids: readonly string[]): string {
  const shown = ids.slice(0, IDS_SHOWN).join(", ");
  const more = ids.length > IDS_SHOWN ? `, … ${ids.length - IDS_SHOWN} more` : "";
  return `${label} ${countOf(ids.length, "item")}${ids.length > 0 ? `: ${shown}${more}` : ""}`;
}

export function signed(value: number | null): string {
  if (value === null || Number.isNaN(value)) return "n/a";
  return `${value >= 0 ? "+" : ""}${value.toFixed(4)}`;
}
