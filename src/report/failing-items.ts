import type { RowTally } from "./row-tally.js";
import { fixed } from "./summary-text.js";

/** An item with a failed or errored sample, and why the first of them fell short. */
export interface FailingItem {
  id: string;
  score: number;
  samples: number;
  errors: number;
  reason: string;
}

/** Items `eb report` lists unless `--all` is given. */
export const FAILING_LISTED = 10;

/** Ids are padded to line up up to this width; a longer one just pushes its line on. */
const ID_WIDTH = 40;

/** Every item that fell short, worst first: lowest score, then most errors, then by id. */
export function failingItems(tally: RowTally): FailingItem[] {
  return [...tally.items.values()]
    .flatMap((item) =>
      item.problem === null
        ? []
        : [
            {
              id: item.id,
              score: item.sum / item.n,
              samples: item.n,
              errors: item.errors,
              reason: item.problem,
            },
          ],
    )
    .sort(
      (a, b) =>
        a.score - b.score || b.errors - a.errors || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
}

/** `eb report`'s list of the items that fell short, at most `limit` of them (null: all). */
export function failingItemsText(items: readonly FailingItem[], limit: number | null): string {
  if (items.length === 0) return "every item passed every sample\n";
  const shown = limit === null ? items : items.slice(0, limit);
  const width = Math.min(ID_WIDTH, Math.max(...shown.map((item) => item.id.length)));
  const lines = shown.map((item) => {
    const errors = item.errors > 0 ? `, ${plural(item.errors, "error")}` : "";
    const score = `${fixed(item.score, 2)} (${plural(item.samples, "sample")}${errors})`;
    return `  ${item.id.padEnd(width)}  ${score}  ${item.reason}`;
  });
  const more = items.length - shown.length;
  return [
    `fell short: ${plural(items.length, "item")}, worst first`,
    ...lines,
    ...(more > 0 ? [`  … and ${more} more (--all lists every one)`] : []),
    "",
  ].join("\n");
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
