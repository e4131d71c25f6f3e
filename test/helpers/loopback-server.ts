import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

/** A request as the server received it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
}

/**
 * What to answer: a status/headers/body, "hang" (never answer), or "stall" (send the headers
 * and part of a body, then nothing more). An object body is sent as JSON; a `stream` body is
 * sent as it is made, for bodies too large to hold.
 */
export type Reply =
  | { status?: number; headers?: Record<string, string>; body?: unknown }
  | { status?: number; headers?: Record<string, string>; stream: () => Iterable<Uint8Array> }
  | "hang"
  | "stall";

export type Script = (request: SeenRequest, index: number) => Reply;

export interface LoopbackServer {
  /** Base URL of the OpenAI-compatible API, e.g. http://127.0.0.1:PORT/v1 */
  baseURL: string;
  requests: SeenRequest[];
  /** TCP connections accepted (keep-alive reuses one). */
  connections: number;
  /** Replies used, in order, before the script is asked. */
  queue: Reply[];
  script: Script;
  close(): Promise<void>;
}

/** A chat-completions body whose message content is `text`. */
export function completion(text: string | null, model = "echo-model-2026"): object {
  return {
    id: "chatcmpl-test",
    object: "chat.completion",
    model,
    system_fingerprint: "fp_test",
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
  };
}

/** Answers "echo: <last message content>", so outputs are deterministic. */
export const echo: Script = (request) => ({ body: completion(`echo: ${lastContent(request)}`) });

export function lastContent(request: SeenRequest): string {
  const body = request.json as { messages?: { content?: unknown }[] } | undefined;
  return String(body?.messages?.at(-1)?.content ?? "");
}

export async function startLoopbackServer(script: Script = echo): Promise<LoopbackServer> {
  const state: LoopbackServer = {
    baseURL: "",
    requests: [],
    connections: 0,
    queue: [],
    script,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const seen = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body,
        json: tryJson(body),
      };
      state.requests.push(seen);
      const reply = state.queue.shift() ?? state.script(seen, state.requests.length - 1);
      if (reply === "hang") return;
      if (reply === "stall") {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"choices": [');
        return;
      }
      res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
      if ("stream" in reply) return void Readable.from(reply.stream()).pipe(res);
      res.end(typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body ?? {}));
    });
  });
  server.on("connection", () => state.connections++);
  const close = state.close;
  state.close = () => {
    // Hanging responses would keep close() waiting forever.
    server.closeAllConnections();
    return close();
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
