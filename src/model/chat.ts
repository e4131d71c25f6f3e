import { z } from "zod";
import { redactUrl } from "../secrets/redact.js";
import { InterruptedError, interruptible } from "./abort.js";
import type { Cache } from "./cache.js";
import { type ChatRequestIdentity, chatCacheKeys } from "./cache-key.js";
import type { Limiters } from "./limiter.js";
import { AccessRefusedError, REFUSED_STATUSES } from "./refused.js";
import {
  askedWaitMs,
  EndpointError,
  type RetryPolicy,
  StatusError,
  TimeoutError,
  withRetries,
} from "./retry.js";
import { readStoredResult, storedResult } from "./stored-result.js";
import type { Http, HttpAnswer } from "./transport.js";
import type { CaseTarget, ChatResult, Message } from "./types.js";

export interface ChatRequest {
  model: string;
  messages: readonly Message[];
  temperature: number;
  maxTokens?: number;
}

export interface ChatTarget {
  /** Once `signal` aborts, the request is cancelled and this rejects saying it was interrupted. */
  complete(request: ChatRequest, sample: number, signal?: AbortSignal): Promise<ChatResult>;
}

export interface ChatTargetOptions {
  /** e.g. "https://api.openai.com/v1" or "http://127.0.0.1:8000/v1" */
  baseURL: string;
  /** null: the endpoint needs none (a local one), and no Authorization header is sent. */
  apiKey: string | null;
  /** Per attempt, including reading the body. */
  timeoutMs?: number;
  /** Retries of 408/409/429/5xx and connection errors, with backoff or as Retry-After says. */
  maxRetries?: number;
  /** The longest single wait before a retry, whatever Retry-After asks. */
  maxRetryWaitMs?: number;
  /** The largest answer body read (decompressed); a larger one is an error, not cached. */
  maxResponseBytes?: number;
  cache: Cache | null;
  /** Calls in flight per model (see limiter.ts); none: as many as the callers make. */
  limiters?: Limiters;
  /** How one attempt goes out and its answer is read; none: chat completions, as below. */
  wire?: Wire;
}

