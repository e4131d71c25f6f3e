import { describe, expect, it } from "vitest";
import { buildCheckJudgePrompt } from "../../src/judge/prompt.js";
import { extractVerdict, NO_VERDICT_MESSAGE, type Verdict } from "../../src/judge/verdict.js";
import { cpuClock } from "../helpers/cpu-clock.js";

function verdict(score: 0 | 1, reason: string | null = null): Verdict {
  return { score, reason };
}

/** JSON Lines, as agent CLIs print their event streams. */
function jsonl(...events: unknown[]): string {
  return `${events.map((event) => JSON.stringify(event)).join("\n")}\n`;
}

/** What `run` returns, and the CPU time it took (see cpuClock). */
function timed<T>(run: () => T): { result: T; ms: number } {
  const elapsed = cpuClock();
  const result = run();
  return { result, ms: elapsed() };
}

describe("extractVerdict: where a verdict can sit", () => {
  it("reads a bare verdict", () => {
    expect(extractVerdict('{"score": 1, "reason": "ok"}')).toEqual(verdict(1, "ok"));
  });

  it("treats a missing reason as null", () => {
    expect(extractVerdict('{"score": 0}')).toEqual(verdict(0));
  });

  it("tolerates preamble and trailing prose", () => {
    const text = 'I read README.md.\nVerdict: {"score": 0, "reason": "no install step"} Thanks!';
    expect(extractVerdict(text)).toEqual(verdict(0, "no install step"));
  });

  it("reads a ```json fenced block", () => {
    const text = 'Here is my verdict:\n```json\n{"score": 1, "reason": "fenced"}\n```\n';
    expect(extractVerdict(text)).toEqual(verdict(1, "fenced"));
  });

  it("reads pretty-printed multi-line JSON", () => {
    const text = 'Result:\n{\n  "score": 0,\r\n\t"reason": "pretty"\n}\n';
    expect(extractVerdict(text)).toEqual(verdict(0, "pretty"));
  });

  it("finds a verdict nested inside another object", () => {
    const text = '{"result":{"score":1,"reason":"inner"}}';
    expect(extractVerdict(text)).toEqual(verdict(1, "inner"));
  });

  it("finds a verdict nested inside an array", () => {
    expect(extractVerdict('[1, {"score": 0, "reason": "in array"}]')).toEqual(
      verdict(0, "in array"),
    );
  });

  it("allows extra keys", () => {
    const text = '{"confidence": 0.9, "score": 1, "tags": ["a"], "reason": "extra"}';
    expect(extractVerdict(text)).toEqual(verdict(1, "extra"));
  });

  it("finds a verdict right after an unclosed brace", () => {
    expect(extractVerdict('{{"score": 1, "reason": "x"}')).toEqual(verdict(1, "x"));
  });

  it("finds a verdict inside an unclosed object", () => {
    expect(extractVerdict('{"broken": {"score": 0, "reason": "x"}')).toEqual(verdict(0, "x"));
  });

  it("returns null for an empty string", () => {
    expect(extractVerdict("")).toBeNull();
  });

  it("returns null for text without a verdict", () => {
    expect(extractVerdict("I could not decide. { not json } {}")).toBeNull();
  });

  it("exports the error message the runner reports", () => {
    expect(NO_VERDICT_MESSAGE).toBe(
      'Harness judge output did not contain a valid JSON verdict with "score": 0 or 1.',
    );
  });
});

