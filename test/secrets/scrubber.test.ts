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

  it("replaces a secret's base64, standard and url-safe, with and without padding", () => {
    // Chosen so its base64 holds both "+" and "/" (">~?" encodes to "Pn4/", "~~~" to "fn5+").
    const secret = "sk->~?~~~a";
    const scrubber = createScrubber([secret]);
    const bytes = Buffer.from(secret);
    const forms = [
      bytes.toString("base64"),
      bytes.toString("base64").replace(/=+$/, ""),
      bytes.toString("base64url"),
      `${bytes.toString("base64url")}==`,
    ];
    expect(forms[0]).toMatch(/\+.*\/|\/.*\+/);
    for (const form of forms) expect(scrubber.scrub(`key: ${form}.`)).toBe("key: [redacted].");
  });

  it.for([0, 1, 2, 3, 4, 5])(
    "replaces a secret's base64 inside a longer base64 text, %i bytes in",
    (offset) => {
      const secret = "sk-test-0123456789>~?";
      const scrubber = createScrubber([secret]);
      for (const encoding of ["base64", "base64url"] as const) {
        for (const after of ["", "x", "xy", ".suffix"]) {
          const text = Buffer.from(
            `${"u:pw".repeat(2).slice(0, offset)}${secret}${after}`,
          ).toString(encoding);
          const scrubbed = scrubber.scrub(`Basic ${text}`);
          // What is left around [redacted] is the neighbours' characters and at most the two
          // that share bits with them.
          const left = scrubbed.replace("Basic ", "").split("[redacted]");
          expect(left).toHaveLength(2);
          const kept = left.join("").replace(/=+$/, "").length;
          expect(kept).toBeLessThanOrEqual(Math.ceil(((offset + after.length) * 4) / 3) + 2);
        }
      }
    },
  );

  it("looks for a short secret's base64 only whole, not inside longer base64", () => {
    const scrubber = createScrubber(["pin7"]);
    expect(scrubber.scrub(Buffer.from("pin7").toString("base64"))).toBe("[redacted]");
    const inside = Buffer.from("xpin7x").toString("base64");
    expect(scrubber.scrub(inside)).toBe(inside);
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
