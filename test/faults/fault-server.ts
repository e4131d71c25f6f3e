import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { completion, lastContent, type SeenRequest } from "../helpers/loopback-server.js";

/**
 * How the server misbehaves on one request. Unlike the loopback helper's replies, these reach
 * below HTTP: a connection cut mid-body, or reset before any byte of the answer.
 */
export type Fault =
  | { kind: "reply"; status?: number; headers?: Record<string, string>; body?: unknown }
  /** Never answers; the connection stays open. */
  | { kind: "hang" }
  /** Sends the headers (with a Content-Length) and half the body, then resets the connection. */
  | { kind: "reset-mid-body" }
  /** Sends the headers and half the body, then nothing more; the connection stays open. */
  | { kind: "stall-mid-body" }
  /** Resets the connection as soon as the request is in. */
  | { kind: "reset" }
  /** Waits, then does what `next` says. */
  | { kind: "delay"; ms: number; next: Fault }
  /** Answers through `respond`: for bodies too large or too odd to spell out as a reply. */
  | { kind: "respond"; respond: (res: ServerResponse) => void };

export type FaultScript = (request: SeenRequest, index: number) => Fault;

export interface FaultServer {
  baseURL: string;
  requests: SeenRequest[];
  script: FaultScript;
  close(): Promise<void>;
}

export function reply(body: unknown, status = 200, headers: Record<string, string> = {}): Fault {
  return { kind: "reply", status, headers, body };
}

/**
 * An HTTP server whose every answer the test decides, faults included; on `port` when given (one
 * that refused a run's connections before), else on any free one.
 */
export async function startFaultServer(script: FaultScript, port = 0): Promise<FaultServer> {
  const sockets = new Set<Socket>();
  const state: FaultServer = {
    baseURL: "",
    requests: [],
    script,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    readRequest(req).then((seen) => {
      state.requests.push(seen);
      act(state.script(seen, state.requests.length - 1), res);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  state.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}

function act(fault: Fault, res: ServerResponse): void {
  switch (fault.kind) {
    case "hang":
      break;
    case "reset":
      res.socket?.resetAndDestroy();
      break;
    case "reset-mid-body":
      halfBody(res, () => setTimeout(() => res.socket?.resetAndDestroy(), 20));
      break;
    case "stall-mid-body":
      halfBody(res, () => {});
      break;
    case "delay":
      setTimeout(() => act(fault.next, res), fault.ms);
      break;
    case "respond":
      fault.respond(res);
      break;
    case "reply": {
      const text = typeof fault.body === "string" ? fault.body : JSON.stringify(fault.body ?? {});
      const headers = { "content-type": "application/json", ...fault.headers };
      res.writeHead(fault.status ?? 200, headers);
      res.end(text);
    }
  }
}

/** Headers promising a whole completion, half of it, then `after` once that half is sent. */
function halfBody(res: ServerResponse, after: () => void): void {
  const body = JSON.stringify({ choices: [{ message: { role: "assistant", content: "x" } }] });
  res.writeHead(200, {
    "content-type": "application/json",
    "content-length": String(body.length),
  });
  // The half reaches the client before whatever comes next (a reset, or nothing).
  res.write(body.slice(0, body.length / 2), after);
}

async function readRequest(req: IncomingMessage): Promise<SeenRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString("utf8");
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, json };
}

/** A small seeded generator (mulberry32), so a "random" fault pattern is the same every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A number in [0, 1) fixed by a text and a seed: the same request gets the same fate. */
export function hashUnit(text: string, seed: number): number {
  let h = 2166136261 ^ seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return seededRandom(h >>> 0)();
}

/**
 * A server answering "echo: <content>" (plus `pad` characters) after `ms`, so that runs overlap
 * on the same calls, and large entries take a while to write.
 */
export function echoAfter(ms: number, pad = 0): Promise<FaultServer> {
  return startFaultServer((request) => ({
    kind: "delay",
    ms,
    next: reply(completion(`echo: ${lastContent(request)}${" ".repeat(pad)}`)),
  }));
}
