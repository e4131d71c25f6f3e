import type { PairwiseBlock } from "../../../report/blocks.js";
import { PAIR_VERDICT_TEXT } from "../../pair-verdict-text.js";
import { count, fixed, h, intervalBar, percent, signed } from "./dom.js";
import { stat } from "./summary.js";

/**
 * A pairwise run's counts (a tie is its own outcome, not a loss), the net win rate with its
 * interval and verdict, and what the judge's verdicts say of the order the answers were shown in.
 */
export function pairwiseSummary(p: PairwiseBlock): HTMLElement {
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
      { class: "stats counts", "data-test": "pair-counts" },
      stat("wins", count(p.wins), "both orders chose the candidate"),
      stat("ties", count(p.ties), "both orders said tie"),
      stat("losses", count(p.losses), "both orders chose the baseline"),
      stat("inconsistent", count(p.inconsistent), "the orders disagree"),
      stat("errors", count(p.errors), "pairs with no verdict"),
    ),
    h(
      "div",
      { class: "hero" },
      h(
        "div",
        {},
        h(
          "div",
          { class: `verdict ${p.verdict}`, "data-test": "pair-verdict" },
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
        h(
          "p",
          { class: "note" },
          `${PAIR_VERDICT_TEXT[p.verdict]} (margin ${p.margin}; a tie or an inconsistent pair counts neither way).`,
        ),
      ),
    ),
    h(
      "div",
      { class: "stats" },
      stat("consistency", fixed(p.consistency), `${count(consistent)} of ${count(p.pairs)} pairs`),
      stat("position bias", fixed(p.position_bias), "share naming the first answer; 0.5 is none"),
    ),
    p.position_note
      ? h("p", { class: "note", "data-test": "position-note" }, p.position_note)
      : null,
  );
}

function net(value: number | null): string {
  return value === null ? "n/a" : signed(value);
}
