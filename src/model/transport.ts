/// <reference path="./undici-agent.d.ts" />
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import type { Dispatcher } from "undici";
// The pool alone, not undici's index, which loads its fetch, WebSocket, caches and mocks too
// (110 modules, not 25), paid by every `eb eval` as it starts. The version is pinned exactly.
import Agent from "undici/lib/dispatcher/agent.js";
import { redactUrl } from "../secrets/redact.js";
import { EndpointError } from "./retry.js";

/** The fetch signature the OpenAI client accepts. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface HttpFetchOptions {
  /** The largest body read, counted once decompressed; a larger one fails the request. */
  maxBodyBytes?: number;
}

type Body = string | Uint8Array;
type Send = (url: URL, init: RequestInit, body: Body | undefined) => Promise<Response>;

const DEFAULT_MAX_BODY_BYTES = 10_000_000;
/** Same-origin redirects followed in a row; a chain this long is a loop in all but name. */
const MAX_REDIRECTS = 5;

/**
 * The OpenAI client's fetch, over an undici pool (keep-alive) and its dispatch API, without the
 * cost per call of a WHATWG fetch (undici's own, the global one, is several times slower against a
 * fast local endpoint). It resolves only once the whole body is in: the client's per-attempt timeout
 * stops when fetch resolves, so a server that sends the headers and then stalls stays under that
 * timeout (and its retries). It sends what the OpenAI client sends (a URL, a text or byte body).
 *
 * What leaves it is bounded and clean: bodies are read up to `maxBodyBytes`, redirects are
 * followed only within the origin (see following), and no error text carries URL credentials.
 */
export function createHttpFetch(options: HttpFetchOptions = {}): Fetch {
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const agent = new Agent({
    // Bytes on the wire: past them undici stops reading and closes the connection. A compressed
    // body is capped again once decoded (see decoded).
    maxResponseSize: limit,
    // The client's per-attempt timeout is the deadline; undici's own would cut a slow model's
    // answer at 300 s, as a network error, retried. (Connecting still gives up after 10 s.)
    headersTimeout: 0,
    bodyTimeout: 0,
    // No connection limit (undici's default too): the worker pool already bounds the calls in
    // flight, and a limit below it would queue calls in the pool, where the timeout keeps running.
  });
  const once: Send = (url, init, body) => send(agent, url, init, body, limit);
  return async (input, init = {}) => {
    try {
      return await following(urlOf(input), init, sendable(init.body), once);
    } catch (error) {
      throw scrubbed(error);
    }
  };
}

function urlOf(input: string | URL | Request): URL {
  if (input instanceof Request) throw new TypeError("this fetch takes a URL, not a Request");
  const url = new URL(input);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`this fetch speaks http and https, not ${url.protocol}`);
  }
  return url;
}

function sendable(body: RequestInit["body"]): Body | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError("this fetch sends a text or byte body only");
}

/**
 * Follows a redirect only when it re-sends the same request to the same origin (a path moved, a
 * slash added). Anywhere else the prompt and the key would go to a server the user never named,
 * and its answer be cached under the URL they did; a redirect that turns the POST into a GET
 * would drop the request. Those are refused, saying where the endpoint pointed. (undici's redirect
 * interceptor does what fetch does: it follows both.)
 */
async function following(
  start: URL,
  init: RequestInit,
  body: Body | undefined,
  once: Send,
): Promise<Response> {
  const method = (init.method ?? "GET").toUpperCase();
  const visited = [start];
  for (;;) {
    const response = await once(visited.at(-1) as URL, init, body);
    const location = redirectLocation(response);
    if (location === null) return response;
    visited.push(nextHop(visited, location, response.status, method));
  }
}

