import type { Change } from "../../../report/blocks.js";
import type { DocumentItem, Outcome } from "../../../report/document.js";
import { type ItemStatus, isFlaky, itemStatus } from "../../item-status.js";
import { h } from "./dom.js";

/** How a pill looks: an icon and a word as well as a colour, so it reads the same without colour. */
type Look = { icon: string; class: string };

function pill(look: Look, text: string, title?: string): HTMLElement {
  return h("span", { class: `pill ${look.class}`, title }, `${look.icon} ${text}`);
}

const OUTCOMES: Record<ItemStatus, Look & { text: string }> = {
  passed: { icon: "✓", text: "pass", class: "pass" },
  failed: { icon: "✗", text: "fail", class: "fail" },
  error: { icon: "!", text: "error", class: "error" },
};

export function outcomeBadge(outcome: ItemStatus): HTMLElement {
  return pill(OUTCOMES[outcome], OUTCOMES[outcome].text);
}

/** An item's pass, fail or error, and whether it is flaky. */
export function itemBadges(item: DocumentItem): HTMLElement[] {
  const flaky = pill({ icon: "~", class: "flaky" }, "flaky", "scored strictly between 0 and 1");
  return [outcomeBadge(itemStatus(item)), ...(isFlaky(item) ? [flaky] : [])];
}

const CHANGES: Record<Change, Look> = {
  broke: { icon: "▼", class: "fail" },
  fixed: { icon: "▲", class: "pass" },
  changed: { icon: "≠", class: "flaky" },
  same: { icon: "=", class: "" },
  new: { icon: "+", class: "" },
  gone: { icon: "−", class: "" },
};

export function changeBadge(change: Change): HTMLElement {
  return pill(CHANGES[change], change);
}

/** How one pair came out for the candidate (a tie is no failure), worst first. */
const PAIRS = {
  loss: { icon: "▼", class: "fail", plural: "losses" },
  inconsistent: { icon: "≠", class: "flaky", plural: "inconsistent" },
  tie: { icon: "=", class: "", plural: "ties" },
  win: { icon: "▲", class: "pass", plural: "wins" },
  error: { icon: "!", class: "error", plural: "errors" },
} as const;

export type PairOutcome = keyof typeof PAIRS;

/** A pair's outcome; a pair without one had no verdict in some order. */
export function pairOutcome(sample: Outcome): PairOutcome {
  return sample.pair ?? "error";
}

export function pairBadge(outcome: PairOutcome, times = 1): HTMLElement {
  return pill(PAIRS[outcome], times === 1 ? outcome : `${times} ${PAIRS[outcome].plural}`);
}

/** How many pairs came out each way, worst first, leaving out the ways none did. */
export function pairCounts(pairs: readonly PairOutcome[]): [PairOutcome, number][] {
  return (Object.keys(PAIRS) as PairOutcome[])
    .map((o): [PairOutcome, number] => [o, pairs.filter((p) => p === o).length])
    .filter(([, n]) => n > 0);
}
