import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { completion, lastContent, type SeenRequest } from "../helpers/loopback-server.js";
import { type CliResult, runEb } from "../helpers/project.js";
import { type Fault, type FaultServer, reply, startFaultServer } from "./fault-server.js";
import { agentProject } from "./process-support.js";
import { caseLine, casesProject, filesUnder } from "./support.js";

let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A key no test or fixture has ever seen: any hit can only have been copied from the env. */
function freshKey(): { key: string; tail: string } {
  const tail = randomBytes(12).toString("hex");
  return { key: `sk-test-SECRET-${tail}`, tail };
}

/** Every file under `root` and every output, searched as bytes for the key and its random part. */
function expectNowhere(root: string, secret: { key: string; tail: string }, outputs: CliResult[]) {
  const files = filesUnder(root);
  expect(files.length).toBeGreaterThan(0);
  const hits = files.filter((file) => {
    const bytes = readFileSync(path.join(root, file));
    return bytes.includes(secret.tail) || bytes.includes(secret.key);
  });
  expect(hits, "files holding the key").toEqual([]);
  outputs.forEach((out, i) => {
    expect(`${out.stdout}\n${out.stderr}`, `output of command ${i}`).not.toContain(secret.tail);
  });
}

/** The Authorization header as the server saw it, pasted back into a body. */
function echoAuth(request: SeenRequest): string {
  return String(request.headers.authorization ?? "");
}

/** Target "mock" and judge "judge-m", with error answers that repeat the Authorization header. */
function leakyScript(request: SeenRequest): Fault {
  const content = lastContent(request);
  const model = (request.json as { model?: string }).model;
  const auth = echoAuth(request);
  const error = (status: number) =>
    reply({ error: { message: `bad credentials: ${auth}`, auth } }, status, {
      "retry-after-ms": "5",
      "x-echo-authorization": auth,
    });
  if (model === "judge-m") {
    if (content.includes("judge-401")) return error(401);
    return reply(completion('{"score": 1, "reason": "fine"}'));
  }
  if (content === "unauthorized") return error(401);
  if (content === "server-error") return error(500);
  if (content === "forbidden") return error(403);
  if (content === "html")
    return reply(`<html>${auth}</html>`, 200, { "content-type": "text/html" });
  if (content === "bad-json") return reply(`{"choices": "${auth}`);
  if (content === "not-completion") return reply({ unexpected: auth });
  return reply(completion(`answer to ${content}`));
}

const CASES = [
  caseLine("ok", "hello", [
    { type: "contains", all: ["answer"] },
    { type: "judge", criteria: ["is an answer"] },
  ]),
  caseLine("judge-fails", "judge-401 please", [{ type: "judge", criteria: ["judge-401"] }]),
  ...["unauthorized", "server-error", "forbidden", "html", "bad-json", "not-completion"].map(
    (content) => caseLine(content, content),
  ),
];

describe("the API key never leaves the environment", () => {
  it("eb eval: not in rows, reports, cache, manifest or output, even when echoed back", async () => {
    server = await startFaultServer(leakyScript);
    const secret = freshKey();
    const root = casesProject(CASES);
    // Anything eb puts in a temporary folder lands in the project too, and is searched.
    const tmp = path.join(root, "tmp");
    mkdirSync(tmp);
    const env = { EVAL_BANANA_API_KEY: secret.key, TMPDIR: tmp };
    const base = ["eval", "cases.jsonl", "-m", "mock", "--api-base", server.baseURL];
    const flags = ["--judge", "judge-m", "--max-retries", "1", "-k", "2", "--verbose"];
    const first = await runEb([...base, ...flags], { cwd: root, env });
    const second = await runEb([...base, ...flags, "--out", "again"], { cwd: root, env });
    expect(first.code).toBe(1);
    expect(second.code).toBe(1);
    const auth = server.requests.map((r) => r.headers.authorization);
    expect(new Set(auth)).toEqual(new Set([`Bearer ${secret.key}`]));

    const results = path.join(root, ".eval-banana/results");
    const [run] = readdirSync(results);
    const runDir = path.join(results, run as string);
    const report = await runEb(["report", runDir, "--json"], { cwd: root, env });
    const compare = await runEb(["compare", runDir, path.join(root, "again")], { cwd: root, env });
    expect(report.code).toBe(0);
    // The error rows carried the server's words, with the key taken out.
    const rows = readFileSync(path.join(runDir, "rows.jsonl"), "utf8");
    expect(rows).toMatch(/bad credentials/);
    expect(rows).toMatch(/\[redacted\]/);
    expect(filesUnder(path.join(root, ".eval-banana/cache")).length).toBeGreaterThan(0);
    expectNowhere(root, secret, [first, second, report, compare]);
  }, 60_000);

  it("eb run with a judge agent: not in prompt files, reports, rows or output", async () => {
    const secret = freshKey();
    const project = agentProject("verdict");
    const tmp = path.join(project, "tmp");
    mkdirSync(tmp);
    const env = {
      EVAL_BANANA_API_KEY: secret.key,
      OPENAI_API_KEY: secret.key,
      ANTHROPIC_API_KEY: secret.key,
      TMPDIR: tmp,
    };
    const result = await runEb(["run", "--cwd", project, "--verbose"], { env });
    expect(result.code, result.stderr).toBe(0);
    const files = filesUnder(project);
    expect(files.some((f) => f.endsWith(".prompt.txt"))).toBe(true);
    expect(files.some((f) => f.endsWith("rows.jsonl"))).toBe(true);
    expectNowhere(project, secret, [result]);
  });
});
