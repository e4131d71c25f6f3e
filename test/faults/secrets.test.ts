import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { completion, lastContent, type SeenRequest } from "../helpers/loopback-server.js";
import { type CliResult, runEb } from "../helpers/project.js";
import { type Fault, type FaultServer, reply, startFaultServer } from "./fault-server.js";
import { agentProject } from "./process-support.js";
import { caseLine, casesProject, evalAt, filesUnder, type Grader, OUT } from "./support.js";

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
    if (content.includes("judge-refuses")) return error(401);
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
  ...["server-error", "html", "bad-json", "not-completion"].map((content) =>
    caseLine(content, content),
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
    // The providers' variables hold it too: set beside a model of the OpenAI-compatible
    // endpoint, they are read by nothing, and written nowhere either.
    const providers = ["ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"];
    const env = {
      EVAL_BANANA_API_KEY: secret.key,
      TMPDIR: tmp,
      ...Object.fromEntries(providers.map((name) => [name, secret.key])),
    };
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

/**
 * The key as base64 puts it in a longer text, at each of the 3 alignments and in both
 * alphabets; cut 3 characters in from either end, each depends on the key's bytes alone.
 */
function base64Cores(key: string): string[] {
  return [0, 1, 2].flatMap((offset) => {
    const bytes = Buffer.concat([Buffer.alloc(offset), Buffer.from(key)]);
    return (["base64", "base64url"] as const).map((alphabet) =>
      bytes.toString(alphabet).replace(/=+$/, "").slice(3, -3),
    );
  });
}

/** The key a request carried, echoed back as base64: whole, url-safe, unpadded, inside Basic auth. */
function base64Echo(request: SeenRequest): string {
  const key = echoAuth(request).replace(/^Bearer /, "");
  const b64 = (text: string) => Buffer.from(text).toString("base64");
  const echoes = [
    b64(key),
    Buffer.from(key).toString("base64url"),
    b64(key).replace(/=+$/, ""),
    `Basic ${b64(`user:${key}`)}`,
    `token=${b64(`a${key}.`)}`,
    `token=${b64(`ab${key}.`)}`,
  ];
  return `answer to ${lastContent(request)}: ${echoes.join(" ")}`;
}

describe("the API key's base64 forms a model echoes are written nowhere", () => {
  it("eb eval shards, eb merge, eb report --html, --junit and the cache", async () => {
    server = await startFaultServer((request) => reply(completion(base64Echo(request))));
    const secret = freshKey();
    const root = casesProject(
      ["a", "b", "c", "d"].map((id) => caseLine(id, id, [{ type: "contains", all: ["answer"] }])),
    );
    const env = { EVAL_BANANA_API_KEY: secret.key };
    const shard = (i: number) =>
      evalAt(
        root,
        server!.baseURL,
        ["--shard", `${i}/2`, "--junit", `junit-${i}.xml`, "--out", `s${i}`],
        env,
      );
    const shards = [await shard(1), await shard(2)];
    for (const result of shards) expect(result.code, result.stderr).toBe(0);
    const merge = await runEb(["merge", "s1", "s2", "--out", "merged", "--flat-output"], {
      cwd: root,
      env,
    });
    expect(merge.code, merge.stderr).toBe(0);
    const page = await runEb(["report", "merged", "--html", "page.html"], { cwd: root, env });
    expect(page.code, page.stderr).toBe(0);

    const files = filesUnder(root);
    for (const written of ["merged/report.html", "page.html", "junit-1.xml", "merged/rows.jsonl"])
      expect(files).toContain(written);
    expect(filesUnder(path.join(root, ".eval-banana/cache")).length).toBeGreaterThan(0);
    expect(readFileSync(path.join(root, "merged/rows.jsonl"), "utf8")).toMatch(
      /Basic \S{0,8}\[redacted\]/,
    );
    const outputs = [...shards, merge, page];
    for (const core of base64Cores(secret.key)) {
      const hits = files.filter((file) => readFileSync(path.join(root, file)).includes(core));
      expect(hits, `files holding ${core}`).toEqual([]);
      for (const out of outputs) expect(`${out.stdout}\n${out.stderr}`).not.toContain(core);
    }
  });
});

/** Three cases that pass, then one whose call is refused, then three that would pass. */
function refusedRun(refused: string, graders: Grader[] = []): string[] {
  const fine = (i: number) => caseLine(`ok${i}`, `q${i}`, [{ type: "contains", all: ["answer"] }]);
  const own = graders.length > 0 ? graders : [{ type: "contains", all: ["answer"] }];
  return [fine(1), fine(2), fine(3), caseLine("refused", refused, own), fine(4), fine(5)];
}

describe("an endpoint that refuses the key stops the run at once", () => {
  const judged: Grader[] = [{ type: "judge", criteria: ["judge-refuses"] }];
  it.each([
    ["401", "unauthorized", [], 'model "mock"'],
    ["403", "forbidden", [], 'model "mock"'],
    ["a judge's 401", "hello", judged, 'model "judge-m"'],
  ] as const)(
    "%s: exit 2, the rows before it kept, the variable named, no key anywhere",
    async (_what, content, graders, who) => {
      server = await startFaultServer(leakyScript);
      const secret = freshKey();
      const root = casesProject(refusedRun(content, [...graders]));
      const env = { EVAL_BANANA_API_KEY: secret.key };
      const args = ["--judge", "judge-m", "--workers", "1"];
      const result = await evalAt(root, server.baseURL, args, env);
      expect(result.code, result.stderr).toBe(2);
      const message = result.stderr;
      expect(message).toContain(`${who} at ${server.baseURL}: HTTP`);
      expect(message).toContain(
        `the key in EVAL_BANANA_API_KEY was refused by ${server.baseURL}: set EVAL_BANANA_API_KEY to a key it accepts`,
      );
      const runDir = path.join(root, OUT);
      expect(message).toContain(`kept in ${path.join(runDir, "rows.jsonl")}`);
      expect(message).toContain(`--resume ${runDir}`);
      expect(message).not.toContain("unexpected failure");
      // Workers 1: the three cases before it ran, the refused one and those after did not.
      const lines = readFileSync(path.join(runDir, "rows.jsonl"), "utf8").trimEnd().split("\n");
      const rows = lines.slice(1).map((line) => JSON.parse(line) as { id: string; status: string });
      expect(rows.map((row) => [row.id, row.status])).toEqual([
        ["ok1", "passed"],
        ["ok2", "passed"],
        ["ok3", "passed"],
      ]);
      expect(server.requests.map((r) => lastContent(r)).filter((c) => /^q[45]$/.test(c))).toEqual(
        [],
      );
      // No report was written; eb report counts what never ran from the manifest.
      const report = await runEb(["report", runDir], { cwd: root });
      expect(report.stdout.split("\n")[0]).toBe("Interrupted: 3 of 6 items never ran");
      expectNowhere(root, secret, [result, report]);

      // With a key the endpoint takes, the printed command finishes the run.
      server.script = (request) => reply(completion(answerOf(request)));
      const resumed = await evalAt(root, server.baseURL, [...args, "--resume", runDir], env);
      expect(resumed.code, resumed.stderr).toBe(0);
      const after = readFileSync(path.join(runDir, "rows.jsonl"), "utf8").trimEnd().split("\n");
      expect(after).toHaveLength(1 + 6);
    },
  );

  it("names OPENAI_API_KEY when the key came from it", async () => {
    server = await startFaultServer(leakyScript);
    const secret = freshKey();
    const root = casesProject(refusedRun("unauthorized"));
    const result = await evalAt(root, server.baseURL, ["--workers", "1"], {
      EVAL_BANANA_API_KEY: "",
      OPENAI_API_KEY: secret.key,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "the key in OPENAI_API_KEY was refused by " +
        `${server.baseURL}: set OPENAI_API_KEY (or EVAL_BANANA_API_KEY, which is read first) to a key it accepts`,
    );
    expectNowhere(root, secret, [result]);
  });

  it("a local endpoint sent no key says which variables to set", async () => {
    server = await startFaultServer(leakyScript);
    const root = casesProject(refusedRun("unauthorized"));
    const result = await evalAt(root, server.baseURL, ["--workers", "1"], {
      EVAL_BANANA_API_KEY: "",
      OPENAI_API_KEY: "",
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${server.baseURL} asks for an API key and none was sent: set EVAL_BANANA_API_KEY or OPENAI_API_KEY`,
    );
    expect(server.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
  });
});

/** A judge verdict for the judge, an answer for the target. */
function answerOf(request: SeenRequest): string {
  const model = (request.json as { model?: string }).model;
  return model === "judge-m"
    ? '{"score": 1, "reason": "fine"}'
    : `answer to ${lastContent(request)}`;
}
