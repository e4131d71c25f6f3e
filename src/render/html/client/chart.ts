import type { CompareBlock, PairwiseBlock } from "../../../report/blocks.js";
import type { RunDocument } from "../../../report/document.js";
import { chartCard, marginMarks } from "./card.js";
import { counted, fixed, percent, signed } from "./dom.js";

/** One row per stratum (cases) or tag (checks): the pass rate with its interval as whiskers. */
export function breakdownChart(doc: RunDocument): HTMLElement | null {
  const b = doc.summary.breakdown;
  if (b === null || b.groups.length === 0) return null;
  const adjusted =
    b.adjust === "bonferroni"
      ? "Bonferroni-adjusted, all hold together"
      : `unadjusted: with ${b.groups.length}, some may miss by chance`;
  return chartCard({
    title: `Pass rate by ${b.by}`,
    note: `${percent(b.level)} interval per ${b.by}${b.groups.length > 1 ? ` (${adjusted})` : ""}`,
    rows: b.groups.map((g) => ({
      name: g.name,
      estimate: g.pass_rate,
      low: g.ci_low,
      high: g.ci_high,
      detail: counted(g.items, "item"),
    })),
    scale: { min: 0, max: 1 },
    format: fixed,
  });
}

/** The compare page's per-stratum deltas, on [-1, 1] with 0 and the margin marked. */
export function deltaChart(strata: CompareBlock["strata"], margin: number): HTMLElement | null {
  if (strata.length < 2) return null;
  return chartCard({
    title: "Delta by stratum",
    note: `${percent(strata[0]!.level)} interval per stratum; the dashed line is the margin`,
    rows: strata.map((s) => ({
      name: s.stratum,
      estimate: s.delta,
      low: s.low,
      high: s.high,
      detail: `${counted(s.n, "item")}${s.verdict ? ` · ${s.verdict}` : ""}`,
    })),
    scale: { min: -1, max: 1, marks: marginMarks(margin, "no change") },
    format: signed,
  });
}

/** A pairwise run's net win rate per stratum, on [-1, 1] with 0 and the margin marked. */
export function netWinChart(p: PairwiseBlock): HTMLElement | null {
  if (p.strata.length < 2) return null;
  return chartCard({
    title: "Net win rate by stratum",
    note: `${percent(p.level)} interval per stratum, unadjusted; the dashed line is the margin`,
    rows: p.strata.map((s) => ({
      name: s.stratum,
      estimate: s.net_win_rate,
      low: s.ci_low,
      high: s.ci_high,
      detail: `${counted(s.items, "case")} · consistency ${fixed(s.consistency)}`,
    })),
    scale: { min: -1, max: 1, marks: marginMarks(p.margin, "no preference") },
    format: signed,
  });
}
