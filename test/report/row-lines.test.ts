import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { forEachLineOf } from "../../src/report/row-lines.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "eb-row-lines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function linesOf(text: string): Promise<[string, number, boolean][]> {
  const file = path.join(dir, "rows.jsonl");
  writeFileSync(file, text);
  const seen: [string, number, boolean][] = [];
  await forEachLineOf(file, (line, number, ended) => seen.push([line, number, ended]));
  return seen;
}

describe("forEachLineOf", () => {
  it("gives every line whole, whatever piece or chunk it is decoded in", async () => {
    // Lines of many lengths (a few bytes to past a read chunk of 256 KiB) and multi-byte
    // characters, so that line ends fall at every offset of the 32 KiB pieces and the chunks.
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const long = i % 500 === 7 ? 300_000 : i % 97 === 3 ? 40_000 : (i * 37) % 700;
      lines.push(`{"id":"c${i}","text":"${"é€😀x".repeat(long / 8)}${i}"}`);
    }
    const text = `${lines.join("\n")}\n`;
    const seen = await linesOf(text);
    expect(seen.length).toBe(lines.length);
    seen.forEach(([line, number, ended], i) => {
      expect(number).toBe(i + 1);
      expect(ended).toBe(true);
      expect(line === lines[i], `line ${i + 1}`).toBe(true);
    });
  });

  it("says which last line had no newline", async () => {
    const seen = await linesOf('{"a":1}\n\n{"b":"ü"}');
    expect(seen).toEqual([
      ['{"a":1}', 1, true],
      ["", 2, true],
      ['{"b":"ü"}', 3, false],
    ]);
  });
});
