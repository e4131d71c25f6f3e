import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { filesUnder } from "../faults/support.js";
import {
  completion,
  type LoopbackServer,
  type Reply,
  type SeenRequest,
  startLoopbackServer,
} from "../helpers/loopback-server.js";
import { type CliResult, makeProject, runEb } from "../helpers/project.js";

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** How each provider's API is asked and answers, as a loopback mock plays it. */
interface Api {
  name: string;
  /** The `-m` of the target and of the judge. */
  model: string;
  judge: string;
  /** The package of its client. */
  client: string;
  /** The variable the test sets, the one a refusal must name. */
  keyVariable: string;
  /** The key the request carries, as its client sends it. */
  keyOf: (request: SeenRequest) => string;
  /** The path a call to `model` posts to. */
  path: (model: string) => string;
  /** The last message's text, and the model named, as the request carries them. */
  content: (request: SeenRequest) => string;
  model_of: (request: SeenRequest) => string;
  /** The system text, max_tokens and temperature the request sends, as its API spells them. */
  sampling: (request: SeenRequest) => { system: unknown; maxTokens: unknown; temperature: unknown };
  /** An answer with this text: 11 tokens in, 7 out. */
  answer: (text: string) => object;
  /** An error body as the API words it. */
  error: (status: number, message: string) => object;
}

interface AnthropicBody {
  model: string;
  messages: { content: string }[];
  system?: string;
  max_tokens?: number;
  temperature?: number;
}

interface GoogleBody {
  contents: { parts: { text: string }[] }[];
  systemInstruction?: { parts: { text: string }[] };
  generationConfig?: { maxOutputTokens?: number; temperature?: number };
}

const ANTHROPIC: Api = {
  name: "anthropic",
  client: "@anthropic-ai/sdk",
  model: "anthropic/claude-test",
  judge: "anthropic/claude-judge",
  keyVariable: "ANTHROPIC_API_KEY",
  // This client sends its key as a bearer token (older ones as x-api-key).
  keyOf: (r) => String(r.headers["x-api-key"] ?? r.headers.authorization?.replace(/^Bearer /, "")),
  path: () => "/v1/messages",
  content: (r) => String((r.json as AnthropicBody).messages.at(-1)?.content),
  model_of: (r) => (r.json as AnthropicBody).model,
  sampling: (r) => {
    const body = r.json as AnthropicBody;
    return { system: body.system, maxTokens: body.max_tokens, temperature: body.temperature };
  },
  answer: (text) => ({
    id: "msg_test",
    type: "message",
    role: "assistant",
    model: "claude-test-2026",
    content: [{ type: "text", text }],
    stop_reason: "end_turn",
    usage: { input_tokens: 11, output_tokens: 7 },
  }),
  error: (_status, message) => ({ type: "error", error: { type: "api_error", message } }),
};

const GOOGLE: Api = {
  name: "google",
  client: "@google/genai",
  model: "google/gemini-test",
  judge: "google/gemini-judge",
  keyVariable: "GEMINI_API_KEY",
  keyOf: (r) => String(r.headers["x-goog-api-key"]),
  path: (model) => `/v1beta/models/${model}:generateContent`,
  content: (r) => String((r.json as GoogleBody).contents.at(-1)?.parts[0]?.text),
  model_of: (r) => decodeURIComponent(r.url.split("/models/")[1]?.split(":")[0] ?? ""),
  sampling: (r) => {
    const body = r.json as GoogleBody;
    return {
      system: body.systemInstruction?.parts[0]?.text,
      maxTokens: body.generationConfig?.maxOutputTokens,
      temperature: body.generationConfig?.temperature,
    };
  },
  answer: (text) => ({
    candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP" }],
    usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 7, totalTokenCount: 18 },
    modelVersion: "gemini-test-001",
  }),
  error: (status, message) => ({ error: { code: status, message, status: "ERROR" } }),
};

/**
 * The mock: the judge passes everything; the target echoes, except contents that ask for a
 * status ("status-500") or a refusal ("refuse"), whose error texts repeat the key sent.
 */
function script(api: Api) {
  return (request: SeenRequest): Reply => {
    const key = api.keyOf(request);
    if (api.model_of(request).endsWith("judge")) {
      return { body: api.answer('{"score": 1, "reason": "fine"}') };
    }
    const content = api.content(request);
    if (content === "refuse") {
      return { status: 401, body: api.error(401, `invalid x-api-key ${key}`) };
    }
    const status = /^status-(\d+)$/.exec(content)?.[1];
    if (status !== undefined) {
      return { status: Number(status), body: api.error(Number(status), `broken, key ${key}`) };
    }
    return { body: api.answer(`echo: ${content}`) };
  };
}

