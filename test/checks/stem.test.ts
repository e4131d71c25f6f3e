import { createHash } from "node:crypto";
import { readdirSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { safeStem } from "../../src/checks/stem.js";
import { makeProject } from "../helpers/project.js";

const STEM_PATTERN = /^[A-Za-z0-9._-]{0,42}[0-9a-f]{64}$/;

const sha256 = (id: string) => createHash("sha256").update(Buffer.from(id, "utf8")).digest("hex");

/** The readable part of a stem: what precedes the hash, without a trailing separator. */
function label(stem: string): string {
  return stem.slice(0, -64).replace(/[-_.]$/, "");
}

const IDS = [
  "judge",
  "_judge_",
  "Judge",
  "JUDGE",
  "judge_",
  "-judge",
  "bad name/with spaces",
  "a",
  "x".repeat(40),
  "y".repeat(41),
  "z".repeat(250),
  "___",
  "...",
  "héllo wörld",
  "🍌",
  `${"a".repeat(39)}_b`,
];

describe("safeStem", () => {
  it.each(IDS.map((id) => [id]))(
    "%s: ends with the sha256 of the id and matches the pattern",
    (id) => {
      const stem = safeStem(id);
      expect(stem.endsWith(sha256(id))).toBe(true);
      expect(stem).toMatch(STEM_PATTERN);
      expect(label(stem).length).toBeLessThanOrEqual(40);
      expect(stem.slice(0, -64).length).toBeLessThanOrEqual(41);
    },
  );

  it("is deterministic", () => {
    expect(safeStem("judge")).toBe(safeStem("judge"));
  });

  it("keeps a recognisable label for short ids", () => {
    expect(label(safeStem("bad name/with spaces"))).toBe("bad_name_with_spaces");
    expect(label(safeStem("judge"))).toBe("judge");
    expect(label(safeStem("output_file_exists"))).toBe("output_file_exists");
    expect(label(safeStem("a-b.c"))).toBe("a-b.c");
  });

  it("cuts long labels to at most 40 characters", () => {
    expect(label(safeStem("x".repeat(250)))).toBe("x".repeat(40));
  });

  it("hashes the exact id bytes (UTF-8), not the label", () => {
    expect(safeStem("héllo").endsWith(sha256("héllo"))).toBe(true);
    expect(safeStem("héllo")).not.toBe(safeStem("h_llo"));
  });

  it("distinct ids give distinct stems, even lowercased", () => {
    const stems = IDS.map((id) => safeStem(id).toLowerCase());
    expect(new Set(stems).size).toBe(IDS.length);
    const trio = ["judge", "_judge_", "Judge"].map((id) => safeStem(id).toLowerCase());
    expect(new Set(trio).size).toBe(3);
  });

  it("a 250-character id gives usable file names", () => {
    const root = realpathSync(makeProject());
    const stem = safeStem("long_".repeat(50));
    for (const suffix of [".json", ".prompt.txt", ".stdout.txt", ".stderr.txt"]) {
      writeFileSync(path.join(root, `${stem}${suffix}`), "x");
    }
    const written = readdirSync(root).filter((name) => name.startsWith(stem));
    expect(written.sort()).toEqual(
      [".json", ".prompt.txt", ".stderr.txt", ".stdout.txt"].map((suffix) => `${stem}${suffix}`),
    );
  });
});
