import { describe, expect, it } from "vitest";
import { pythonToJsRegex } from "../../src/graders/python-regex.js";
import { boundedTest, DIRECT_MATCH_STEPS } from "../../src/graders/regex.js";
import {
  type CostModel,
  longestInputWithin,
  regexCost,
  UNBOUNDED,
  worstSteps,
} from "../../src/graders/regex-cost.js";
import { getGrader } from "../../src/graders/registry.js";
import type { GraderContext } from "../../src/graders/types.js";
import { cpuClock } from "../helpers/cpu-clock.js";

/** Compiled the way the regex grader compiles a JavaScript pattern. */
const degree = (source: string): number => regexCost(new RegExp(source, "is")).degree;

/** The longest output the grader matches directly, without the vm watchdog. */
const directUpTo = (source: string): number =>
  longestInputWithin(regexCost(new RegExp(source, "is")), DIRECT_MATCH_STEPS);

const INF = Number.POSITIVE_INFINITY;

describe("regexCost", () => {
  it.each([
    ["^paris$", 1],
    ["paris|london", 1],
    ["\\d+", 2],
    ["answer:\\s*\\d+", 3],
    ["a*?b+?", 3],
    ["[a-z]{2,4}", 1],
    ["(?<year>\\d{4})-\\d{2}", 1],
    ["(?:ab){3}x", 1],
    ["(?:a|b){2}", 1],
    ["(?:yes|no)?", 1],
    ["order (number|no\\.?)\\s*\\d+", 3],
    ["(?:\\d+,){0,3}", 4],
    ["[\\]]+x", 2],
    ["[a-z\\d]*x", 2],
    ["(?=a|b)c", 1],
    // Annex B literals: a brace that is no quantifier, stray } and ].
    ["a{", 1],
    ["{x}", 1],
    ["a{,3}", 1],
    ["}]", 1],
    // Not a \u{...} escape without the u flag: "u" repeated 41 times.
    ["\\u{41}", 1],
    ["\\cJ*", 2],
  ])("bounds /%s/ by a polynomial of degree %d", (source, expected) => {
    expect(degree(source)).toBe(expected);
  });

  it.each([
    "(a+)+$",
    "(a|aa)*b",
    "(a*)*",
    "(.*)*x",
    "(?:yes|no)+",
    "(?:a|b)*",
    "(\\w)\\1",
    "(?<y>a)\\k<y>",
    "(?=a+)b",
    "(?=a)*",
    "(?:)*",
    "(?:^)+",
    "\\c1",
    "a{99999999999999999999}",
  ])("gives up on /%s/", (source) => {
    expect(degree(source)).toBe(INF);
  });

  it("reads Python's \\A and \\Z, rewritten as lookarounds", () => {
    const { source } = pythonToJsRegex("\\Ayes\\Z");
    expect(degree(source)).toBe(1);
  });

  it("gives up on unicode syntax and on nesting too deep to follow", () => {
    expect(regexCost(/a/u)).toEqual(UNBOUNDED);
    expect(degree(`${"(".repeat(20_000)}a${")".repeat(20_000)}`)).toBe(INF);
  });
});

describe("longestInputWithin", () => {
  it("inverts worstSteps", () => {
    const model: CostModel = { degree: 2, factor: 4 };
    expect(worstSteps(model, 9)).toBe(400);
    expect(longestInputWithin(model, 400)).toBe(9);
    expect(longestInputWithin(model, 399)).toBe(8);
    expect(longestInputWithin(model, 3)).toBe(-1);
    expect(longestInputWithin(UNBOUNDED, 1e300)).toBe(-1);
  });

  it("lets the profiled pattern run directly on any output the grader searches", () => {
    expect(directUpTo("^paris$")).toBeGreaterThan(100_000);
    expect(directUpTo("(a+)+$")).toBe(-1);
  });
});

