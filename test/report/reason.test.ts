import { describe, expect, it } from "vitest";
import { head, oneLine } from "../../src/report/reason.js";

describe("oneLine", () => {
  it("makes one line of any text, control characters visible", () => {
    expect(oneLine("  first\n\tsecond\r\nthird  ")).toBe("first second third");
    expect(oneLine("red \u001b[31mtext\u001b[0m and \u202eevil")).toBe(
      "red ␛[31mtext␛[0m and \\u202eevil",
    );
  });

  it("cuts at the limit with an ellipsis, counting the ellipsis", () => {
    expect(oneLine("abcdef", 4)).toBe("abc…");
    expect(oneLine("abcd", 4)).toBe("abcd");
    expect(oneLine("x".repeat(1000))).toHaveLength(300);
  });

  it("never cuts a surrogate pair in half", () => {
    expect(head("ab😀c", 3)).toBe("ab");
    expect(head("ab😀c", 4)).toBe("ab😀");
    expect(oneLine("ab😀cd", 4)).toBe("ab…");
  });
});