/** Another API's request and answer (see providers/); the cache, retries and limits stay these. */
export interface Wire {
  /** One attempt; what may be retried rejects as retry.ts's errors (a StatusError, ...). */
  send(request: ChatRequest, signal: AbortSignal | undefined): Promise<unknown>;
  /** The answer as a result; throws saying what is wrong with it. */
  read(answer: unknown, requestedModel: string): Omit<ChatResult, "ms" | "cached">;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_RETRIES = 4;
const DEFAULT_MAX_RETRY_WAIT_MS = 30_000;

/**
 * An OpenAI-compatible chat-completions endpoint, cached on the exact request + sample index.
 * The request and the reading of its answer are the OpenAI client's (the same URL, headers, JSON
 * and error texts), over eb's own transport: the client, and the WHATWG Headers it builds on,
 * cost a 1-case `eb eval` a third of its time, for a JSON POST.
 */
export function createChatTarget(options: ChatTargetOptions): ChatTarget {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retries: RetryPolicy = {
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    maxWaitMs: options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS,
  };
  // Loaded at the first call: a run answered from the cache never needs undici.
  let transport: Promise<Http> | undefined;
  const http = () => {
    transport ??= import("./transport.js").then((t) =>
      t.createHttp({ maxBodyBytes: options.maxResponseBytes }),
    );
    return transport;
  };
  const url = `${options.baseURL}${options.baseURL.endsWith("/") ? "" : "/"}chat/completions`;
  const headers = requestHeaders(options.apiKey);
  const describe = (model: string) => `model "${model}" at ${redactUrl(options.baseURL)}`;
  const call = async (request: ChatRequest, signal?: AbortSignal): Promise<ChatResult> => {
    const started = performance.now();
    const body = JSON.stringify(chatBody(request));
    const limiter = options.limiters?.of(options.baseURL, request.model);
    const post = async (own: AbortSignal | undefined) => {
      if (options.wire) return options.wire.send(request, own);
      const answer = await (await http())({
        method: "POST",
        url,
        headers,
        body,
        signal: own,
        timeoutMs,
      });
      return answerBody(answer);
    };
    // Each attempt takes a slot of its own: a call waiting to retry holds none.
    const attempt = (own: AbortSignal | undefined) => () =>
      limiter === undefined ? post(own) : limiter.run(own, () => post(own));
    let answer: unknown;
    try {
      answer = await interruptible(signal, (own) => withRetries(retries, own, attempt(own)));
    } catch (error) {
      const text = `${callErrorText(error, retries.maxRetries + 1)}${waitNote(error, retries)}`;
      throw failure(`${describe(request.model)}: ${text}`, options, refusedStatus(error));
    }
    const ms = Math.round(performance.now() - started);
    try {
      const read = options.wire?.read ?? interpretCompletion;
      return { ...read(answer, request.model), ms, cached: false };
    } catch (error) {
      throw failure(`${describe(request.model)}: ${errorText(error)}`, options);
    }
  };
  return {
    async complete(request, sample, signal) {
      const cache = options.cache;
      if (cache === null) return call(request, signal);
      const key = answerKey(options.baseURL, request, sample);
      const hit = readStoredResult(await cache.get(key));
      if (hit) return hit;
      const result = await call(request, signal);
      await cache.set(key, storedResult(result));
      return result;
    },
  };
}

/** A local endpoint that needs no key (null) is sent no Authorization header. */
function requestHeaders(apiKey: string | null): Record<string, string> {
  return {
    accept: "application/json",
    "content-type": "application/json",
    "user-agent": "eval-banana",
    ...(apiKey === null ? {} : { authorization: `Bearer ${apiKey}` }),
  };
}

/**
 * The answer's body as the OpenAI client reads it: JSON when it says it is JSON (undefined when
 * empty), else its text; a status outside 2xx is a StatusError with the API's error message.
 */
function answerBody(answer: HttpAnswer): unknown {
  const text = textOf(answer.body);
  if (answer.status < 200 || answer.status > 299) throw statusError(answer, text);
  if (answer.status === 204) return null;
  const type = answer.headers["content-type"]?.split(";")[0]?.trim() ?? "";
  if (!type.includes("application/json") && !type.endsWith("+json")) return text;
  if (answer.headers["content-length"] === "0") return undefined;
  return JSON.parse(text);
}

/** UTF-8, a leading BOM dropped (as fetch's Response reads it). */
export function textOf(body: Buffer): string {
  const text = body.toString("utf8");
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** "503 overloaded": the status and what the API says went wrong, as the OpenAI client words it. */
export function statusError(answer: HttpAnswer, text: string): StatusError {
  const detail = apiErrorText(text) || "status code (no body)";
  return new StatusError(answer.status, answer.headers, `${answer.status} ${detail}`);
}

/** The body's `error.message`, else its `error` as JSON; a body that is not JSON, as it is. */
function apiErrorText(text: string): string {
  const json = jsonOrUndefined(text);
  if (json === undefined) return text;
  const error = field(json, "error");
  if (!error) return "";
  const message = field(error, "message");
  if (!message) return JSON.stringify(error);
  return typeof message === "string" ? message : JSON.stringify(message);
}

function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The body a chat target sends for a request (a batch sends the same, line by line). */
export function chatBody(request: ChatRequest) {
  return {
    model: request.model,
    messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
    temperature: request.temperature,
    ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
  };
}

/** The cache key of a request's answer: the same whether it was called directly or batched. */
export function answerKey(baseURL: string, request: ChatRequest, sample: number): string {
  const of = JSON.stringify([
    baseURL,
    request.model,
    request.temperature,
    request.maxTokens ?? null,
  ]);
  let keys = keysByMessages.get(request.messages);
  if (keys?.of !== of) {
    keys = { of, key: chatCacheKeys(identity(baseURL, request)) };
    keysByMessages.set(request.messages, keys);
  }
  return keys.key(sample);
}

/**
 * The keys of the last request made with each list of messages: a case's samples share its list,
 * and building a key's JSON again for each was most of the key's cost in a cached run.
 */
const keysByMessages = new WeakMap<
  readonly Message[],
  { of: string; key: (sample: number) => string }
>();

/** The answer a chat target would take from the cache for this request, without calling. */
export async function cachedAnswer(
  cache: Cache,
  baseURL: string,
  request: ChatRequest,
  sample: number,
): Promise<ChatResult | null> {
  return readStoredResult(await cache.get(answerKey(baseURL, request, sample)));
}

/** Adapts a chat target to the case runner: one model, one temperature for every case. */
export function chatCaseTarget(
  chat: ChatTarget,
  settings: { model: string; temperature: number; maxTokens?: number },
): CaseTarget {
  return {
    complete: (input, sample, signal) =>
      chat.complete({ ...settings, messages: input.messages }, sample, signal),
  };
}

function identity(baseURL: string, request: ChatRequest): ChatRequestIdentity {
  return {
    baseURL,
    model: request.model,
    messages: request.messages,
    params: { temperature: request.temperature, max_tokens: request.maxTokens },
  };
}

const completionSchema = z.object({
  model: z.string().optional(),
  system_fingerprint: z.string().nullish(),
  usage: z
    .object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() })
    .nullish(),
  choices: z.array(
    z.object({
      message: z.object({ content: z.unknown(), refusal: z.string().nullish() }).nullish(),
    }),
  ),
});