/** A deterministic pseudo-random sequence in [0, 1). */
function randoms(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function randomPattern(random: () => number, depth: number): string {
  const pick = (choices: readonly string[]): string =>
    choices[Math.floor(random() * choices.length)] as string;
  const atom = (): string => {
    if (depth === 0 || random() < 0.6) return pick(["a", "b", "[ab]", "\\w", "."]);
    const inner = randomPattern(random, depth - 1);
    return `${pick(["(?:", "(", "(?=", "(?!"])}${inner})`;
  };
  const term = (): string => atom() + pick(["", "", "*", "+", "?", "{1,3}", "{2,}", "*?", "{2}"]);
  const sequence = (): string =>
    Array.from({ length: 1 + Math.floor(random() * 3) }, term).join("");
  return Array.from({ length: random() < 0.7 ? 1 : 2 }, sequence).join("|");
}

/** Texts that come close to a match again and again and never finish one. */
const NEAR_MISSES = ["a", "ab", "aab", "ba", "1", "a "];

/** Runs each pattern on near misses as long as its budget allows; returns the slowest run. */
function slowestDirectRun(sources: readonly string[]): { ms: number; source: string } {
  let slowest = { ms: 0, source: "" };
  for (const source of sources) {
    const length = directUpTo(source);
    for (const unit of NEAR_MISSES) {
      const text = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
      // A fresh RegExp: its first run goes through V8's slower regexp interpreter.
      const re = new RegExp(source, "is");
      const elapsed = cpuClock();
      // Under the watchdog, so that an unsound bound fails the test instead of hanging it.
      expect(boundedTest(re, text, 1000), source).toBe(false);
      const ms = elapsed();
      if (ms > slowest.ms) slowest = { ms, source };
    }
  }
  return slowest;
}

describe("soundness of the direct path", () => {
  // Each ends in "!", which the texts never contain: every path is explored.
  it("keeps adversarial matches at the budget's longest input well under 200 ms", () => {
    const adversarial = [
      "\\d*\\d*\\d*!",
      "a*a*a*a*!",
      "a*?a*?a*?!",
      "(?:a|a){12}!",
      "(?:ab|a)(?:ab|a)(?:ab|a)(?:ab|a)(?:ab|a)(?:ab|a)(?:ab|a)(?:ab|a)!",
      "[\\s\\w]*[\\s\\w]*!",
      ".*.*=.*!",
      "(?:(?=[a-z]{5})[a-z])*!",
      "(?:(?![a-z]{6}x)[a-z])*!",
      "(?:(?<=[a-z]{8})[a-z])*!",
      "[a-z]{20}[a-z]{20}!",
      "(?:[a-z]{20}|[a-z]{19})(?:[a-z]{20}|[a-z]{19})!",
      "(?:a?){6}!",
      "(\\w)(\\w)(\\w)*(\\w)*!",
    ];
    for (const source of adversarial) expect(directUpTo(source), source).toBeGreaterThan(0);
    const slowest = slowestDirectRun(adversarial);
    expect(slowest.ms, slowest.source).toBeLessThan(200);
  });

  it("keeps random patterns judged direct well under 200 ms", () => {
    const random = randoms(20_240_601);
    const sources = Array.from({ length: 1000 }, () => `(?:${randomPattern(random, 2)})!`);
    const direct = sources.filter((source) => directUpTo(source) >= 0);
    // Not vacuous: many of them are polynomial of a higher degree, and still run directly.
    expect(direct.filter((source) => degree(source) >= 3).length).toBeGreaterThan(40);
    const slowest = slowestDirectRun(direct);
    expect(slowest.ms, slowest.source).toBeLessThan(200);
  });
});

describe("the regex grader's direct path", () => {
  const ctx: GraderContext = {
    request: "hi",
    messages: [],
    judge: null,
    judgeSamples: 1,
    item: { id: "c", stratum: "", sample: 0 },
    processes: null,
  };

  it("grades the profiled pattern without the vm watchdog", async () => {
    const compiled = getGrader("regex")?.compile({ pattern: "^paris$" });
    if (!compiled?.ok) throw new Error("did not compile");
    let passed = 0;
    const elapsed = cpuClock();
    for (let i = 0; i < 20_000; i++) if ((await compiled.grade("Paris", ctx)).pass) passed++;
    // Through the vm, 20,000 calls take over a second (0.05-0.2 ms each).
    expect(elapsed()).toBeLessThan(100);
    expect(passed).toBe(20_000);
  });
});
