import type { LeaderboardEntry } from "../../../report/blocks.js";
import type { RunData } from "../model.js";
import { h } from "./dom.js";
import { VERDICT_WORDS } from "./status.js";

/**
 * What the page leads with: the verdict in one word, the rule that decided it under it, then
 * what qualifies it (a merge of shards, samples that never ran, a budget, the baseline).
 */
export function headline(run: RunData, baseline: RunData | null): HTMLElement {
  const { doc } = run;
  const { merged } = doc.run;
  return h(
    "section",
    { class: `card headline ${doc.verdict.outcome}`, "aria-labelledby": "verdict" },
    h(
      "div",
      { class: "verdict-word", id: "verdict", "data-test": "verdict" },
      VERDICT_WORDS[doc.verdict.outcome],
    ),
    h("p", { class: "rule", "data-test": "rule" }, doc.verdict.rule),
    baseline
      ? h(
          "p",
          { class: "note", "data-test": "against" },
          `The candidate ${doc.run_id ?? doc.output_dir} against the baseline ${baseline.doc.run_id ?? baseline.doc.output_dir}.`,
        )
      : null,
    merged
      ? h(
          "p",
          { class: "note", "data-test": "merged" },
          `A merge of ${merged.shards.length} shards (${merged.shards.join(", ")}): runs ${merged.runs.join(", ")}.`,
        )
      : null,
    run.notRun
      ? h(
          "p",
          { class: "warn", "data-test": "not-run" },
          `⚠ ${run.notRun}. The figures are over the items that ran.`,
        )
      : null,
    doc.budget
      ? h(
          "p",
          { class: "note" },
          `Budget: spent about $${doc.budget.spent.toFixed(4)} of --max-cost $${doc.budget.max_cost.toFixed(4)}.`,
        )
      : null,
  );
}

/** A leaderboard leads with its best run and how many the data cannot tell from it. */
export function leaderboardHeadline(
  entries: readonly LeaderboardEntry[],
  rule: string | null,
): HTMLElement {
  const best = entries[0];
  const ties = entries.filter((e) => !e.best && e.indistinguishable_from_best).length;
  const others =
    ties === 0
      ? "every other run is worse beyond noise"
      : `${ties} other run${ties === 1 ? "" : "s"} cannot be told from it`;
  return h(
    "section",
    { class: "card headline leaderboard", "aria-labelledby": "verdict" },
    h(
      "div",
      { class: "verdict-word", id: "verdict", "data-test": "verdict" },
      `BEST: ${best?.run_id ?? "none"}`,
    ),
    h(
      "p",
      { class: "rule", "data-test": "best" },
      `${entries.length} runs ranked by pass rate; ${others}.`,
    ),
    rule ? h("p", { class: "note", "data-test": "rule" }, `${rule}.`) : null,
  );
}