describe("extractVerdict: what counts as valid", () => {
  it.each([
    ["1.0", 1],
    ["0.0", 0],
    ["1e0", 1],
    ["10E-1", 1],
  ] as const)("accepts score %s as the number %d", (raw, score) => {
    expect(extractVerdict(`{"score": ${raw}}`)).toEqual(verdict(score));
  });

  it.each(["true", "false", '"1"', '"0"', "2", "1.5", "-1", "null", "[1]", '{"value": 1}', "01"])(
    "rejects score %s",
    (raw) => {
      expect(extractVerdict(`{"score": ${raw}, "reason": "r"}`)).toBeNull();
    },
  );

  it.each(["5", "null", '["a"]', '{"text": "a"}', "true"])("rejects reason %s", (raw) => {
    expect(extractVerdict(`{"score": 1, "reason": ${raw}}`)).toBeNull();
  });

  it.each([
    ["a trailing comma", '{"score": 1,}'],
    ["single quotes", "{'score': 1}"],
    ["an unquoted key", "{score: 1}"],
    ["a raw newline inside the reason", '{"score": 1, "reason": "a\nb"}'],
    ["a bad escape", '{"score": 1, "reason": "a\\x"}'],
    ["a missing colon", '{"score" 1}'],
  ])("rejects invalid JSON with %s", (_label, text) => {
    expect(extractVerdict(text)).toBeNull();
  });

  it("uses the last of duplicate keys, like JSON.parse", () => {
    expect(extractVerdict('{"score": 1, "score": 2}')).toBeNull();
    expect(extractVerdict('{"score": 2, "score": 0, "reason": "a", "reason": "b"}')).toEqual(
      verdict(0, "b"),
    );
  });

  it("decodes escaped keys", () => {
    expect(extractVerdict('{"\\u0073core": 1, "re\\u0061son": "escaped key"}')).toEqual(
      verdict(1, "escaped key"),
    );
  });

  it("decodes escapes in the reason", () => {
    expect(extractVerdict('{"score": 1, "reason": "caf\\u00e9 \\"quoted\\"\\n"}')).toEqual(
      verdict(1, 'café "quoted"\n'),
    );
  });
});

describe("extractVerdict: which verdict wins", () => {
  it("prefers the last of several verdicts", () => {
    const text = '{"score":0,"reason":"old"}\n{"score":1,"reason":"new"}';
    expect(extractVerdict(text)).toEqual(verdict(1, "new"));
  });

  it("keeps an earlier valid verdict when a later object is invalid", () => {
    expect(extractVerdict('{"score":1,"reason":"a"} then {"score":7}')).toEqual(verdict(1, "a"));
  });

  it("prefers an enclosing verdict over one nested in it (the outer ends later)", () => {
    const text = '{"score": 0, "reason": "outer", "detail": {"score": 1, "reason": "inner"}}';
    expect(extractVerdict(text)).toEqual(verdict(0, "outer"));
  });

  it("prefers a nested verdict that ends after an earlier top-level one", () => {
    const text = '{"score": 0, "reason": "first"} {"wrap": {"score": 1, "reason": "second"}}';
    expect(extractVerdict(text)).toEqual(verdict(1, "second"));
  });
});

describe("extractVerdict: quotes and braces", () => {
  it("handles braces inside the reason", () => {
    const text = '{"score": 1, "reason": "a } and { b"}';
    expect(extractVerdict(text)).toEqual(verdict(1, "a } and { b"));
  });

  it("handles escaped quotes and braces inside the reason", () => {
    const text = '{"score":1,"reason":"a } and \\" b"}';
    expect(extractVerdict(text)).toEqual(verdict(1, 'a } and " b'));
  });

  it("is not fooled by an unbalanced quote in preceding prose", () => {
    expect(extractVerdict('The word " is a quote. {"score": 1}')).toEqual(verdict(1));
  });

  it("is not fooled by an unbalanced quote between two verdicts", () => {
    const text = '{"score": 0, "reason": "early"} he said " {"score": 1, "reason": "later"}';
    expect(extractVerdict(text)).toEqual(verdict(1, "later"));
  });

  it("finds a verdict that starts inside the string of a failed candidate", () => {
    // From the first "{" this reads {"note": "x } {" and then fails; the verdict must survive.
    const text = '{"note": "x } {"score": 1, "reason": "inside"}';
    expect(extractVerdict(text)).toEqual(verdict(1, "inside"));
  });

  it("ignores a verdict-looking reason of a non-verdict string", () => {
    expect(extractVerdict('{"text": "score: 1, reason: none"}')).toBeNull();
  });
});

