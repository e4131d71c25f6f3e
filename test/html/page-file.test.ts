/**
 * The HTML page as a file, without a browser: its CSP admits exactly its own script and style,
 * the embedded JSON cannot end its script element and holds no raw bidi control, the run's
 * scrubber reaches every field, and a run's report.html is its document, rendered as it is.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PageData } from "../../src/render/html/model.js";
import { htmlPage, jsonForScript } from "../../src/render/html/page.js";
import type { RunDocument } from "../../src/report/document.js";
import { runEb } from "../helpers/project.js";
import { CASES, caseRuns, readJson, scratch, write } from "./fixtures.js";

const work = scratch();
let runs: { base: string; cand: string };

beforeAll(async () => {
  runs = await caseRuns(work.root);
}, 120_000);

afterAll(() => work.remove());

function dataOf(html: string): PageData {
  const json = /<script type="application\/json" id="eb-data">(.*?)<\/script>/s.exec(html)![1]!;
  return JSON.parse(json) as PageData;
}

function pageOf(file: string): { html: string; data: PageData } {
  const html = readFileSync(file, "utf8");
  return { html, data: dataOf(html) };
}

function hashOf(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

/**
 * Bidi controls, zero-width characters, separators, C0 (but tab, newline, CR) and C1 controls;
 * a string, as the linter wants no control character in a regular expression literal.
 */
const INVISIBLE = new RegExp(
  "[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u061c\\u200b-\\u200f" +
    "\\u2028-\\u202e\\u2060-\\u2069\\ufeff]",
);

