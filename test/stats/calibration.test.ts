import { describe, expect, it } from "vitest";
import {
  cohensKappa,
  correctedPassRate,
  MIN_LABELS_PER_VERDICT,
  refusal,
} from "../../src/stats/calibration.js";

describe("calibration statistics", () => {
  it("κ is 1 for perfect agreement, 0 for agreement at chance, and null when chance is 1", () => {
    expect(cohensKappa({ tp: 30, fn: 0, tn: 20, fp: 0 }, 0.95).estimate).toBe(1);
    // The judge passes half of each verdict's samples: as often as chance would.
    expect(cohensKappa({ tp: 10, fn: 10, tn: 15, fp: 15 }, 0.95).estimate).toBeCloseTo(0, 12);
    expect(cohensKappa({ tp: 40, fn: 0, tn: 0, fp: 0 }, 0.95)).toEqual({
      estimate: null,
      low: null,
      high: null,
    });
  });

  it("κ's interval stays within [-1, 1] and widens with fewer labels", () => {
    const many = cohensKappa({ tp: 90, fn: 10, tn: 80, fp: 20 }, 0.95);
    const few = cohensKappa({ tp: 9, fn: 1, tn: 8, fp: 2 }, 0.95);
    expect(many.estimate).toBeCloseTo(few.estimate!, 12);
    expect(few.high! - few.low!).toBeGreaterThan(2.5 * (many.high! - many.low!));
    const perfect = cohensKappa({ tp: 5, fn: 0, tn: 5, fp: 0 }, 0.95);
    expect(perfect.high).toBeLessThanOrEqual(1);
  });

  it("a perfect judge's corrected rate is its raw rate; a lenient one's is lower", () => {
    const perfect = { tp: 50, fn: 0, tn: 50, fp: 0 };
    expect(correctedPassRate({ estimate: 0.7, trials: 200 }, perfect, 0.95).estimate).toBe(0.7);
    const lenient = { tp: 50, fn: 0, tn: 35, fp: 15 };
    const corrected = correctedPassRate({ estimate: 0.7, trials: 200 }, lenient, 0.95);
    // (0.7 + 0.7 − 1) / (1 + 0.7 − 1).
    expect(corrected.estimate).toBeCloseTo(0.4 / 0.7, 12);
    expect(corrected.low!).toBeLessThan(corrected.estimate!);
    expect(corrected.high!).toBeGreaterThan(corrected.estimate!);
  });

  it("clips the corrected rate and its bounds to [0, 1]", () => {
    // A raw rate below 1 − TNR: people would pass fewer than none.
    const corrected = correctedPassRate(
      { estimate: 0.15, trials: 100 },
      { tp: 40, fn: 10, tn: 40, fp: 10 },
      0.95,
    );
    expect(corrected.estimate).toBe(0);
    expect(corrected.low).toBe(0);
    expect(corrected.high!).toBeGreaterThan(0);
  });

  it("refuses too few labels of a verdict before it looks at TPR + TNR", () => {
    const few = MIN_LABELS_PER_VERDICT - 1;
    expect(refusal({ tp: 50, fn: 0, tn: few, fp: 0 })).toEqual({
      kind: "too-few-labels",
      passes: 50,
      fails: few,
      need: MIN_LABELS_PER_VERDICT,
    });
    expect(refusal({ tp: 5, fn: 10, tn: 5, fp: 10 })?.kind).toBe("no-better-than-chance");
    expect(refusal({ tp: 10, fn: 0, tn: 10, fp: 0 })).toBeNull();
  });
});
