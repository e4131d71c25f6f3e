import { EventEmitter } from "node:events";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCache, type RunCache } from "../../src/model/cache.js";
import { type ChatRequest, createChatTarget } from "../../src/model/chat.js";
import {
  completion,
  echo,
  type LoopbackServer,
  startLoopbackServer,
} from "../helpers/loopback-server.js";

const KEY = "sk-test-SECRET123";
const request: ChatRequest = {
  model: "m1",
  messages: [
    { role: "system", content: "be brief" },
    { role: "user", content: "hello" },
  ],
  temperature: 0.5,
  maxTokens: 50,
};

let server: LoopbackServer;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "eb-chat-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  server = await startLoopbackServer();
});
afterEach(async () => {
  await server.close();
});

/** Caches made by target(), flushed by flushed() as the end of a run would. */
const openCaches: RunCache[] = [];

interface TargetOptions {
  timeoutMs?: number;
  maxRetries?: number;
  maxRetryWaitMs?: number;
  cacheDir?: string;
}

function target(options: TargetOptions = {}) {
  const cache = options.cacheDir ? createCache(options.cacheDir) : null;
  if (cache) openCaches.push(cache);
  return createChatTarget({
    baseURL: server.baseURL,
    apiKey: KEY,
    timeoutMs: options.timeoutMs ?? 2000,
    maxRetries: options.maxRetries ?? 2,
    ...(options.maxRetryWaitMs === undefined ? {} : { maxRetryWaitMs: options.maxRetryWaitMs }),
    cache,
  });
}

/** Waits for every cache write so far (what a run does before it ends). */
async function flushed(): Promise<void> {
  const caches = openCaches.splice(0);
  for (const cache of caches) expect(await cache.flush()).toEqual([]);
}

async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  const message = (error as Error).message;
  expect(message).not.toContain(KEY);
  return message;
}

async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

