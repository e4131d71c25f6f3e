import { describe, expect, it } from "vitest";
import { createRng } from "../../src/stats/rng.js";

const draw = (seed: number | undefined, count: number) => {
  const rng = seed === undefined ? createRng() : createRng(seed);
  return Array.from({ length: count }, () => rng.uint32());
};

describe("createRng", () => {
  it("repeats its sequence for the same seed, and seed 0 is the default", () => {
    expect(draw(42, 50)).toEqual(draw(42, 50));
    expect(draw(undefined, 20)).toEqual(draw(0, 20));
  });

  it("gives unrelated sequences for neighbouring and large seeds", () => {
    const a = draw(0, 20);
    expect(draw(1, 20)).not.toEqual(a);
    expect(draw(2 ** 32, 20)).not.toEqual(a);
  });

  it("produces uniforms strictly inside (0, 1) with the right mean and spread", () => {
    const rng = createRng(7);
    const n = 200_000;
    let sum = 0;
    let sumSq = 0;
    let lowest = 1;
    let highest = 0;
    for (let i = 0; i < n; i++) {
      const u = rng.uniform();
      sum += u;
      sumSq += u * u;
      lowest = Math.min(lowest, u);
      highest = Math.max(highest, u);
    }
    expect(lowest).toBeGreaterThan(0);
    expect(highest).toBeLessThan(1);
    // Mean 1/2 (se 0.00065), variance 1/12.
    expect(Math.abs(sum / n - 0.5)).toBeLessThan(0.003);
    expect(Math.abs(sumSq / n - (sum / n) ** 2 - 1 / 12)).toBeLessThan(0.002);
  });

  it("rejects a non-finite seed", () => {
    expect(() => createRng(Number.NaN)).toThrow(RangeError);
  });
});
