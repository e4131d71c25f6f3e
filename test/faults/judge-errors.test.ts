/**
 * PENDING (bug in src/cases/run-case.ts, runSample()): when a grader throws, most often because
 * the judge call failed (HTTP 401/5xx after its retries, a timeout, a cut connection), the row
 * is written as status "failed" with the mark false and a reason "grader error: ...", so it
 * lowers the pass rate as if the model had answered badly and is not counted in stats.errors.
 * DESIGN.md: "An exception or timeout is a row with score 0 and status error". gradeOutput()
 * now returns `errors` (grader name → message) for graders that threw; runSample() should make
 * the row status "error" with `error` naming the grader(s) when that record is not empty.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { completion, lastContent } from "../helpers/loopback-server.js";
import { type FaultServer, reply, startFaultServer } from "./fault-server.js";
import { caseLine, casesProject, evalAt, expectAllRows, OUT, readRun } from "./support.js";

let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("a judge call that fails is an error row (pending: src/cases/run-case.ts)", () => {
  it("counts samples whose judge failed as errors, apart from failures", async () => {
    server = await startFaultServer((request) => {
      const model = (request.json as { model?: string }).model;
      const content = lastContent(request);
      if (model !== "judge-m") return reply(completion(`echo: ${content}`));
      if (content.includes("JUDGE-DOWN")) {
        return reply({ error: { message: "overloaded" } }, 503, { "retry-after-ms": "5" });
      }
      if (content.includes("JUDGE-NO")) return reply(completion('{"score": 0, "reason": "no"}'));
      return reply(completion('{"score": 1, "reason": "yes"}'));
    });
    const judge = (criterion: string) => [{ type: "judge", criteria: [criterion] }];
    const root = casesProject([
      caseLine("judge-down", "q1", judge("JUDGE-DOWN")),
      caseLine("judge-no", "q2", judge("JUDGE-NO")),
      caseLine("judge-yes", "q3", judge("JUDGE-YES")),
    ]);
    const args = ["--judge", "judge-m", "--max-retries", "1", "-k", "2", "--no-cache"];
    const result = await evalAt(root, server.baseURL, args);
    const { rows, report } = readRun(path.join(root, OUT));
    expectAllRows(rows, ["judge-down", "judge-no", "judge-yes"], 2);
    const status = (id: string) => rows.filter((r) => r.id === id).map((r) => r.status);
    expect(status("judge-no")).toEqual(["failed", "failed"]);
    expect(status("judge-yes")).toEqual(["passed", "passed"]);
    expect(status("judge-down")).toEqual(["error", "error"]);
    for (const row of rows.filter((r) => r.id === "judge-down")) {
      expect(row.error).toMatch(/judge.*503|503.*judge/s);
    }
    expect(report.stats.errors).toBe(2);
    expect(result.code).toBe(1);
  });
});
