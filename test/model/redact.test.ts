import { describe, expect, it } from "vitest";
import { redactUrl } from "../../src/secrets/redact.js";

describe("redactUrl", () => {
  it.each([
    ["http://user:pw@host/v1", "http://[redacted]@host/v1"],
    ["http://user:p@ss@host/v1", "http://[redacted]@host/v1"],
    ["https://a@b@c@host:8443/v1?x=1", "https://[redacted]@host:8443/v1?x=1"],
    ["http://token@host", "http://[redacted]@host"],
    ["http://user:p%40ss@host/v1", "http://[redacted]@host/v1"],
    ["HTTP://User:PW@Host/v1", "HTTP://[redacted]@Host/v1"],
  ])("redacts the credentials of %s whole", (url, redacted) => {
    expect(redactUrl(url)).toBe(redacted);
  });

  it.each([
    "http://host/v1/users/a@b",
    "http://host/v1?email=a@b.example",
    "http://host/v1#me@here",
    "http://host\\path@x",
    "http://host:8080/v1 and mail me at a@b.example",
  ])("leaves %s alone: an @ after the authority is not a credential", (url) => {
    expect(redactUrl(url)).toBe(url);
  });

  it("redacts every URL of a text, and only up to its own host", () => {
    expect(redactUrl("from http://u:p@ss@a/x@y to https://v:q@b/?to=z@w, done")).toBe(
      "from http://[redacted]@a/x@y to https://[redacted]@b/?to=z@w, done",
    );
  });
});
