import { describe, expect, it } from "vitest";
import {
  type JudgedPair,
  netWinInterval,
  pairStats,
  pairVerdict,
  strataStats,
} from "../../src/pairwise/stats.js";
import type { PairOutcome } from "../../src/report/record.js";

const WINNERS = {
  win: ["B", "A"],
  loss: ["A", "B"],
  tie: ["tie", "tie"],
  inconsistent: ["A", "A"],
} as const;

function pair(id: string, outcome: PairOutcome | null, stratum = "s"): JudgedPair {
  return { id, stratum, outcome, winners: outcome === null ? [null, null] : WINNERS[outcome] };
}

describe("the net win rate's interval", () => {
  it("n items that all win: the lower bound is 2 * 0.025^(1/n) - 1 (Clopper-Pearson at 0 failures)", () => {
    const items = ["a", "b", "c"].map((id) => ({ id, pairs: 1, wins: 1, losses: 0 }));
    const interval = netWinInterval(items, 0.95);
    expect(interval.net_win_rate).toBe(1);
    expect(interval.ci_low).toBeCloseTo(2 * 0.025 ** (1 / 3) - 1, 9);
    expect(interval.ci_low).toBeCloseTo(-0.415196, 5);
    expect(interval.ci_high).toBe(1);
  });

  it("3 wins and 1 loss, one pair each: Clopper-Pearson 3 of 4 [0.19412, 0.99369] mapped to [-1, 1]", () => {
    const items = [
      { id: "a", pairs: 1, wins: 1, losses: 0 },
      { id: "b", pairs: 1, wins: 1, losses: 0 },
      { id: "c", pairs: 1, wins: 1, losses: 0 },
      { id: "d", pairs: 1, wins: 0, losses: 1 },
    ];
    const interval = netWinInterval(items, 0.95);
    expect(interval.net_win_rate).toBe(0.5);
    expect(interval.ci_low).toBeCloseTo(2 * 0.19412 - 1, 4);
    expect(interval.ci_high).toBeCloseTo(2 * 0.99369 - 1, 4);
  });

  it("the item is the unit: an item's pairs are averaged before items are", () => {
    // Item a wins 3 of 3 pairs, item b loses its 1: the mean of +1 and -1, not (3 - 1) / 4.
    const pairs = [pair("a", "win"), pair("a", "win"), pair("a", "win"), pair("b", "loss")];
    expect(pairStats(pairs, 0.95).net_win_rate).toBe(0);
  });
});

describe("counts, consistency and position bias", () => {
  it("inconsistent pairs count as ties in the net, against consistency; errors are left out", () => {
    const pairs = [
      pair("a", "win"),
      pair("b", "inconsistent"),
      pair("c", "tie"),
      pair("d", null),
      pair("e", "loss"),
    ];
    const stats = pairStats(pairs, 0.95);
    expect(stats).toMatchObject({
      wins: 1,
      ties: 1,
      losses: 1,
      inconsistent: 1,
      errors: 1,
      pairs: 4,
      items: 4,
      net_win_rate: 0,
      consistency: 0.75,
    });
    // Verdicts naming a winner: B, A (win), A, A (inconsistent), A, B (loss): 4 of 6 name A.
    expect(stats.position_bias).toBeCloseTo(4 / 6, 12);
  });

  it("a judge that always names the first answer: bias 1, consistency 0", () => {
    const stats = pairStats([pair("a", "inconsistent"), pair("b", "inconsistent")], 0.95);
    expect(stats).toMatchObject({ consistency: 0, position_bias: 1, wins: 0 });
  });

  it("per stratum, sorted by name", () => {
    const strata = strataStats([pair("a", "win", "z"), pair("b", "loss", "m")], 0.95);
    expect(strata.map((s) => [s.stratum, s.net_win_rate])).toEqual([
      ["m", -1],
      ["z", 1],
    ]);
  });
});

describe("the gate", () => {
  const wins = (n: number) => Array.from({ length: n }, (_, i) => pair(`w${i}`, "win"));
  const losses = (n: number) => Array.from({ length: n }, (_, i) => pair(`l${i}`, "loss"));

  it("pass above -margin, regression below it, inconclusive between", () => {
    expect(pairVerdict(pairStats(wins(6), 0.95), 0.02)).toBe("pass");
    expect(pairVerdict(pairStats(wins(3), 0.95), 0.02)).toBe("inconclusive");
    expect(pairVerdict(pairStats(losses(6), 0.95), 0.02)).toBe("regression");
  });

  it("always inconclusive when fewer than half of the pairs are consistent", () => {
    // 10 wins and 11 inconsistent: the net's lower bound is above 0, but the judge mostly
    // follows position.
    const inconsistent = Array.from({ length: 11 }, (_, i) => pair(`i${i}`, "inconsistent"));
    const stats = pairStats([...wins(10), ...inconsistent], 0.95);
    expect(stats.ci_low).toBeGreaterThan(-0.02);
    expect(pairVerdict(stats, 0.02)).toBe("inconclusive");
    expect(pairVerdict(pairStats([...wins(10), ...inconsistent.slice(1)], 0.95), 0.02)).toBe(
      "pass",
    );
  });

  it("not a pass while a pair has no verdict; no pair at all is inconclusive", () => {
    expect(pairVerdict(pairStats([...wins(8), pair("e", null)], 0.95), 0.02)).toBe("inconclusive");
    expect(pairVerdict(pairStats([pair("e", null)], 0.95), 0.02)).toBe("inconclusive");
    // Nor while a run that did not finish (interrupted, --max-cost) left pairs unjudged; a
    // regression it found stands.
    expect(pairVerdict(pairStats(wins(8), 0.95), 0.02, false)).toBe("inconclusive");
    expect(pairVerdict(pairStats(losses(8), 0.95), 0.02, false)).toBe("regression");
  });
});
