import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const DOC = path.join(ROOT, "docs", "library.md");

/** Every ```ts block of docs/library.md, in order: together they make one module. */
function examples(): string {
  const text = readFileSync(DOC, "utf8");
  return [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!).join("\n");
}

describe("docs/library.md", () => {
  it("its examples run as written against the built package and a copy of the quick start", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "eb-library-docs-"));
    cpSync(path.join(ROOT, "examples", "quickstart"), path.join(dir, "quickstart"), {
      recursive: true,
      filter: (source) => !source.includes(".eval-banana"),
    });
    const zod = pathToFileURL(createRequire(import.meta.url).resolve("zod")).href;
    const eb = pathToFileURL(path.join(ROOT, "dist", "index.js")).href;
    const script = examples()
      .replace(/from "eval-banana"/g, `from ${JSON.stringify(eb)}`)
      .replace(/from "zod"/g, `from ${JSON.stringify(zod)}`);
    writeFileSync(path.join(dir, "examples.mjs"), script);
    const { stdout } = await promisify(execFile)(process.execPath, ["examples.mjs"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", HOME: dir },
    });
    // The quick start fails one check and one case on purpose.
    expect(stdout).toMatch(/^failed 0\.\d+ \S+ 1$/m);
    expect(stdout).toContain("Gate: ");
    expect(stdout).toContain("# eval-banana report (cases)");
    expect(stdout).toMatch(/paired delta \+0\.0000/);
    // Two identical runs of a handful of cases: no drop, and too few items to rule out 0.02.
    expect(stdout).toContain("inconclusive inconclusive");
  }, 60_000);
});
