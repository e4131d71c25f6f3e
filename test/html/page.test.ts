/**
 * The HTML page opened from file:// in headless Chromium, every request but the page itself
 * failed: report.html of real run folders of `eb eval` (a command target) and `eb run` (real
 * Python checks), the page of `eb compare --html`, and a 10,000-item page from
 * `eb report ROWS --html`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PageData } from "../../src/render/html/model.js";
import { htmlPage } from "../../src/render/html/page.js";
import { runEb } from "../helpers/project.js";
import {
  artifact,
  HAS_CHROMIUM,
  launchBrowser,
  type OpenedPage,
  type ReportBrowser,
} from "./browser.js";
import { BIDI, caseRuns, checkRun, HOSTILE, JUDGE_VERDICT, readJson, scratch } from "./fixtures.js";

interface Stats {
  pass_rate: number;
  ci_low: number;
  ci_high: number;
  ci_level: number;
}

interface CaseReport {
  stats: Stats;
  verdict: { outcome: string; rule: string };
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
  it("leads with the verdict in one word and the rule that decided it", async () => {
    const page = await open(path.join(runs.base, "report.html"));
    const report = readJson<CaseReport>(path.join(runs.base, "report.json"));
    expect(report.verdict.outcome).toBe("failed");
    expect(await texts(page, "[data-test='verdict']")).toEqual(["FAILED"]);
    expect(await texts(page, "[data-test='rule']")).toEqual([report.verdict.rule]);
    expect(report.verdict.rule).toMatch(/^\d+\/16 samples passed .* < threshold 1\.0$/);
    // The headline is the page's first section: nothing comes before it.
    const first = await page.$eval("main section", (s) => s.querySelector("[data-test='verdict']"));
    expect(first).not.toBeNull();
    // A run with no baseline, no pairs and no shards shows none of their parts.
    for (const part of ["against", "merged", "compare-verdict", "pair-counts"]) {
      expect(await page.$$(`[data-test='${part}']`)).toEqual([]);
    }
    expect(await page.$$("button[data-filter='changed']")).toEqual([]);
  });

  it("lists the items worst first, as the document orders them", async () => {
    const page = await open(path.join(runs.base, "report.html"));
    const report = readJson<CaseReport>(path.join(runs.base, "report.json"));
    const shown = await texts(page, "table.items tbody td.id");
    expect(shown).toEqual(report.items.map((item) => item.id));
    // Every answer of the first four is wrong, flaky-1 is half right, the last three right.
    expect(shown).toEqual([
      "bidi-1",
      "greet-2",
      "inject-1",
      "long-1",
      "flaky-1",
      "add-1",
      "add-2",
      "greet-1",
    ]);
    expect(await texts(page, "table.items tbody td.score")).toEqual([
      "0/2",
      "0/2",
      "0/2",
      "0/2",
      "1/2",
      "2/2",
      "2/2",
      "2/2",
    ]);
  });

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

  it("each tile counts what it says: items by outcome, samples passed; no cost for a command", async () => {
    const page = await open(path.join(runs.base, "report.html"));
    const report = readJson<{ items: { score: number }[] }>(path.join(runs.base, "report.json"));
    const tiles = Object.fromEntries(
      await page.$$eval(".stat", (nodes) =>
        nodes.map((node) => [
          node.querySelector(".label")?.textContent ?? "",
          node.querySelector(".detail")?.textContent ?? "",
        ]),
      ),
    );
    const passed = report.items.filter((item) => item.score === 1).length;
    const failed = report.items.length - passed;
    expect(tiles.items).toBe(`${passed} passed, ${failed} failed, 0 errored`);
    expect(tiles.samples).toMatch(/^\d+ passed, 2\.0 per item$/);
    // A command target records no tokens: no cost applies, and none is shown.
    expect(tiles).not.toHaveProperty("cost");
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
    expect(await texts(page, "dialog[open] pre.input")).toEqual(["user: Greet Bob"]);
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
    expect(note[0]).toContain("Showing the first 1,000 characters of 5,003");
  });

  it("bidi and control characters in an answer are shown as escapes, never applied", async () => {
    const page = await open(path.join(runs.base, "report.html"));
    await page.click("tr[data-id='bidi-1']");
    const answers = await texts(page, "dialog[open] [data-test='answer'] pre");
    expect(answers).toEqual([
      "paid\\u202e$0\\u2066 ok\\u200b\\u0007",
      "paid\\u202e$0\\u2066 ok\\u200b\\u0007",
    ]);
    expect(BIDI).toContain("\u202e");
    const all = String(await page.evaluate("document.body.textContent"));
    for (const char of ["\u202e", "\u2066", "\u200b", "\u0007"]) expect(all).not.toContain(char);
  });

  it("an eb run page: the check's description, reason and output, with links that exist", async () => {
    const page = await open(path.join(runs.checks, "report.html"));
    expect(await texts(page, "[data-test='verdict']")).toEqual(["FAILED"]);
    expect(await texts(page, ".chart-row .name")).toEqual(["api", "smoke"]);
    const { stats } = readJson<CaseReport>(path.join(runs.checks, "report.json"));
    expect(await texts(page, "[data-test='pass-rate']")).toEqual([stats.pass_rate.toFixed(3)]);
    await page.click("tr[data-id='fails']");
    const body = (await texts(page, "dialog[open] .drill-body"))[0]!;
    expect(body).toContain("arithmetic is off by one");
    expect(body).toContain("eval_checks/api/fails.yaml");
    expect(await texts(page, "dialog[open] [data-test='output'] pre")).toEqual(["looked at it\n"]);
    const links = await page.$$eval("dialog[open] a", (as) =>
      as.map((a) => [a.textContent, a.getAttribute("href")!]),
    );
    expect(links.map(([label]) => label)).toEqual(["result (JSON)", "stdout", "stderr"]);
    for (const [, href] of links)
      expect(path.join(runs.checks, decodeURIComponent(href!))).toSatisfy(existsSync);
    expect(
      readFileSync(path.join(runs.checks, decodeURIComponent(links[2]![1]!)), "utf8"),
    ).toContain("AssertionError");
    await shot(page, "drill-down-check");
    await page.keyboard.press("Escape");
    await page.click("tr[data-id='judge']");
    const judge = (await texts(page, "dialog[open] .drill-body"))[0]!;
    const judgeLinks = await page.$$eval("dialog[open] a", (as) =>
      as.map((a) => [a.textContent, a.getAttribute("href")!]),
    );
    const prompt = judgeLinks.find(([label]) => label === "prompt")!;
    expect(readFileSync(path.join(runs.checks, decodeURIComponent(prompt[1]!)), "utf8")).toContain(
      "Read summary.txt. Score 1 if accurate",
    );
    expect(judge).toContain("the summary omits the total");
    expect((await texts(page, "dialog[open] [data-test='output'] pre"))[0]).toContain(
      JUDGE_VERDICT,
    );
    await shot(page, "drill-down-judge");
    await page.keyboard.press("Escape");
    await page.click("tr[data-id='markup']");
    expect((await texts(page, "dialog[open] [data-test='output'] pre"))[0]).toContain(HOSTILE);
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
    expect(comparison.verdict).toBe("inconclusive");
    const page = await open(file);
    expect(await texts(page, "[data-test='verdict']")).toEqual(["INCONCLUSIVE"]);
    expect((await texts(page, "[data-test='rule']"))[0]).toMatch(
      // The baseline by its run id, not by a path of the machine it ran on.
      /^paired compare with the baseline \d{8}_\d{6}_[0-9a-f]{8} at margin 0\.02 → inconclusive on these \d+ cases \(--inconclusive pass would accept it\)$/,
    );
    expect(await texts(page, "[data-test='compare-verdict']")).toEqual(["INCONCLUSIVE"]);
    expect((await texts(page, "[data-test='delta']"))[0]).toBe(
      `${comparison.delta >= 0 ? "+" : ""}${comparison.delta.toFixed(3)}`,
    );
    await shot(page, "compare", true);
    // It opens on what changed: broke, then fixed, then changed (long-1: another wrong answer).
    expect(
      await page.$eval("button[data-filter='changed']", (b) => b.getAttribute("aria-pressed")),
    ).toBe("true");
    expect(await texts(page, "table.items tbody td.id")).toEqual(["add-2", "greet-2", "long-1"]);
    expect(await texts(page, "table.items tbody td:nth-child(2)")).toEqual([
      "▼ broke",
      "▲ fixed",
      "≠ changed",
    ]);
    await page.click("button[data-filter='all']");
    expect(await texts(page, "table.items tbody td.id")).toHaveLength(8);
    await page.click("button[data-filter='broke']");
    expect(await texts(page, "table.items tbody td.id")).toEqual(comparison.broke);
    await page.click("button[data-filter='fixed']");
    expect(await texts(page, "table.items tbody td.id")).toEqual(comparison.fixed);
    await page.click("tr[data-id='greet-2']");
    const sides = await texts(page, "dialog[open] [data-test='side-0'] [data-test='answer'] pre");
    expect(sides).toEqual(["Hi Bob", "Hello Bob"]);
    await shot(page, "compare-drill-down");
  });

  it("a merged run says it is a merge of its shards, under its verdict", async () => {
    const html = readFileSync(path.join(runs.base, "report.html"), "utf8");
    const json = /<script type="application\/json" id="eb-data">(.*?)<\/script>/s.exec(html)![1]!;
    const {
      runs: [run],
    } = JSON.parse(json) as PageData;
    const merged = { shards: ["1/2", "2/2"], runs: ["run-a", "run-b"] };
    const file = path.join(work.root, "merged.html");
    const documents = [{ ...run!.doc, run: { ...run!.doc.run, merged } }];
    writeFileSync(file, htmlPage({ documents, leaderboard: null }));
    const page = await open(file);
    expect(await texts(page, "h1")).toEqual(["Merged run report"]);
    expect(await texts(page, "[data-test='merged']")).toEqual([
      "A merge of 2 shards (1/2, 2/2): runs run-a, run-b.",
    ]);
    expect(await texts(page, "[data-test='verdict']")).toEqual(["FAILED"]);
  });

  it("the arms of eb skill run: titled as the skill against none, and eb skill's", async () => {
    const file = path.join(work.root, "skill", "compare.html");
    mkdirSync(path.dirname(file), { recursive: true });
    await runEb(["compare", runs.base, runs.cand, "--html", file]);
    const json = /<script type="application\/json" id="eb-data">(.*?)<\/script>/s.exec(
      readFileSync(file, "utf8"),
    )![1]!;
    const arms = ["without_skill", "with_skill"];
    const documents = (JSON.parse(json) as PageData).runs.map(({ doc }, i) => ({
      ...doc,
      run: { ...doc.run, suite: `eb skill run skills/report (${arms[i]})` },
    }));
    writeFileSync(file, htmlPage({ documents, leaderboard: null }));
    const page = await open(file);
    expect(await texts(page, "h1")).toEqual(["The skill against none"]);
    expect(await texts(page, "header .pill")).toEqual(["eb skill"]);
    expect(await texts(page, "[data-test='compare-verdict']")).toEqual(["INCONCLUSIVE"]);
    await shot(page, "skill-arms");
  });

  it("10,000 items: the page draws them a hundred at a time, and filters them", async () => {
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
    // How fast: bench/html (a timing here would fail on a loaded machine, not on a slow page).
    const page = await open(file);
    await page.click("button[data-filter='failed']");
    expect(await texts(page, "[data-test='shown']")).toEqual(["1–100 of 1,429 items"]);
  });
});
