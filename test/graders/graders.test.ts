import { describe, expect, it } from "vitest";
import { z } from "zod";
import { gradeOutput } from "../../src/graders/grade.js";
import { pythonToJsRegex } from "../../src/graders/python-regex.js";
import { getGrader, knownGraderTypes, registerGrader } from "../../src/graders/registry.js";
import type { GraderContext, GraderOutcome, GraderSpec } from "../../src/graders/types.js";

const ctx: GraderContext = {
  request: "hi",
  messages: [{ role: "user", content: "hi" }],
  judge: null,
  judgeSamples: 1,
  item: { id: "c", stratum: "", sample: 0 },
  processes: null,
};

/** A grader spec as a case file writes it, compiled the way loadCases does. */
function spec(raw: { type: string; name?: string; [field: string]: unknown }): GraderSpec {
  const { type, name, ...fields } = raw;
  const grader = getGrader(type);
  if (!grader) throw new Error(`no grader ${type}`);
  const compiled = grader.compile(fields);
  if (!compiled.ok) throw new Error(compiled.issues.map((i) => i.message).join("; "));
  return { type, name: name ?? type, usesJudge: grader.usesJudge, grade: compiled.grade };
}

function grade(
  raw: Parameters<typeof spec>[0],
  output: string,
  c: GraderContext = ctx,
): Promise<GraderOutcome> {
  return spec(raw).grade(output, c);
}

function issues(type: string, fields: unknown): string[] {
  const compiled = getGrader(type)?.compile(fields);
  return compiled && !compiled.ok ? compiled.issues.map((i) => i.message) : [];
}

describe("equals", () => {
  it("passes on trimmed equality", async () => {
    expect((await grade({ type: "equals", value: " Paris\n" }, "Paris  ")).pass).toBe(true);
  });
  it("fails otherwise, saying what it got", async () => {
    const outcome = await grade({ type: "equals", value: "Paris" }, "paris");
    expect(outcome).toEqual({ pass: false, reason: 'expected "Paris", got "paris"' });
  });
  it("rejects a spec without a value", () => {
    expect(issues("equals", {})).not.toEqual([]);
  });
});

describe("contains", () => {
  it("passes when every text is present, ignoring case", async () => {
    const outcome = await grade(
      { type: "contains", all: ["ORDER number", "sorry"] },
      "Sorry! Your Order Number?",
    );
    expect(outcome.pass).toBe(true);
  });
  it("fails naming the missing texts", async () => {
    const outcome = await grade({ type: "contains", all: ["order number", "sorry", "x"] }, "sorry");
    expect(outcome).toEqual({
      pass: false,
      reason: 'missing "order number", "x" in "sorry"',
    });
  });
  it("rejects an empty list", () => {
    expect(issues("contains", { all: [] })).not.toEqual([]);
  });
});

describe("absent", () => {
  it("passes when none is present", async () => {
    expect((await grade({ type: "absent", any: ["$", "EUR"] }, "no money talk")).pass).toBe(true);
  });
  it("fails naming what it found, ignoring case", async () => {
    const outcome = await grade({ type: "absent", any: ["$", "eur", "refund of"] }, "40 EUR");
    expect(outcome).toEqual({ pass: false, reason: 'found "eur" in "40 EUR"' });
  });
  it("quotes a long answer from a little before what it found", async () => {
    const answer = `${"x".repeat(200)} refund of $12 ${"y".repeat(200)}`;
    const outcome = await grade({ type: "absent", any: ["refund of"] }, answer);
    expect(outcome.reason).toMatch(/^found "refund of" in "…x{29} refund of \$12 y+…"$/);
  });
});

