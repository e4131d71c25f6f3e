import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RowWriter } from "../../src/run/rows.js";

const dir = mkdtempSync(join(tmpdir(), "eb-rows-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines = (path: string) => readFileSync(path, "utf8").trimEnd().split("\n");
const asObject = (value: unknown): object => {
  if (typeof value !== "object" || value === null) throw new Error("no manifest");
  return value;
};
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("RowWriter", () => {
  it("writes the rows of a turn of the event loop at its end, and the manifest last", async () => {
    const path = join(dir, "a.jsonl");
    const rows = RowWriter.create<{ run_id: string; completed?: boolean }>(path, { run_id: "r1" });
    rows.append({ id: "a", score: 1 });
    rows.append({ id: "b", score: 0 });
    expect(lines(path)).toHaveLength(1);
    await nextTurn();
    expect(lines(path).slice(1)).toEqual(['{"id":"a","score":1}', '{"id":"b","score":0}']);
    rows.append({ id: "c", score: 1 });
    expect(rows.close({ completed: true })).toBe(true);
    const written = lines(path);
    expect(written).toHaveLength(4);
    expect(JSON.parse(written[0] as string)).toEqual({
      manifest: { run_id: "r1", completed: true },
    });
  });

  it("reopens a file cut mid-row: the torn line goes, new rows follow the last whole one", async () => {
    const path = join(dir, "b.jsonl");
    const rows = RowWriter.create(path, { run_id: "r2" });
    rows.append({ id: "a" });
    rows.close({});
    appendFileSync(path, '{"id":"b","sc');
    const { writer, manifest } = RowWriter.reopen(path, asObject);
    expect(manifest).toEqual({ run_id: "r2" });
    writer.append({ id: "b" });
    writer.close({});
    expect(lines(path).slice(1)).toEqual(['{"id":"a"}', '{"id":"b"}']);
  });
});