describe("createChatTarget", () => {
  it("sends the exact request and returns text, model, usage and fingerprint", async () => {
    const result = await target().complete(request, 0);
    expect(result).toMatchObject({
      text: "echo: hello",
      model: "echo-model-2026",
      usage: { prompt_tokens: 11, completion_tokens: 7 },
      cached: false,
      systemFingerprint: "fp_test",
    });
    expect(result.ms).toBeGreaterThanOrEqual(0);
    const seen = server.requests[0];
    expect(seen?.url).toBe("/v1/chat/completions");
    expect(seen?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen?.json).toEqual({
      model: "m1",
      messages: request.messages,
      temperature: 0.5,
      max_tokens: 50,
    });
  });

  it("answers a re-run from the cache without a request, and never stores the key", async () => {
    const cacheDir = join(dir, "rerun");
    const first = await target({ cacheDir }).complete(request, 0);
    const other = await target({ cacheDir }).complete(request, 1);
    expect(server.requests).toHaveLength(2);
    await flushed();
    const again = await target({ cacheDir }).complete(request, 0);
    const againOther = await target({ cacheDir }).complete(request, 1);
    expect(server.requests).toHaveLength(2);
    expect(again).toEqual({ ...first, cached: true });
    expect(againOther).toEqual({ ...other, cached: true });
    const files = await filesUnder(cacheDir);
    expect(files).toHaveLength(2);
    for (const f of files) expect(await readFile(f, "utf8")).not.toContain(KEY);
  });

  it("keeps the connection alive across calls", async () => {
    const chat = target();
    for (let i = 0; i < 6; i++) await chat.complete(request, i);
    expect(server.requests).toHaveLength(6);
    expect(server.requests.every((r) => r.headers.connection === "keep-alive")).toBe(true);
    expect(server.connections).toBe(1);
  });

  it("retries a 429 with Retry-After, then succeeds", async () => {
    server.queue.push({
      status: 429,
      headers: { "retry-after": "0" },
      body: { error: { message: "slow down" } },
    });
    const result = await target().complete(request, 0);
    expect(result.text).toBe("echo: hello");
    expect(server.requests).toHaveLength(2);
  });

  it("retries a 500, then succeeds", async () => {
    server.queue.push({
      status: 500,
      headers: { "retry-after-ms": "10" },
      body: { error: { message: "boom" } },
    });
    const result = await target().complete(request, 0);
    expect(result.text).toBe("echo: hello");
    expect(server.requests).toHaveLength(2);
  });

  it("gives up after the last retry with the status and the server's message", async () => {
    server.script = () => ({
      status: 503,
      headers: { "retry-after": "0" },
      body: { error: { message: "overloaded" } },
    });
    const message = await failure(target({ maxRetries: 1 }).complete(request, 0));
    expect(message).toMatch(/^model "m1" at http:\/\/127\.0\.0\.1:\d+\/v1: HTTP 503 overloaded$/);
    expect(server.requests).toHaveLength(2);
  });

  it("waits no longer than maxRetryWaitMs, whatever Retry-After asks, and says so", async () => {
    server.script = () => ({
      status: 429,
      headers: { "retry-after": "3600" },
      body: { error: { message: "slow down" } },
    });
    const started = performance.now();
    const message = await failure(
      target({ maxRetries: 2, maxRetryWaitMs: 50 }).complete(request, 0),
    );
    // Two 50 ms waits, not two hours; the bound leaves room for a loaded machine.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(server.requests).toHaveLength(3);
    expect(message).toMatch(
      /HTTP 429 slow down \(the endpoint asked to wait 3600s before retrying; eb waits at most 0\.05s, \[eval\] max_retry_wait_seconds\)$/,
    );
  });

  it("ends within its attempts' timeouts plus the capped waits", async () => {
    server.script = (_req, index) =>
      index === 0 ? { status: 503, headers: { "retry-after": "3600" } } : "hang";
    const started = performance.now();
    const message = await failure(
      target({ timeoutMs: 200, maxRetries: 1, maxRetryWaitMs: 100 }).complete(request, 0),
    );
    expect(message).toMatch(/timed out after 0\.2s/);
    // Two 0.2 s attempts and a 0.1 s wait; an uncapped wait would be an hour. The bound leaves
    // room for a loaded machine and still tells the two apart.
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("obeys x-should-retry either way", async () => {
    server.queue.push({ status: 400, headers: { "x-should-retry": "true", "retry-after": "0" } });
    expect((await target().complete(request, 0)).text).toBe("echo: hello");
    server.queue.push({ status: 500, headers: { "x-should-retry": "false" } });
    await failure(target().complete(request, 0));
    expect(server.requests).toHaveLength(3);
  });

  it("does not retry what the transport refused, and says what it was", async () => {
    server.script = () => ({ status: 307, headers: { location: "http://127.0.0.2:1/v1" } });
    const message = await failure(target({ maxRetries: 3 }).complete(request, 0));
    expect(message).toMatch(
      /: the endpoint redirected to another origin \(http:\/\/127\.0\.0\.2:1\/v1\); set --api-base to the final URL$/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it("times out a server that never answers", async () => {
    server.script = () => "hang";
    const message = await failure(target({ timeoutMs: 300, maxRetries: 0 }).complete(request, 0));
    expect(message).toMatch(/timed out after 0\.3s$/);
  });

  it("times out a body that stalls after the headers, retrying first", async () => {
    server.queue.push("stall");
    const ok = await target({ timeoutMs: 300, maxRetries: 1 }).complete(request, 0);
    expect(ok.text).toBe("echo: hello");
    server.script = () => "stall";
    const message = await failure(target({ timeoutMs: 300, maxRetries: 0 }).complete(request, 0));
    expect(message).toMatch(/timed out after 0\.3s$/);
  });

  it("rejects bodies that are not a chat completion", async () => {
    const chat = target({ maxRetries: 0 });
    const answers: [unknown, Record<string, string>, RegExp][] = [
      ['{"choices": [', {}, /malformed JSON/],
      [
        "<html><body>Bad gateway</body></html>",
        { "content-type": "text/html" },
        /non-JSON body: <html>/,
      ],
      [{ choices: [] }, {}, /no choices/],
      [completion(null), {}, /no message content/],
      [{ error: "nope" }, {}, /not a chat completion/],
      ["", {}, /malformed JSON \(Unexpected end of JSON input\)/],
      ["", { "content-length": "0" }, /empty body/],
      ["", { "content-type": "text/plain" }, /empty body/],
    ];
    for (const [body, headers, expected] of answers) {
      server.queue.push({ body, headers });
      expect(await failure(chat.complete(request, 0))).toMatch(expected);
    }
  });

  it("reads a JSON body after a byte-order mark, and any +json type", async () => {
    const body = `\ufeff${JSON.stringify(completion("bom"))}`;
    server.queue.push({ body }, { body, headers: { "content-type": "application/vnd.x+json" } });
    expect((await target().complete(request, 0)).text).toBe("bom");
    expect((await target().complete(request, 1)).text).toBe("bom");
  });

  it("words an HTTP error by the API's message, else its error, else the body", async () => {
    const chat = target({ maxRetries: 0 });
    const answers: [unknown, string][] = [
      [{ error: { message: "bad model" } }, "HTTP 400 bad model"],
      [{ error: { code: "x" } }, 'HTTP 400 {"code":"x"}'],
      [{ detail: "no error field" }, "HTTP 400 status code (no body)"],
      ["<html>Bad request</html>", "HTTP 400 <html>Bad request</html>"],
      ["", "HTTP 400 status code (no body)"],
    ];
    for (const [body, expected] of answers) {
      server.queue.push({ status: 400, body });
      const message = await failure(chat.complete(request, 0));
      expect(message.slice(message.indexOf(": ") + 2)).toBe(expected);
    }
  });

  it("never puts the API key in an error, even when the server echoes it", async () => {
    server.script = (req) => ({
      status: 401,
      body: { error: { message: `invalid key: ${String(req.headers.authorization)}` } },
    });
    const message = await failure(target().complete(request, 0));
    expect(message).toMatch(/HTTP 401 invalid key: Bearer \[redacted\]/);
  });

  it("caches a completion only once it succeeded", async () => {
    const cacheDir = join(dir, "failed");
    server.queue.push({ status: 400, body: { error: { message: "bad request" } } });
    await failure(target({ cacheDir }).complete(request, 0));
    await flushed();
    expect(await filesUnder(cacheDir).catch(() => [])).toEqual([]);
    server.script = echo;
    expect((await target({ cacheDir }).complete(request, 0)).cached).toBe(false);
  });
});

/** A server that takes each request and never answers; notes when its sockets close. */
async function silentServer() {
  let seen = () => {};
  const requestSeen = new Promise<void>((resolve) => {
    seen = resolve;
  });
  const closedAt: number[] = [];
  const server = createServer(() => seen());
  let opened = 0;
  server.on("connection", (socket) => {
    opened++;
    socket.on("close", () => closedAt.push(performance.now()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const { port } = server.address() as AddressInfo;
  const baseURL = `http://127.0.0.1:${port}/v1`;
  return { baseURL, requestSeen, closedAt, opened: () => opened, close };
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (!condition() && performance.now() < end) await new Promise((r) => setTimeout(r, 5));
}

describe("createChatTarget aborted", () => {
  it("closes the request's socket at once and says the call was interrupted", async () => {
    const silent = await silentServer();
    try {
      const chat = createChatTarget({
        baseURL: silent.baseURL,
        apiKey: KEY,
        timeoutMs: 10_000,
        maxRetries: 2,
        cache: null,
      });
      const controller = new AbortController();
      const call = chat.complete(request, 0, controller.signal);
      await silent.requestSeen;
      const abortedAt = performance.now();
      controller.abort();
      expect(await failure(call)).toMatch(
        /^model "m1" at http:\/\/127\.0\.0\.1:\d+\/v1: interrupted$/,
      );
      const allClosed = () =>
        silent.closedAt.length > 0 && silent.closedAt.length === silent.opened();
      await until(allClosed, 1000);
      // undici 7 opens a spare connection after an abort and closes it at once (nodejs/undici#5845):
      // the request's socket closes first, and none stays open.
      expect(silent.closedAt).toHaveLength(silent.opened());
      expect((silent.closedAt[0] ?? Number.POSITIVE_INFINITY) - abortedAt).toBeLessThan(500);
    } finally {
      await silent.close();
    }
  });

  it("stops at once while waiting to retry", async () => {
    server.script = () => ({
      status: 503,
      headers: { "retry-after": "30" },
      body: { error: { message: "overloaded" } },
    });
    const controller = new AbortController();
    const call = target({ maxRetries: 3 }).complete(request, 0, controller.signal);
    await until(() => server.requests.length > 0, 2000);
    const abortedAt = performance.now();
    controller.abort();
    expect(await failure(call)).toMatch(/: interrupted$/);
    // Not waiting out the 30 s the endpoint asked for (a loaded machine may take a while).
    expect(performance.now() - abortedAt).toBeLessThan(10_000);
    expect(server.requests).toHaveLength(1);
  });

  it("makes no request once already aborted, but still answers from the cache", async () => {
    const cacheDir = join(dir, "aborted");
    const first = await target({ cacheDir }).complete(request, 0);
    await flushed();
    const signal = AbortSignal.abort();
    expect(await target({ cacheDir }).complete(request, 0, signal)).toEqual({
      ...first,
      cached: true,
    });
    expect(await failure(target({ cacheDir }).complete(request, 1, signal))).toMatch(
      /: interrupted$/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it("leaves no listener behind on a long-lived signal", async () => {
    const controller = new AbortController();
    const chat = target();
    for (let i = 0; i < 20; i++) await chat.complete(request, i, controller.signal);
    expect(EventEmitter.getEventListeners(controller.signal, "abort").length).toBeLessThanOrEqual(
      1,
    );
  });
});
