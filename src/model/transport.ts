/// <reference path="./undici-agent.d.ts" />
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import type { Dispatcher } from "undici";
// The pool alone, not undici's index, which loads its fetch, WebSocket, caches and mocks too
// (110 modules, not 25), paid by every `eb eval` as it starts. The version is pinned exactly.
import Agent from "undici/lib/dispatcher/agent.js";
import { redactUrl } from "../secrets/redact.js";
import { ConnectionError, EndpointError, TimeoutError } from "./retry.js";

export interface HttpRequest {
  method: string;
  url: string;
  headers: Readonly<Record<string, string>>;
  body?: string;
  /** Once it aborts, the request is cancelled and the call rejects with an AbortError. */
  signal?: AbortSignal | undefined;
  /** The whole request's deadline, redirects and body included; past it, a TimeoutError. */
  timeoutMs?: number;
}

export interface HttpAnswer {
  status: number;
  /** Lower-case names; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  /** The whole body, decoded when it came compressed. */
  body: Buffer;
}

/** One request, answered once its whole body is in. */
export type Http = (request: HttpRequest) => Promise<HttpAnswer>;

export interface HttpOptions {
  /** The largest body read, counted once decompressed; a larger one fails the request. */
  maxBodyBytes?: number;
}

type Send = (url: URL) => Promise<HttpAnswer>;

/** When a request gives up: its deadline on performance.now()'s clock, and its timeout. */
interface Deadline {
  at: number;
  ms: number;
}

const DEFAULT_MAX_BODY_BYTES = 10_000_000;
/** Same-origin redirects followed in a row; a chain this long is a loop in all but name. */
const MAX_REDIRECTS = 5;

/**
 * HTTP over an undici pool (keep-alive) and its dispatch API: no WHATWG fetch, Headers or
 * Response, whose cost per call (and Node's own copy of undici, loaded on their first use) is
 * larger than the rest of a call to a fast local endpoint. It resolves only once the whole body is
 * in, so the deadline covers a server that sends the headers and then stalls.
 *
 * What leaves it is bounded and clean: bodies are read up to `maxBodyBytes`, redirects are
 * followed only within the origin (see following), and no error text carries URL credentials.
 * A failure to reach the endpoint or read its answer is a ConnectionError; what the transport
 * refused, an EndpointError; the deadline, a TimeoutError; an abort, an AbortError.
 */
export function createHttp(options: HttpOptions = {}): Http {
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const agent = new Agent({
    // Bytes on the wire: past them undici stops reading and closes the connection. A compressed
    // body is capped again once decoded (see decoded).
    maxResponseSize: limit,
    // The request's own deadline is the limit; undici's would cut a slow model's answer at
    // 300 s, as a network error, retried. (Connecting still gives up after 10 s.)
    headersTimeout: 0,
    bodyTimeout: 0,
    // No connection limit (undici's default too): the worker pool already bounds the calls in
    // flight, and a limit below it would queue calls in the pool, where the deadline keeps running.
  });
  return async (request) => {
    const start = urlOf(request.url);
    const { timeoutMs: ms, signal } = request;
    const deadline = ms === undefined ? null : { at: performance.now() + ms, ms };
    const send: Send = (url) =>
      exchange(agent, dispatchOf(request, url), { signal, deadline, limit });
    try {
      return await following(start, request.method.toUpperCase(), send);
    } catch (error) {
      throw failure(error);
    }
  };
}

function urlOf(input: string): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch (error) {
    throw scrubbed(error);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`this transport speaks http and https, not ${url.protocol}`);
  }
  return url;
}

/** What failed, as the kinds the retry rule tells apart, without URL credentials. */
function failure(error: unknown): Error {
  if (error instanceof TimeoutError) return error;
  const clean = scrubbed(error);
  if (clean instanceof EndpointError || clean.name === "AbortError") return clean;
  return new ConnectionError("Connection error.", { cause: clean });
}

/**
 * Follows a redirect only when it re-sends the same request to the same origin (a path moved, a
 * slash added). Anywhere else the prompt and the key would go to a server the user never named,
 * and its answer be cached under the URL they did; a redirect that turns the POST into a GET
 * would drop the request. Those are refused, saying where the endpoint pointed.
 */
async function following(start: URL, method: string, send: Send): Promise<HttpAnswer> {
  const visited = [start];
  for (;;) {
    const answer = await send(visited.at(-1) as URL);
    const location = redirectLocation(answer);
    if (location === null) return answer;
    visited.push(nextHop(visited, location, answer.status, method));
  }
}

function redirectLocation(answer: HttpAnswer): string | null {
  const redirect = [301, 302, 303, 307, 308].includes(answer.status);
  return redirect ? (answer.headers.location ?? null) : null;
}

function nextHop(visited: readonly URL[], location: string, status: number, method: string): URL {
  const from = visited.at(-1) as URL;
  const to = parseLocation(location, from);
  const fix = "set --api-base to the final URL";
  if (to.origin !== from.origin) {
    throw new EndpointError(`the endpoint redirected to another origin (${to.href}); ${fix}`);
  }
  if (dropsBody(status, method)) {
    throw new EndpointError(
      `the endpoint answered ${status}, which would resend the ${method} as a GET without its ` +
        `body (to ${to.href}); ${fix}`,
    );
  }
  if (visited.some((url) => url.href === to.href)) {
    const chain = [...visited, to].map((url) => url.href).join(" -> ");
    throw new EndpointError(`the endpoint redirects in a loop (${chain})`);
  }
  if (visited.length > MAX_REDIRECTS) {
    throw new EndpointError(
      `the endpoint redirected more than ${MAX_REDIRECTS} times in a row (last to ${to.href}); ${fix}`,
    );
  }
  return to;
}

