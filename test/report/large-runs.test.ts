import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runEb } from "../helpers/project.js";

const ITEMS = 200_000;
const dir = mkdtempSync(path.join(os.tmpdir(), "eb-large-runs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * One sample for each of ITEMS items: `wide` gives each item its own stratum and fails nearly
 * all of them (a breakdown and a failing list as long as the run), `narrow` four strata.
 */
async function writeRows(file: string, shape: "narrow" | "wide"): Promise<void> {
  const out = createWriteStream(file);
  const manifest = { manifest: { kind: "cases", definitions: { "cases.jsonl": "x" } } };
  let text = `${JSON.stringify(manifest)}\n`;
  for (let i = 0; i < ITEMS; i++) {
    const score = shape === "wide" ? Number(i % 20 === 0) : Number(i % 3 !== 0);
    const stratum = shape === "wide" ? `s${i}` : `s${i % 4}`;
    const status = score === 1 ? "passed" : "failed";
    text += `{"id":"c${i}","sample":0,"score":${score},"status":"${status}","stratum":"${stratum}"}\n`;
    if (text.length < 1 << 20) continue;
    if (!out.write(text)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
    text = "";
  }
  await new Promise<void>((resolve) => out.end(text, () => resolve()));
}

describe("runs past the call stack's limit on an argument list (200,000 items)", () => {
  it("eb report (every failing item, a stratum per item) and eb compare finish", async () => {
    const narrow = path.join(dir, "narrow.jsonl");
    const wide = path.join(dir, "wide.jsonl");
    await Promise.all([writeRows(narrow, "narrow"), writeRows(wide, "wide")]);

    const report = await runEb(["report", wide, "--all"], { timeoutMs: 120_000 });
    expect(report.stderr).not.toContain("RangeError");
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain(`fell short: ${ITEMS * 0.95} items, worst first`);
    expect(report.stdout).toContain("by stratum");
    expect(report.stdout).toContain(`  c${ITEMS - 1} `);

    const compare = await runEb(["compare", narrow, wide], { timeoutMs: 120_000 });
    expect(compare.stderr).not.toContain("RangeError");
    expect(compare.code, compare.stderr).toBe(1);
    expect(compare.stdout).toContain("REGRESSION");
  }, 300_000);
});