/** A chat-completion body as a result (throws saying what is wrong with it). */
export function interpretCompletion(
  body: unknown,
  requestedModel: string,
): Omit<ChatResult, "ms" | "cached"> {
  if (body === undefined || body === null || body === "") {
    throw new Error("endpoint answered with an empty body");
  }
  if (typeof body === "string") {
    throw new Error(`endpoint answered with a non-JSON body: ${snippet(body)}`);
  }
  const parsed = completionSchema.safeParse(body);
  if (!parsed.success) {
    throw new Error(`endpoint answered with JSON that is not a chat completion: ${snippet(body)}`);
  }
  const { choices, usage, model, system_fingerprint } = parsed.data;
  if (choices.length === 0) throw new Error("endpoint answered with no choices");
  const message = choices[0]?.message;
  if (typeof message?.content !== "string") {
    const refusal = message?.refusal ? ` (refusal: ${snippet(message.refusal)})` : "";
    throw new Error(`endpoint answered with no message content${refusal}`);
  }
  return {
    text: message.content,
    model: model ?? requestedModel,
    usage: { prompt_tokens: usage?.prompt_tokens, completion_tokens: usage?.completion_tokens },
    ...(system_fingerprint ? { systemFingerprint: system_fingerprint } : {}),
  };
}

function callErrorText(error: unknown, attempts: number): string {
  if (error instanceof TimeoutError) {
    const each = attempts > 1 ? ` (each of ${attempts} attempts)` : "";
    return `${error.message}${each}`;
  }
  if (
    error instanceof InterruptedError ||
    (error instanceof Error && error.name === "AbortError")
  ) {
    return "interrupted";
  }
  // What the transport refused says so itself.
  if (error instanceof EndpointError) return error.message;
  if (error instanceof SyntaxError)
    return `endpoint answered with malformed JSON (${error.message})`;
  if (error instanceof StatusError) return `HTTP ${error.message}`;
  return errorText(error);
}

/** When the retries came sooner than the endpoint asked: else the row reads as if eb ignored it. */
function waitNote(error: unknown, retries: RetryPolicy): string {
  const asked = askedWaitMs(error);
  if (retries.maxRetries === 0 || asked === null || asked <= retries.maxWaitMs) return "";
  return (
    ` (the endpoint asked to wait ${Math.round(asked / 1000)}s before retrying; eb waits at ` +
    `most ${retries.maxWaitMs / 1000}s, [eval] max_retry_wait_seconds)`
  );
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return `${error.message}${cause}`;
}

function snippet(value: unknown): string {
  const text = typeof value === "string" ? value : String(JSON.stringify(value));
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

/**
 * A fresh Error (no cause, headers or body attached) whose text cannot carry the key, even when
 * a server echoes the Authorization header back; an AccessRefusedError for a refused key.
 */
function failure(message: string, options: ChatTargetOptions, refused: number | null = null) {
  const key = options.apiKey;
  const text = key !== null && key.length >= 4 ? message.split(key).join("[redacted]") : message;
  return refused === null ? new Error(text) : new AccessRefusedError(text, refused);
}

/** The status of an answer that refused the credentials, else null. */
function refusedStatus(error: unknown): number | null {
  const status = error instanceof StatusError ? error.status : undefined;
  return status !== undefined && REFUSED_STATUSES.includes(status) ? status : null;
}
