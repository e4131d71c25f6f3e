import type { CompareBlock } from "../../../report/blocks.js";
import type { RunDocument } from "../../../report/document.js";
import { mdeText as mdeFigure, verdictSentence } from "../../compare-text.js";
import { heroCard, marginMarks, statsRow, verdictLine } from "./card.js";
import { bounds, count, counted, fixed, h, percent, signed } from "./dom.js";

/** The paired delta with its interval, the margin and the verdict, as `eb compare` gives them. */
export function compareSummary(base: RunDocument, cand: RunDocument, c: CompareBlock): HTMLElement {
  const ci = `${percent(c.ci_level)} CI ${bounds(c.ci_low, c.ci_high, signed)}`;
  const span = Math.max(0.1, Math.abs(c.ci_low), Math.abs(c.ci_high), c.margin * 2);
  const changed = Object.values(c.changes).filter((change) => change === "changed").length;
  return heroCard({
    id: "compare",
    title: "Comparison with the baseline",
    lines: [
      verdictLine(c.verdict, "compare-verdict"),
      { class: "big", test: "delta", text: signed(c.delta) },
      {
        class: "ci",
        text: `paired delta · ${ci} over ${counted(c.paired, "item")} (${c.paired_interval})`,
      },
    ],
    bar: {
      estimate: c.delta,
      low: c.ci_low,
      high: c.ci_high,
      scale: { min: -span, max: span, marks: marginMarks(c.margin, "no change") },
      label: `delta ${signed(c.delta)}, ${ci}, margin ${c.margin}`,
      ticks: [signed(-span, 2), "0", signed(span, 2)],
    },
    notes: [`${verdictSentence(c)} (margin ${c.margin}; the dashed line).`, mdeText(c)],
    after: [
      statsRow([
        ["broke", count(c.broke.length), "score dropped"],
        ["fixed", count(c.fixed.length), "score rose"],
        ["changed", count(changed), "same score, other outcome or answer"],
        ["baseline pass rate", fixed(base.stats.pass_rate)],
        ["candidate pass rate", fixed(cand.stats.pass_rate)],
      ]),
      ...c.warnings.map((warning) => h("p", { class: "warn" }, `⚠ ${warning}`)),
    ],
  });
}

function mdeText(c: CompareBlock): string {
  const needed =
    c.verdict !== "inconclusive"
      ? ""
      : c.items_needed !== null
        ? ` · about ${count(c.items_needed)} items would tell a drop of ${c.margin}`
        : c.samples_needed !== null
          ? ` · about ${count(c.samples_needed)} samples per case would tell a drop of ${c.margin}`
          : "";
  return `Smallest regression this run could detect (80% power): ${mdeFigure(c)}${needed}`;
}
