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

/** Tango's score interval for b gains and c losses of n, by its closed form in counts (Tango 1998, eq. 6). */
function tangoInCounts(b: number, c: number, n: number, z = 1.959963984540054): [number, number] {
  const score = (d: number) => {
    const A = 2 * n;
    const B = -b - c + (2 * n - b + c) * d;
    const C = -c * d * (1 - d);
    const q = (Math.sqrt(B * B - 4 * A * C) - B) / (2 * A);
    return (b - c - n * d) / Math.sqrt(n * (2 * q + d * (1 - d)));
  };
  const root = (target: number, from: number, to: number) => {
    for (let i = 0; i < 200; i++) {
      const middle = (from + to) / 2;
      if (score(middle) > target) from = middle;
      else to = middle;
    }
    return from;
  };
  return [root(z, -1 + 1e-12, (b - c) / n), root(-z, (b - c) / n, 1 - 1e-12)];
}

describe("the net win rate's interval: Tango's, ties counted as ties", () => {
  const one = (id: string, outcome: "win" | "loss" | "tie") => ({
    id,
    pairs: 1,
    wins: outcome === "win" ? 1 : 0,
    losses: outcome === "loss" ? 1 : 0,
    inconsistent: 0,
  });

  it("n items that all win: the lower bound is (n − z²)/(n + z²), the score bound at no loss", () => {
    const items = ["a", "b", "c"].map((id) => one(id, "win"));
    const interval = netWinInterval(items, 0.95);
    const z2 = 1.959963984540054 ** 2;
    expect(interval.net_win_rate).toBe(1);
    expect(interval.ci_low).toBeCloseTo((3 - z2) / (3 + z2), 8);
    expect(interval.ci_high).toBe(1);
  });

  it("3 wins, 1 loss and 6 ties, one pair each: Tango's interval for 3 gains and 1 loss of 10", () => {
    const items = [
      ...["a", "b", "c"].map((id) => one(id, "win")),
      one("d", "loss"),
      ...["e", "f", "g", "h", "i", "j"].map((id) => one(id, "tie")),
    ];
    const interval = netWinInterval(items, 0.95);
    const [low, high] = tangoInCounts(3, 1, 10);
    expect(interval.net_win_rate).toBeCloseTo(0.2, 12);
    expect(interval.ci_low).toBeCloseTo(low, 6);
    expect(interval.ci_high).toBeCloseTo(high, 6);
  });

  it("ties narrow the interval: 40 wins, 20 losses, 140 ties against the tie-as-coin-flip width", () => {
    const items = Array.from({ length: 200 }, (_, i) =>
      one(`i${i}`, i < 40 ? "win" : i < 60 ? "loss" : "tie"),
    );
    const { ci_low, ci_high } = netWinInterval(items, 0.95);
    const width = ci_high! - ci_low!;
    // A tie as half a win: binomial variance (1 − net²) per pair; counted as a tie, the
    // trinomial (wins + losses)/n − net² = 0.29: the interval is about √(0.99/0.29) ≈ 1.85 times
    // narrower.
    const coinFlip = 2 * 1.96 * Math.sqrt((1 - 0.1 ** 2) / 200);
    expect(coinFlip / width).toBeGreaterThan(1.75);
    expect(coinFlip / width).toBeLessThan(1.95);
  });

  it("the item is the unit: an item's pairs are averaged before items are", () => {
    // Item a wins 3 of 3 pairs, item b loses its 1: the mean of +1 and -1, not (3 - 1) / 4.
    const pairs = [pair("a", "win"), pair("a", "win"), pair("a", "win"), pair("b", "loss")];
    expect(pairStats(pairs, 0.95).net_win_rate).toBe(0);
  });
});

describe("counts, consistency and position bias", () => {
  it("inconsistent pairs are left out of the net and count against consistency; errors are left out", () => {
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
      items: 3,
      net_win_rate: 0,
      consistency: 0.75,
    });
    // Verdicts naming a winner: B, A (win), A, A (inconsistent), A, B (loss): 4 of 6 name A.
    expect(stats.position_bias).toBeCloseTo(4 / 6, 12);
    // One pair went to the first answer in both orders, none to the second: √(1.5 / 0.5).
    expect(stats.order_effect).toBeCloseTo(Math.sqrt(3), 12);
  });

  it("a judge that always names the first answer: bias 1, consistency 0", () => {
    const stats = pairStats([pair("a", "inconsistent"), pair("b", "inconsistent")], 0.95);
    expect(stats).toMatchObject({ consistency: 0, position_bias: 1, wins: 0, items: 0 });
    expect(stats.net_win_rate).toBeNull();
    expect(pairVerdict(stats, 0.02)).toBe("inconclusive");
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

  it("decides on the consistent pairs, however few: an unbiased but noisy judge is not blocked", () => {
    // 10 wins and 11 inconsistent pairs (consistency 0.48): the 10 wins alone decide, as under an
    // order effect a consistent pair is a win, loss or tie with the same odds whatever the effect.
    const inconsistent = Array.from({ length: 11 }, (_, i) => pair(`i${i}`, "inconsistent"));
    const noisy = pairStats([...wins(10), ...inconsistent], 0.95);
    expect(noisy.consistency).toBeLessThan(0.5);
    expect([noisy.ci_low, noisy.ci_high]).toEqual([
      pairStats(wins(10), 0.95).ci_low,
      pairStats(wins(10), 0.95).ci_high,
    ]);
    expect(pairVerdict(noisy, 0.02)).toBe("pass");
    // Fewer consistent pairs, a wider interval: 3 wins among 30 inconsistent pairs decide nothing.
    const few = pairStats(
      [...wins(3), ...inconsistent, ...inconsistent.map((p) => ({ ...p, id: `j${p.id}` }))],
      0.95,
    );
    expect(pairVerdict(few, 0.02)).toBe("inconclusive");
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
