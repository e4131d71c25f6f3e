import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  completion,
  type LoopbackServer,
  lastContent,
  startLoopbackServer,
} from "../helpers/loopback-server.js";
import { makeProject, runEb } from "../helpers/project.js";

const CASES = ["alpha", "beta", "gamma"]
  .map((word) =>
    JSON.stringify({
      id: word,
      messages: [{ role: "user", content: word }],
      graders: [{ type: "judge", criteria: ["The answer is good."] }],
    }),
  )
  .join("\n");

let server: LoopbackServer;
let judgeCalls: number;

/** The target echoes the word (with the model's name); the judges pass it, or pick answer A. */
beforeEach(async () => {
  judgeCalls = 0;
  server = await startLoopbackServer((request) => {
    const model = (request.json as { model?: string }).model;
    if (model === "judge-m") {
      judgeCalls++;
      return { body: completion('{"score": 1, "reason": "fine"}') };
    }
    if (model === "pair-judge") {
      judgeCalls++;
      return { body: completion('{"winner": "A", "reason": "first"}') };
    }
    return { body: completion(`${model}: ${lastContent(request)}`) };
  });
});
afterEach(async () => {
  await server.close();
});

function evalRun(root: string, model: string, out: string, extra: readonly string[] = []) {
  const args = ["eval", "cases.jsonl", "-m", model, "--api-base", server.baseURL];
  return runEb([...args, "--judge", "judge-m", "--out", out, "--flat-output", ...extra], {
    cwd: root,
  });
}

const judgeCacheOf = (runDir: string) =>
  (JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8")) as { judge_cache: unknown })
    .judge_cache;

describe("judge verdicts from the cache", () => {
  it("eb eval says how many came from the cache, in its summary and report.json", async () => {
    const root = makeProject({ "cases.jsonl": `${CASES}\n` });
    const first = await evalRun(root, "m", path.join(root, "first"));
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("Judge verdicts: 0 of 3 from the cache\n");
    expect(judgeCacheOf(path.join(root, "first"))).toEqual({ verdicts: 3, cached: 0 });

    const again = await evalRun(root, "m", path.join(root, "again"));
    expect(judgeCalls).toBe(3);
    expect(again.stdout).toContain(
      "Judge verdicts: 3 of 3 from the cache (--no-cache asks the judge again)",
    );
    expect(judgeCacheOf(path.join(root, "again"))).toEqual({ verdicts: 3, cached: 3 });

    const fresh = await evalRun(root, "m", path.join(root, "fresh"), ["--no-cache"]);
    expect(judgeCalls).toBe(6);
    expect(fresh.stdout).toContain("Judge verdicts: 0 of 3 from the cache\n");
  });

  it("eb pairwise says how many of its verdicts came from the cache", async () => {
    const root = makeProject({ "cases.jsonl": `${CASES}\n` });
    for (const model of ["base", "cand"]) {
      const run = await evalRun(root, model, path.join(root, model));
      expect(run.code).toBe(0);
    }
    const pairwise = (out: string) =>
      runEb(
        ["pairwise", "base", "cand", "--judge", "pair-judge", "--api-base", server.baseURL].concat([
          "--out",
          out,
          "--flat-output",
        ]),
        { cwd: root },
      );
    const before = judgeCalls;
    const first = await pairwise("pairs-1");
    expect(first.stderr).toBe("");
    expect(first.stdout).toContain("Judge verdicts: 0 of 6 from the cache\n");
    const again = await pairwise("pairs-2");
    expect(judgeCalls - before).toBe(6);
    expect(again.stdout).toContain(
      "Judge verdicts: 6 of 6 from the cache (--no-cache asks the judge again)",
    );
    expect(judgeCacheOf(path.join(root, "pairs-2"))).toEqual({ verdicts: 6, cached: 6 });
    expect(readdirSync(path.join(root, "pairs-2"))).toContain("report.json");
  });
});
