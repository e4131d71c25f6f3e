import { statusError, textOf } from "../chat.js";
import { EndpointError } from "../retry.js";
import { createHttp } from "../transport.js";
import { TransportFailure } from "./failure.js";

/** The `fetch` both clients accept. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * A `fetch` over eb's own transport: redirects only within the origin, the body capped once
 * decoded, no credentials in an error's text. An answer outside 2xx fails it as a StatusError
 * with the API's message and headers, so that eb's retries, not the client's, decide.
 */
export function transportFetch(options: {
  timeoutMs: number;
  maxResponseBytes: number | undefined;
}): Fetch {
  const http = createHttp({ maxBodyBytes: options.maxResponseBytes });
  return async (input, init) => {
    let answer: Awaited<ReturnType<typeof http>>;
    try {
      answer = await http({
        method: init?.method ?? "GET",
        url: input instanceof Request ? input.url : String(input),
        headers: Object.fromEntries(new Headers(init?.headers).entries()),
        body: bodyText(init?.body),
        signal: init?.signal ?? undefined,
        timeoutMs: options.timeoutMs,
      });
    } catch (error) {
      throw new TransportFailure(error);
    }
    if (answer.status < 200 || answer.status > 299) {
      throw new TransportFailure(statusError(answer, textOf(answer.body)));
    }
    const body = answer.body.length === 0 ? null : new Uint8Array(answer.body);
    return new Response(body, { status: answer.status, headers: answer.headers });
  };
}

/** Both clients send JSON as a string; anything else is not a request eb makes. */
function bodyText(body: RequestInit["body"]): string | undefined {
  if (body === undefined || body === null || typeof body === "string") return body ?? undefined;
  throw new TransportFailure(new EndpointError("eb's transport sends only text bodies"));
}
