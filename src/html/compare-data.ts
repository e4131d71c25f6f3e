import type { RunComparison } from "../report/compare-runs.js";
import type { Change, CompareView, ItemView, RunView } from "./model.js";

/**
 * The comparison as `eb compare` computed it (never recomputed here), plus how each item moved:
 * broke and fixed are the comparison's own lists; changed is a paired item whose score held but
 * whose outcome or answer per sample did not.
 */
export function compareView(c: RunComparison, base: RunView, cand: RunView): CompareView {
  const changes: Record<string, Change> = {};
  const baseItems = new Map(base.items.map((item) => [item.id, item]));
  const candIds = new Set(cand.items.map((item) => item.id));
  for (const item of cand.items) {
    const before = baseItems.get(item.id);
    changes[item.id] = before === undefined ? "new" : differs(before, item) ? "changed" : "same";
  }
  for (const item of base.items) if (!candIds.has(item.id)) changes[item.id] = "gone";
  for (const id of c.broke) changes[id] = "broke";
  for (const id of c.fixed) changes[id] = "fixed";
  return {
    delta: c.delta,
    low: c.low,
    high: c.high,
    level: c.level,
    method: c.method,
    n: c.n,
    margin: c.margin,
    verdict: c.verdict,
    mde: Number.isNaN(c.mde) ? null : c.mde,
    itemsNeeded: c.itemsNeeded,
    strata: c.strata,
    warnings: c.warnings,
    changes,
  };
}

function differs(a: ItemView, b: ItemView): boolean {
  if (a.samples.length !== b.samples.length) return true;
  return a.samples.some((sample, i) => {
    const other = b.samples[i]!;
    return (
      sample.status !== other.status ||
      (sample.answer?.text ?? null) !== (other.answer?.text ?? null) ||
      (sample.stdout?.text ?? null) !== (other.stdout?.text ?? null)
    );
  });
}
