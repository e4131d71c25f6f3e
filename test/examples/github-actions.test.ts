/**
 * examples/github-actions/pr-gate.yml: the YAML parses, its steps fit together (artifact names,
 * paths, the comment marker), and its `eb` command lines run as written: the baseline job's and
 * the pull-request job's, each in a fresh copy of a project (as each job checks out its own),
 * against a real endpoint on 127.0.0.1, with the runner's GitHub variables set.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { COMPARE_MARKER } from "../../src/render/compare-markdown.js";
import {
  completion,
  type LoopbackServer,
  lastContent,
  startLoopbackServer,
} from "../helpers/loopback-server.js";
import { CLI, cleanEnv, makeProject } from "../helpers/project.js";

const WORKFLOW = path.resolve(import.meta.dirname, "../../examples/github-actions/pr-gate.yml");

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}

interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, { steps: Step[] }>;
}

const workflow = parse(readFileSync(WORKFLOW, "utf8")) as Workflow;

function steps(job: string): Step[] {
  const found = workflow.jobs[job];
  if (!found) throw new Error(`the workflow has no job ${job}`);
  return found.steps;
}

function using(job: string, action: string): Step[] {
  return steps(job).filter((step) => step.uses?.startsWith(`${action}@`));
}

/** Each `npx eb …` line of a job's run scripts, in order. */
function ebLines(job: string): string[] {
  return steps(job).flatMap((step) =>
    (step.run ?? "")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line.startsWith("npx eb ")),
  );
}

describe("examples/github-actions/pr-gate.yml", () => {
  it("fits together: the artifact main uploads is the one the pull request downloads", () => {
    expect(Object.keys(workflow.on).sort()).toEqual(["pull_request", "push"]);
    const [upload] = using("baseline", "actions/upload-artifact");
    const [download] = using("pr-gate", "dawidd6/action-download-artifact");
    expect(upload?.with?.name).toBe(download?.with?.name);
    // The run folder itself is uploaded: unpacked, `baseline/` is a run folder.
    expect(upload?.with?.path).toBe("eval-run/");
    expect(download?.with).toMatchObject({
      workflow: path.basename(WORKFLOW),
      branch: "main",
      search_artifacts: true,
    });
    const compare = ebLines("pr-gate").find((line) => line.startsWith("npx eb compare "));
    expect(compare).toMatch(new RegExp(`^npx eb compare ${download?.with?.path} eval-run `));
    const comment = steps("pr-gate").find((step) => step.run?.includes("gh api"));
    expect(comment?.run).toContain(`marker='${COMPARE_MARKER}'`);
  });

  describe("its eb command lines, run as written", () => {
    let server: LoopbackServer;
    /** Makes the model answer case `good` wrong: the pull request broke it. */
    let broken = false;
    beforeAll(async () => {
      server = await startLoopbackServer((request) => {
        const content = lastContent(request);
        return { body: completion(broken && content === "good" ? "no" : `yes, ${content}`) };
      });
    });
    afterAll(() => server.close());

    const CASES = ["good", "fine", "also-fine"]
      .map((id) =>
        JSON.stringify({
          id,
          messages: [{ role: "user", content: id }],
          graders: [{ type: "contains", all: ["yes"] }],
        }),
      )
      .join("\n");

    /** A job's step: the line in bash, `npx eb` being the built CLI, in a GitHub-like env. */
    function step(line: string, workspace: string, summary: string) {
      const script = line.replace(
        /^npx eb /,
        `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} `,
      );
      const env = {
        ...cleanEnv(),
        GITHUB_ACTIONS: "true",
        GITHUB_STEP_SUMMARY: summary,
        GITHUB_WORKSPACE: workspace,
        EVAL_BANANA_API_BASE: server.baseURL,
      };
      return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile("bash", ["-c", script], { cwd: workspace, env }, (error, stdout, stderr) => {
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
        });
      });
    }

    it("gate the pull request that broke a case, with a summary and a comment body", async () => {
      const project = makeProject({ "evals/cases.jsonl": `${CASES}\n` });
      const checkout = (name: string) => {
        const dir = path.join(path.dirname(project), `${path.basename(project)}-${name}`);
        cpSync(project, dir, { recursive: true });
        return dir;
      };
      const main = checkout("main");
      const pr = checkout("pr");
      try {
        const [baselineEval] = ebLines("baseline");
        const summaryMain = path.join(main, "summary.md");
        const onMain = await step(baselineEval!, main, summaryMain);
        expect(onMain.stderr).toBe("");
        expect(onMain.code).toBe(0);
        expect(existsSync(path.join(main, "eval-run/rows.jsonl"))).toBe(true);
        expect(existsSync(path.join(main, "eval-junit.xml"))).toBe(true);

        // The artifact, downloaded into `baseline/`.
        mkdirSync(path.join(pr, "baseline"));
        cpSync(path.join(main, "eval-run"), path.join(pr, "baseline"), { recursive: true });
        broken = true;
        const summary = path.join(pr, "summary.md");
        const [candidateEval, compare, ...rest] = ebLines("pr-gate");
        expect(rest).toEqual([]);
        const candidate = await step(candidateEval!, pr, summary);
        expect(candidate.code).toBe(1);
        expect(candidate.stdout).toContain(
          "::error file=evals/cases.jsonl,line=1,title=eval-banana%3A good (failed all 3 samples)::",
        );

        const gate = await step(compare!, pr, summary);
        expect(gate.code).toBe(1);
        const body = readFileSync(path.join(pr, "comment.md"), "utf8");
        expect(body.split("\n")[0]).toBe(COMPARE_MARKER);
        expect(body).toContain("### Broke: 1 item");
        expect(gate.stderr).toContain(
          "::error file=evals/cases.jsonl,line=1,title=eval-banana%3A good broke::",
        );
        expect(existsSync(path.join(pr, "compare-junit.xml"))).toBe(true);

        const text = readFileSync(summary, "utf8");
        expect(text).toContain("## eval-banana: `eb eval` run `");
        expect(text).toContain("## eval-banana compare: ");
      } finally {
        broken = false;
        for (const dir of [main, pr]) rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
