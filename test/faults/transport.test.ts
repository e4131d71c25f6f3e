import { randomBytes } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { createChatTarget } from "../../src/model/chat.js";
import { completion, lastContent, type SeenRequest } from "../helpers/loopback-server.js";
import { type Fault, type FaultServer, reply, startFaultServer } from "./fault-server.js";
import {
  CACHE,
  caseLine,
  casesProject,
  evalAt,
  filesUnder,
  KEY,
  OUT,
  type Row,
  readRun,
} from "./support.js";

const servers: FaultServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function serve(script: (request: SeenRequest) => Fault): Promise<FaultServer> {
  const server = await startFaultServer(script);
  servers.push(server);
  return server;
}

const ok = (request: SeenRequest): Fault => reply(completion(`echo: ${lastContent(request)}`));
const redirect = (status: number, location: string): Fault => reply("", status, { location });
const errorsById = (root: string) =>
  new Map(readRun(path.join(root, OUT)).rows.map((r): [string, Row] => [r.id, r]));

/** Every file under `root` and both outputs, searched for each secret. */
function expectNowhere(root: string, secrets: string[], output: string) {
  for (const secret of secrets) {
    const leaks = filesUnder(root).filter((f) =>
      readFileSync(path.join(root, f), "utf8").includes(secret),
    );
    expect(leaks, `files holding ${secret}`).toEqual([]);
    expect(output).not.toContain(secret);
  }
}

/**
 * The endpoint at /v1 redirects as the case's content says: within its origin, to `other`'s,
 * back to itself, or with a status that would turn the POST into a GET.
 */
function redirecting(other: () => string) {
  return (request: SeenRequest): Fault => {
    if (request.url.startsWith("/moved/")) return ok(request);
    switch (lastContent(request)) {
      case "same-origin":
        return redirect(307, "/moved/chat/completions");
      case "other-origin":
        return redirect(307, `${other()}/chat/completions`);
      case "loop":
        return redirect(308, request.url);
      case "loop-of-two":
        return redirect(307, request.url === "/b" ? "/v1/chat/completions" : "/b");
      case "post-to-get":
        return redirect(302, "/moved/chat/completions");
      default:
        return ok(request);
    }
  };
}

