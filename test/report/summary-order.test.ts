import { describe, expect, it } from "vitest";
import type { StoredRow } from "../../src/report/record.js";
import { RowTally } from "../../src/report/row-tally.js";
import { summarize } from "../../src/report/run-summary.js";

/** Items passing 0, 3, 2 and 1 of 3 samples: their mean in float depends on the order summed. */
function rows(): StoredRow[] {
  const passes = { d: 0, c: 3, b: 2, a: 1 };
  return Object.entries(passes).flatMap(([id, passed]) =>
    [0, 1, 2].map((sample) => ({
      id,
      sample,
      score: sample < passed ? 1 : 0,
      status: sample < passed ? ("passed" as const) : ("failed" as const),
      reason: sample < passed ? null : `sample ${sample} fell short`,
      model: sample % 2 === 0 ? "m-even" : "m-odd",
      prompt_tokens: 10,
      completion_tokens: 1,
      ms: 5,
    })),
  );
}

function tallyOf(list: readonly StoredRow[]): RowTally {
  const tally = new RowTally();
  for (const row of list) tally.add(row);
  return tally;
}

describe("summarize", () => {
  it("gives the same statistics to the last digit whatever order the rows arrived in", () => {
    const forward = tallyOf(rows());
    const backward = tallyOf(rows().reverse());
    for (const method of ["clopper-pearson", "bootstrap"] as const) {
      expect(summarize(backward, { method })).toEqual(summarize(forward, { method }));
    }
  });

  it("names the problem of an item's lowest failed sample, whichever finished first", () => {
    const tally = tallyOf(rows().reverse());
    expect(tally.items.get("d")?.problem).toBe("sample 0: sample 0 fell short");
    expect(tally.items.get("a")?.problem).toBe("sample 1: sample 1 fell short");
  });
});
