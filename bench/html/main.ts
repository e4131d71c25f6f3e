/**
 * bench/html: the size of report.html and its time to interactive in headless Chromium at 100,
 * 1,000 and 10,000 items (rows written directly, one sample each, a 240-character answer, one
 * item in 7 failing; `eb report ROWS --html` builds each page).
 *
 * Run from the repository root: `bench/run.sh html` (builds, compiles bench/, runs).
 * Options: --rounds 5. Time to interactive is the page's own `eb-interactive` mark (navigation
 * start to a drawn page), the median of the rounds, each in a fresh tab.
 */

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { launchBrowser } from "../../test/html/browser.js";
import { median } from "../median.js";

const SIZES = [100, 1_000, 10_000];
const CLI = path.resolve("dist/bin/eb.js");

function rounds(): number {
  const at = process.argv.indexOf("--rounds");
  return at === -1 ? 5 : Number(process.argv[at + 1]);
}

function rowsFile(dir: string, items: number): string {
  const lines = Array.from({ length: items }, (_, i) => {
    const failed = i % 7 === 0;
    return JSON.stringify({
      id: `item-${i}`,
      sample: 0,
      score: failed ? 0 : 1,
      status: failed ? "failed" : "passed",
      stratum: `stratum-${i % 5}`,
      marks: { exact: !failed },
      reasons: failed ? { exact: `expected "${i}", got something else` } : {},
      reason: failed ? `exact: expected "${i}", got something else` : null,
      text: `answer ${i}: `.padEnd(240, "lorem ipsum "),
      ms: 100 + (i % 50),
    });
  });
  const file = path.join(dir, `rows-${items}.jsonl`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "eb-bench-html-"));
  const browser = await launchBrowser();
  try {
    console.log("items    page size    time to interactive (median)");
    for (const items of SIZES) {
      const page = path.join(dir, `page-${items}.html`);
      execFileSync(process.execPath, [CLI, "report", rowsFile(dir, items), "--html", page]);
      const times: number[] = [];
      for (let round = 0; round < rounds(); round++) {
        const opened = await browser.open(page);
        const mark = "performance.getEntriesByName('eb-interactive')[0].startTime";
        times.push(Number(await opened.page.evaluate(mark)));
        if (opened.requests.length > 0 || opened.errors.length > 0) {
          throw new Error(
            `the page made requests or logged errors: ${[...opened.requests, ...opened.errors].join("; ")}`,
          );
        }
        await opened.page.close();
      }
      const size = statSync(page).size;
      const kb = `${(size / 1024).toFixed(0)} KB`;
      console.log(
        `${String(items).padStart(6)}  ${kb.padStart(11)}    ${Math.round(median(times))} ms`,
      );
    }
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
