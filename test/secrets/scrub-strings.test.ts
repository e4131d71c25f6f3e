import { describe, expect, it } from "vitest";
import { scrubStrings } from "../../src/secrets/scrub-strings.js";
import { createScrubber } from "../../src/secrets/scrubber.js";

const { scrub } = createScrubber(["sk-SECRET1"]);

describe("scrubStrings", () => {
  it("scrubs every string, keys too, at any depth, and keeps the order of the keys", () => {
    const value = JSON.parse(
      '{"a": 1, "sk-SECRET1": "x", "b": [null, "say sk-SECRET1", {"c": true}], "__proto__": "p"}',
    );
    const clean = scrubStrings(value, scrub);
    expect(JSON.stringify(clean)).toBe(
      '{"a":1,"[redacted]":"x","b":[null,"say [redacted]",{"c":true}],"__proto__":"p"}',
    );
    expect(Object.getPrototypeOf(clean)).toBe(Object.prototype);
    expect(JSON.stringify(value)).toContain("sk-SECRET1");
  });

  it("returns what holds no secret as it is, and copies only the way to a secret", () => {
    const clean = { items: [{ text: "fine" }, { text: "also fine" }], meta: { n: 1 } };
    expect(scrubStrings(clean, scrub)).toBe(clean);
    const mixed = { items: [{ text: "fine" }, { text: "sk-SECRET1" }], meta: { n: 1 } };
    const scrubbed = scrubStrings(mixed, scrub);
    expect(scrubbed).not.toBe(mixed);
    expect(scrubbed.items[1]).toEqual({ text: "[redacted]" });
    expect(scrubbed.items[0]).toBe(mixed.items[0]);
    expect(scrubbed.meta).toBe(mixed.meta);
  });
});
