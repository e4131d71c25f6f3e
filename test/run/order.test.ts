import { describe, expect, it } from "vitest";
import { byCodePoint } from "../../src/report/order.js";

describe("byCodePoint", () => {
  it("sorts as UTF-8 bytes do (Python's order), not as UTF-16 code units", () => {
    const ids = ["b", "\u{1F600}", "a", "\uFF61", "ab", "", "a\u{1F600}", "a\uFF61"];
    const bytes = [...ids].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect([...ids].sort(byCodePoint)).toEqual(bytes);
    expect(bytes.indexOf("\uFF61")).toBeLessThan(bytes.indexOf("\u{1F600}"));
    expect(byCodePoint("a", "a")).toBe(0);
  });
});
