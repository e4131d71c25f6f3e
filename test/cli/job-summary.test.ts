/**
 * The Markdown eb writes (report.md, GitHub's job summary): names from case and check files
 * stay inside code spans, whatever backticks, mentions, images or bidi controls they hold, as a
 * CommonMark parser reads them; and the job summary stays below GitHub's 1 MiB a step. Real eb
 * processes, a loopback endpoint, real Python checks.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { marked } from "marked";
import { afterEach, describe, expect, it } from "vitest";
import { STEP_SUMMARY_BYTES, SUMMARY_MARGIN_BYTES } from "../../src/render/github.js";
import {
  completion,
  type LoopbackServer,
  startLoopbackServer,
} from "../helpers/loopback-server.js";
import { deterministicYaml, makeProject, runEb, writeFile } from "../helpers/project.js";

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Closes a code span, mentions everyone, embeds an image, and turns the text around. */
const HOSTILE = "`@here ![x](http://e/x.png)`\u202e";

/** The HTML a CommonMark (GFM) reader makes of `markdown`, code spans and blocks left out. */
function liveHtml(markdown: string): string {
  const html = marked.parse(markdown, { async: false, gfm: true });
  return html.replace(/<code>[\s\S]*?<\/code>/g, "").replace(/<pre>[\s\S]*?<\/pre>/g, "");
}

function expectInert(markdown: string): void {
  expect(markdown).toContain("@here ![x](http://e/x.png)");
  expect(markdown).not.toContain("\u202e");
  expect(markdown).toContain("\\u202e");
  const live = liveHtml(markdown);
  expect(live).not.toContain("@here");
  expect(live).not.toContain("<img");
}

function onlyRun(root: string, out: string): string {
  return path.join(root, out, readdirSync(path.join(root, out))[0]!);
}

function caseLine(id: string, stratum: string, grader: string): string {
  return JSON.stringify({
    id,
    stratum,
    messages: [{ role: "user", content: id }],
    graders: [{ type: "contains", name: grader, all: ["yes"] }],
  });
}

const noAnswer = () => ({ body: completion("no") });

describe("names from the files stay in code spans", () => {
  it("cases: ids, strata and grader names in report.md and the job summary", async () => {
    server = await startLoopbackServer(noAnswer);
    // An id names files: no "/" in it, so its image has a relative address.
    const id = (n: number) => `id${n} \`@here ![x](x.png)\`\u202e`;
    const lines = [1, 2].map((n) => caseLine(id(n), `s${n} ${HOSTILE}`, `g ${HOSTILE}`));
    const root = makeProject({ "cases.jsonl": `${lines.join("\n")}\n` });
    const summary = path.join(root, "summary.md");
    const run = await runEb(
      ["eval", "cases.jsonl", "-m", "m", "--api-base", server.baseURL, "--out", "runs"],
      { cwd: root, env: { GITHUB_STEP_SUMMARY: summary } },
    );
    expect(run.code, run.stderr).toBe(1);
    expectInert(readFileSync(path.join(onlyRun(root, "runs"), "report.md"), "utf8"));
    expectInert(readFileSync(summary, "utf8"));
  });

  it("checks: ids and tags in report.md and the job summary", async () => {
    const tags = `tags: ["${HOSTILE.replace("\u202e", "\\u202e")}", "other"]\n`;
    const root = makeProject({
      "eval_checks/a.yaml": deterministicYaml("a", "assert False, 'no'", tags),
      "eval_checks/b.yaml": deterministicYaml("b", "print('fine')", tags),
    });
    const summary = path.join(root, "summary.md");
    const run = await runEb(["run", "--output-dir", "runs"], {
      cwd: root,
      env: { GITHUB_STEP_SUMMARY: summary },
    });
    expect(run.code, run.stderr).toBe(1);
    const report = readFileSync(path.join(onlyRun(root, "runs"), "report.md"), "utf8");
    expect(report).toContain("### By tag");
    expectInert(report);
    expectInert(readFileSync(summary, "utf8"));
  });
});

describe("the job summary of a large run", () => {
  it("stays below GitHub's 1 MiB with what the step held, and ends saying what it left out", async () => {
    server = await startLoopbackServer(noAnswer);
    // A stratum and a grader per case, with long names: 2,000 rows in each of two lists.
    const long = (what: string, i: number) => `${what}-${i}-${"x".repeat(300)}`;
    const lines = Array.from({ length: 2000 }, (_, i) =>
      caseLine(long("case", i), long("stratum", i), long("grader", i)),
    );
    const root = makeProject({ "cases.jsonl": `${lines.join("\n")}\n` });
    const earlier = "# an earlier step\n\nIts own part of the summary.\n";
    const summary = writeFile(root, "summary.md", earlier);
    const run = await runEb(
      ["eval", "cases.jsonl", "-m", "m", "--api-base", server.baseURL, "--out", "runs"],
      { cwd: root, env: { GITHUB_STEP_SUMMARY: summary } },
    );
    expect(run.code, run.stderr).toBe(1);
    const text = readFileSync(summary, "utf8");
    expect(text.startsWith(earlier)).toBe(true);
    expect(statSync(summary).size).toBeLessThanOrEqual(STEP_SUMMARY_BYTES - SUMMARY_MARGIN_BYTES);
    const runDir = onlyRun(root, "runs");
    expect(text.trimEnd().split("\n").at(-1)).toMatch(
      new RegExp(
        `^… and [\\d,]+ more lines of this summary left out \\(GitHub drops a step summary over 1 MiB\\): every item is in ${runDir}/report\\.json\\.$`,
      ),
    );
    // The cut closes the statistics' <details>, so the notice is not folded away.
    expect(text.match(/<details>/g)).toHaveLength(1);
    expect(text.match(/<\/details>/g)).toHaveLength(1);
    expect(text).toContain("### Fell short: 2000 items, worst first");
  }, 120_000);
});