describe("regex", () => {
  it("searches anywhere, ignoring case, with . matching newlines", async () => {
    expect(
      (await grade({ type: "regex", pattern: "start.+END" }, "x Start\nmiddle\nend y")).pass,
    ).toBe(true);
  });
  it("fails when there is no match", async () => {
    const outcome = await grade({ type: "regex", pattern: "^\\d+$" }, "12a");
    expect(outcome).toEqual({ pass: false, reason: 'no match for /^\\d+$/ in "12a"' });
  });
  it("quotes the start of a long output, one line, with an ellipsis", async () => {
    const output = `Hi there,\n${"thanks for asking. ".repeat(10)}`;
    const outcome = await grade({ type: "regex", pattern: "\\d+" }, output);
    expect(outcome.reason).toBe(
      `no match for /\\d+/ in ${JSON.stringify(`${output.slice(0, 80)}…`)}`,
    );
    expect(outcome.reason).toContain('in "Hi there,\\nthanks for asking.');
  });
  it("accepts Python syntax from the article's case files", async () => {
    const named = { type: "regex", pattern: "(?P<w>ab)-(?P=w)\\Z" };
    expect((await grade(named, "x ab-AB")).pass).toBe(true);
    expect((await grade(named, "ab-ab\n")).pass).toBe(false);
    expect((await grade({ type: "regex", pattern: "(?m)^b$" }, "a\nb\nc")).pass).toBe(true);
    expect((await grade({ type: "regex", pattern: "[]a]" }, "]")).pass).toBe(true);
  });
  it("translates only outside character classes and escapes", () => {
    expect(pythonToJsRegex("[\\Z]\\\\Z").source).toBe("[\\Z]\\\\Z");
  });
  it("rejects an invalid pattern at compile time", () => {
    expect(issues("regex", { pattern: "(unclosed" })[0]).toMatch(/invalid regex/);
    expect(issues("regex", { pattern: "(?x)a b" })[0]).toMatch(/not supported/);
  });
});

describe("json", () => {
  const fields = {
    invoice_no: "str",
    total: "float",
    count: "int",
    paid: "bool",
    lines: "list",
    meta: "dict",
    note: "NoneType",
    any: "",
  };
  const doc = {
    invoice_no: "A-1",
    total: 3,
    count: 2,
    paid: false,
    lines: [],
    meta: {},
    note: null,
    any: 1,
  };

  it("passes a fenced json block with matching field types", async () => {
    const output = `Here:\n\`\`\`json\n${JSON.stringify(doc)}\n\`\`\`\nDone.`;
    expect(await grade({ type: "json", fields }, output)).toEqual({ pass: true });
  });
  it("passes bare JSON, with JSON Schema type names", async () => {
    const schemaNames = { invoice_no: "string", count: "integer", total: "number", meta: "object" };
    expect((await grade({ type: "json", fields: schemaNames }, JSON.stringify(doc))).pass).toBe(
      true,
    );
  });
  it("fails a field of the wrong type", async () => {
    const outcome = await grade({ type: "json", fields: { count: "int" } }, '{"count": 2.5}');
    expect(outcome).toEqual({ pass: false, reason: 'field "count" is a float, not int' });
  });
  it("fails a missing field", async () => {
    const outcome = await grade({ type: "json", fields: { due: "str" } }, "{}");
    expect(outcome).toEqual({ pass: false, reason: 'field "due" is missing' });
  });
  it("fails text that is not JSON, and JSON that is not an object", async () => {
    expect((await grade({ type: "json" }, "not json")).reason).toMatch(
      /^not valid JSON \(.*\); got "not json"$/,
    );
    expect(await grade({ type: "json" }, "[1, 2]")).toEqual({
      pass: false,
      reason: 'JSON is an array, not an object; got "[1, 2]"',
    });
  });
  it("rejects an unknown type name at compile time", () => {
    expect(issues("json", { fields: { n: "long" } })).not.toEqual([]);
  });
});

