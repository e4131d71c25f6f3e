import { describe, expect, it } from "vitest";
import { adjustedLevel } from "../../src/stats/adjust.js";
import { passAtK, passAtKOfItem, passHatK, passHatKOfItem } from "../../src/stats/pass-at-k.js";
import { items } from "./helpers.js";

describe("pass@k and pass^k", () => {
  it("match hand-computed values for one item", () => {
    // 5 samples, 2 passes, k = 3: C(3,3)/C(5,3) = 1/10 of triples all fail; C(2,3) = 0 all pass.
    expect(passAtKOfItem(5, 2, 3)).toBeCloseTo(0.9, 12);
    expect(passHatKOfItem(5, 2, 3)).toBe(0);
    // k = 2: all fail C(3,2)/C(5,2) = 3/10; all pass C(2,2)/C(5,2) = 1/10.
    expect(passAtKOfItem(5, 2, 2)).toBeCloseTo(0.7, 12);
    expect(passHatKOfItem(5, 2, 2)).toBeCloseTo(0.1, 12);
    expect(passAtKOfItem(4, 0, 4)).toBe(0);
    expect(passHatKOfItem(4, 4, 4)).toBe(1);
  });

  it("average over items, k being the fewest samples of any item, with an interval", () => {
    // Items with 3 samples: 3/3, 1/3, 0/3 and one with 4 samples 2/4 (k = 3).
    const list = items([
      [3, 3],
      [1, 3],
      [0, 3],
      [2, 4],
    ]);
    const atK = passAtK(list)!;
    // pass@3: 1, 1, 0, and 1 − C(2,3)/C(4,3) = 1 → 3/4.
    expect(atK).toMatchObject({ k: 3, level: 0.95 });
    expect(atK.estimate).toBeCloseTo(0.75, 12);
    // pass^3: 1, 0, 0, C(2,3)/C(4,3) = 0 → 1/4.
    expect(passHatK(list)!.estimate).toBeCloseTo(0.25, 12);
    // Three of four items: the exact interval over 4 trials.
    expect(atK.low).toBeCloseTo(0.1941, 4);
    expect(atK.high).toBeCloseTo(0.9937, 4);
  });

  it("are absent at one sample per item and for fractional scores", () => {
    expect(
      passAtK(
        items([
          [1, 1],
          [0, 3],
        ]),
      ),
    ).toBeNull();
    expect(
      passHatK(
        items([
          [1.5, 3],
          [0, 3],
        ]),
      ),
    ).toBeNull();
    expect(passAtK([])).toBeNull();
  });
});

describe("adjustedLevel", () => {
  it("is Bonferroni's for many groups and the level itself otherwise", () => {
    expect(adjustedLevel(0.95, 10, "bonferroni")).toBeCloseTo(0.995, 12);
    expect(adjustedLevel(0.95, 10, "none")).toBe(0.95);
    expect(adjustedLevel(0.95, 1, "bonferroni")).toBe(0.95);
  });
});
