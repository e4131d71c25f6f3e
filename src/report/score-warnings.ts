import type { ItemAgg } from "../stats/interval.js";

/**
 * Scores the statistics take in a way a reader should know: a sample scored strictly between 0
 * and 1 (the article's rows allow it) counts as its pass probability, which keeps the intervals
 * valid (conservative: a fraction varies less than a 0/1 score) but leaves pass@k out.
 */
export function fractionalScoreWarning(items: Iterable<ItemAgg>, run: string): string[] {
  let fractional = 0;
  for (const item of items) if (!Number.isInteger(item.sum)) fractional += 1;
  if (fractional === 0) return [];
  return [
    `${fractional} item(s) of the ${run} have samples scored between 0 and 1: each such score counts as a pass probability (the intervals stay valid, a little wide); pass@k and pass^k are left out`,
  ];
}

/** Samples per item, as "3" or "1–5". */
function samplesPerItem(items: Iterable<ItemAgg>): string {
  let fewest = Number.POSITIVE_INFINITY;
  let most = 0;
  for (const item of items) {
    fewest = Math.min(fewest, item.n);
    most = Math.max(most, item.n);
  }
  if (most === 0) return "0";
  return fewest === most ? String(most) : `${fewest}–${most}`;
}

/**
 * Runs with different samples per item compare fairly (item scores are means), but not alike:
 * the one with more samples has less noise per item, so a difference in flakiness shows as one.
 */
export function samplesPerItemWarning(base: Iterable<ItemAgg>, cand: Iterable<ItemAgg>): string[] {
  const [b, c] = [samplesPerItem(base), samplesPerItem(cand)];
  if (b === c) return [];
  return [
    `the runs have different samples per item (baseline k=${b}, candidate k=${c}): item scores are compared as pass rates, which is fair, but the runs' noise differs; rerun with the same k to compare like with like`,
  ];
}