describe("eb eval against an endpoint that redirects", () => {
  it("follows a redirect within the origin; refuses one to another origin, a loop or a POST turned GET", async () => {
    const other = await serve(ok);
    const server = await serve(redirecting(() => other.baseURL));
    const kinds = ["same-origin", "other-origin", "loop", "loop-of-two", "post-to-get"];
    const root = casesProject(kinds.map((kind) => caseLine(kind, kind)));
    const result = await evalAt(root, server.baseURL, ["--max-retries", "2"]);
    expect(result.code, result.stderr).toBe(1);

    const rows = errorsById(root);
    expect(rows.get("same-origin")?.status).toBe("passed");
    expect(other.requests, "the prompt went to the other origin").toEqual([]);
    const error = (id: string) => rows.get(id)?.error ?? "";
    expect(error("other-origin")).toContain(
      `the endpoint redirected to another origin (${other.baseURL}/chat/completions); ` +
        "set --api-base to the final URL",
    );
    expect(error("loop")).toMatch(/redirects in a loop/);
    expect(error("loop-of-two")).toMatch(/redirects in a loop/);
    expect(error("post-to-get")).toMatch(/302.*would resend the POST as a GET/);
    for (const id of kinds.slice(1)) {
      expect(error(id), id).not.toMatch(/fetch failed|\n/);
      expect(rows.get(id)?.status, id).toBe("error");
    }
    // A refused redirect is final: no retry asks again.
    const asked = (content: string) =>
      server.requests.filter((r) => lastContent(r) === content).length;
    expect(kinds.map(asked)).toEqual([2, 1, 1, 2, 1]);
  });

  it("keeps a password in --api-base (and in a Location) out of rows, reports and output", async () => {
    const password = `pw${randomBytes(8).toString("hex")}`;
    const other = await serve(ok);
    const otherWithCredentials = other.baseURL.replace("http://", `http://u:${password}x@`);
    const server = await serve(redirecting(() => otherWithCredentials));
    const base = server.baseURL.replace("http://", `http://user:${password}@`);
    const kinds = ["same-origin", "other-origin", "loop", "post-to-get"];
    const root = casesProject(kinds.map((kind) => caseLine(kind, kind)));
    const result = await evalAt(root, base, ["--max-retries", "1", "--verbose"]);
    expect(result.code, result.stderr).toBe(1);
    expect(errorsById(root).get("other-origin")?.error).toContain(
      "redirected to another origin (http://[redacted]@127.0.0.1:",
    );
    expectNowhere(root, [password], `${result.stdout}${result.stderr}`);
  });

  it("no error the chat target throws carries the password, whatever the transport met", async () => {
    const password = `pw${randomBytes(8).toString("hex")}`;
    const other = await serve(ok);
    const server = await serve(redirecting(() => other.baseURL.replace("//", `//u:${password}@`)));
    const closed = await serve(ok);
    await closed.close();
    const chat = (base: string) =>
      createChatTarget({
        baseURL: base.replace("http://", `http://user:${password}@`),
        apiKey: KEY,
        maxRetries: 0,
        maxResponseBytes: 100,
        cache: null,
      });
    const ask = (base: string, content: string) =>
      chat(base).complete({ model: "m", messages: [{ role: "user", content }], temperature: 0 }, 0);
    const failures = await Promise.allSettled([
      ask(server.baseURL, "same-origin"),
      ask(server.baseURL, "other-origin"),
      ask(server.baseURL, "loop"),
      ask(closed.baseURL, "refused"),
    ]);
    const messages = failures.map((f) => (f.status === "rejected" ? String(f.reason) : "ok"));
    for (const message of messages) expect(message).not.toContain(password);
    expect(messages[0], "a 100-byte cap on a same-origin answer").toMatch(/larger than 0.0001 MB/);
    expect(messages[1]).toMatch(/another origin \(http:\/\/\[redacted\]@127/);
    expect(messages[2]).toMatch(/loop/);
    expect(messages[3]).toMatch(/ECONNREFUSED/);
  });

  it("redacts a password holding a raw @ whole, up to the last @ before the host", async () => {
    const [head, tail] = [randomBytes(6).toString("hex"), randomBytes(6).toString("hex")];
    const server = await serve(() => reply({ error: { message: "down" } }, 500));
    const base = server.baseURL.replace("http://", `http://user:${head}@${tail}@`);
    const root = casesProject([caseLine("fails", "hello")]);
    const result = await evalAt(root, base, ["--max-retries", "0"]);
    expect(result.code, result.stderr).toBe(1);
    expect(errorsById(root).get("fails")?.error).toMatch(
      /^model "mock" at http:\/\/\[redacted\]@127\.0\.0\.1:\d+\/v1: HTTP 500/,
    );
    expectNowhere(root, [head, tail], `${result.stdout}${result.stderr}`);
  });
});

describe("eb eval against an endpoint that asks to wait an hour", () => {
  it("caps each wait at max_retry_wait_seconds and ends the sample as an error row", async () => {
    const times: number[] = [];
    const server = await serve(() => {
      times.push(performance.now());
      return reply({ error: { message: "come back later" } }, 429, { "retry-after": "3600" });
    });
    const root = casesProject([caseLine("limited", "hello")]);
    const env = { EVAL_BANANA_MAX_RETRY_WAIT_SECONDS: "1" };
    const started = performance.now();
    const result = await evalAt(root, server.baseURL, ["--max-retries", "2"], env, 20_000);
    expect(result.code, result.stderr).toBe(1);
    // Three attempts and two waits of one second, plus the CLI's start.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(times).toHaveLength(3);
    const waits = times.slice(1).map((t, i) => t - (times[i] as number));
    for (const wait of waits) {
      expect(wait).toBeGreaterThan(950);
      expect(wait).toBeLessThan(2500);
    }
    expect(errorsById(root).get("limited")?.error).toMatch(
      /HTTP 429 come back later \(the endpoint asked to wait 3600s before retrying; .*at most 1s/,
    );
    expect(readRun(path.join(root, OUT)).report.stats.errors).toBe(1);
  });
});

const MB = 1_000_000;

const ANSWER_HEAD = '{"choices": [{"message": {"role": "assistant", "content": "';
const ANSWER_TAIL = '"}}]}';

/** A completion with `megabytes` MB of content, streamed; `done` says whether it all went out. */
function hugeAnswer(megabytes: number, done: (finished: boolean) => void): Fault {
  const chunk = Buffer.alloc(MB, "a");
  const respond = (res: ServerResponse) => {
    res.on("close", () => done(res.writableFinished));
    res.writeHead(200, { "content-type": "application/json" });
    res.write(ANSWER_HEAD);
    let sent = 0;
    const more = () => {
      while (sent < megabytes && !res.destroyed) {
        sent++;
        if (!res.write(chunk)) return void res.once("drain", more);
      }
      if (!res.destroyed) res.end(ANSWER_TAIL);
    };
    more();
  };
  return { kind: "respond", respond };
}

/** The same completion gzipped: a few hundred KB on the wire, `megabytes` MB once decoded. */
async function gzipBomb(megabytes: number): Promise<Fault> {
  const chunk = Buffer.alloc(MB, "a");
  async function* answer() {
    yield Buffer.from(ANSWER_HEAD);
    for (let i = 0; i < megabytes; i++) yield chunk;
    yield Buffer.from(ANSWER_TAIL);
  }
  const parts: Buffer[] = [];
  await pipeline(answer(), createGzip(), async (gzipped: AsyncIterable<Buffer>) => {
    for await (const part of gzipped) parts.push(part);
  });
  const body = Buffer.concat(parts);
  const headers = {
    "content-type": "application/json",
    "content-encoding": "gzip",
    "content-length": String(body.length),
  };
  return { kind: "respond", respond: (res) => res.writeHead(200, headers).end(body) };
}

/** A preload that writes the process's peak RSS (bytes) to a file as it exits. */
function peakRssProbe(root: string): { env: NodeJS.ProcessEnv; peak: () => number } {
  const probe = path.join(root, "peak-rss.cjs");
  const out = path.join(root, "peak-rss.txt");
  writeFileSync(
    probe,
    `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(out)}, ` +
      "String(process.resourceUsage().maxRSS * 1024)));\n",
  );
  return {
    env: { NODE_OPTIONS: `--require ${probe}` },
    peak: () => Number(readFileSync(out, "utf8")),
  };
}

describe("eb eval against an endpoint that answers too much", () => {
  it("stops reading a huge or decompression-bomb answer at max_response_mb, in bounded memory", async () => {
    const finished: boolean[] = [];
    const bomb = await gzipBomb(300);
    const server = await serve((request) => {
      const content = lastContent(request);
      if (content === "huge") {
        return hugeAnswer(300, (f) => finished.push(f));
      }
      return content === "bomb" ? bomb : ok(request);
    });
    const baseline = casesProject([caseLine("small", "small")]);
    const baseProbe = peakRssProbe(baseline);
    expect((await evalAt(baseline, server.baseURL, [], baseProbe.env)).code).toBe(0);

    const root = casesProject(["huge", "bomb", "small"].map((c) => caseLine(c, c)));
    const probe = peakRssProbe(root);
    const result = await evalAt(root, server.baseURL, ["--max-retries", "2"], probe.env);
    expect(result.code, result.stderr).toBe(1);
    const rows = errorsById(root);
    expect(rows.get("small")?.status).toBe("passed");
    for (const id of ["huge", "bomb"]) {
      expect(rows.get(id)?.status, id).toBe("error");
      expect(rows.get(id)?.error, id).toMatch(/answer is larger than 10 MB/);
      expect(
        server.requests.filter((r) => lastContent(r) === id),
        `${id} retried`,
      ).toHaveLength(1);
    }
    expect(finished, "the huge answer was read to its end").toEqual([false]);
    // Neither answer reached the cache: it holds the small one only.
    const cached = filesUnder(path.join(root, CACHE)).map(
      (f) => statSync(path.join(root, CACHE, f)).size,
    );
    expect(cached.reduce((a, b) => a + b, 0)).toBeLessThan(10_000);
    expect(probe.peak() - baseProbe.peak()).toBeLessThan(100 * MB);
  }, 60_000);
});