describe("extractVerdict: verdicts escaped inside JSON strings", () => {
  it("reads claude stream-json, where the verdict is escaped in .result", () => {
    const final = '{"score": 1, "reason": "README explains install."}';
    const text = jsonl(
      { type: "system", subtype: "init", session_id: "s1", tools: ["Read"], model: "m" },
      {
        type: "assistant",
        message: { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Read" }] },
      },
      {
        type: "user",
        message: {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "t1",
              content: 'fixture: {"score": 0, "reason": "decoy in a file"}',
            },
          ],
        },
      },
      {
        type: "assistant",
        message: { role: "assistant", content: [{ type: "text", text: final }] },
      },
      {
        type: "result",
        subtype: "success",
        is_error: false,
        duration_ms: 1200,
        result: final,
        session_id: "s1",
        usage: { input_tokens: 10, output_tokens: 5 },
      },
    );
    expect(extractVerdict(text)).toEqual(verdict(1, "README explains install."));
  });

  it("reads the exact claude stream-json result line from the spec", () => {
    const text = '{"type":"result","result":"Done. {\\"score\\": 1, \\"reason\\": \\"ok\\"}"}';
    expect(extractVerdict(text)).toEqual(verdict(1, "ok"));
  });

  it("reads claude --output-format json", () => {
    const text = JSON.stringify({
      type: "result",
      subtype: "success",
      is_error: false,
      result: 'Looking at README.md...\n\n{"score": 0, "reason": "No install step."}',
      session_id: "s1",
      usage: { input_tokens: 3 },
    });
    expect(extractVerdict(text)).toEqual(verdict(0, "No install step."));
  });

  it("reads gemini stream-json, which echoes the prompt as a user message", () => {
    const prompt = buildCheckJudgePrompt("README explains install.", "Read README.md.");
    const text = jsonl(
      { type: "init", timestamp: "t0", session_id: "s", model: "gemini-x" },
      { type: "message", timestamp: "t1", role: "user", content: prompt },
      { type: "tool_use", tool_name: "read_file", tool_id: "r1", parameters: { path: "x" } },
      { type: "tool_result", tool_id: "r1", status: "success", output: "# Title\n{ oops" },
      {
        type: "message",
        timestamp: "t2",
        role: "assistant",
        content: '{"score": 0, "reason": "No install command."}',
        delta: true,
      },
      { type: "result", timestamp: "t3", status: "success", stats: { total_tokens: 9 } },
    );
    expect(extractVerdict(text)).toEqual(verdict(0, "No install command."));
  });

  it("reads gemini -o json with a fenced block inside .response", () => {
    const text = JSON.stringify({
      session_id: "s",
      response: 'Verdict:\n```json\n{"score": 1, "reason": "fenced in a string"}\n```',
      stats: { models: {} },
    });
    expect(extractVerdict(text)).toEqual(verdict(1, "fenced in a string"));
  });

  it("reads codex --json, where the last object is turn.completed", () => {
    const text = jsonl(
      { type: "thread.started", thread_id: "t" },
      { type: "turn.started" },
      { type: "item.completed", item: { id: "item_0", type: "reasoning", text: "**Reading**" } },
      {
        type: "item.completed",
        item: {
          id: "item_1",
          type: "command_execution",
          command: "bash -lc 'cat README.md'",
          aggregated_output: "# Title\n",
          exit_code: 0,
          status: "completed",
        },
      },
      {
        type: "item.completed",
        item: { id: "item_2", type: "agent_message", text: '{"score":1,"reason":"codex ok"}' },
      },
      { type: "turn.completed", usage: { input_tokens: 1, cached_input_tokens: 0 } },
    );
    expect(extractVerdict(text)).toEqual(verdict(1, "codex ok"));
  });

  it("reads opencode --format json, whose step_finish part has its own reason key", () => {
    const text = jsonl(
      { type: "step_start", sessionID: "ses_1", part: { id: "p1", type: "step-start" } },
      {
        type: "text",
        timestamp: 3,
        sessionID: "ses_1",
        part: {
          id: "p2",
          type: "text",
          text: 'Verdict:\n{"score": 0, "reason": "opencode says no"}',
          time: { start: 1, end: 2 },
        },
      },
      {
        type: "step_finish",
        sessionID: "ses_1",
        part: { id: "p3", type: "step-finish", reason: "stop", tokens: { input: 1 }, cost: 0 },
      },
    );
    expect(extractVerdict(text)).toEqual(verdict(0, "opencode says no"));
  });

  it("finds nothing in a JSONL stream that only echoes the prompt (grok community CLI)", () => {
    const prompt = buildCheckJudgePrompt("d", "i");
    const text = jsonl(
      { role: "user", content: prompt },
      { role: "assistant", content: "Sorry, I encountered an error: 401" },
    );
    expect(extractVerdict(text)).toBeNull();
  });

  it("reads a wrapper line that itself sits in a fenced block", () => {
    const line = JSON.stringify({
      type: "result",
      result: '{"score": 1, "reason": "fenced line"}',
    });
    expect(extractVerdict(`Output:\n\`\`\`json\n${line}\n\`\`\`\n`)).toEqual(
      verdict(1, "fenced line"),
    );
  });

  it("reads a verdict escaped twice (a JSON string inside a JSON string)", () => {
    const inner = JSON.stringify({ text: 'final: {"score": 0, "reason": "deep"}' });
    const text = JSON.stringify({ type: "tool_result", output: inner });
    expect(extractVerdict(text)).toEqual(verdict(0, "deep"));
  });

  it("takes the last of several verdicts inside one string", () => {
    const text = JSON.stringify({
      result: '{"score": 0, "reason": "draft"} then {"score": 1, "reason": "final"} {"score": 5}',
    });
    expect(extractVerdict(text)).toEqual(verdict(1, "final"));
  });

  it("places an escaped verdict at the end of its wrapper, after a nested verdict", () => {
    const text = JSON.stringify({
      result: '{"score": 1, "reason": "leaf"}',
      meta: { score: 0, reason: "nested object" },
    });
    expect(extractVerdict(text)).toEqual(verdict(1, "leaf"));
  });

  it("lets a later plain verdict beat an earlier escaped one", () => {
    const wrapper = JSON.stringify({ result: '{"score": 0, "reason": "escaped"}' });
    const text = `${wrapper}\nFinal answer: {"score": 1, "reason": "plain"}`;
    expect(extractVerdict(text)).toEqual(verdict(1, "plain"));
  });

  it("lets a later escaped verdict beat an earlier plain one", () => {
    const wrapper = JSON.stringify({ result: '{"score": 1, "reason": "escaped"}' });
    const text = `{"score": 0, "reason": "plain"}\n${wrapper}`;
    expect(extractVerdict(text)).toEqual(verdict(1, "escaped"));
  });

  it("prefers a verdict object over a verdict quoted inside its own reason", () => {
    const text = JSON.stringify({ score: 0, reason: 'the agent printed {"score": 1}' });
    expect(extractVerdict(text)).toEqual(verdict(0, 'the agent printed {"score": 1}'));
  });

  it("keeps an escaped verdict from a complete child of a truncated wrapper", () => {
    const child = JSON.stringify({ type: "text", text: '{"score": 1, "reason": "child"}' });
    expect(extractVerdict(`{"events": [${child}, {"type": "cut`)).toEqual(verdict(1, "child"));
  });

  it("ignores an escaped verdict whose own wrapper never closes", () => {
    expect(extractVerdict('{"type":"result","result":"{\\"score\\": 1}"')).toBeNull();
  });

  it("ignores an escaped verdict that is not inside any JSON object", () => {
    expect(extractVerdict('"result": "{\\"score\\": 1}"')).toBeNull();
  });
});