/** The loopback server's root: each client puts its API's version in the path itself. */
function rootOf(live: LoopbackServer): string {
  return live.baseURL.replace(/\/v1$/, "");
}

function freshKey(): string {
  return `sk-test-PROVIDER-${randomBytes(12).toString("hex")}`;
}

function caseLine(id: string, content: string, graders: object[], system?: string): string {
  const messages = [
    ...(system === undefined ? [] : [{ role: "system", content: system }]),
    { role: "user", content },
  ];
  return JSON.stringify({ id, messages, graders });
}

const PRICING = (model: string) =>
  `[pricing."${model}"]\ninput_per_mtok = 1000.0\noutput_per_mtok = 1000.0\n`;

function project(api: Api, lines: readonly string[]): string {
  return makeProject({
    "cases.jsonl": `${lines.join("\n")}\n`,
    ".eval-banana/config.toml": `${PRICING(api.model)}\n${PRICING(api.judge)}`,
  });
}

function evalProvider(
  api: Api,
  root: string,
  env: NodeJS.ProcessEnv,
  extra: readonly string[] = [],
): Promise<CliResult> {
  const live = server as LoopbackServer;
  const args = ["eval", "cases.jsonl", "-m", api.model, "--api-base", rootOf(live)];
  return runEb([...args, "--flat-output", ...extra], { cwd: root, env, timeoutMs: 90_000 });
}

