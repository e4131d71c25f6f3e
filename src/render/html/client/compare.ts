import type { CompareBlock } from "../../../report/blocks.js";
import type { RunDocument } from "../../../report/document.js";
import { count, fixed, h, intervalBar, percent, signed } from "./dom.js";
import { stat } from "./summary.js";

const VERDICT_TEXT = {
  pass: "PASS: the candidate is not worse than the baseline by more than the margin",
  regression: "REGRESSION: the candidate is worse, beyond the margin",
  inconclusive: "INCONCLUSIVE: this run cannot tell a regression from noise",
} as const;

/** The paired delta with its interval, the margin and the verdict, as `eb compare` gives them. */
export function compareSummary(base: RunDocument, cand: RunDocument, c: CompareBlock): HTMLElement {
  const ci = `${percent(c.ci_level)} CI [${signed(c.ci_low)}, ${signed(c.ci_high)}]`;
  const span = Math.max(0.1, Math.abs(c.ci_low), Math.abs(c.ci_high), c.margin * 2);
  const scale = {
    min: -span,
    max: span,
    marks: [
      { at: 0, class: "zero", label: "no change" },
      { at: -c.margin, class: "margin", label: `margin −${c.margin}` },
    ],
  };
  const changed = Object.values(c.changes).filter((change) => change === "changed").length;
  return h(
    "section",
    { class: "card", "aria-labelledby": "compare-title" },
    h("h2", { id: "compare-title" }, "Comparison with the baseline"),
    h(
      "div",
      { class: "hero" },
      h(
        "div",
        {},
        h(
          "div",
          { class: `verdict ${c.verdict}`, "data-test": "compare-verdict" },
          c.verdict.toUpperCase(),
        ),
        h("div", { class: "big", "data-test": "delta" }, signed(c.delta)),
        h(
          "div",
          { class: "ci" },
          `paired delta · ${ci} over ${count(c.paired)} items (${c.ci_method})`,
        ),
      ),
      h(
        "div",
        {},
        intervalBar(
          c.delta,
          c.ci_low,
          c.ci_high,
          scale,
          `delta ${signed(c.delta)}, ${ci}, margin ${c.margin}`,
        ),
        h(
          "div",
          { class: "scale" },
          h("span", {}, signed(-span, 2)),
          h("span", {}, "0"),
          h("span", {}, signed(span, 2)),
        ),
        h(
          "p",
          { class: "note" },
          `${VERDICT_TEXT[c.verdict]} (margin ${c.margin}; the dashed line).`,
        ),
        h("p", { class: "note" }, mdeText(c)),
      ),
    ),
    h(
      "div",
      { class: "stats" },
      stat("broke", count(c.broke.length), "score dropped"),
      stat("fixed", count(c.fixed.length), "score rose"),
      stat("changed", count(changed), "same score, other outcome or answer"),
      stat("baseline pass rate", fixed(base.stats.pass_rate)),
      stat("candidate pass rate", fixed(cand.stats.pass_rate)),
    ),
    ...c.warnings.map((warning) => h("p", { class: "warn" }, `⚠ ${warning}`)),
  );
}

function mdeText(c: CompareBlock): string {
  const mde = c.mde === null ? "n/a" : c.mde.toFixed(4);
  const needed =
    c.items_needed !== null && c.verdict === "inconclusive"
      ? ` · about ${count(c.items_needed)} items would tell a drop of ${c.margin}`
      : "";
  return `Smallest regression this run could detect (80% power): ${mde}${needed}`;
}
