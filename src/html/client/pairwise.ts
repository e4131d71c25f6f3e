import { PAIR_VERDICT_TEXT } from "../../pairwise/verdict-text.js";
import type { PairwiseView } from "../model.js";
import { count, fixed, h, intervalBar, percent, signed } from "./dom.js";
import { stat } from "./summary.js";

/** A pairwise run's net win rate with its interval, the verdict and the counts behind them. */
export function pairwiseSummary(p: PairwiseView): HTMLElement {
  const ci = `${percent(p.level)} CI [${net(p.ci_low)}, ${net(p.ci_high)}]`;
  const scale = {
    min: -1,
    max: 1,
    marks: [
      { at: 0, class: "zero", label: "no preference" },
      { at: -p.margin, class: "margin", label: `margin −${p.margin}` },
    ],
  };
  const consistent = p.pairs - p.inconsistent;
  return h(
    "section",
    { class: "card", "aria-labelledby": "pairwise-title" },
    h("h2", { id: "pairwise-title" }, `Pairwise judgement by ${p.judge_model}`),
    h(
      "div",
      { class: "hero" },
      h(
        "div",
        {},
        h(
          "div",
          { class: `verdict ${p.verdict}`, "data-test": "verdict" },
          p.verdict.toUpperCase(),
        ),
        h("div", { class: "big", "data-test": "net-win-rate" }, net(p.net_win_rate)),
        h("div", { class: "ci" }, `net win rate · ${ci} over ${count(p.items)} cases`),
      ),
      h(
        "div",
        {},
        intervalBar(p.net_win_rate, p.ci_low, p.ci_high, scale, `net win rate, ${ci}`),
        h("div", { class: "scale" }, h("span", {}, "−1"), h("span", {}, "0"), h("span", {}, "+1")),
        h("p", { class: "note" }, `${PAIR_VERDICT_TEXT[p.verdict]} (margin ${p.margin}).`),
      ),
    ),
    h(
      "div",
      { class: "stats" },
      stat("wins", count(p.wins), "both orders chose the candidate"),
      stat("ties", count(p.ties), "both orders said tie"),
      stat("losses", count(p.losses), "both orders chose the baseline"),
      stat("inconsistent", count(p.inconsistent), "the orders disagree"),
      stat("errors", count(p.errors), "pairs with no verdict"),
      stat("consistency", fixed(p.consistency), `${count(consistent)} of ${count(p.pairs)} pairs`),
      stat("position bias", fixed(p.position_bias), "share naming the first answer; 0.5 is none"),
    ),
  );
}

function net(value: number | null): string {
  return value === null ? "n/a" : signed(value);
}
