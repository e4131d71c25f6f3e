import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject, runEb } from "../helpers/project.js";
import { artifact, HAS_CHROMIUM, launchBrowser } from "../html/browser.js";

/** Markup in a model name: the page must show it as text, never load or run it. */
const HOSTILE = "<img src=x onerror=alert(1)>";

/** What the test reads of the page, from the DOM as the browser built it. */
interface Seen {
  verdict: string | null;
  points: { pareto: string | null; title: string }[];
  rows: (string | null)[][];
  images: number;
  scripts: number;
  items: string | null;
}

const SEEN = `({
  verdict: document.querySelector("[data-test='verdict']")?.textContent ?? null,
  points: [...document.querySelectorAll("svg g.run")].map((g) => ({
    pareto: g.getAttribute("data-pareto"),
    title: g.querySelector("title")?.textContent ?? "",
  })),
  rows: [...document.querySelectorAll("table.leaderboard tbody tr")].map((tr) =>
    [...tr.children].map((cell) => cell.textContent),
  ),
  images: document.querySelectorAll("img").length,
  scripts: document.querySelectorAll("script").length,
  items: document.querySelector("[data-test='board-items'] .run-title")?.textContent ?? null,
})`;

function rows(model: string, wrong: number, tokens: number): string {
  const lines = Array.from({ length: 40 }, (_, i) =>
    JSON.stringify({
      id: `c${i}`,
      score: i < wrong ? 0 : 1,
      model,
      prompt_tokens: tokens,
      completion_tokens: tokens / 10,
      ms: 200 + i,
    }),
  );
  return `${lines.join("\n")}\n`;
}

describe.skipIf(!HAS_CHROMIUM)("the leaderboard page in Chromium, from file://", () => {
  it("leads with the best run; draws the chart and table with no request and no console error", async () => {
    const dir = makeProject({
      ".eval-banana/config.toml": `[pricing.big]\ninput_per_mtok = 3\noutput_per_mtok = 15\n[pricing.small]\ninput_per_mtok = 0.2\noutput_per_mtok = 0.8\n[pricing."${HOSTILE}"]\ninput_per_mtok = 1\noutput_per_mtok = 4\n`,
      "big.jsonl": rows("big", 1, 2000),
      "small.jsonl": rows("small", 6, 1500),
      "odd.jsonl": rows(HOSTILE, 20, 1800),
    });
    const result = await runEb(
      ["report", "big.jsonl", "small.jsonl", "odd.jsonl", "--html", "board.html"],
      { cwd: dir },
    );
    expect(result.code, result.stderr).toBe(0);
    const browser = await launchBrowser();
    try {
      const { page, requests, errors } = await browser.open(path.join(dir, "board.html"), {
        viewport: { width: 1100, height: 1000 },
      });

      // A string, run in the page: this project's types have no DOM.
      const seen = (await page.evaluate(SEEN)) as Seen;
      expect(requests).toEqual([]);
      expect(errors).toEqual([]);
      expect(seen.images).toBe(0);
      // The data block and the page's own script, nothing the data brought.
      expect(seen.scripts).toBe(2);
      expect(seen.verdict).toBe("BEST: big.jsonl");
      // big: best and dearest; small: cheapest, on the front too; odd: beaten on both.
      expect(seen.points.map((p) => p.pareto)).toEqual(["true", "true", "false"]);
      expect(seen.points[0]!.title).toMatch(/^#1 big\.jsonl: pass rate 0\.975, 95% interval \[/);
      expect(seen.points[0]!.title).toContain("on the Pareto front");
      expect(seen.rows.map((row) => row[2])).toEqual(["big", "small", HOSTILE]);
      expect(seen.rows.map((row) => row[10]?.split(" ")[0])).toEqual(["best", "≈", "worse"]);
      expect(seen.rows.map((row) => row[11])).toEqual(["yes", "yes", "no"]);
      // The best run's items first; a run's button shows its own.
      expect(seen.items).toBe("Items of big.jsonl");
      await page.click("tr[data-run='odd.jsonl'] button");
      expect(((await page.evaluate(SEEN)) as Seen).items).toBe("Items of odd.jsonl");
      expect(await page.$$eval("table.items tbody tr", (trs) => trs.length)).toBe(40);
      await page.click("tr[data-run='big.jsonl'] button");

      const shot = artifact("leaderboard");
      await page.screenshot({ path: shot, fullPage: true });
      console.log(`leaderboard screenshot: ${shot}`);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it("runs at one spot on the chart have their labels one above the other, not on each other", async () => {
    const dir = makeProject({
      ".eval-banana/config.toml": "[pricing.m]\ninput_per_mtok = 1\noutput_per_mtok = 4\n",
      "a.jsonl": rows("m", 2, 1000),
      "b.jsonl": rows("m", 2, 1000),
      "c.jsonl": rows("m", 2, 1000),
    });
    const args = ["report", "a.jsonl", "b.jsonl", "c.jsonl", "--html", "board.html"];
    const result = await runEb(args, { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const browser = await launchBrowser();
    try {
      const { page } = await browser.open(path.join(dir, "board.html"));
      const boxes = (await page.evaluate(`[...document.querySelectorAll("svg text.run-label")]
        .map((t) => { const b = t.getBBox(); return [b.x, b.y, b.x + b.width, b.y + b.height]; })`)) as [
        number,
        number,
        number,
        number,
      ][];
      expect(boxes).toHaveLength(3);
      const overlap = (p: number[], q: number[]) =>
        p[0]! < q[2]! && q[0]! < p[2]! && p[1]! < q[3]! && q[1]! < p[3]!;
      for (const [i, box] of boxes.entries()) {
        for (const other of boxes.slice(i + 1)) expect(overlap(box, other)).toBe(false);
      }
    } finally {
      await browser.close();
    }
  }, 60_000);
});
