import { describe, expect, it } from "vitest";
import { JudgeNoiseTally } from "../../src/report/judge-noise.js";
import type { StoredRow } from "../../src/report/record.js";

const voted = (id: string, sample: number, votes: number[]): StoredRow => ({
  id,
  sample,
  score: 0,
  votes: { tone: votes },
});

const checked = (id: string, sample: number, score: number, status = "passed"): StoredRow => ({
  id,
  sample,
  score,
  status: status as StoredRow["status"],
  marks: { harness_judge: score === 1 },
});

function noiseOf(rows: readonly StoredRow[]) {
  const tally = new JudgeNoiseTally();
  for (const row of rows) tally.add(row);
  return tally.summary();
}

describe("the judge's noise", () => {
  it("splits a grader's verdicts into self-agreement, judge and model variance (hand-computed)", () => {
    // Item a: its two answers are judged all pass and all fail (the model's noise).
    // Item b: both answers get 2 of 3 (the judge's noise).
    const [tone] = noiseOf([
      voted("a", 0, [1, 1, 1]),
      voted("a", 1, [0, 0, 0]),
      voted("b", 0, [1, 1, 0]),
      voted("b", 1, [0, 1, 1]),
    ]);
    // Within an answer: 0, 0, 2·1/(3·2) = 1/3, 1/3 → mean 1/6; two verdicts agree 1 − 2/6.
    expect(tone?.grader).toBe("tone");
    expect(tone?.answers).toBe(4);
    expect(tone?.verdicts).toBe(3);
    expect(tone?.judge_variance).toBeCloseTo(1 / 6, 12);
    expect(tone?.self_agreement).toBeCloseTo(2 / 3, 12);
    // Across answers: a's means 1 and 0 → 1/2; b's 2/3 and 2/3 → 0; mean 1/4, less (1/6)/3.
    expect(tone?.model_variance).toBeCloseTo(1 / 4 - 1 / 18, 12);
  });

  it("reports nothing for one verdict per answer, and no model variance with one answer per item", () => {
    expect(noiseOf([voted("a", 0, [1]), voted("b", 0, [0])])).toEqual([]);
    const [tone] = noiseOf([voted("a", 0, [1, 0]), voted("b", 0, [1, 1])]);
    expect(tone?.model_variance).toBeNull();
    expect(tone?.self_agreement).toBeCloseTo(0.5, 12);
  });

  it("takes a harness_judge check's samples as verdicts on one answer, leaving out errors", () => {
    const noise = noiseOf([
      checked("c1", 0, 1),
      checked("c1", 1, 1),
      checked("c1", 2, 0),
      checked("c1", 3, 1),
      checked("c1", 4, 0, "error"),
      checked("c2", 0, 1),
    ]);
    // c1: 3 of 4 pass → 3·1/(4·3) = 1/4; c2 has one sample: nothing to compare.
    expect(noise).toEqual([
      {
        grader: "c1",
        answers: 1,
        verdicts: 4,
        self_agreement: 0.5,
        judge_variance: 0.25,
        model_variance: null,
      },
    ]);
  });
});
