import { describe, expect, it } from "vitest";
import { gradeOutput } from "../../src/graders/grade.js";
import { boundedTest, REGEX_TIMEOUT_MS } from "../../src/graders/regex.js";
import { getGrader } from "../../src/graders/registry.js";
import type { GraderContext, GraderSpec } from "../../src/graders/types.js";
import { cpuClock } from "../helpers/cpu-clock.js";

const ctx: GraderContext = {
  request: "hi",
  messages: [{ role: "user", content: "hi" }],
  judge: null,
  judgeSamples: 1,
  item: { id: "c", stratum: "", sample: 0 },
  processes: null,
};

function regexSpec(pattern: string, name = "regex"): GraderSpec {
  const compiled = getGrader("regex")?.compile({ pattern });
  if (!compiled?.ok) throw new Error(`pattern ${pattern} did not compile`);
  return { type: "regex", name, usesJudge: false, grade: compiled.grade };
}

const CATASTROPHIC = "(a+)+$";
const EVIL_OUTPUT = `${"a".repeat(30)}!`;

describe("regex grader bound", () => {
  it("fails a catastrophically backtracking match with a reason instead of hanging", async () => {
    const started = performance.now();
    const outcome = await regexSpec(CATASTROPHIC).grade(EVIL_OUTPUT, ctx);
    const ms = performance.now() - started;
    expect(outcome.pass).toBe(false);
    expect(outcome.reason).toMatch(
      new RegExp(`^regex timed out after ${REGEX_TIMEOUT_MS} ms on 31 characters`),
    );
    expect(ms).toBeGreaterThanOrEqual(REGEX_TIMEOUT_MS * 0.9);
    expect(ms).toBeLessThan(REGEX_TIMEOUT_MS + 2000);
  });

  it("keeps working after a timeout, and the other graders of the case still count", async () => {
    const grades = await gradeOutput(
      EVIL_OUTPUT,
      [regexSpec(CATASTROPHIC, "evil"), regexSpec("a{30}!", "fine")],
      ctx,
    );
    expect(grades.marks).toEqual({ evil: false, fine: true });
    expect(grades.reasons.evil).toMatch(/timed out/);
    expect((await regexSpec("^a+!$").grade(EVIL_OUTPUT, ctx)).pass).toBe(true);
  });

  it("interrupts with the timeout it is given", () => {
    const started = performance.now();
    expect(boundedTest(/(a+)+$/, EVIL_OUTPUT, 50)).toBe("timeout");
    expect(performance.now() - started).toBeLessThan(1000);
    expect(boundedTest(/b/, "abc", 50)).toBe(true);
    expect(boundedTest(/z/, "abc", 50)).toBe(false);
  });

  it("costs well under a millisecond per call for an ordinary pattern", async () => {
    const spec = regexSpec("order (number|no\\.?)\\s*\\d+");
    const output = `Sorry about that. ${"Some text. ".repeat(50)} Your order number 12345?`;
    for (let i = 0; i < 200; i++) await spec.grade(output, ctx);
    const calls = 2000;
    const elapsed = cpuClock();
    for (let i = 0; i < calls; i++) await spec.grade(output, ctx);
    const perCall = elapsed() / calls;
    // Measured ~0.07-0.11 ms here (the watchdog thread); a loaded CI machine gets slack.
    expect(perCall).toBeLessThan(0.5);
  });

  it("handles NUL characters in the pattern and the output", async () => {
    expect((await regexSpec("a\u0000b").grade("xa\u0000by", ctx)).pass).toBe(true);
    expect((await regexSpec("a\\x00b").grade("xa\u0000by", ctx)).pass).toBe(true);
    const miss = await regexSpec("zz").grade("\u0000\u0000", ctx);
    expect(miss).toEqual({ pass: false, reason: 'no match for /zz/ in "\\u0000\\u0000"' });
  });
});

describe("other graders with NUL characters", () => {
  const compile = (raw: Record<string, unknown>): GraderSpec => {
    const { type, ...fields } = raw as { type: string };
    const compiled = getGrader(type)?.compile(fields);
    if (!compiled?.ok) throw new Error(`${type} did not compile`);
    return { type, name: type, usesJudge: false, grade: compiled.grade };
  };

  it("compare, search and report NUL characters without throwing", async () => {
    const output = "a\u0000b";
    const cases: [Record<string, unknown>, boolean][] = [
      [{ type: "equals", value: "a\u0000b" }, true],
      [{ type: "equals", value: "a\u0000c" }, false],
      [{ type: "contains", all: ["\u0000"] }, true],
      [{ type: "absent", any: ["\u0000"] }, false],
      [{ type: "json" }, false],
    ];
    for (const [raw, pass] of cases) {
      const outcome = await compile(raw).grade(output, ctx);
      expect(outcome.pass, JSON.stringify(raw)).toBe(pass);
      if (!pass) expect(typeof outcome.reason).toBe("string");
    }
    const json = compile({ type: "json", fields: { k: "str" } });
    expect((await json.grade('{"k": "x\\u0000y"}', ctx)).pass).toBe(true);
  });
});
