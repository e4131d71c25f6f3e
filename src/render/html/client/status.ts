import type { Change } from "../../../report/blocks.js";
import type { DocumentItem, Outcome, VerdictOutcome } from "../../../report/document.js";
import { h } from "./dom.js";

export type ItemOutcome = "passed" | "failed" | "error";

/** The item's outcome as eb's gate sees it: an error sample first, then a shortfall. */
export function outcomeOf(item: DocumentItem): ItemOutcome {
  if (item.errors > 0) return "error";
  return item.problem !== null || item.score < 1 ? "failed" : "passed";
}

export function isFlaky(item: DocumentItem): boolean {
  return item.score > 0 && item.score < 1;
}

const BADGES: Record<ItemOutcome, { icon: string; text: string; class: string }> = {
  passed: { icon: "✓", text: "pass", class: "pass" },
  failed: { icon: "✗", text: "fail", class: "fail" },
  error: { icon: "!", text: "error", class: "error" },
};

/** Icon and word as well as colour: the status reads the same without colour. */
export function outcomeBadge(outcome: ItemOutcome): HTMLElement {
  const badge = BADGES[outcome];
  return h("span", { class: `pill ${badge.class}` }, `${badge.icon} ${badge.text}`);
}

export function flakyBadge(): HTMLElement {
  return h("span", { class: "pill flaky", title: "scored strictly between 0 and 1" }, "~ flaky");
}

const CHANGES: Record<Change, { icon: string; class: string }> = {
  broke: { icon: "▼", class: "fail" },
  fixed: { icon: "▲", class: "pass" },
  changed: { icon: "≠", class: "flaky" },
  same: { icon: "=", class: "" },
  new: { icon: "+", class: "" },
  gone: { icon: "−", class: "" },
};

export function changeBadge(change: Change): HTMLElement {
  const badge = CHANGES[change];
  return h("span", { class: `pill ${badge.class}` }, `${badge.icon} ${change}`);
}

export const PAIR_OUTCOMES = ["loss", "inconsistent", "tie", "win", "error"] as const;
/** How one pair came out for the candidate; a tie is no failure. */
export type PairOutcome = (typeof PAIR_OUTCOMES)[number];

const PAIRS: Record<PairOutcome, { icon: string; class: string }> = {
  win: { icon: "▲", class: "pass" },
  tie: { icon: "=", class: "" },
  loss: { icon: "▼", class: "fail" },
  inconsistent: { icon: "≠", class: "flaky" },
  error: { icon: "!", class: "error" },
};

/**
 * A pair's outcome. A pairwise row scores only a win as 1, so its status cannot tell a tie from
 * a loss; its reason starts with the outcome (`tie: baseline first: …`, src/pairwise/judge-pair).
 */
export function pairOutcome(sample: Outcome): PairOutcome {
  if (sample.status === "error") return "error";
  const word = /^(win|tie|loss|inconsistent):/.exec(sample.reason ?? "")?.[1];
  return word === undefined ? (sample.status === "passed" ? "win" : "loss") : (word as PairOutcome);
}

const PLURALS: Record<PairOutcome, string> = {
  win: "wins",
  tie: "ties",
  loss: "losses",
  inconsistent: "inconsistent",
  error: "errors",
};

export function pairBadge(outcome: PairOutcome, times = 1): HTMLElement {
  const badge = PAIRS[outcome];
  const text = times === 1 ? outcome : `${times} ${PLURALS[outcome]}`;
  return h("span", { class: `pill ${badge.class}` }, `${badge.icon} ${text}`);
}

export const VERDICT_WORDS: Record<VerdictOutcome, string> = {
  passed: "PASSED",
  failed: "FAILED",
  regression: "REGRESSION",
  inconclusive: "INCONCLUSIVE",
  budget_exhausted: "BUDGET EXHAUSTED",
  interrupted: "INTERRUPTED",
};
