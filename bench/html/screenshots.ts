/**
 * The docs' screenshots of the HTML page (docs/images/report-*.png, 1200×800), one per view: the
 * quick start's case run and check run in a scratch copy of examples/quickstart, a candidate
 * whose app fixes the refund bug and breaks the greeting (`eb compare --html`), the two judged
 * pair by pair by a stand-in judge on loopback (`eb pairwise`), three runs ranked
 * (`eb report A B C --html`), and a run sharded in two and merged (`eb merge`).
 *
 * Run from the repository root: `npm run build && npx tsc -p bench/tsconfig.json &&
 * node .bench-build/bench/html/screenshots.js`
 */

import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Page } from "puppeteer-core";
import {
  completion,
  lastContent,
  startLoopbackServer,
} from "../../test/helpers/loopback-server.js";
import { launchBrowser, type ReportBrowser } from "../../test/html/browser.js";

const ROOT = process.cwd();
const CLI = path.join(ROOT, "dist/bin/eb.js");
const OUT = path.join(ROOT, "docs/images");
const TARGET = ["--target", "node app/answer.mjs", "-k", "3"];

/** Not execFileSync: the stand-in judge answers from this process while `eb pairwise` runs. */
async function eb(cwd: string, ...args: string[]): Promise<void> {
  try {
    await promisify(execFile)(process.execPath, [CLI, ...args], { cwd });
  } catch {
    // The quick start fails its gate on purpose (exit 1); the run folder is what matters.
  }
}

/**
 * The run folder an `eb` command makes: the one not there before it (two runs of one second
 * need not sort by their names in the order they ran).
 */
async function ebRun(project: string, ...args: string[]): Promise<string> {
  const dir = path.join(project, ".eval-banana/results");
  const before = new Set(existsSync(dir) ? readdirSync(dir) : []);
  await eb(project, ...args);
  return path.join(dir, readdirSync(dir).find((name) => !before.has(name))!);
}

async function shoot(page: Page, name: string, scrollTo?: string): Promise<void> {
  if (scrollTo) await page.$eval(scrollTo, (element) => element.scrollIntoView());
  await page.screenshot({ path: path.join(OUT, `report-${name}.png`) });
}

async function open(browser: ReportBrowser, file: string): Promise<Page> {
  const opened = await browser.open(file);
  const trouble = [...opened.requests, ...opened.errors];
  if (trouble.length > 0) throw new Error(`${file}: ${trouble.join("; ")}`);
  return opened.page;
}

/** The candidate: asks for the order number before any refund, and greets with "Hi". */
function editApp(project: string): void {
  const app = path.join(project, "app/answer.mjs");
  const edited = readFileSync(app, "utf8")
    .replace(
      `I can start a refund of $\{amount[0]} once I have your order number.`,
      "Could you send me your order number?",
    )
    .replace(`Hello, $\{name[1]}!`, `Hi $\{name[1]}!`);
  writeFileSync(app, edited);
}

/** A judge that prefers the answer that asks for an order number, and calls the rest a tie. */
async function pairwiseRun(project: string, base: string, cand: string): Promise<string> {
  const server = await startLoopbackServer((request) => {
    const prompt = lastContent(request);
    const a = /ANSWER A:\n([\s\S]*?)\n\nANSWER B:/.exec(prompt)?.[1] ?? "";
    const b = /ANSWER B:\n([\s\S]*?)\n\nCRITERIA:/.exec(prompt)?.[1] ?? "";
    const asks = (text: string) => /order number/i.test(text) && !/\$\d/.test(text);
    const winner = asks(a) === asks(b) ? "tie" : asks(a) ? "A" : "B";
    const reason = winner === "tie" ? "both answers are as good" : "it asks for the order first";
    return { body: completion(`{"winner": "${winner}", "reason": "${reason}"}`, "judge-2026") };
  });
  try {
    const out = path.join(project, "pairwise");
    await eb(
      project,
      "pairwise",
      base,
      cand,
      "--judge",
      "judge",
      "--api-base",
      server.baseURL,
      "--out",
      out,
      "--flat-output",
    );
    return out;
  } finally {
    await server.close();
  }
}

/** The case run again in two shards, merged. */
async function mergedRun(project: string): Promise<string> {
  const shards: string[] = [];
  for (const shard of ["1/2", "2/2"]) {
    const out = path.join(project, `shard-${shard.replace("/", "-")}`);
    await eb(
      project,
      "eval",
      "cases.jsonl",
      ...TARGET,
      "--shard",
      shard,
      "--out",
      out,
      "--flat-output",
    );
    shards.push(out);
  }
  const merged = path.join(project, "merged");
  await eb(project, "merge", ...shards, "--out", merged, "--flat-output");
  return merged;
}

async function main(): Promise<void> {
  const project = mkdtempSync(path.join(os.tmpdir(), "eb-shots-"));
  cpSync(path.join(ROOT, "examples/quickstart"), project, { recursive: true });
  rmSync(path.join(project, ".eval-banana/results"), { recursive: true, force: true });
  const checks = await ebRun(project, "run");
  const base = await ebRun(project, "eval", "cases.jsonl", ...TARGET);
  const merged = await mergedRun(project);
  editApp(project);
  const cand = await ebRun(project, "eval", "cases.jsonl", ...TARGET);
  await eb(project, "compare", base, cand, "--html", path.join(project, "compare.html"));
  const pairwise = await pairwiseRun(project, base, cand);
  await eb(project, "report", base, cand, merged, "--html", path.join(project, "board.html"));
  mkdirSync(OUT, { recursive: true });
  const browser = await launchBrowser();
  try {
    const run = await open(browser, path.join(base, "report.html"));
    await shoot(run, "cases");
    await run.click("tr[data-id='refund-002']");
    await shoot(run, "drill-down");
    await shoot(await open(browser, path.join(checks, "report.html")), "checks");
    const compare = await open(browser, path.join(project, "compare.html"));
    await shoot(compare, "compare");
    await shoot(compare, "compare-items", "#items-title");
    await shoot(await open(browser, path.join(pairwise, "report.html")), "pairwise");
    await shoot(await open(browser, path.join(project, "board.html")), "leaderboard");
    await shoot(await open(browser, path.join(merged, "report.html")), "merged");
  } finally {
    await browser.close();
    rmSync(project, { recursive: true, force: true });
  }
}

await main();