function redirectLocation(response: Response): string | null {
  const redirect = [301, 302, 303, 307, 308].includes(response.status);
  return redirect ? response.headers.get("location") : null;
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

/** One request, answered as a Response once its whole body is in. */
async function send(
  agent: Agent,
  url: URL,
  init: RequestInit,
  body: Body | undefined,
  limit: number,
): Promise<Response> {
  const request = {
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: init.method ?? "GET",
    headers: headersOf(init, url),
    body,
  };
  try {
    return toResponse(await exchange(agent, request, init.signal ?? undefined), limit);
  } catch (error) {
    const code = error instanceof Error && "code" in error ? error.code : undefined;
    throw code === "UND_ERR_RES_EXCEEDED_MAX_SIZE" ? tooLarge(limit) : error;
  }
}

interface Answer {
  status: number;
  statusText: string;
  headers: Dispatcher.ResponseData["headers"];
  body: Buffer;
}

/**
 * Dispatches a request and collects its answer. It rejects at once when `signal` aborts, even
 * before the request is on a socket (undici 7 would wait for the connection to abort it).
 */
function exchange(
  agent: Agent,
  request: Dispatcher.DispatchOptions,
  signal: AbortSignal | undefined,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    let onSocket: Dispatcher.DispatchController | null = null;
    const onAbort = () => {
      onSocket?.abort(abortError());
      reject(abortError());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const settle = () => signal?.removeEventListener("abort", onAbort);
    const chunks: Buffer[] = [];
    let head: Omit<Answer, "body"> = { status: 0, statusText: "", headers: {} };
    agent.dispatch(request, {
      onRequestStart(controller) {
        if (signal?.aborted) controller.abort(abortError());
        onSocket = controller;
      },
      onResponseStart(_controller, status, headers, statusText = "") {
        head = { status, statusText, headers };
      },
      onResponseData(_controller, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        settle();
        // undici frees the connection on the turn after this one (a setImmediate it queues once
        // this returns): resolving after it lets the next call reuse it rather than open another.
        const answer = { ...head, body: Buffer.concat(chunks) };
        queueMicrotask(() => setImmediate(() => resolve(answer)));
      },
      onResponseError(_controller, error) {
        settle();
        reject(error);
      },
    });
  });
}

function tooLarge(limit: number): EndpointError {
  return new EndpointError(
    `the endpoint's answer is larger than ${limit / 1_000_000} MB ([eval] max_response_mb); ` +
      "it was not read further",
  );
}

/** The request's headers; a URL's credentials sent as Basic auth when no key is, as node:http did. */
function headersOf(init: RequestInit, url: URL): Headers {
  // The client passes a Headers already: no need to copy it into another.
  const headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
  if (url.username === "" || headers.has("authorization")) return headers;
  const userinfo = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  const basic = new Headers(headers);
  basic.set("authorization", `Basic ${Buffer.from(userinfo).toString("base64")}`);
  return basic;
}

function toResponse(answer: Answer, limit: number): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    for (const one of Array.isArray(value) ? value : [value ?? ""]) headers.append(name, one);
  }
  const { status, statusText } = answer;
  // Decoded first: it drops headers that describe the encoded bytes, and Response copies them.
  const bytes = hasNoBody(status) ? null : decoded(answer.body, headers, limit);
  const response = new Response(null, { status, statusText, headers });
  return bytes === null ? response : withBody(response, bytes);
}

/**
 * Gives a body-less Response readers over bytes already read. A Response built with a body wraps
 * the bytes in a web ReadableStream, which costs more per call than the rest of this fetch put
 * together. The readers decode as Response's do (UTF-8, a leading BOM dropped), and unlike
 * Response's may be called more than once.
 */
function withBody(response: Response, bytes: Buffer): Response {
  const text = () => {
    const decoded = bytes.toString("utf8");
    return decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  };
  const copy = (): ArrayBuffer => new Uint8Array(bytes).buffer;
  const type = response.headers.get("content-type") ?? "";
  return Object.defineProperties(response, {
    text: { value: async () => text() },
    json: { value: async (): Promise<unknown> => JSON.parse(text()) },
    arrayBuffer: { value: async () => copy() },
    blob: { value: async () => new Blob([copy()], { type }) },
  });
}

/**
 * No Accept-Encoding is sent, so bodies should come plain; one that is compressed anyway is
 * decoded as the global fetch would, stopping at `limit` bytes of output (a few MB of gzip can
 * expand to gigabytes). Not undici's decompress interceptor: in 7.x it prints an experimental
 * warning on the first use, on every `eb eval`.
 */
function decoded(raw: Buffer, headers: Headers, limit: number): Buffer {
  const encoding = headers.get("content-encoding")?.trim().toLowerCase();
  const decode =
    encoding === "gzip" || encoding === "x-gzip"
      ? gunzipSync
      : encoding === "deflate"
        ? inflateSync
        : encoding === "br"
          ? brotliDecompressSync
          : null;
  if (decode === null || raw.length === 0) return raw;
  headers.delete("content-encoding");
  headers.delete("content-length");
  try {
    return decode(raw, { maxOutputLength: limit });
  } catch (error) {
    const code = error instanceof RangeError && "code" in error ? error.code : undefined;
    throw code === "ERR_BUFFER_TOO_LARGE" ? tooLarge(limit) : error;
  }
}

function hasNoBody(status: number): boolean {
  return status === 204 || status === 205 || status === 304;
}

/** Named AbortError: the client tells a timeout or an interrupt from other failures by that. */
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