describe("extractVerdict: an echoed prompt", () => {
  it("finds nothing when the agent just echoes the check prompt", () => {
    const prompt = buildCheckJudgePrompt("The docs are clear.", "Read docs/index.md.");
    expect(extractVerdict(`${prompt}\nError: rate limited`)).toBeNull();
  });

  it("finds the real verdict after an echoed prompt", () => {
    const prompt = buildCheckJudgePrompt("The docs are clear.", "Read docs/index.md.");
    expect(extractVerdict(`${prompt}\n{"score": 0, "reason": "unclear"}`)).toEqual(
      verdict(0, "unclear"),
    );
  });
});

/** The same rules by brute force: JSON.parse at every `{` up to every `}`. */
function referenceVerdict(text: string): Verdict | null {
  let best: Verdict | null = null;
  let bestEnd = -1;
  for (let k = text.indexOf("{"); k !== -1; k = text.indexOf("{", k + 1)) {
    for (let e = text.indexOf("}", k); e !== -1; e = text.indexOf("}", e + 1)) {
      let value: unknown;
      try {
        value = JSON.parse(text.slice(k, e + 1));
      } catch {
        continue;
      }
      const found = asVerdict(value);
      if (found && e + 1 > bestEnd) {
        best = found;
        bestEnd = e + 1;
      }
      break;
    }
  }
  return best;
}

function asVerdict(value: unknown): Verdict | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  const score = record.score;
  if (score !== 0 && score !== 1) return null;
  if ("reason" in record && typeof record.reason !== "string") return null;
  return { score, reason: typeof record.reason === "string" ? record.reason : null };
}

/** A seeded generator, so a failure names an input that can be replayed. */
function random(seed: number): (limit: number) => number {
  let state = seed;
  return (limit) => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % limit;
  };
}

