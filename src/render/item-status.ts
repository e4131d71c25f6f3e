import type { DocumentItem } from "../report/document.js";

export type ItemStatus = "passed" | "failed" | "error";

/** An item's status as the gate sees it: an error sample first, then any sample short of a pass. */
export function itemStatus(item: DocumentItem): ItemStatus {
  if (item.errors > 0) return "error";
  return item.problem !== null || item.score < 1 ? "failed" : "passed";
}

export function isFlaky(item: DocumentItem): boolean {
  return item.score > 0 && item.score < 1;
}

/** How many items passed, failed and errored. */
export function itemCounts(items: readonly DocumentItem[]): Record<ItemStatus, number> {
  const counts = { passed: 0, failed: 0, error: 0 };
  for (const item of items) counts[itemStatus(item)]++;
  return counts;
}