function rowsOf(runDir: string): Record<string, unknown>[] {
  const lines = readFileSync(path.join(runDir, "rows.jsonl"), "utf8").trimEnd().split("\n");
  return lines.slice(1).map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** No file under `root`, and no output, holds the key. */
function expectKeyNowhere(root: string, key: string, outputs: readonly CliResult[]): void {
  const files = filesUnder(root);
  expect(files.some((file) => file.includes("cache"))).toBe(true);
  const hits = files.filter((file) => readFileSync(path.join(root, file)).includes(key));
  expect(hits, "files holding the key").toEqual([]);
  for (const out of outputs) expect(`${out.stdout}\n${out.stderr}`).not.toContain(key);
}

/**
 * The environment that makes eb note, in `file`, each provider client it imports: a module
 * resolve hook, registered by --import before eb's own code runs.
 */
function loadRecorder(root: string, file: string): NodeJS.ProcessEnv {
  const clients = [ANTHROPIC, GOOGLE].map((api) => api.client);
  writeFileSync(
    path.join(root, "hooks.mjs"),
    [
      'import { appendFileSync } from "node:fs";',
      `const clients = ${JSON.stringify(clients)};`,
      "export async function resolve(specifier, context, next) {",
      `  if (clients.includes(specifier)) appendFileSync(${JSON.stringify(file)}, specifier + "\\n");`,
      "  return next(specifier, context);",
      "}",
    ].join("\n"),
  );
  writeFileSync(
    path.join(root, "register.mjs"),
    'import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n',
  );
  return { NODE_OPTIONS: `--import ${path.join(root, "register.mjs")}` };
}

/** A model's name as its API knows it. */
function bare(model: string): string {
  return model.slice(model.indexOf("/") + 1);
}

describe.each([ANTHROPIC, GOOGLE])("eb eval -m $name/MODEL through its own client", (api) => {
  it("answers, grades, prices the usage, caches, and writes the key nowhere", async () => {
    server = await startLoopbackServer(script(api));
    const key = freshKey();
    const judged = [{ type: "judge", criteria: ["it echoes"] }];
    const root = project(api, [
      caseLine("good", "hello", [{ type: "contains", all: ["echo: hello"] }, ...judged]),
      caseLine("bad", "world", [{ type: "contains", all: ["never"] }], "be brief"),
      caseLine("broken", "status-500", [{ type: "contains", all: ["echo"] }]),
    ]);
    const env = { [api.keyVariable]: key };
    const flags = ["--judge", api.judge, "--max-retries", "0", "--out", "first"];
    const first = await evalProvider(api, root, env, flags);
    expect(first.code, first.stderr).toBe(1);

    const calls = server.requests;
    for (const call of calls) {
      expect(call.method).toBe("POST");
      expect(call.url).toBe(api.path(api.model_of(call)));
      expect(api.keyOf(call)).toBe(key);
    }
    const bad = calls.find((r) => api.content(r) === "world") as SeenRequest;
    // Anthropic requires max_tokens: eb sends 4096 unless --max-tokens says otherwise.
    expect(api.sampling(bad)).toEqual({
      system: "be brief",
      maxTokens: api.name === "anthropic" ? 4096 : undefined,
      temperature: 0,
    });
    const target = bare(api.model);
    expect(calls.map((r) => api.model_of(r)).sort()).toEqual(
      [target, target, target, bare(api.judge)].sort(),
    );

    const runDir = path.join(root, "first");
    const rows = Object.fromEntries(rowsOf(runDir).map((row) => [row.id, row]));
    expect(rows.good).toMatchObject({ status: "passed", prompt_tokens: 11, completion_tokens: 7 });
    expect(rows.bad).toMatchObject({ status: "failed", text: "echo: world" });
    expect(rows.broken?.status).toBe("error");
    expect(String(rows.broken?.error)).toContain("HTTP 500 broken, key [redacted]");
    const report = JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8"));
    // Two target calls and one judge call answered, 11 + 7 tokens each at $1000 per million.
    expect(report.run.cost).toBeCloseTo(3 * 0.018, 6);
    expect(report.run.target).toContain(`${api.model} (`);
    expect(report.run.target).toContain(`at ${rootOf(server)}`);

    // The same run again: the cache answers every call that was answered.
    const before = server.requests.length;
    const again = await evalProvider(api, root, env, [...flags.slice(0, -1), "again"]);
    expect(again.code, again.stderr).toBe(1);
    expect(server.requests.slice(before).map((r) => api.content(r))).toEqual(["status-500"]);
    const cached = Object.fromEntries(rowsOf(path.join(root, "again")).map((r) => [r.id, r]));
    expect(cached.good).toMatchObject({ status: "passed", cached: true });
    expectKeyNowhere(root, key, [first, again]);
  });

  it("loads its own client only, and only to call: a cached re-run loads none", async () => {
    server = await startLoopbackServer(script(api));
    const root = project(api, [caseLine("a", "hi", [{ type: "contains", all: ["echo"] }])]);
    const loaded = path.join(root, "loaded.txt");
    const env = { [api.keyVariable]: freshKey(), ...loadRecorder(root, loaded) };
    const first = await evalProvider(api, root, env, ["--out", "one"]);
    expect(first.code, first.stderr).toBe(0);
    const clients = () =>
      existsSync(loaded) ? readFileSync(loaded, "utf8").trim().split("\n") : [];
    expect(clients()).toEqual([api.client]);
    const again = await evalProvider(api, root, env, ["--out", "two"]);
    expect(again.code, again.stderr).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(clients()).toEqual([api.client]);
  });

  it("retries a 429 after its Retry-After, under eb's retries", async () => {
    server = await startLoopbackServer(script(api));
    const limited = { status: 429, headers: { "retry-after": "1" }, body: api.error(429, "slow") };
    server.queue.push(limited);
    const root = project(api, [caseLine("one", "hi", [{ type: "contains", all: ["echo: hi"] }])]);
    const result = await evalProvider(api, root, { [api.keyVariable]: freshKey() }, ["--out", "o"]);
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(rowsOf(path.join(root, "o"))[0]).toMatchObject({ status: "passed" });
  });

  it("stops at a 401, naming the variable to set", async () => {
    server = await startLoopbackServer(script(api));
    const key = freshKey();
    const graders = [{ type: "contains", all: ["echo"] }];
    const root = project(api, [caseLine("a", "hi", graders), caseLine("b", "refuse", graders)]);
    const result = await evalProvider(api, root, { [api.keyVariable]: key }, [
      "--workers",
      "1",
      "--out",
      "o",
    ]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      `the key in ${api.keyVariable} was refused by ${rootOf(server)}: set ${api.keyVariable} to a key it accepts`,
    );
    expect(result.stderr).not.toContain(key);
    expectKeyNowhere(root, key, [result]);
  });

  it("goes through eb's transport: a redirect to another origin is refused, not followed", async () => {
    server = await startLoopbackServer(script(api));
    const elsewhere = `http://localhost:1${api.path(bare(api.model))}`;
    server.queue.push({ status: 307, headers: { location: elsewhere }, body: "" });
    const root = project(api, [caseLine("a", "hi", [{ type: "contains", all: ["echo"] }])]);
    const result = await evalProvider(api, root, { [api.keyVariable]: freshKey() }, ["--out", "o"]);
    expect(result.code).toBe(1);
    const [row] = rowsOf(path.join(root, "o"));
    expect(row).toMatchObject({ status: "error" });
    expect(String(row?.error)).toContain(
      `the endpoint redirected to another origin (${elsewhere})`,
    );
    expect(server.requests).toHaveLength(1);
  });

  it("refuses --batch, and a missing key, before any call", async () => {
    server = await startLoopbackServer(script(api));
    const root = project(api, [caseLine("a", "hi", [{ type: "contains", all: ["echo"] }])]);
    const batch = await evalProvider(api, root, { [api.keyVariable]: freshKey() }, ["--batch"]);
    expect(batch.code).toBe(2);
    expect(batch.stderr).toContain(
      `--batch sends calls through the OpenAI Batch API, and "${api.model}"`,
    );
    const keyless = await evalProvider(api, root, { OPENAI_API_KEY: "sk-openai" });
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toContain(`no API key for model "${api.model}"`);
    expect(keyless.stderr).toContain(`set ${api.keyVariable}`);
    expect(server.requests).toEqual([]);
  });
});

describe("eb eval with a target and a judge of different providers", () => {
  it("calls each through its own client with its own key", async () => {
    const [anthropic, google] = [script(ANTHROPIC), script(GOOGLE)];
    server = await startLoopbackServer((request) =>
      request.url === "/v1/messages" ? anthropic(request) : google(request),
    );
    const keys = { ANTHROPIC_API_KEY: freshKey(), GEMINI_API_KEY: freshKey() };
    const judged = [{ type: "judge", criteria: ["it echoes"] }];
    const root = makeProject({
      "cases.jsonl": `${caseLine("a", "hi", judged)}\n`,
      ".eval-banana/config.toml": "",
    });
    const args = ["eval", "cases.jsonl", "-m", GOOGLE.model, "--judge", ANTHROPIC.judge];
    const result = await runEb(
      [...args, "--api-base", rootOf(server), "--out", "o", "--flat-output"],
      {
        cwd: root,
        env: keys,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(
      server.requests.map((r) => [r.url, (r.url === "/v1/messages" ? ANTHROPIC : GOOGLE).keyOf(r)]),
    ).toEqual([
      [GOOGLE.path("gemini-test"), keys.GEMINI_API_KEY],
      ["/v1/messages", keys.ANTHROPIC_API_KEY],
    ]);
  });
});

describe("eb eval -m openai/MODEL, and the sampling settings", () => {
  it("is the OpenAI-compatible endpoint, called with the model's own name", async () => {
    server = await startLoopbackServer(() => ({ body: completion("echo: hi") }));
    const root = makeProject({
      "cases.jsonl": `${caseLine("a", "hi", [{ type: "contains", all: ["echo"] }])}\n`,
    });
    const args = ["eval", "cases.jsonl", "-m", "openai/mock", "--api-base", server.baseURL];
    const loaded = path.join(root, "loaded.txt");
    const env = { EVAL_BANANA_API_KEY: "sk-test", ...loadRecorder(root, loaded) };
    const result = await runEb(args, { cwd: root, env });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(loaded), "a provider's client was loaded").toBe(false);
    expect(server.requests.map((r) => (r.json as { model: string }).model)).toEqual(["mock"]);
    const batch = await runEb([...args, "--batch"], {
      cwd: root,
      env: { EVAL_BANANA_API_KEY: "k" },
    });
    expect(batch.code).toBe(2);
    expect(batch.stderr).toContain('--batch names the model as the endpoint knows it: pass "mock"');
  });

  it("--max-tokens reaches a provider's API as its own field", async () => {
    server = await startLoopbackServer(script(GOOGLE));
    const root = project(GOOGLE, [caseLine("a", "hi", [{ type: "contains", all: ["echo"] }])]);
    // GEMINI_API_KEY is read first, and the client's own word otherwise is not printed.
    const env = { GEMINI_API_KEY: freshKey(), GOOGLE_API_KEY: freshKey() };
    const result = await evalProvider(GOOGLE, root, env, [
      "--max-tokens",
      "50",
      "--out",
      "o",
      "--temperature",
      "0.5",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const [call] = server.requests;
    expect(GOOGLE.sampling(call as SeenRequest)).toMatchObject({ maxTokens: 50, temperature: 0.5 });
    expect(GOOGLE.keyOf(call as SeenRequest)).toBe(env.GEMINI_API_KEY);
    expect(result.stderr).not.toContain("GOOGLE_API_KEY");
  });
});
