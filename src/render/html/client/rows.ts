import type { Change } from "../../../report/blocks.js";
import type { DocumentItem } from "../../../report/document.js";
import { isFlaky } from "../../item-status.js";
import type { RunData } from "../model.js";
import { type PairOutcome, pairOutcome } from "./status.js";

/** An item of one run, with where its files are. */
export interface Side {
  item: DocumentItem;
  run: RunData;
}

/** A row of the items table: the candidate's item (or the baseline's, for an item it lost). */
export interface Row {
  side: Side;
  /** On a compare page: the baseline's side of the pair; null elsewhere and for a new item. */
  base: Side | null;
  change: Change | null;
  /** On a pairwise page: each sample's outcome. */
  pairs: PairOutcome[] | null;
  /** Lower-cased id, stratum, tags and reason, for the search box. */
  haystack: string;
}

export interface Filter {
  key: string;
  label: string;
  keep: (row: Row) => boolean;
}

/** The kind of list: a run's, a compare's (what moved), a pairwise run's (how pairs came out). */
export type Mode = "run" | "compare" | "pairwise";

const RUN_FILTERS: Filter[] = [
  { key: "all", label: "All", keep: () => true },
  { key: "failed", label: "Failed", keep: (row) => row.side.item.score < 1 },
  { key: "errors", label: "Errors", keep: (row) => row.side.item.errors > 0 },
  { key: "flaky", label: "Flaky", keep: (row) => isFlaky(row.side.item) },
];

/** What changed, first: broke, then fixed, then changed (rows come in that order). */
const MOVED: ReadonlySet<Change | null> = new Set(["broke", "fixed", "changed"]);

const COMPARE_FILTERS: Filter[] = [
  { key: "changed", label: "Changed", keep: (row) => MOVED.has(row.change) },
  { key: "broke", label: "Broke", keep: (row) => row.change === "broke" },
  { key: "fixed", label: "Fixed", keep: (row) => row.change === "fixed" },
  { key: "all", label: "All", keep: () => true },
];

const has = (outcome: PairOutcome) => (row: Row) => row.pairs?.includes(outcome) ?? false;

const PAIRWISE_FILTERS: Filter[] = [
  { key: "all", label: "All", keep: () => true },
  { key: "loss", label: "Losses", keep: has("loss") },
  { key: "inconsistent", label: "Inconsistent", keep: has("inconsistent") },
  { key: "tie", label: "Ties", keep: has("tie") },
  { key: "win", label: "Wins", keep: has("win") },
  { key: "error", label: "Errors", keep: has("error") },
];

export const FILTERS: Record<Mode, Filter[]> = {
  run: RUN_FILTERS,
  compare: COMPARE_FILTERS,
  pairwise: PAIRWISE_FILTERS,
};

/** One run's items, in the document's order: worst first. */
export function runRows(run: RunData, mode: Mode): Row[] {
  return run.doc.items.map((item) =>
    rowOf({ item, run }, null, null, mode === "pairwise" ? item.outcomes.map(pairOutcome) : null),
  );
}

/**
 * A compare page's rows: broke (largest drop first), fixed (largest gain first), changed, then
 * every other item in the candidate's order (worst first), then the items it lost.
 */
export function compareRows(base: RunData, cand: RunData): Row[] {
  const changes = cand.doc.compare?.changes ?? {};
  const baseById = new Map(base.doc.items.map((item) => [item.id, item]));
  const candById = new Map(cand.doc.items.map((item) => [item.id, item]));
  const rank = (id: string) => {
    const change = changes[id] ?? null;
    if (change === "broke") return cand.doc.compare!.broke.indexOf(id);
    if (change === "fixed") return cand.doc.items.length + cand.doc.compare!.fixed.indexOf(id);
    return change === "changed" ? 2 * cand.doc.items.length : 3 * cand.doc.items.length;
  };
  const ids = [
    ...cand.doc.items.map((item) => item.id),
    ...base.doc.items.filter((item) => !candById.has(item.id)).map((item) => item.id),
  ];
  // A stable sort: within a rank, the candidate's worst-first order holds.
  return ids
    .map((id, order) => ({ id, order, rank: rank(id) }))
    .sort((a, b) => a.rank - b.rank || a.order - b.order)
    .map(({ id }) => {
      const was = baseById.get(id);
      const now = candById.get(id);
      const side = now ? { item: now, run: cand } : { item: was!, run: base };
      return rowOf(side, was ? { item: was, run: base } : null, changes[id] ?? null, null);
    });
}

function rowOf(
  side: Side,
  base: Side | null,
  change: Change | null,
  pairs: PairOutcome[] | null,
): Row {
  const { item } = side;
  const haystack = [item.id, item.stratum, ...item.tags, item.problem ?? ""]
    .join("\n")
    .toLowerCase();
  return { side, base, change, pairs, haystack };
}
