/**
 * The statistics of a pairwise run: counts, the candidate's net win rate with its interval, swap
 * consistency, position bias, and the gate.
 *
 * The item (a case) is the unit, as everywhere in eb: an item's net win rate is
 * (wins − losses) / pairs over its samples, and the run's is the mean over items. Its interval is
 * the one `eb report` gives a pass rate (Clopper–Pearson on the effective number of trials, see
 * effectiveTrials) applied to the item scores (1 + net) / 2, which lie in [0, 1], and mapped back
 * to [−1, 1]. Unlike a t or bootstrap interval it does not collapse to a point when every item
 * scores alike, so three clean wins do not pass on no evidence: with n items that all win, the
 * lower bound is 2 · 0.025^(1/n) − 1 (about −0.42 for 3 items, +0.08 for 6).
 */

import type { Winner } from "../judge/verdict.js";
import {
  MIN_CONSISTENCY,
  type PairCase,
  type PairCounts,
  type PairStats,
  type PairVerdictName,
} from "../report/blocks.js";
import type { PairOutcome } from "../report/record.js";
import { groupBy, type ItemAgg, mean, passRateInterval } from "../stats/interval.js";

/** What the statistics need of a row. */
export interface JudgedPair {
  id: string;
  stratum: string;
  /** Null for an error: a call failed, or an answer is missing. */
  outcome: PairOutcome | null;
  /** The winners named in the two orders (null for an order with no verdict). */
  winners: readonly (Winner | null)[];
}

export function countPairs(pairs: readonly JudgedPair[]): PairCounts {
  const counts: PairCounts = { wins: 0, ties: 0, losses: 0, inconsistent: 0, errors: 0, pairs: 0 };
  const field = { win: "wins", tie: "ties", loss: "losses", inconsistent: "inconsistent" } as const;
  for (const pair of pairs) {
    if (pair.outcome === null) {
      counts.errors++;
      continue;
    }
    counts[field[pair.outcome]]++;
    counts.pairs++;
  }
  return counts;
}

/** Each item's counts and net win rate, in the order the items first appear. */
export function itemStats(pairs: readonly JudgedPair[]): PairCase[] {
  return [...groupBy(pairs, (pair) => pair.id).values()].map((group) => {
    const counts = countPairs(group);
    return { id: group[0]!.id, stratum: group[0]!.stratum, ...counts, net_win_rate: netOf(counts) };
  });
}

function netOf(counts: PairCounts): number | null {
  return counts.pairs === 0 ? null : (counts.wins - counts.losses) / counts.pairs;
}

/** The statistics of these pairs (a run's, or one stratum's), intervals at `level`. */
export function pairStats(pairs: readonly JudgedPair[], level: number): PairStats {
  const counts = countPairs(pairs);
  const items = itemStats(pairs).filter((item) => item.pairs > 0);
  const interval = netWinInterval(items, level);
  const judged = pairs.filter((pair) => pair.outcome !== null);
  const named = judged.flatMap((pair) => pair.winners.filter((w) => w === "A" || w === "B"));
  const consistent = counts.pairs - counts.inconsistent;
  return {
    ...counts,
    items: items.length,
    ...interval,
    consistency: counts.pairs === 0 ? null : consistent / counts.pairs,
    position_bias: named.length === 0 ? null : named.filter((w) => w === "A").length / named.length,
  };
}

/**
 * The mean of the items' net win rates and its interval: the pass-rate interval of the item
 * scores (1 + net) / 2, each over the item's pairs, mapped back to [−1, 1].
 */
export function netWinInterval(
  items: readonly Pick<PairCase, "id" | "pairs" | "wins" | "losses">[],
  level: number,
): Pick<PairStats, "net_win_rate" | "ci_low" | "ci_high"> {
  if (items.length === 0) return { net_win_rate: null, ci_low: null, ci_high: null };
  // (1 + net) / 2 of an item's pairs: a win counts 1, a tie or an inconsistent pair 1/2.
  const aggs: ItemAgg[] = items.map((item) => ({
    id: item.id,
    n: item.pairs,
    sum: (item.pairs + item.wins - item.losses) / 2,
  }));
  const { low, high } = passRateInterval(aggs, "clopper-pearson", { level });
  const net = mean(items.map((item) => (item.wins - item.losses) / item.pairs));
  return { net_win_rate: net, ci_low: 2 * low - 1, ci_high: 2 * high - 1 };
}

/**
 * The gate, as eb compare's on the net win rate: pass when its lower bound is above −margin,
 * regression when its upper bound is below −margin, else inconclusive. Always inconclusive when
 * fewer than half the pairs are consistent (a judge that mostly follows position says nothing
 * about the answers), and no pass while pairs are left unjudged: errors, or pairs a run that did
 * not finish (`complete` false: interrupted, or stopped by --max-cost) never got to.
 */
export function pairVerdict(stats: PairStats, margin: number, complete = true): PairVerdictName {
  const { ci_low: low, ci_high: high, consistency } = stats;
  if (low === null || high === null || consistency === null) return "inconclusive";
  if (consistency < MIN_CONSISTENCY) return "inconclusive";
  if (high < -margin) return "regression";
  if (low > -margin && stats.errors === 0 && complete) return "pass";
  return "inconclusive";
}

/** Per-stratum statistics, sorted by name. */
export function strataStats(
  pairs: readonly JudgedPair[],
  level: number,
): (PairStats & { stratum: string })[] {
  return [...groupBy(pairs, (pair) => pair.stratum).entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([stratum, group]) => ({ stratum, ...pairStats(group, level) }));
}
