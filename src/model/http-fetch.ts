import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { redactUrl } from "../secrets/redact.js";

/** The fetch signature the OpenAI client accepts. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface HttpFetchOptions {
  /** The largest body read, counted once decompressed; a larger one fails the request. */
  maxBodyBytes?: number;
}

/**
 * Something the transport refused (a redirect elsewhere, an answer over the size limit), as
 * opposed to a network that failed: asking again gets the same answer, so it is not retried.
 */
export class EndpointError extends Error {
  override name = "EndpointError";
}

type Body = string | Uint8Array;
type Send = (url: URL, init: RequestInit, body: Body | undefined) => Promise<Response>;

const DEFAULT_MAX_BODY_BYTES = 10_000_000;
/** Same-origin redirects followed in a row; a chain this long is a loop in all but name. */
const MAX_REDIRECTS = 5;

/**
 * A fetch over node:http(s) with keep-alive agents, several times cheaper per call than the
 * global fetch (undici) against a fast local endpoint. It resolves only once the whole body is in:
 * the client's per-attempt timeout stops when fetch resolves, so a server that sends the headers
 * and then stalls stays under that timeout (and its retries). It sends what the OpenAI client
 * sends (a URL, a text or byte body) and nothing else.
 *
 * What leaves it is bounded and clean: bodies are read up to `maxBodyBytes`, redirects are
 * followed only within the origin (see following), and no error text carries URL credentials.
 */
export function createHttpFetch(options: HttpFetchOptions = {}): Fetch {
  // No socket limit: the worker pool already bounds the calls in flight, and a limit below it
  // would queue calls inside the agent, where the client's timeout keeps running.
  const agents = {
    "http:": new http.Agent({ keepAlive: true, scheduling: "lifo" }),
    "https:": new https.Agent({ keepAlive: true, scheduling: "lifo" }),
  };
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const once: Send = (url, init, body) =>
    send(url, init, body, url.protocol === "https:" ? agents["https:"] : agents["http:"], limit);
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
 * would drop the request. Those are refused, saying where the endpoint pointed.
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

function send(
  url: URL,
  init: RequestInit,
  body: Body | undefined,
  agent: http.Agent,
  limit: number,
) {
  const signal = init.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const transport = url.protocol === "https:" ? https : http;
    const options = { method: init.method ?? "GET", headers: headerRecord(init, body), agent };
    let settled = false;
    const settle = (error: Error | null, response?: Response) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else resolve(response as Response);
    };
    const request = transport.request(url, options, (res) =>
      readAll(res, limit, settle, () => request.destroy()),
    );
    const onAbort = () => {
      request.destroy();
      settle(abortError());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    request.on("error", (error) => settle(error));
    request.end(body);
  });
}

/** Reads the body up to `limit` bytes; past it, stops reading and closes the connection. */
function readAll(
  res: IncomingMessage,
  limit: number,
  settle: (error: Error | null, r?: Response) => void,
  stop: () => void,
) {
  const chunks: Buffer[] = [];
  let size = 0;
  res.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size <= limit) return void chunks.push(chunk);
    settle(tooLarge(limit));
    stop();
  });
  res.on("error", (error) => settle(error));
  res.on("close", () => {
    if (!res.complete) settle(new Error("the connection closed before the body was complete"));
  });
  res.on("end", () => {
    try {
      settle(null, toResponse(res, Buffer.concat(chunks), limit));
    } catch (error) {
      settle(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

function tooLarge(limit: number): EndpointError {
  return new EndpointError(
    `the endpoint's answer is larger than ${limit / 1_000_000} MB ([eval] max_response_mb); ` +
      "it was not read further",
  );
}

function headerRecord(init: RequestInit, body: Body | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  // The client passes a Headers already: no need to copy it into another.
  const headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
  headers.forEach((value, name) => {
    record[name] = value;
  });
  if (body !== undefined) record["content-length"] = String(Buffer.byteLength(body));
  return record;
}

function toResponse(res: IncomingMessage, raw: Buffer, limit: number): Response {
  const headers = new Headers();
  const pairs = res.rawHeaders;
  for (let i = 0; i + 1 < pairs.length; i += 2) headers.append(pairs[i]!, pairs[i + 1]!);
  const status = res.statusCode ?? 0;
  // Decoded first: it drops headers that describe the encoded bytes, and Response copies them.
  const bytes = hasNoBody(status) ? null : decoded(raw, headers, limit);
  const response = new Response(null, { status, statusText: res.statusMessage ?? "", headers });
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
 * expand to gigabytes).
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
 * credentials, which Node and the URL parser put in theirs, and its name kept (AbortError).
 */
function scrubbed(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(redactUrl(String(error)));
  const cause = error.cause === undefined ? {} : { cause: scrubbed(error.cause) };
  const Kind = error instanceof EndpointError ? EndpointError : Error;
  const copy = new Kind(redactUrl(error.message), cause);
  copy.name = error.name;
  return copy;
}
