/**
 * report.html opened from file:// in headless Chromium, every request but the page itself failed:
 * real run folders of `eb eval` (a command target) and `eb run` (real Python checks), the page
 * of `eb compare --html`, and a 10,000-item page from `eb report ROWS --html`.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEb } from "../helpers/project.js";
import {
  artifact,
  HAS_CHROMIUM,
  launchBrowser,
  type OpenedPage,
  type ReportBrowser,
} from "./browser.js";
import { caseRuns, checkRun, HOSTILE, JUDGE_VERDICT, readJson, scratch } from "./fixtures.js";

interface Stats {
  pass_rate: number;
  ci_low: number;
  ci_high: number;
  ci_level: number;
}

interface CaseReport {
  stats: Stats;
  items: { id: string; problem: string | null }[];
}

const work = scratch();
let browser: ReportBrowser;
let runs: { base: string; cand: string; checks: string };
const opened: OpenedPage[] = [];

beforeAll(async () => {
  const [cases, checks] = await Promise.all([
    caseRuns(path.join(work.root, "cases")),
    checkRun(path.join(work.root, "checks")),
  ]);
  runs = { ...cases, checks };
  if (HAS_CHROMIUM) browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  // Whatever a test did, no page may have asked for anything or logged an error.
  for (const { requests, errors } of opened) {
    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
  }
  await browser?.close();
  work.remove();
});

async function open(file: string): Promise<Page> {
  const page = await browser.open(file);
  opened.push(page);
  return page.page;
}

function texts(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(selector, (nodes) => nodes.map((node) => node.textContent ?? ""));
}

function shot(page: Page, name: string, fullPage = false): Promise<unknown> {
  return page.screenshot({ path: artifact(name), fullPage });
}

describe.skipIf(!HAS_CHROMIUM)("report.html in a browser", () => {
  it("summary of an eb eval run: report.json's pass rate and interval, no request, no error", async () => {
    const page = await open(path.join(runs.base, "report.html"));
    const report = readJson<CaseReport>(path.join(runs.base, "report.json"));
    const { stats } = report;
    expect(await texts(page, "[data-test='pass-rate']")).toEqual([stats.pass_rate.toFixed(3)]);
    const [interval] = await texts(page, "[data-test='interval']");
    expect(interval).toContain(`95% CI [${stats.ci_low.toFixed(3)}, ${stats.ci_high.toFixed(3)}]`);
    // One chart row per stratum, with its interval.
    expect(await texts(page, ".chart-row .name")).toEqual(["greet", "math", "safety"]);
    await shot(page, "summary", true);
  });

  it('the "failed" filter shows exactly the failing items; search narrows them', async () => {
    const page = await open(path.join(runs.base, "report.html"));
    const report = readJson<CaseReport>(path.join(runs.base, "report.json"));
    const failing = report.items.filter((item) => item.problem !== null).map((item) => item.id);
    expect(failing.length).toBeGreaterThan(1);
    await page.click("button[data-filter='failed']");
    expect((await texts(page, "table.items tbody td.id")).sort()).toEqual(failing.sort());
    expect(
      await page.$eval("button[data-filter='failed']", (b) => b.getAttribute("aria-pressed")),
    ).toBe("true");
    await shot(page, "items-failed");
    await page.type("input[type='search']", "greet");
    expect(await texts(page, "table.items tbody td.id")).toEqual(["greet-2"]);
    await page.click("button[data-filter='flaky']");
    expect(await texts(page, "table.items tbody td.id")).toEqual([]);
  });

  it("a drill-down opens with Enter: messages, each sample's answer, every grader's mark and reason", async () => {
    const page = await open(path.join(runs.base, "report.html"));
    await page.focus("tr[data-id='greet-2']");
    await page.keyboard.press("Enter");
    await page.waitForSelector("dialog[open]");
    const dialog = await texts(page, "dialog[open] .drill-body");
    expect(dialog[0]).toContain("Greet Bob");
    expect(await texts(page, "dialog[open] [data-test='answer'] pre")).toEqual([
      "Hi Bob",
      "Hi Bob",
    ]);
    expect(dialog[0]).toContain('expected "Hello Bob", got "Hi Bob"');
    await shot(page, "drill-down");
    await page.keyboard.press("Escape");
    expect(await page.$("dialog[open]")).toBeNull();
    // Focus is back on the row, so the keyboard user goes on from there.
    expect(await page.evaluate("document.activeElement?.getAttribute('data-id')")).toBe("greet-2");
  });

  it("an answer holding </script><img onerror> is shown as text: no element, no script ran", async () => {
    const page = await open(path.join(runs.base, "report.html"));
    await page.click("tr[data-id='inject-1']");
    await page.waitForSelector("dialog[open]");
    expect(await texts(page, "dialog[open] [data-test='answer'] pre")).toEqual([HOSTILE, HOSTILE]);
    expect(await page.$$("img, b")).toEqual([]);
    expect(await page.title()).not.toBe("pwned");
  });

  it("a long answer is cut, and the page says so", async () => {
    const page = await open(path.join(runs.base, "report.html"));
    await page.click("tr[data-id='long-1']");
    const note = await texts(page, "dialog[open] [data-test='answer'] .note");
    expect(note[0]).toContain("Showing the first 4,000 characters of 5,003 characters");
  });

  it("an eb run page: the check's description, reason and stderr tail, with links that exist", async () => {
    const page = await open(path.join(runs.checks, "report.html"));
    expect(await texts(page, ".chart-row .name")).toEqual(["api", "smoke"]);
    const { stats } = readJson<CaseReport>(path.join(runs.checks, "report.json"));
    expect(await texts(page, "[data-test='pass-rate']")).toEqual([stats.pass_rate.toFixed(3)]);
    await page.click("tr[data-id='fails']");
    const body = (await texts(page, "dialog[open] .drill-body"))[0]!;
    expect(body).toContain("arithmetic is off by one");
    expect(body).toContain("eval_checks/api/fails.yaml");
    expect((await texts(page, "dialog[open] [data-test='stderr'] pre"))[0]).toContain(
      "AssertionError",
    );
    const links = await page.$$eval("dialog[open] a", (as) =>
      as.map((a) => a.getAttribute("href")!),
    );
    expect(links.length).toBeGreaterThan(1);
    for (const href of links)
      expect(path.join(runs.checks, decodeURIComponent(href))).toSatisfy(existsSync);
    await shot(page, "drill-down-check");
    await page.keyboard.press("Escape");
    await page.click("tr[data-id='judge']");
    const judge = (await texts(page, "dialog[open] .drill-body"))[0]!;
    expect((await texts(page, "dialog[open] [data-test='judge prompt'] pre"))[0]).toContain(
      "Read summary.txt. Score 1 if accurate",
    );
    expect(judge).toContain("the summary omits the total");
    expect((await texts(page, "dialog[open] [data-test='stdout'] pre"))[0]).toContain(
      JUDGE_VERDICT,
    );
    await shot(page, "drill-down-judge");
    await page.keyboard.press("Escape");
    await page.click("tr[data-id='markup']");
    expect((await texts(page, "dialog[open] [data-test='stdout'] pre"))[0]).toContain(HOSTILE);
    expect(await page.$$("img")).toEqual([]);
  });

  it("eb compare --html: the verdict, and broke / fixed items with both answers side by side", async () => {
    const file = path.join(work.root, "compare", "compare.html");
    mkdirSync(path.dirname(file), { recursive: true });
    const json = await runEb(["compare", runs.base, runs.cand, "--json", "--html", file]);
    const comparison = JSON.parse(json.stdout) as {
      broke: string[];
      fixed: string[];
      verdict: string;
      delta: number;
    };
    expect(comparison.broke).toEqual(["add-2"]);
    expect(comparison.fixed).toEqual(["greet-2"]);
    const page = await open(file);
    expect(await texts(page, "[data-test='verdict']")).toEqual([comparison.verdict.toUpperCase()]);
    expect((await texts(page, "[data-test='delta']"))[0]).toBe(
      `${comparison.delta >= 0 ? "+" : ""}${comparison.delta.toFixed(3)}`,
    );
    await shot(page, "compare", true);
    await page.click("button[data-filter='broke']");
    expect(await texts(page, "table.items tbody td.id")).toEqual(comparison.broke);
    await page.click("button[data-filter='fixed']");
    expect(await texts(page, "table.items tbody td.id")).toEqual(comparison.fixed);
    await page.click("tr[data-id='greet-2']");
    const sides = await texts(page, "dialog[open] [data-test='side-0'] [data-test='answer'] pre");
    expect(sides).toEqual(["Hi Bob", "Hello Bob"]);
    await shot(page, "compare-drill-down");
  });

  it("10,000 items: interactive in under 2 s, and a filter answers at once", async () => {
    const dir = path.join(work.root, "big");
    mkdirSync(dir, { recursive: true });
    const rows = Array.from({ length: 10_000 }, (_, i) =>
      JSON.stringify({
        id: `item-${String(i).padStart(5, "0")}`,
        sample: 0,
        score: i % 7 === 0 ? 0 : 1,
        status: i % 7 === 0 ? "failed" : "passed",
        stratum: `s${i % 5}`,
        marks: { exact: i % 7 !== 0 },
        reason: i % 7 === 0 ? `exact: expected "${i}", got something else` : null,
        text: `answer ${i} `.repeat(20),
        ms: 100 + (i % 50),
      }),
    );
    writeFileSync(path.join(dir, "rows.jsonl"), `${rows.join("\n")}\n`);
    const file = path.join(dir, "big.html");
    const report = await runEb(["report", path.join(dir, "rows.jsonl"), "--html", file]);
    expect(report.code, report.stderr).toBe(0);
    const page = await open(file);
    const interactive = Number(
      await page.evaluate("performance.getEntriesByName('eb-interactive')[0].startTime"),
    );
    const started = performance.now();
    await page.click("button[data-filter='failed']");
    const filtered = performance.now() - started;
    console.log(
      `10,000 items: interactive ${Math.round(interactive)} ms after navigation; filtered in ${Math.round(filtered)} ms`,
    );
    expect(await texts(page, "[data-test='shown']")).toEqual(["1–100 of 1,429 items"]);
    expect(interactive).toBeLessThan(2000);
    expect(filtered).toBeLessThan(1000);
  });
});
