import { describe, expect, it } from "vitest";
import { type StreamedLine, streamedLines } from "../../src/model/batch-lines.js";

async function linesOf(chunks: readonly string[], maxBytes: number): Promise<StreamedLine[]> {
  async function* source() {
    for (const chunk of chunks) yield Buffer.from(chunk);
  }
  const lines: StreamedLine[] = [];
  for await (const line of streamedLines(source(), maxBytes)) lines.push(line);
  return lines;
}

describe("streamedLines", () => {
  it("cuts lines at newlines across chunks, a last line without one included", async () => {
    expect(await linesOf(["a\nb", "c", "\n\nd"], 100)).toEqual([
      { text: "a" },
      { text: "bc" },
      { text: "" },
      { text: "d" },
    ]);
  });

  it("decodes a character split between chunks", async () => {
    const bytes = Buffer.from("é\n");
    async function* source() {
      yield bytes.subarray(0, 1);
      yield bytes.subarray(1);
    }
    const lines: StreamedLine[] = [];
    for await (const line of streamedLines(source(), 100)) lines.push(line);
    expect(lines).toEqual([{ text: "é" }]);
  });

  it("keeps only the head of a line over the limit, and counts all of it", async () => {
    const long = `{"custom_id": "x"}${"y".repeat(200_000)}`;
    const chunks = ["ok\n", long.slice(0, 70_000), long.slice(70_000), "\nnext\n"];
    const lines = await linesOf(chunks, 1000);
    expect(lines).toEqual([
      { text: "ok" },
      { head: long.slice(0, 64 * 1024), bytes: long.length },
      { text: "next" },
    ]);
  });
});
