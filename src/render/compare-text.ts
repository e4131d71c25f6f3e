import type { CompareFigures } from "../report/blocks.js";
import { countOf } from "../report/gate.js";

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
    `paired delta ${signed(c.delta)}  ${level} CI [${signed(c.ci_low)}, ${signed(c.ci_high)}] over ${countOf(c.paired, "item")} (${c.ci_method})`,
    idsLine("broke", c.broke),
    idsLine("fixed", c.fixed),
    ...strataLines(c),
    `smallest regression this run could detect (80% power): ${c.mde === null ? "n/a" : c.mde.toFixed(4)}`,
    `${VERDICT_TEXT[c.verdict]} (margin ${c.margin})`,
    ...(c.verdict === "inconclusive" ? [neededLine(c)] : []),
  ];
  return `${lines.filter((line) => line !== "").join("\n")}\n`;
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

/** What an inconclusive gate needs to decide, estimated from this comparison's item scores. */
export function neededLine(c: CompareFigures): string {
  if (c.items_needed === null) return "";
  const drop = `a drop of ${c.margin} from no change`;
  if (c.items_needed <= c.paired) {
    return `  ${c.paired} items are enough to tell ${drop}; this delta (${signed(c.delta)}) lies too close to the margin to call either way`;
  }
  const about = roundUp(c.items_needed).toLocaleString("en-US");
  return `  to tell ${drop}, a suite like this one needs about ${about} items (it has ${c.paired}; an estimate from this run's item scores)`;
}

/** Two significant figures, rounded up: an estimate should not look more precise than it is. */
function roundUp(count: number): number {
  const unit = 10 ** Math.max(0, Math.floor(Math.log10(count)) - 1);
  return Math.ceil(count / unit) * unit;
}

function idsLine(label: string, ids: readonly string[]): string {
  const shown = ids.slice(0, IDS_SHOWN).join(", ");
  const more = ids.length > IDS_SHOWN ? `, … ${ids.length - IDS_SHOWN} more` : "";
  return `${label} ${countOf(ids.length, "item")}${ids.length > 0 ? `: ${shown}${more}` : ""}`;
}

export function signed(value: number): string {
  if (Number.isNaN(value)) return "n/a";
  return `${value >= 0 ? "+" : ""}${value.toFixed(4)}`;
}
