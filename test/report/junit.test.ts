import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { compareJunit, EXCERPT_CHARS, type JunitItem, junitXml } from "../../src/render/junit.js";
import { compareBlock, withComparison } from "../../src/report/compare-runs.js";
import { buildDocument, type RunDocument } from "../../src/report/document.js";
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
    flaky: false,
    samples: { passed: 0, run: 1 },
    ...overrides,
  };
}

describe("junitXml", () => {
  it("keeps every character XML 1.0 can hold and drops the rest", () => {
    const hostile = `a<b>&"c'\u0000\u0007\uFFFE\uD800 🍌 é\tx\ny`;
    const xml = junitXml({ name: "s", ms: null }, [
      item({ name: hostile, reason: hostile, stdout: hostile }),
    ]);
    const { name, message, out } = parsed(xml);
    const kept = `a<b>&"c' 🍌 é\tx\ny`;
    expect(name).toBe(kept);
    // Tab and newline survive in an attribute only as character references.
    expect(message).toBe(kept);
    expect(out).toBe(kept);
  });

  it("cuts a long answer and says so, and counts time in seconds", () => {
    const xml = junitXml({ name: "s", ms: null }, [
      item({ stdout: "x".repeat(EXCERPT_CHARS + 10) }),
    ]);
    expect(parsed(xml).out).toBe(
      `${"x".repeat(EXCERPT_CHARS)}\n[cut: ${EXCERPT_CHARS + 10} characters in all, the whole in the run folder]`,
    );
    expect(xml).toContain('time="1.500"');
  });
});

/** A run's document from one sample per item, planning `planned` items. */
function documentOf(scores: Record<string, number>, ids: string[]): RunDocument {
  const tally = new RowTally({ outcomes: true });
  for (const [id, score] of Object.entries(scores)) tally.add({ id, score, sample: 0 });
  const run = {
    tool_version: null,
    git_commit: null,
    command: null,
    suite: null,
    target: null,
    judge: null,
    samples_per_item: 1,
    sequential: null,
    resumes: 0,
    merged: null,
  };
  return buildDocument(tally, {
    kind: "cases",
    runId: null,
    projectRoot: null,
    location: "run",
    startedAt: null,
    completedAt: null,
    durationMs: null,
    run,
    itemsPlanned: ids.length,
    planned: ids.map((id) => ({ id })),
    passThreshold: 1,
    interrupted: false,
    budget: null,
    budgetExhausted: false,
  });
}

describe("compareJunit", () => {
  it("keeps a candidate item that never ran skipped, neither broke nor held", () => {
    const base = documentOf({ ran: 1, "not-run": 1 }, ["ran", "not-run"]);
    const cand = documentOf({ ran: 0 }, ["ran", "not-run"]);
    const tally = (doc: RunDocument) =>
      new Map(doc.items.map((i) => [i.id, { id: i.id, sum: i.score, n: i.samples, stratum: "" }]));
    const comparison = { ...comparePaired(tally(base), tally(cand)), warnings: [] };
    const judged = withComparison(cand, compareBlock(comparison, base, cand), {
      passed: false,
      rule: "",
    });
    const xml = compareJunit(base, judged);
    const cases = [...xml.matchAll(/<testcase classname="[^"]*" name="([^"]*)"[^>]*>\s*<(\w+)/g)];
    expect(cases.map((m) => [m[1], m[2]])).toEqual([
      ["ran", "failure"],
      ["not-run", "skipped"],
      ["gate", "failure"],
    ]);
    expect(xml).toContain('<skipped message="not run: the run was interrupted"/>');
  });
});
