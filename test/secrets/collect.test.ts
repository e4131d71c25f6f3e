import { describe, expect, it } from "vitest";
import { secretValues, urlCredentials } from "../../src/secrets/collect.js";

describe("urlCredentials", () => {
  it("takes the password, raw @ included, and never the path or a bare user name", () => {
    expect(urlCredentials("http://user:p@ss@host/v1")).toEqual([
      "user:p@ss",
      "user:p@ss",
      "p@ss",
      "p@ss",
    ]);
    expect(urlCredentials("http://host/a@b")).toEqual([]);
    expect(urlCredentials("https://tok%40en@host")).toEqual([
      "tok%40en",
      "tok@en",
      "tok%40en",
      "tok@en",
    ]);
  });
});

describe("secretValues", () => {
  it("keeps the values of key- and token-like names only", () => {
    expect(
      secretValues({ OPENAI_API_KEY: "a", GH_TOKEN: "b", HOME: "/root", X: undefined }),
    ).toEqual(["a", "b"]);
  });
});
