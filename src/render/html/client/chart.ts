import type { CompareBlock, PairwiseBlock } from "../../../report/blocks.js";
import type { RunDocument } from "../../../report/document.js";
import { fixed, h, intervalBar, percent, signed } from "./dom.js";

interface ChartRow {
  name: string;
  estimate: number | null;
  low: number | null;
  high: number | null;
  figure: string;
  detail: string;
}

/** One row per stratum (cases) or tag (checks): the pass rate with its interval as whiskers. */
export function breakdownChart(doc: RunDocument): HTMLElement | null {
  const b = doc.summary.breakdown;
  if (b === null || b.groups.length === 0) return null;
  const rows = b.groups.map((g) => ({
    name: g.name,
    estimate: g.pass_rate,
    low: g.ci_low,
    high: g.ci_high,
    figure: `${fixed(g.pass_rate)} [${fixed(g.ci_low)}, ${fixed(g.ci_high)}]`,
    detail: `${g.items} item${g.items === 1 ? "" : "s"}`,
  }));
  const adjusted =
    b.adjust === "bonferroni"
      ? "Bonferroni-adjusted, all hold together"
      : `unadjusted: with ${b.groups.length}, some may miss by chance`;
  return chartCard(
    `Pass rate by ${b.by}`,
    `${percent(b.level)} interval per ${b.by}${b.groups.length > 1 ? ` (${adjusted})` : ""}`,
    rows,
    { min: 0, max: 1 },
  );
}

/** The compare page's per-stratum deltas, on [-1, 1] with 0 and the margin marked. */
export function deltaChart(strata: CompareBlock["strata"], margin: number): HTMLElement | null {
  if (strata.length < 2) return null;
  const rows = strata.map((s) => ({
    name: s.stratum,
    estimate: s.delta,
    low: s.low,
    high: s.high,
    figure: `${signed(s.delta)} [${signed(s.low)}, ${signed(s.high)}]`,
    detail: `${s.n} items${s.verdict ? ` · ${s.verdict}` : ""}`,
  }));
  const marks = [
    { at: 0, class: "zero", label: "no change" },
    { at: -margin, class: "margin", label: `margin −${margin}` },
  ];
  return chartCard(
    "Delta by stratum",
    `${percent(strata[0]!.level)} interval per stratum; the dashed line is the margin`,
    rows,
    { min: -1, max: 1, marks },
  );
}

/** A pairwise run's net win rate per stratum, on [-1, 1] with 0 and the margin marked. */
export function netWinChart(p: PairwiseBlock): HTMLElement | null {
  if (p.strata.length < 2) return null;
  const figure = (value: number | null) => (value === null ? "n/a" : signed(value));
  const rows = p.strata.map((s) => ({
    name: s.stratum,
    estimate: s.net_win_rate,
    low: s.ci_low,
    high: s.ci_high,
    figure: `${figure(s.net_win_rate)} [${figure(s.ci_low)}, ${figure(s.ci_high)}]`,
    detail: `${s.items} cases · consistency ${fixed(s.consistency)}`,
  }));
  const marks = [
    { at: 0, class: "zero", label: "no preference" },
    { at: -p.margin, class: "margin", label: `margin −${p.margin}` },
  ];
  return chartCard(
    "Net win rate by stratum",
    `${percent(p.level)} interval per stratum, unadjusted; the dashed line is the margin`,
    rows,
    { min: -1, max: 1, marks },
  );
}

function chartCard(
  title: string,
  note: string,
  rows: readonly ChartRow[],
  scale: Parameters<typeof intervalBar>[3],
): HTMLElement {
  const chart = h("div", { class: "chart", "data-test": "chart" });
  for (const row of rows) {
    chart.append(
      h(
        "div",
        { class: "chart-row" },
        h("div", { class: "name", title: row.name }, row.name),
        intervalBar(row.estimate, row.low, row.high, scale, `${row.name}: ${row.figure}`),
        h("div", { class: "figure" }, row.figure, h("div", { class: "muted" }, row.detail)),
      ),
    );
  }
  const ends = h(
    "div",
    { class: "chart-row" },
    h("div"),
    h(
      "div",
      { class: "scale" },
      h("span", {}, String(scale.min)),
      h("span", {}, String((scale.min + scale.max) / 2)),
      h("span", {}, String(scale.max)),
    ),
    h("div"),
  );
  return h(
    "section",
    { class: "card" },
    h("h2", {}, title),
    chart,
    ends,
    h("p", { class: "note" }, note),
  );
}
