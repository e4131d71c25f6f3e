import type { CompareView, PageModel } from "../model.js";
import { count, fixed, h, intervalBar, percent, signed } from "./dom.js";
import { stat } from "./summary.js";

const VERDICT_TEXT = {
  pass: "PASS: the candidate is not worse than the baseline by more than the margin",
  regression: "REGRESSION: the candidate is worse, beyond the margin",
  inconclusive: "INCONCLUSIVE: this run cannot tell a regression from noise",
} as const;

/** The paired delta with its interval, the margin and the verdict, as `eb compare` gives them. */
export function compareSummary(model: PageModel, c: CompareView): HTMLElement {
  const ci = `${percent(c.level)} CI [${signed(c.low)}, ${signed(c.high)}]`;
  const span = Math.max(0.1, Math.abs(c.low), Math.abs(c.high), c.margin * 2);
  const scale = {
    min: -span,
    max: span,
    marks: [
      { at: 0, class: "zero", label: "no change" },
      { at: -c.margin, class: "margin", label: `margin −${c.margin}` },
    ],
  };
  const broke = Object.values(c.changes).filter((change) => change === "broke").length;
  const fixedCount = Object.values(c.changes).filter((change) => change === "fixed").length;
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
          { class: `verdict ${c.verdict}`, "data-test": "verdict" },
          c.verdict.toUpperCase(),
        ),
        h("div", { class: "big", "data-test": "delta" }, signed(c.delta)),
        h("div", { class: "ci" }, `paired delta · ${ci} over ${count(c.n)} items (${c.method})`),
      ),
      h(
        "div",
        {},
        intervalBar(
          c.delta,
          c.low,
          c.high,
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
        h(
          "p",
          { class: "note" },
          `Smallest regression this run could detect (80% power): ${c.mde === null ? "n/a" : c.mde.toFixed(4)}` +
            (c.itemsNeeded !== null && c.verdict === "inconclusive"
              ? ` · about ${count(c.itemsNeeded)} items would tell a drop of ${c.margin}`
              : ""),
        ),
      ),
    ),
    h(
      "div",
      { class: "stats" },
      stat("broke", count(broke)),
      stat("fixed", count(fixedCount)),
      stat("baseline pass rate", fixed(model.base?.stats.pass_rate ?? null)),
      stat("candidate pass rate", fixed(model.run.stats.pass_rate)),
    ),
    ...c.warnings.map((warning) => h("p", { class: "warn" }, `⚠ ${warning}`)),
  );
}