describe("the HTML page", () => {
  it("allows only its own script and style (by hash) and loads nothing", () => {
    const { html } = pageOf(path.join(runs.base, "report.html"));
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!;
    const script = /<script>(.*?)<\/script>/s.exec(html)![1]!;
    const style = /<style>(.*?)<\/style>/s.exec(html)![1]!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`script-src ${hashOf(script)}`);
    expect(csp).toContain(`style-src ${hashOf(style)}`);
    expect(csp).not.toContain("unsafe-inline");
    expect(html).toContain('<link rel="icon" href="data:,">');
    // No markup points anywhere: no src, and the only href is the inline icon.
    const markup = html.replace(/(<script[^>]*>).*?<\/script>/gs, "$1");
    expect(markup.match(/\s(?:src|href)=/g)).toEqual([" href="]);
    expect(markup).not.toMatch(/https?:/);
  });

  it("embeds JSON that no HTML parser can end early, with every invisible control escaped", () => {
    const hostile = { text: "</script><!-- & \u2028\u2029 > \u202e\u2066\u200b\u0085\u0007" };
    const json = jsonForScript(hostile);
    expect(json).not.toMatch(/[<>&]/);
    expect(json).not.toMatch(INVISIBLE);
    expect(json).toContain("\\u202e");
    expect(JSON.parse(json)).toEqual(hostile);
  });

  it("a run's page holds no raw bidi or control character, though an answer had them", () => {
    const { html, data } = pageOf(path.join(runs.base, "report.html"));
    expect(html).not.toMatch(INVISIBLE);
    const bidi = data.runs[0]!.doc.items.find((item) => item.id === "bidi-1")!;
    expect(bidi.outcomes[0]!.excerpt).toMatch(/\u202e/);
  });

  it("report.html is the run's document, as report.json has it", () => {
    const { data } = pageOf(path.join(runs.base, "report.html"));
    const report = readJson<Record<string, unknown>>(path.join(runs.base, "report.json"));
    const doc = data.runs[0]!.doc;
    expect(data.runs).toHaveLength(1);
    for (const [key, value] of Object.entries(doc)) expect(report[key], key).toEqual(value);
    // Only the document's fields: report.json's others (the case file, k…) are not embedded.
    expect(doc).not.toHaveProperty("cases_file");
    expect(data.runs[0]!.href).toBe("");
  });

  it("is rendered from the documents alone: a run folder that is gone is never read", () => {
    const { data } = pageOf(path.join(runs.base, "report.html"));
    const doc: RunDocument = { ...data.runs[0]!.doc, output_dir: "/no/such/run/folder" };
    const html = htmlPage({ documents: [doc], leaderboard: null, runHrefs: ["../runs/a"] });
    const again = dataOf(html);
    expect(again.runs[0]!.doc.items.map((item) => item.id)).toEqual(doc.items.map((i) => i.id));
    expect(again.runs[0]!.href).toBe("../runs/a/");
    expect(again.title).toBe(`eval-banana report · ${doc.run_id}`);
  });

  it("removes the run's secrets from every field, the case's messages included", async () => {
    const secret = "tok-1f2e3d4c5b6a";
    const root = path.join(work.root, "secret");
    const line = JSON.stringify({
      id: "leak-1",
      messages: [{ role: "user", content: `my token is ${secret}` }],
      graders: [{ type: "equals", name: "exact", value: "4" }],
    });
    write(root, {
      ".eval-banana/config.toml": "",
      "cases.jsonl": `${line}\n`,
      "app.mjs": `process.stdout.write("${secret}");`,
    });
    const run = await runEb(["eval", "cases.jsonl", "--target", "node app.mjs", "--cwd", root], {
      cwd: root,
      env: { MY_SERVICE_TOKEN: secret },
    });
    expect(run.code, run.stderr).toBe(1);
    const results = path.join(root, ".eval-banana/results");
    const [runDir] = readdirSync(results);
    const { html, data } = pageOf(path.join(results, runDir!, "report.html"));
    expect(html).not.toContain(secret);
    const [item] = data.runs[0]!.doc.items;
    expect(item!.input).toBe("user: my token is [redacted]");
    expect(item!.outcomes[0]!.excerpt).toBe("[redacted]");
  });

  it("eb report RUN --html and eb compare --html show what the run wrote beside its rows", async () => {
    // The case inputs and sources, the threshold and so the verdict: report.json has them.
    const root = path.join(work.root, "written");
    write(root, {
      ".eval-banana/config.toml": "",
      "cases.jsonl": `${CASES}\n`,
      "app.mjs": 'process.stdout.write("4");',
    });
    const eval_ = ["eval", "cases.jsonl", "--target", "node app.mjs", "--pass-threshold", "0.1"];
    const run = await runEb([...eval_, "--cwd", root], { cwd: root });
    expect(run.code, run.stderr).toBe(0);
    const results = path.join(root, ".eval-banana/results");
    const runDir = path.join(results, readdirSync(results)[0]!);
    const own = readJson<RunDocument>(path.join(runDir, "report.json"));
    const fields = ({
      id,
      type,
      description,
      source,
      line,
      input,
    }: RunDocument["items"][number]) => ({ id, type, description, source, line, input });
    const [page, pair] = [path.join(root, "run.html"), path.join(root, "pair.html")];
    const report = await runEb(["report", runDir, "--html", page]);
    expect(report.code, report.stderr).toBe(0);
    const compare = await runEb([
      "compare",
      runDir,
      runDir,
      "--inconclusive",
      "pass",
      "--html",
      pair,
    ]);
    expect(compare.code, compare.stderr).toBe(0);
    for (const doc of [pageOf(page).data.runs[0]!.doc, pageOf(pair).data.runs[0]!.doc]) {
      expect(doc.pass_threshold).toBe(0.1);
      expect(doc.verdict).toEqual(own.verdict);
      expect(doc.run_passed).toBe(true);
      expect(doc.items.map(fields)).toEqual(own.items.map(fields));
      expect(doc.items.find((item) => item.id === "add-1")!.input).toBe("user: What is 2 + 2?");
    }
  });

  it("eb report RUN --html elsewhere: the run's document, its files linked from the page's folder", async () => {
    const file = path.join(work.root, "pages", "run.html");
    const result = await runEb(["report", runs.base, "--html", file]);
    expect(result.code, result.stderr).toBe(0);
    const { data } = pageOf(file);
    const report = readJson<{ items: { id: string }[] }>(path.join(runs.base, "report.json"));
    expect(data.runs[0]!.doc.items.map((item) => item.id)).toEqual(report.items.map((i) => i.id));
    expect(data.runs[0]!.href).toBe(`../${path.relative(work.root, runs.base)}/`);
  });
});
