import { describe, expect, it } from "vitest";
import { createScrubber, NO_SECRETS, scrubStream } from "../../src/secrets/scrubber.js";

describe("createScrubber", () => {
  it("replaces every secret, raw, JSON-escaped and URL-encoded, longest first", () => {
    const scrubber = createScrubber(["sk-abcdef", 'p"a\\ss@word', "sk-abcdef-long", null, "abc"]);
    expect(scrubber.scrub("key sk-abcdef-long and sk-abcdef")).toBe(
      "key [redacted] and [redacted]",
    );
    expect(scrubber.scrub(JSON.stringify({ e: 'bad p"a\\ss@word' }))).toBe(
      '{"e":"bad [redacted]"}',
    );
    expect(scrubber.scrub("u=p%22a%5Css%40word")).toBe("u=[redacted]");
    // Too short to be a secret: left alone.
    expect(scrubber.scrub("abc")).toBe("abc");
  });

  it("takes a secret from 4 characters on, and leaves a 3-character one alone", () => {
    const scrubber = createScrubber(["pin7", "ab3"]);
    expect(scrubber.scrub("pin7 and ab3")).toBe("[redacted] and ab3");
  });

  it("with no secrets is the identity", () => {
    expect(createScrubber([])).toBe(NO_SECRETS);
    expect(NO_SECRETS.scrub("sk-abcdef")).toBe("sk-abcdef");
  });
});

describe("scrubStream", () => {
  it("finds a secret split across chunks, whatever the split", () => {
    const secret = "sk-0123456789";
    const text = `before ${secret} middle ${secret}${secret} after`;
    const scrubber = createScrubber([secret]);
    for (let size = 1; size <= text.length; size++) {
      const stream = scrubStream(scrubber);
      let out = "";
      for (let at = 0; at < text.length; at += size) out += stream.push(text.slice(at, at + size));
      out += stream.end();
      expect(out).toBe("before [redacted] middle [redacted][redacted] after");
    }
  });
});
