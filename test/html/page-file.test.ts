/**
 * report.html as a file, without a browser: its CSP admits exactly its own script and style,
 * the embedded JSON cannot end its script element, the run's scrubber reaches every field, and
 * a case file changed since the run is not shown as if it were the run's.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PageModel } from "../../src/html/model.js";
import { jsonForScript } from "../../src/html/page.js";
import { runEb } from "../helpers/project.js";
import { CASES, caseRuns, scratch, write } from "./fixtures.js";

const work = scratch();
let runs: { base: string; cand: string };

beforeAll(async () => {
  runs = await caseRuns(work.root);
}, 120_000);

afterAll(() => work.remove());

function pageOf(file: string): { html: string; model: PageModel } {
  const html = readFileSync(file, "utf8");
  const json = /<script type="application\/json" id="eb-data">(.*?)<\/script>/s.exec(html)![1]!;
  return { html, model: JSON.parse(json) as PageModel };
}

function hashOf(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

describe("report.html", () => {
  it("allows only its own script and style (by hash) and loads nothing", () => {
    const { html } = pageOf(path.join(runs.base, "report.html"));
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!;
    const script = /<script>(.*?)<\/script>/s.exec(html)![1]!;
    const style = /<style>(.*?)<\/style>/s.exec(html)![1]!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`script-src ${hashOf(script)}`);
    expect(csp).toContain(`style-src ${hashOf(style)}`);
    expect(html).toContain('<link rel="icon" href="data:,">');
    // No markup points anywhere: no src, and the only href is the inline icon.
    const markup = html.replace(/(<script[^>]*>).*?<\/script>/gs, "$1");
    expect(markup.match(/\s(?:src|href)=/g)).toEqual([" href="]);
    expect(markup).not.toMatch(/https?:/);
  });

  it("embeds JSON that no HTML parser can end early", () => {
    const hostile = { text: "</script><!-- & \u2028\u2029 >" };
    const json = jsonForScript(hostile);
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(hostile);
  });

  it("removes the run's secrets from every field, the case file's messages included", async () => {
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
    const { html, model } = pageOf(path.join(results, runDir!, "report.html"));
    expect(html).not.toContain(secret);
    expect(model.run.items[0]!.messages![0]!.content).toBe("my token is [redacted]");
  });

  it("says the messages are unavailable once the case file has changed", async () => {
    const file = path.join(work.root, "changed.html");
    const before = await runEb(["report", runs.base, "--html", file]);
    expect(before.code, before.stderr).toBe(0);
    expect(pageOf(file).model.run.items[0]!.messages).not.toBeNull();
    writeFileSync(path.join(work.root, "cases.jsonl"), `${CASES.replace("2 + 2", "2 + 3")}\n`);
    await runEb(["report", runs.base, "--html", file]);
    const { model } = pageOf(file);
    expect(model.run.messagesNote).toBe(
      "Messages unavailable: cases.jsonl has changed since the run (its sha256 differs).",
    );
    expect(model.run.items.every((item) => item.messages === null)).toBe(true);
  });
});
