/**
 * The README's screenshots of report.html (docs/images/report-*.png, 1200×800): the quick
 * start's runs in a scratch copy of examples/quickstart, then a candidate whose app fixes the
 * refund bug and breaks the greeting, compared with `eb compare --html`.
 *
 * Run from the repository root: `npm run build && npx tsc -p bench/tsconfig.json &&
 * node .bench-build/bench/html/screenshots.js`
 */

import { execFileSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { launchBrowser } from "../../test/html/browser.js";

const ROOT = process.cwd();
const CLI = path.join(ROOT, "dist/bin/eb.js");
const OUT = path.join(ROOT, "docs/images");

function eb(cwd: string, ...args: string[]): void {
  try {
    execFileSync(process.execPath, [CLI, ...args], { cwd, stdio: "ignore" });
  } catch {
    // The quick start fails its gate on purpose (exit 1); the run folder is what matters.
  }
}

function newestRun(project: string): string {
  const dir = path.join(project, ".eval-banana/results");
  return path.join(dir, readdirSync(dir).sort().at(-1)!);
}

async function shoot(page: Page, name: string, scrollTo?: string): Promise<void> {
  if (scrollTo) await page.$eval(scrollTo, (element) => element.scrollIntoView());
  await page.screenshot({ path: path.join(OUT, `report-${name}.png`) });
}

async function main(): Promise<void> {
  const project = mkdtempSync(path.join(os.tmpdir(), "eb-shots-"));
  cpSync(path.join(ROOT, "examples/quickstart"), project, { recursive: true });
  rmSync(path.join(project, ".eval-banana/results"), { recursive: true, force: true });
  eb(project, "eval", "cases.jsonl", "--target", "node app/answer.mjs", "-k", "3");
  const base = newestRun(project);
  const app = path.join(project, "app/answer.mjs");
  const fixed = readFileSync(app, "utf8")
    .replace(
      `I can start a refund of $\{amount[0]} once I have your order number.`,
      "Could you send me your order number?",
    )
    .replace(`Hello, $\{name[1]}!`, `Hi $\{name[1]}!`);
  writeFileSync(app, fixed);
  eb(project, "eval", "cases.jsonl", "--target", "node app/answer.mjs", "-k", "3");
  const cand = newestRun(project);
  const compare = path.join(project, "compare.html");
  eb(project, "compare", base, cand, "--html", compare);
  mkdirSync(OUT, { recursive: true });
  const browser = await launchBrowser();
  try {
    const run = (await browser.open(path.join(base, "report.html"))).page;
    await shoot(run, "summary");
    await shoot(run, "strata", "[data-test='chart']");
    await run.click("button[data-filter='failed']");
    await shoot(run, "items", "#items-title");
    await run.click("tr[data-id='refund-002']");
    await shoot(run, "drill-down");
    const page = (await browser.open(compare)).page;
    await shoot(page, "compare");
    await page.click("button[data-filter='changed']");
    await shoot(page, "compare-items", "#items-title");
  } finally {
    await browser.close();
    rmSync(project, { recursive: true, force: true });
  }
}

await main();
