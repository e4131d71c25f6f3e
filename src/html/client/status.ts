import type { Change, ItemView, SampleView } from "../model.js";
import { h } from "./dom.js";

export type Outcome = "passed" | "failed" | "error";

/** The item's outcome as eb's gate sees it: an error sample first, then a failed one. */
export function outcomeOf(item: ItemView): Outcome {
  if (item.errors > 0) return "error";
  return item.problem !== null ? "failed" : "passed";
}

export function isFlaky(item: ItemView): boolean {
  return item.passed > 0 && item.passed < item.n;
}

const BADGES: Record<Outcome, { icon: string; text: string; class: string }> = {
  passed: { icon: "✓", text: "pass", class: "pass" },
  failed: { icon: "✗", text: "fail", class: "fail" },
  error: { icon: "!", text: "error", class: "error" },
};

/** Icon and word as well as colour: the status reads the same without colour. */
export function outcomeBadge(outcome: Outcome | SampleView["status"]): HTMLElement {
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
