import { describe, expect, it } from "vitest";
import { extractVerdict, extractWinner } from "../../src/judge/verdict.js";

describe("extractWinner: the verdict extractor's rules, with winner in place of score", () => {
  it("reads a winner after a preamble, and the last valid verdict wins", () => {
    expect(extractWinner('Thinking. {"winner": "A", "reason": "shorter"}')).toEqual({
      winner: "A",
      reason: "shorter",
    });
    const text = '{"winner": "A", "reason": "first"}\nOn reflection: {"winner": "tie"}';
    expect(extractWinner(text)).toEqual({ winner: "tie", reason: null });
  });

  it("takes only A, B and tie; an invalid value or reason makes no verdict", () => {
    for (const value of ['"a"', '"Tie"', '"C"', "1", "true", "null"]) {
      expect(extractWinner(`{"winner": ${value}}`)).toBeNull();
    }
    expect(extractWinner('{"winner": "B", "reason": 3}')).toBeNull();
    // A later invalid object does not hide an earlier valid one.
    expect(extractWinner('{"winner": "B"} then {"winner": "D"}')).toEqual({
      winner: "B",
      reason: null,
    });
  });

  it("finds a verdict escaped inside a JSON event stream, like extractVerdict", () => {
    const event = JSON.stringify({
      type: "result",
      result: 'Done: {"winner": "B", "reason": "x"}',
    });
    expect(extractWinner(event)).toEqual({ winner: "B", reason: "x" });
    const escapedKey = '{"win\\u006eer": "A"}';
    expect(extractWinner(escapedKey)).toEqual({ winner: "A", reason: null });
  });

  it("a score verdict is no winner verdict, and a winner verdict no score verdict", () => {
    expect(extractWinner('{"score": 1, "reason": "ok"}')).toBeNull();
    expect(extractVerdict('{"winner": "A", "reason": "ok"}')).toBeNull();
    const both = '{"score": 0, "winner": "B"}';
    expect(extractVerdict(both)).toEqual({ score: 0, reason: null });
    expect(extractWinner(both)).toEqual({ winner: "B", reason: null });
  });
});
