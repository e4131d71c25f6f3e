/**
 * GitHub's runner reads every line a step prints for workflow commands: `::name::` at a line's
 * start (after blanks), `##[name]` anywhere in it. Text eb did not write (an endpoint's error
 * message or batch status, case ids, grader names, strata) must never make one: eb's own
 * annotations are the only command lines. Real eb processes against loopback endpoints.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startBatchServer } from "../helpers/batch-server.js";
import {
  completion,
  type LoopbackServer,
  type Script,
  startLoopbackServer,
} from "../helpers/loopback-server.js";
import { type CliResult, makeProject, runEb } from "../helpers/project.js";

const KEY = "sk-injection-test-0123456789";

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** eb's own annotations: `::error|warning|notice`, escaped properties, the message after `::`. */
const OWN_ANNOTATION = /^::(error|warning|notice) (file=[^:,]*,)?(line=\d+,)?title=[^:,]*::/;

/**
 * Every line of `output` the runner would read as a command and eb did not mean as one. An
 * annotation is read as the `::` command it starts with, whatever `##[` its values hold.
 */
function foreignCommands(output: string): string[] {
  return output.split(/\r\n|\r|\n/).filter((line) => {
    if (OWN_ANNOTATION.test(line)) return false;
    return line.trimStart().startsWith("::") || line.includes("##[");
  });
}

function expectNoForeignCommands(result: CliResult): void {
  expect(foreignCommands(result.stdout), result.stdout).toEqual([]);
  expect(foreignCommands(result.stderr), result.stderr).toEqual([]);
}

function caseLine(id: string, stratum: string, grader: string): string {
  return JSON.stringify({
    id,
    stratum,
    messages: [{ role: "user", content: `question ${id}` }],
    graders: [{ type: "contains", name: grader, all: ["yes"] }],
  });
}

describe("an endpoint's text reaches the terminal on eb's lines", () => {
  it("a 401 whose message holds a newline and commands: one error line, no command", async () => {
    server = await startLoopbackServer(() => ({
      status: 401,
      body: { error: { message: "bad key\n::error::pwned\n##[error]pwned", type: "auth" } },
    }));
    const root = makeProject({ "cases.jsonl": `${caseLine("one", "s", "g")}\n` });
    const run = await runEb(["eval", "cases.jsonl", "-m", "m", "--api-base", server.baseURL], {
      cwd: root,
      env: { EVAL_BANANA_API_KEY: KEY, GITHUB_ACTIONS: "true" },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("HTTP 401 bad key␊::error::pwned␊##\\u005berror]pwned");
    expectNoForeignCommands(run);
  });

  it("a batch status that holds a newline and a command is printed on the poll's line", async () => {
    const batch = await startBatchServer();
    try {
      batch.steps = ["validating", "in_progress\n::add-mask::x", "completed"];
      const root = makeProject({ "cases.jsonl": `${caseLine("one", "s", "g")}\n` });
      const run = await runEb(
        [
          "eval",
          "cases.jsonl",
          "-m",
          "m",
          "--api-base",
          batch.baseURL,
          "--batch",
          "--batch-poll-ms",
          "20",
        ],
        { cwd: root, env: { EVAL_BANANA_API_KEY: KEY } },
      );
      expect(run.stderr).toContain("batch batch_1: in_progress␊::add-mask::x, ");
      expectNoForeignCommands(run);
    } finally {
      await batch.close();
    }
  });
});

const INJECTED = "\n::stop-commands::x";

/**
 * Ids, strata and grader names with a command after a newline, one that starts with a command,
 * one with the legacy form mid-line. Model "good" says yes, "bad" no; "judge" judges pairs.
 */
const HOSTILE_CASES = [
  caseLine(`a${INJECTED}`, `s1${INJECTED}`, `g${INJECTED}`),
  caseLine("::error::leading", `s2${INJECTED}`, `g${INJECTED}`),
  caseLine("c ##[error]legacy", `s2${INJECTED}`, "##[warning]grader"),
];

const models: Script = (request) => {
  const model = (request.json as { model?: string }).model;
  if (model === "judge") {
    const verdict = `{"winner": "A", "reason": "first${INJECTED.replace("\n", "\\n")}"}`;
    return { body: completion(verdict) };
  }
  return { body: completion(model === "good" ? "yes" : "no") };
};

function runDir(root: string, out: string): string {
  return path.join(root, out, readdirSync(path.join(root, out))[0]!);
}

describe("ids, strata and grader names never start a line", () => {
  it("in eb eval, eb report, eb compare and eb pairwise, annotations and all", async () => {
    server = await startLoopbackServer(models);
    const root = makeProject({ "cases.jsonl": `${HOSTILE_CASES.join("\n")}\n` });
    const api = ["--api-base", server.baseURL];
    const env = {
      EVAL_BANANA_API_KEY: KEY,
      GITHUB_ACTIONS: "true",
      GITHUB_STEP_SUMMARY: path.join(root, "summary.md"),
    };
    const evalRun = (model: string) =>
      runEb(["eval", "cases.jsonl", "-m", model, ...api, "--out", model, "-k", "2"], {
        cwd: root,
        env,
      });
    const good = await evalRun("good");
    const bad = await evalRun("bad");
    expect([good.code, bad.code]).toEqual([0, 1]);
    const [base, cand] = [runDir(root, "good"), runDir(root, "bad")];
    const outputs = {
      good,
      bad,
      report: await runEb(["report", cand, "--all"], { cwd: root }),
      reportJson: await runEb(["report", cand, "--json"], { cwd: root }),
      compare: await runEb(["compare", base, cand], { cwd: root, env }),
      markdown: await runEb(["compare", base, cand, "--markdown"], { cwd: root, env }),
      pairwise: await runEb(
        ["pairwise", base, cand, "--judge", "judge", "--criteria", "says yes", ...api],
        { cwd: root, env },
      ),
    };
    // What each printed names the hostile items, escaped, on eb's own lines.
    expect(outputs.bad.stdout).toContain("- a␊::stop-commands::x: 0/2");
    expect(outputs.report.stdout).toContain("  \\u003a:error::leading");
    expect(outputs.report.stdout).toContain("s1␊::stop-commands::x");
    expect(outputs.report.stdout).toContain("##\\u005bwarning]grader");
    // The escapes mean the same inside a JSON string: --json output is the same JSON.
    const json = JSON.parse(outputs.reportJson.stdout) as { graders: { name: string }[] };
    expect(json.graders.map((g) => g.name)).toContain("##[warning]grader");
    expect(outputs.compare.stdout).toContain("broke 3 items");
    expect(outputs.pairwise.stdout).toContain("  \\u003a:error::leading:");
    // The annotations are there, one line each, on the lines GitHub reads them from.
    expect(outputs.bad.stdout).toContain(
      "\n::error file=cases.jsonl,line=2,title=eval-banana%3A %3A%3Aerror%3A%3Aleading (failed all 2 samples)::",
    );
    expect(outputs.compare.stdout).toContain(
      "\n::error file=cases.jsonl,line=1,title=eval-banana%3A a %3A%3Astop-commands%3A%3Ax broke::",
    );
    for (const [name, output] of Object.entries(outputs)) {
      expect(output.code, `${name}: ${output.stderr}`).toBeLessThan(2);
      expectNoForeignCommands(output);
    }
  }, 60_000);
});