const FRAGMENTS = [
  "{",
  "}",
  "[",
  "]",
  '"',
  ":",
  ",",
  " ",
  "\n",
  "0",
  "1",
  "2",
  "1.0",
  "true",
  "null",
  '"score"',
  '"reason"',
  '"a"',
  '"x } {"',
  '{"score":',
  '"reason":',
  "text ",
];

describe("extractVerdict: agrees with a brute-force reference", () => {
  it("on 20 000 random inputs without escapes", () => {
    const next = random(42);
    for (let round = 0; round < 20_000; round++) {
      const parts: string[] = [];
      const count = 1 + next(24);
      for (let i = 0; i < count; i++) parts.push(FRAGMENTS[next(FRAGMENTS.length)] ?? "");
      const text = parts.join("");
      expect(extractVerdict(text), JSON.stringify(text)).toEqual(referenceVerdict(text));
    }
  });
});

describe("extractVerdict: large and pathological output", () => {
  // A quadratic scan would take minutes on these inputs; the bounds leave room for slow CI.
  it("finds a verdict at the end of 20 MB of mixed text", () => {
    const line =
      'step 12: {x} progress {"type":"progress","n":12,"items":[1,2,{"a":"b{c}"}]} ' +
      '{{ and a stray " quote {"score": 7}\n';
    const text = `${line.repeat(Math.ceil(20e6 / line.length))}{"score": 1, "reason": "end"}`;
    const { result, ms } = timed(() => extractVerdict(text));
    expect(result).toEqual(verdict(1, "end"));
    expect(ms).toBeLessThan(1000);
  });

  it("finds an escaped verdict at the end of 20 MB of JSON events", () => {
    const event = `${JSON.stringify({
      type: "assistant",
      message: { content: [{ type: "text", text: 'draft {"score": 0, "reason": "draft"}' }] },
    })}\n`;
    const last = JSON.stringify({ type: "result", result: '{"score": 1, "reason": "final"}' });
    const text = event.repeat(Math.ceil(20e6 / event.length)) + last;
    const { result, ms } = timed(() => extractVerdict(text));
    expect(result).toEqual(verdict(1, "final"));
    expect(ms).toBeLessThan(2000);
  });

  it.each([
    ["5 MB of unclosed braces", "{".repeat(5e6)],
    ["unclosed objects nested a million deep", '{"a":'.repeat(1e6)],
    ["arrays nested five million deep", `{"a":${"[".repeat(5e6)}`],
    ["a million unclosed strings", '{"":"'.repeat(1e6)],
    ["interleaved string parities", '{"x":"{",":1}":'.repeat(4e5)],
    ["repeated failing prefixes", '{"score": 1, "reason": "x'.repeat(2e5)],
  ])("stays linear on %s", (_label, prefix) => {
    const { result, ms } = timed(() => extractVerdict(`${prefix}{"score": 0, "reason": "after"}`));
    expect(result).toEqual(verdict(0, "after"));
    expect(ms).toBeLessThan(1000);
  });

  it("finds a verdict nested a million levels deep without overflowing the stack", () => {
    const depth = 1e6;
    const text = `${'{"a":'.repeat(depth)}{"score": 1, "reason": "deep"}${"}".repeat(depth)}`;
    const { result, ms } = timed(() => extractVerdict(text));
    expect(result).toEqual(verdict(1, "deep"));
    expect(ms).toBeLessThan(1000);
  });

  it("reads past a 15 MB string of 5 million escapes without overflowing a stack", () => {
    // One regular expression over the whole string overflows its backtracking stack here.
    const log = "x\n".repeat(5e6);
    const text = JSON.stringify({ log, result: '{"score": 1, "reason": "end"}' });
    const { result, ms } = timed(() => extractVerdict(text));
    expect(result).toEqual(verdict(1, "end"));
    expect(ms).toBeLessThan(2000);
  });

  it("stays linear on 2 MB of random JSON punctuation and escapes", () => {
    const next = random(7);
    const alphabet = '{}[]":,1 a\\';
    const chars: string[] = [];
    for (let i = 0; i < 2e6; i++) chars.push(alphabet[next(alphabet.length)] ?? "");
    const text = `${chars.join("")} {"score": 1, "reason": "end"}`;
    const { result, ms } = timed(() => extractVerdict(text));
    expect(result).toEqual(verdict(1, "end"));
    expect(ms).toBeLessThan(1000);
  });
});
