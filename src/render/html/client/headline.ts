import type { LeaderboardEntry } from "../../../report/blocks.js";
import type { RunDocument } from "../../../report/document.js";
import type { RunData } from "../model.js";
import { counted, h, para } from "./dom.js";

/**
 * What the page leads with: the verdict in one word, the rule that decided it under it, then
 * what qualifies it (a merge of shards, samples that never ran, a budget, the baseline).
 */
export function headline(run: RunData, baseline: RunData | null): HTMLElement {
  const { doc } = run;
  const { merged } = doc.run;
  const name = (d: RunDocument) => d.run_id ?? d.output_dir;
  return h(
    "section",
    { class: `card headline ${doc.verdict.outcome}`, "aria-labelledby": "verdict" },
    // PASSED, FAILED, …, BUDGET EXHAUSTED.
    verdictWord(doc.verdict.outcome.replace("_", " ").toUpperCase()),
    para(doc.verdict.rule, "rule", "rule"),
    para(
      baseline && `The candidate ${name(doc)} against the baseline ${name(baseline.doc)}.`,
      "note",
      "against",
    ),
    para(
      merged &&
        `A merge of ${counted(merged.shards.length, "shard")} (${merged.shards.join(", ")}): runs ${merged.runs.join(", ")}.`,
      "note",
      "merged",
    ),
    para(
      run.notRun && `⚠ ${run.notRun}. The figures are over the items that ran.`,
      "warn",
      "not-run",
    ),
    para(
      doc.budget &&
        `Budget: spent about $${doc.budget.spent.toFixed(4)} of --max-cost $${doc.budget.max_cost.toFixed(4)}.`,
    ),
  );
}

/** A leaderboard leads with its best run and how many the data cannot tell from it. */
export function leaderboardHeadline(
  entries: readonly LeaderboardEntry[],
  rule: string | null,
): HTMLElement {
  const ties = entries.filter((e) => !e.best && e.indistinguishable_from_best).length;
  const others =
    ties === 0
      ? "every other run is worse beyond noise"
      : `${counted(ties, "other run")} cannot be told from it`;
  return h(
    "section",
    { class: "card headline leaderboard", "aria-labelledby": "verdict" },
    verdictWord(`BEST: ${entries[0]?.run_id ?? "none"}`),
    para(`${counted(entries.length, "run")} ranked by pass rate; ${others}.`, "rule", "best"),
    para(rule && `${rule}.`, "note", "rule"),
  );
}

function verdictWord(word: string): HTMLElement {
  return h("div", { class: "verdict-word", id: "verdict", "data-test": "verdict" }, word);
}
