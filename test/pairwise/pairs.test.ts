import { appendFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readPairs } from "../../src/pairwise/pairs.js";
import { makeProject, runEb, writeFile } from "../helpers/project.js";

const ITEMS = 200_000;

const caseLine = (i: number) =>
  JSON.stringify({
    id: `c${i}`,
    messages: [{ role: "user", content: `q${i}` }],
    graders: [{ type: "contains", all: ["a"] }],
  });

describe("readPairs", () => {
  it("pairs runs of more items than a call takes arguments", async () => {
    // A real run of one case (its manifest), then the rows and cases of many more.
    const root = makeProject({
      "cases.jsonl": `${caseLine(0)}\n`,
      "say.mjs": 'console.log("a")\n',
    });
    const run = await runEb(
      ["eval", "cases.jsonl", "--target", "node say.mjs", "--out", "run", "--flat-output"],
      { cwd: root },
    );
    expect(run.code, run.stderr).toBe(0);
    const ids = Array.from({ length: ITEMS }, (_, i) => i);
    const row = (i: number) => JSON.stringify({ id: `c${i}`, sample: 0, score: 1, text: "a" });
    appendFileSync(path.join(root, "run/rows.jsonl"), `${ids.slice(1).map(row).join("\n")}\n`);
    writeFile(root, "cases.jsonl", `${ids.map(caseLine).join("\n")}\n`);

    const runDir = path.join(root, "run");
    const pairs = await readPairs(runDir, runDir, { cwd: root, criteria: null });
    expect(pairs.items).toHaveLength(ITEMS);
    expect(pairs.samples).toBe(1);
  }, 120_000);
});
