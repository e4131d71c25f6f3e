import { describe, expect, it } from "vitest";
import { COMPARE_MARKER, comparisonMarkdown } from "../../src/render/compare-markdown.js";
import {
  ANNOTATIONS_SHOWN,
  annotationLine,
  annotationLines,
  escapeData,
  escapeProperty,
  summaryWithin,
} from "../../src/render/github.js";
import { compareBlock, compareRunRows, withComparison } from "../../src/report/compare-runs.js";
import { documentOf } from "../../src/report/read-document.js";
import type { RunRows } from "../../src/report/read-rows.js";
import { RowTally } from "../../src/report/row-tally.js";

describe("workflow-command escapes", () => {
  it("escape % first, then CR and LF; a property also : and ,", () => {
    expect(escapeData("100%\r\nnext: a, b")).toBe("100%25%0D%0Anext: a, b");
    expect(escapeProperty("100%\r\nnext: a, b")).toBe("100%25%0D%0Anext%3A a%2C b");
    // An escape already in the text is not read back as one.
    expect(escapeData("%0A")).toBe("%250A");
  });

  it("keep a message with newlines on one line, and leave out an unknown line", () => {
    const line = annotationLine(
      {
        level: "error",
        title: "t: x",
        message: "one\ntwo\r\n::warning::injected",
        place: { file: "/ws/repo/evals/a b,c.jsonl", line: null },
      },
      "/ws",
    );
    expect(line).toBe(
      "::error file=repo/evals/a b%2Cc.jsonl,title=t%3A x::one%0Atwo%0D%0A::warning::injected",
    );
    expect(line.split("\n")).toHaveLength(1);
  });

  it("print at most ANNOTATIONS_SHOWN, then one notice with the rest's count", () => {
    const many = Array.from({ length: ANNOTATIONS_SHOWN + 1 }, (_, i) => ({
      level: "error" as const,
      title: `t${i}`,
      message: "m",
      place: null,
    }));
    const lines = annotationLines(many, "/");
    expect(lines).toHaveLength(ANNOTATIONS_SHOWN + 1);
    expect(lines.at(-1)).toBe(
      "::notice title=eval-banana::1 more item fell short, not annotated: see the job summary or report.md",
    );
    expect(annotationLines(many.slice(0, ANNOTATIONS_SHOWN), "/")).toHaveLength(ANNOTATIONS_SHOWN);
  });
});

/** Rows of `items` items in `strata` strata, each with a long id and a long reason. */
function runRows(items: number, strata: number, score: (i: number) => number): RunRows {
  const tally = new RowTally();
  for (let i = 0; i < items; i++) {
    const passed = score(i) === 1;
    tally.add({
      id: `|\`<img src=x>\`-item-${i}-${"x".repeat(2000)}`,
      sample: 0,
      score: score(i),
      status: passed ? "passed" : "failed",
      stratum: `stratum-${i % strata}-${"s".repeat(500)}`,
      reason: passed ? null : `@someone <b>why</b> ${"r".repeat(5000)}`,
    });
  }
  return { file: "/nonexistent/rows.jsonl", manifest: null, tally, warnings: [] };
}

describe("comparisonMarkdown", () => {
  it("stays below GitHub's 65,536-character comment limit however many items broke", () => {
    const base = runRows(10_000, 500, () => 1);
    const cand = runRows(10_000, 500, (i) => (i % 2 === 0 ? 0 : 1));
    const comparison = compareRunRows(base, cand, { margin: 0.02 });
    expect(comparison.broke).toHaveLength(5000);
    const [baseDoc, candDoc] = [documentOf(base), documentOf(cand)];
    const block = compareBlock(comparison, baseDoc, candDoc);
    const judged = withComparison(candDoc, block, { passed: false, rule: "" });
    const body = [COMPARE_MARKER, "", ...comparisonMarkdown(baseDoc, judged)].join("\n");
    expect(body.length).toBeLessThan(65_536 / 2);
    expect(body).toContain("### Broke: 5000 items");
    expect(body).toContain("… and 4975 more (`eb compare --json` lists every one).");
    expect(body).toContain("… and 470 more strata");
    // Text from the rows sits in code spans: no tag, mention or table cell break escapes them.
    const rows = body.split("\n").filter((line) => line.startsWith("| ``\\|`<img"));
    expect(rows).toHaveLength(25);
    for (const row of rows) {
      expect(row).toMatch(
        /^\| ``\\\|`<img src=x>`-item-\d+-x+…`` \| 1\.00 \| 0\.00 \| `sample 0: @someone <b>why<\/b> r+…` \|$/,
      );
    }
    expect(baseDoc.run).toMatchObject({ git_commit: null });
    expect(body).toContain("| Run | unknown | unknown |");
  });
});

describe("summaryWithin", () => {
  const body = [
    "## run",
    "",
    "<details><summary>Statistics</summary>",
    ...Array(100).fill("x".repeat(99)),
  ];
  const tail = ["## eval-banana compare: ✅ PASS", ""];
  const bytes = (lines: readonly string[]) => Buffer.byteLength(`${lines.join("\n")}\n`);

  it("keeps what fits whole", () => {
    expect(summaryWithin(body, tail, 100_000, "r.json")).toEqual([...body, ...tail]);
  });

  it("cuts the body at a line, closes its <details>, says what it left out, keeps the tail", () => {
    const cut = summaryWithin(body, tail, 3000, "r.json")!;
    expect(bytes(cut)).toBeLessThanOrEqual(3000);
    expect(cut.slice(-2)).toEqual(tail);
    expect(cut).toContain("</details>");
    const shown = cut.filter((line) => line.startsWith("xxx")).length;
    expect(cut).toContain(
      `… and ${100 - shown} more lines of this summary left out (GitHub drops a step summary over 1 MiB): every item is in r.json.`,
    );
  });

  it("is null when not even the notice and the tail fit", () => {
    expect(summaryWithin(body, tail, 100, "r.json")).toBeNull();
  });
});
