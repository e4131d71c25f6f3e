/**
 * The document a run builds as it ends (its report.html) and the one `eb report RUN --html`
 * builds from its folder afterwards are the same document: the same target and judge, the same
 * items and verdict, field for field.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PageData } from "../../src/render/html/model.js";
import type { RunDocument } from "../../src/report/document.js";
import {
  completion,
  type LoopbackServer,
  lastContent,
  startLoopbackServer,
} from "../helpers/loopback-server.js";
import { makeProject, newestRun, runEb } from "../helpers/project.js";
import { checkRun, scratch } from "./fixtures.js";

function documentOf(file: string): RunDocument {
  const html = readFileSync(file, "utf8");
  const json = /<script type="application\/json" id="eb-data">(.*?)<\/script>/s.exec(html)![1]!;
  const data = JSON.parse(json) as PageData;
  expect(data.runs).toHaveLength(1);
  return data.runs[0]!.doc;
}

/** The run's own page, and the page `eb report` writes of the run folder. */
async function liveAndReadBack(runDir: string): Promise<[RunDocument, RunDocument]> {
  const page = path.join(path.dirname(runDir), "read-back.html");
  const report = await runEb(["report", runDir, "--html", page]);
  expect(report.code, report.stderr).toBe(0);
  return [documentOf(path.join(runDir, "report.html")), documentOf(page)];
}

let server: LoopbackServer;
const work = scratch();

/** The target echoes; the judge passes an answer that echoes "good". */
beforeAll(async () => {
  server = await startLoopbackServer((request) => {
    const content = lastContent(request);
    if ((request.json as { model?: string }).model !== "judge-m") {
      return { body: completion(`echo: ${content}`) };
    }
    const good = content.includes("echo: good");
    return { body: completion(good ? '{"score": 1}' : '{"score": 0, "reason": "not good"}') };
  });
});

afterAll(async () => {
  await server.close();
  work.remove();
});

describe("a run's document, live and read back", () => {
  it("is the same for a case run against a model with a judge", async () => {
    const cases = ["good", "bad"].map((word) =>
      JSON.stringify({
        id: word,
        messages: [{ role: "user", content: word }],
        graders: [{ type: "judge", criteria: ["The answer is good."] }],
      }),
    );
    const root = makeProject({ "cases.jsonl": `${cases.join("\n")}\n` });
    const args = ["eval", "cases.jsonl", "-m", "m", "--api-base", server.baseURL];
    const run = await runEb([...args, "--judge", "judge-m"], {
      cwd: root,
      env: { EVAL_BANANA_API_KEY: "sk-test-key" },
    });
    expect(run.code, run.stderr).toBe(1);
    const [live, read] = await liveAndReadBack(newestRun(path.join(root, ".eval-banana/results")));
    expect(read.run).toMatchObject({
      target: `model m (echo-model-2026) at ${server.baseURL}`,
      judge: "judge-m",
      suite: "eb eval cases.jsonl",
    });
    expect(read).toEqual(live);
  });

  it("is the same for a check run with a judge agent", async () => {
    const [live, read] = await liveAndReadBack(await checkRun(work.root));
    expect(read.run.judge).toBe("claude");
    expect(read).toEqual(live);
  });
});
