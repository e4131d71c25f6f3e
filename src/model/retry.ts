/**
 * Something the transport refused (a redirect elsewhere, an answer over the size limit), as
 * opposed to a network that failed: asking again gets the same answer, so it is not retried.
 */
export class EndpointError extends Error {
  override name = "EndpointError";
}

/** The endpoint could not be reached, or its answer not read (the cause says how). */
export class ConnectionError extends Error {
  override name = "ConnectionError";
}

/** An attempt ran past its deadline. */
export class TimeoutError extends Error {
  override name = "TimeoutError";

  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs / 1000}s`);
  }
}

/** The endpoint answered with a status outside 2xx; the message starts with the status. */
export class StatusError extends Error {
  override name = "StatusError";

  constructor(
    readonly status: number,
    /** Lower-case names. */
    readonly headers: Readonly<Record<string, string>>,
    message: string,
  ) {
    super(message);
  }
}

export interface RetryPolicy {
  /** Attempts after the first. */
  maxRetries: number;
  /** The longest single wait, whatever the endpoint's Retry-After asks. */
  maxWaitMs: number;
}

/**
 * Runs `attempt` again after a failure that asking again may fix (408, 409, 429, 5xx, a connection
 * that failed or timed out), waiting as long as the endpoint asks but never more than
 * `maxWaitMs`, else with exponential backoff (the OpenAI client's own retries obey any
 * Retry-After, an hour if asked).
 *
 * The deadline of a call follows: each attempt ends within its timeout (the transport resolves
 * only once the body is in, so the timeout covers it), each wait within `maxWaitMs`,
 * hence a call ends within (maxRetries + 1) timeouts plus maxRetries waits.
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
  attempt: () => Promise<T>,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (retry >= policy.maxRetries || !retryable(error)) throw error;
      const wait = askedWaitMs(error) ?? backoffMs(retry);
      // Once the signal aborts, the next attempt fails at once as aborted, without a request.
      await sleep(Math.min(wait, policy.maxWaitMs), signal);
    }
  }
}

function retryable(error: unknown): boolean {
  if (error instanceof ConnectionError || error instanceof TimeoutError) return true;
  if (!(error instanceof StatusError)) return false;
  // A server may say outright (OpenAI's own header); the OpenAI client obeys it, so do we.
  const says = error.headers["x-should-retry"];
  if (says === "true" || says === "false") return says === "true";
  return [408, 409, 429].includes(error.status) || error.status >= 500;
}

/** The endpoint saying "too many requests": a 429, or a 503 that says when to come back. */
export function isRateLimit(error: unknown): boolean {
  if (!(error instanceof StatusError)) return false;
  return error.status === 429 || (error.status === 503 && askedWaitMs(error) !== null);
}

/** How long the endpoint asked to wait (retry-after-ms, else Retry-After: seconds or a date). */
export function askedWaitMs(error: unknown): number | null {
  const headers = error instanceof StatusError ? error.headers : undefined;
  const ms = Number.parseFloat(headers?.["retry-after-ms"] ?? "");
  if (Number.isFinite(ms)) return Math.max(0, ms);
  const after = headers?.["retry-after"];
  if (!after) return null;
  const seconds = Number.parseFloat(after);
  const wait = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - Date.now();
  return Number.isFinite(wait) ? Math.max(0, wait) : null;
}

/** The client's backoff: 0.5 s doubling up to 8 s, less up to a quarter of jitter. */
function backoffMs(retry: number): number {
  return Math.min(500 * 2 ** retry, 8000) * (1 - Math.random() * 0.25);
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