function parseLocation(location: string, base: URL): URL {
  try {
    return new URL(location, base);
  } catch {
    throw new EndpointError(`the endpoint redirected to an invalid URL (${location})`);
  }
}

/** Whether a redirect would be followed as a body-less GET, as the fetch standard says. */
function dropsBody(status: number, method: string): boolean {
  if (status === 303) return method !== "GET" && method !== "HEAD";
  return (status === 301 || status === 302) && method === "POST";
}

function dispatchOf(request: HttpRequest, url: URL): Dispatcher.DispatchOptions {
  return {
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: request.method,
    headers: headersOf(request.headers, url),
    body: request.body,
  };
}

/** The request's headers; a URL's credentials sent as Basic auth when no key is, as node:http did. */
function headersOf(headers: Readonly<Record<string, string>>, url: URL): Record<string, string> {
  const named = Object.keys(headers).some((name) => name.toLowerCase() === "authorization");
  if (url.username === "" || named) return { ...headers };
  const userinfo = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return { ...headers, authorization: `Basic ${Buffer.from(userinfo).toString("base64")}` };
}

interface Bounds {
  signal: AbortSignal | undefined;
  deadline: Deadline | null;
  limit: number;
}

/**
 * Dispatches a request and collects its answer. It rejects at once when `signal` aborts or the
 * deadline passes, even before the request is on a socket (undici 7 would wait for the
 * connection to abort it), and closes the request's socket.
 */
function exchange(
  agent: Agent,
  request: Dispatcher.DispatchOptions,
  { signal, deadline, limit }: Bounds,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    let onSocket: Dispatcher.DispatchController | null = null;
    let stopped: Error | null = null;
    const stop = (error: Error) => {
      settle();
      stopped = error;
      onSocket?.abort(error);
      reject(error);
    };
    const onAbort = () => stop(abortError());
    const timer =
      deadline === null
        ? undefined
        : setTimeout(
            () => stop(new TimeoutError(deadline.ms)),
            Math.max(0, deadline.at - performance.now()),
          );
    signal?.addEventListener("abort", onAbort, { once: true });
    function settle() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
    const chunks: Buffer[] = [];
    let status = 0;
    let headers: Record<string, string> = {};
    agent.dispatch(request, {
      onRequestStart(controller) {
        if (stopped !== null) controller.abort(stopped);
        onSocket = controller;
      },
      onResponseStart(_controller, code, raw) {
        status = code;
        headers = flatHeaders(raw);
      },
      onResponseData(_controller, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        settle();
        let answer: HttpAnswer;
        try {
          answer = { status, headers, body: decoded(Buffer.concat(chunks), headers, limit) };
        } catch (error) {
          return reject(error);
        }
        // undici frees the connection on the turn after this one (a setImmediate it queues once
        // this returns): resolving after it lets the next call reuse it rather than open another.
        queueMicrotask(() => setImmediate(() => resolve(answer)));
      },
      onResponseError(_controller, error) {
        settle();
        const code = "code" in error ? error.code : undefined;
        reject(code === "UND_ERR_RES_EXCEEDED_MAX_SIZE" ? tooLarge(limit) : error);
      },
    });
  });
}

function flatHeaders(raw: Dispatcher.ResponseData["headers"]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : (value ?? "");
  }
  return headers;
}

function tooLarge(limit: number): EndpointError {
  return new EndpointError(
    `the endpoint's answer is larger than ${limit / 1_000_000} MB ([eval] max_response_mb); ` +
      "it was not read further",
  );
}

/**
 * No Accept-Encoding is sent, so bodies should come plain; one that is compressed anyway is
 * decoded as fetch would, stopping at `limit` bytes of output (a few MB of gzip can expand to
 * gigabytes), and its headers no longer describe encoded bytes. Not undici's decompress
 * interceptor: in 7.x it prints an experimental warning on the first use, on every `eb eval`.
 */
function decoded(raw: Buffer, headers: Record<string, string>, limit: number): Buffer {
  const encoding = headers["content-encoding"]?.trim().toLowerCase();
  const decode =
    encoding === "gzip" || encoding === "x-gzip"
      ? gunzipSync
      : encoding === "deflate"
        ? inflateSync
        : encoding === "br"
          ? brotliDecompressSync
          : null;
  if (decode === null || raw.length === 0) return raw;
  delete headers["content-encoding"];
  delete headers["content-length"];
  try {
    return decode(raw, { maxOutputLength: limit });
  } catch (error) {
    const code = error instanceof RangeError && "code" in error ? error.code : undefined;
    throw code === "ERR_BUFFER_TOO_LARGE" ? tooLarge(limit) : error;
  }
}

function abortError(): Error {
  return new DOMException("This operation was aborted", "AbortError");
}

/**
 * Every error that leaves the transport, as a fresh one: its text (and its cause's) without URL
 * credentials, which the URL parser puts in its own, and its name kept (AbortError).
 */
function scrubbed(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(redactUrl(String(error)));
  const cause = error.cause === undefined ? {} : { cause: scrubbed(error.cause) };
  const Kind = error instanceof EndpointError ? EndpointError : Error;
  const copy = new Kind(redactUrl(error.message), cause);
  copy.name = error.name;
  return copy;
}
