import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { EXCERPT_CHARS, type JunitItem, junitXml } from "../../src/report/junit.js";
import { comparisonItems } from "../../src/report/junit-items.js";
import { RowTally } from "../../src/report/row-tally.js";
import { comparePaired } from "../../src/stats/compare.js";

/** The first testcase's name, message and system-out, as an XML 1.0 parser reads them. */
function parsed(xml: string): { name: string; message: string; out: string } {
  const script = `
import json, sys
import xml.etree.ElementTree as ET
case = ET.fromstring(sys.stdin.buffer.read()).find("testsuite/testcase")
print(json.dumps({"name": case.get("name"), "message": case.find("failure").get("message"), "out": case.findtext("system-out")}))
`;
  return JSON.parse(execFileSync("python3", ["-c", script], { input: xml, encoding: "utf8" }));
}

function item(overrides: Partial<JunitItem>): JunitItem {
  return {
    classname: "c",
    name: "n",
    ms: 1500,
    outcome: "failure",
    reason: "r",
    stdout: "out",
    stderr: null,
    flaky: false,
    samples: { passed: 0, run: 1 },
    ...overrides,
  };
}

describe("junitXml", () => {
  it("keeps every character XML 1.0 can hold and drops the rest", () => {
    const hostile = `a<b>&"c'\u0000\u0007\uFFFE\uD800 🍌 é\tx\ny`;
    const xml = junitXml("s", [item({ name: hostile, reason: hostile, stdout: hostile })]);
    const { name, message, out } = parsed(xml);
    const kept = `a<b>&"c' 🍌 é\tx\ny`;
    expect(name).toBe(kept);
    // Tab and newline survive in an attribute only as character references.
    expect(message).toBe(kept);
    expect(out).toBe(kept);
  });

  it("cuts a long answer and says so, and counts time in seconds", () => {
    const xml = junitXml("s", [item({ stdout: "x".repeat(EXCERPT_CHARS + 10) })]);
    expect(parsed(xml).out).toBe(
      `${"x".repeat(EXCERPT_CHARS)}\n[cut: ${EXCERPT_CHARS + 10} characters in all, the whole in the run folder]`,
    );
    expect(xml).toContain('time="1.500"');
  });
});

describe("comparisonItems", () => {
  it("keeps a candidate item that never ran skipped, neither broke nor held", () => {
    const tally = (scores: Record<string, number>) => {
      const t = new RowTally();
      for (const [id, score] of Object.entries(scores)) t.add({ id, score, sample: 0 });
      return t;
    };
    const base = tally({ ran: 1, "not-run": 1 });
    const cand = tally({ ran: 0 });
    const comparison = { ...comparePaired(base.items, cand.items), warnings: [] };
    const candidate = [
      item({ name: "ran", samples: { passed: 0, run: 1 } }),
      item({ name: "not-run", outcome: "skipped", reason: "not run: the run was interrupted" }),
    ];
    const items = comparisonItems(comparison, base, candidate, false);
    expect(items.map((i) => [i.name, i.outcome])).toEqual([
      ["ran", "failure"],
      ["not-run", "skipped"],
      ["gate", "failure"],
    ]);
    expect(junitXml("s", items)).toContain('<skipped message="not run: the run was interrupted"/>');
  });
});
