import type { PairwiseBlock } from "../../../report/blocks.js";
import { PAIR_VERDICT_TEXT } from "../../pair-verdict-text.js";
import { heroCard, marginMarks, statsRow, verdictLine } from "./card.js";
import { bounds, count, counted, fixed, para, percent, signed } from "./dom.js";

/**
 * A pairwise run's counts (a tie is its own outcome, not a loss), the net win rate with its
 * interval and verdict, and what the judge's verdicts say of the order the answers were shown in.
 */
export function pairwiseSummary(p: PairwiseBlock): HTMLElement {
  const ci = `${percent(p.level)} CI ${bounds(p.ci_low, p.ci_high, signed)}`;
  const consistent = p.pairs - p.inconsistent;
  return heroCard({
    id: "pairwise",
    title: `Pairwise judgement by ${p.judge_model}`,
    before: [
      statsRow(
        [
          ["wins", count(p.wins), "both orders chose the candidate"],
          ["ties", count(p.ties), "both orders said tie"],
          ["losses", count(p.losses), "both orders chose the baseline"],
          ["inconsistent", count(p.inconsistent), "the orders disagree"],
          ["errors", count(p.errors), "pairs with no verdict"],
        ],
        { class: "stats counts", "data-test": "pair-counts" },
      ),
    ],
    lines: [
      verdictLine(p.verdict, "pair-verdict"),
      { class: "big", test: "net-win-rate", text: signed(p.net_win_rate) },
      { class: "ci", text: `net win rate · ${ci} over ${counted(p.items, "case")}` },
    ],
    bar: {
      estimate: p.net_win_rate,
      low: p.ci_low,
      high: p.ci_high,
      scale: { min: -1, max: 1, marks: marginMarks(p.margin, "no preference") },
      label: `net win rate, ${ci}`,
      ticks: ["−1", "0", "+1"],
    },
    notes: [
      `${PAIR_VERDICT_TEXT[p.verdict]} (margin ${p.margin}; a tie or an inconsistent pair counts neither way).`,
    ],
    after: [
      statsRow([
        [
          "consistency",
          fixed(p.consistency),
          `${count(consistent)} of ${counted(p.pairs, "pair")}`,
        ],
        ["position bias", fixed(p.position_bias), "share naming the first answer; 0.5 is none"],
      ]),
      para(p.position_note, "note", "position-note"),
    ],
  });
}
