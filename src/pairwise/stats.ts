/**
 * The statistics of a pairwise run: counts, the candidate's net win rate with its interval, swap
 * consistency, the judge's order effect, and the gate.
 *
 * Position is modelled as Davidson & Beaver's (1977) order effect: in each order the judge's odds
 * for the answer shown first are θ times what its quality alone gives. Under that model a pair
 * judged in both orders comes out a win, a loss or a tie with chances in the ratio
 * πc² : πb² : ν²πcπb, whatever θ (θ multiplies all three alike); θ only decides how many pairs
 * come out inconsistent. So the inconsistent pairs are left out, and the net win rate is over the
 * consistent ones: a judge that often follows position leaves fewer pairs to decide on, which
 * widens the interval, and one that always does leaves none. No threshold on consistency.
 *
 * The item (a case) is the unit, as everywhere in eb: an item's net win rate is
 * (wins − losses) / consistent pairs over its samples, and the run's is the mean over items. Its
 * interval is Tango's score interval for a paired difference with ties (src/stats/tango.ts): the
 * win share minus the loss share, a tie counted as neither, each item one unit.
 */

import type { Winner } from "../judge/verdict.js";
import type { PairCase, PairCounts, PairStats, PairVerdictName } from "../report/blocks.js";
import type { PairOutcome } from "../report/record.js";
import { groupBy, mean } from "../stats/interval.js";
import { tangoBounds } from "../stats/tango.js";

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
  const consistent = counts.pairs - counts.inconsistent;
  return consistent === 0 ? null : (counts.wins - counts.losses) / consistent;
}

/** The statistics of these pairs (a run's, or one stratum's), intervals at `level`. */
export function pairStats(pairs: readonly JudgedPair[], level: number): PairStats {
  const counts = countPairs(pairs);
  const items = itemStats(pairs).filter((item) => item.pairs > item.inconsistent);
  const judged = pairs.filter((pair) => pair.outcome !== null);
  const named = judged.flatMap((pair) => pair.winners.filter((w) => w === "A" || w === "B"));
  const consistent = counts.pairs - counts.inconsistent;
  return {
    ...counts,
    items: items.length,
    ...netWinInterval(items, level),
    consistency: counts.pairs === 0 ? null : consistent / counts.pairs,
    position_bias: named.length === 0 ? null : named.filter((w) => w === "A").length / named.length,
    order_effect: orderEffect(judged),
  };
}

/**
 * Davidson & Beaver's order effect θ: under their model a pair whose two orders both named the
 * answer shown first is θ² times as likely as one whose two orders both named the one shown
 * second (the answers' qualities cancel), so θ = √(first / second), here with a half added to
 * each count (Haldane's correction) so that it stays finite. 1: no order effect. Null with no
 * pair judged.
 */
function orderEffect(judged: readonly JudgedPair[]): number | null {
  if (judged.length === 0) return null;
  const both = (w: Winner) => judged.filter((p) => p.winners.every((x) => x === w)).length;
  return Math.sqrt((both("A") + 0.5) / (both("B") + 0.5));
}

/**
 * The mean of the items' net win rates and its interval: Tango's score interval of the mean win
 * share minus the mean loss share, over the items' consistent pairs, each item one unit.
 */
export function netWinInterval(
  items: readonly Pick<PairCase, "id" | "pairs" | "wins" | "losses" | "inconsistent">[],
  level: number,
): Pick<PairStats, "net_win_rate" | "ci_low" | "ci_high"> {
  if (items.length === 0) return { net_win_rate: null, ci_low: null, ci_high: null };
  const consistent = (item: (typeof items)[number]) => item.pairs - item.inconsistent;
  const wins = mean(items.map((item) => item.wins / consistent(item)));
  const losses = mean(items.map((item) => item.losses / consistent(item)));
  const [low, high] = tangoBounds(wins, losses, items.length, level);
  return { net_win_rate: wins - losses, ci_low: low, ci_high: high };
}

/**
 * The gate, as eb compare's on the net win rate: pass when its lower bound is above −margin,
 * regression when its upper bound is below −margin, else inconclusive; and no pass while pairs
 * are left unjudged: errors, or pairs a run that did not finish (`complete` false: interrupted,
 * or stopped by --max-cost) never got to.
 */
export function pairVerdict(stats: PairStats, margin: number, complete = true): PairVerdictName {
  const { ci_low: low, ci_high: high } = stats;
  if (low === null || high === null) return "inconclusive";
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