describe("judge", () => {
  const withJudge = (answer: string, prompts: string[] = []): GraderContext => ({
    ...ctx,
    request: "refund me",
    judge: async (prompt) => {
      prompts.push(prompt);
      return answer;
    },
  });

  it("passes on a score 1 verdict, with the request, response and criteria in the prompt", async () => {
    const prompts: string[] = [];
    const outcome = await grade(
      { type: "judge", criteria: ["is polite", "asks for the order number"] },
      "Sorry, what is your order number?",
      withJudge('Fine.\n{"score": 1, "reason": "polite and asks"}', prompts),
    );
    expect(outcome).toEqual({ pass: true, reason: "polite and asks" });
    expect(prompts[0]).toContain("refund me");
    expect(prompts[0]).toContain("Sorry, what is your order number?");
    expect(prompts[0]).toContain("- asks for the order number");
  });
  it("fails on a score 0 verdict, keeping the judge's reason", async () => {
    const outcome = await grade(
      { type: "judge", criteria: ["is polite"] },
      "No.",
      withJudge('{"score": 0, "reason": "curt"}'),
    );
    expect(outcome).toEqual({ pass: false, reason: "curt" });
  });
  it("fails when the judge gives no verdict", async () => {
    const outcome = await grade(
      { type: "judge", criteria: ["x"] },
      "y",
      withJudge("VERDICT: PASS"),
    );
    expect(outcome).toEqual({
      pass: false,
      reason: 'judge gave no verdict (no JSON {"score": 0 or 1}) in its answer "VERDICT: PASS"',
    });
  });
  it("fails a score 0 verdict without a reason, saying so", async () => {
    const outcome = await grade({ type: "judge", criteria: ["x"] }, "y", withJudge('{"score": 0}'));
    expect(outcome).toEqual({ pass: false, reason: "judge scored 0 without a reason" });
  });
  it("needs a non-empty criteria list", () => {
    expect(issues("judge", { criteria: [] })).not.toEqual([]);
    expect(issues("judge", { criteria: ["  "] })).not.toEqual([]);
    expect(spec({ type: "judge", criteria: ["x"] }).usesJudge).toBe(true);
  });
});

describe("gradeOutput", () => {
  it("marks every grader by name and keeps only failing reasons", async () => {
    const graders = [
      spec({ type: "contains", name: "has_hi", all: ["hi"] }),
      spec({ type: "absent", any: ["hi"] }),
      spec({ type: "judge", criteria: ["x"] }),
    ];
    const grades = await gradeOutput("hi there", graders, ctx);
    expect(grades.marks).toEqual({ has_hi: true, absent: false, judge: false });
    expect(Object.keys(grades.marks)).toEqual(["has_hi", "absent", "judge"]);
    expect(grades.reasons).toEqual({
      absent: 'found "hi" in "hi there"',
      judge: "grader error: no judge model is configured",
    });
    expect(grades.errors).toEqual({ judge: "no judge model is configured" });
  });

  it("keeps a grader named __proto__ (or constructor) as a mark of its own", async () => {
    const graders = [
      spec({ type: "contains", name: "__proto__", all: ["nope"] }),
      spec({ type: "contains", name: "constructor", all: ["yes"] }),
    ];
    const grades = await gradeOutput("yes", graders, ctx);
    expect(Object.entries(grades.marks)).toEqual([
      ["__proto__", false],
      ["constructor", true],
    ]);
    expect(Object.values(grades.marks).every(Boolean)).toBe(false);
    expect(JSON.parse(JSON.stringify(grades.reasons))).toEqual(
      JSON.parse('{"__proto__": "missing \\"nope\\" in \\"yes\\""}'),
    );
  });

  it("tells a grader that threw (an error) from one that failed", async () => {
    const failing = spec({ type: "equals", value: "no" });
    const throwing: GraderSpec = {
      type: "custom",
      name: "custom",
      usesJudge: false,
      grade: () => Promise.reject(new Error("judge call failed: HTTP 503")),
    };
    const grades = await gradeOutput("yes", [failing, throwing], ctx);
    expect(grades.marks).toEqual({ equals: false, custom: false });
    expect(grades.errors).toEqual({ custom: "judge call failed: HTTP 503" });
    expect(grades.reasons.custom).toBe("grader error: judge call failed: HTTP 503");
  });
});

describe("registry", () => {
  it("lists the built-in types", () => {
    expect(knownGraderTypes()).toEqual([
      "equals",
      "contains",
      "absent",
      "regex",
      "json",
      "judge",
      "script",
      "command",
    ]);
  });
  it("takes new grader types, which may answer with a plain boolean", async () => {
    registerGrader("max_length", {
      describe: '{"max": <characters>}',
      schema: z.strictObject({ max: z.number().int().positive() }),
      grade: (output, s) => output.length <= s.max,
    });
    expect(await grade({ type: "max_length", max: 3 }, "abc")).toEqual({ pass: true });
    expect(await grade({ type: "max_length", max: 2 }, "abc")).toEqual({ pass: false });
    expect(() =>
      registerGrader("max_length", { describe: "", schema: z.object({}), grade: () => true }),
    ).toThrow(/already registered/);
  });
});
