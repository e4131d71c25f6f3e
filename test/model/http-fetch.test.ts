import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpFetch } from "../../src/model/http-fetch.js";

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

let closeServer: (() => Promise<void>) | null = null;
afterEach(async () => {
  await closeServer?.();
  closeServer = null;
});

/** A server answering with `handler`; counts the TCP connections it accepted. */
async function serve(handler: Handler) {
  const state = { connections: 0, closed: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handler(req, Buffer.concat(chunks).toString("utf8"), res));
  });
  server.on("connection", (socket) => {
    state.connections++;
    socket.on("close", () => state.closed++);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closeServer = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, state };
}

const post = (body: string, signal?: AbortSignal): RequestInit => ({
  method: "POST",
  headers: new Headers({ "content-type": "application/json", authorization: "Bearer k" }),
  body,
  ...(signal ? { signal } : {}),
});

describe("createHttpFetch", () => {
  it("posts the body and headers, answers with status, headers and JSON, on one connection", async () => {
    const { url, state } = await serve((req, body, res) => {
      res.writeHead(201, { "content-type": "application/json", "x-request-id": "r1" });
      res.end(JSON.stringify({ method: req.method, auth: req.headers.authorization, body }));
    });
    const fetch = createHttpFetch();
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${url}/v1/x`, post(`{"i":${i}}`));
      expect(response.status).toBe(201);
      expect(response.ok).toBe(true);
      expect(response.headers.get("x-request-id")).toBe("r1");
      expect(await response.json()).toEqual({
        method: "POST",
        auth: "Bearer k",
        body: `{"i":${i}}`,
      });
    }
    expect(state.connections).toBe(1);
  });

  it("reads a body again, as text, bytes or a blob", async () => {
    const { url } = await serve((_req, _body, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("\ufeffhéllo");
    });
    const response = await createHttpFetch()(url, post(""));
    expect(await response.text()).toBe("héllo");
    expect(await response.text()).toBe("héllo");
    expect(Buffer.from(await response.arrayBuffer()).toString("utf8")).toBe("\ufeffhéllo");
    expect((await response.blob()).type).toBe("text/plain");
  });

  it("decodes a gzipped body even though none was asked for", async () => {
    const { url } = await serve((req, _body, res) => {
      expect(req.headers["accept-encoding"]).toBeUndefined();
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync('{"ok":true}'));
    });
    const response = await createHttpFetch()(url, post(""));
    expect(response.headers.has("content-encoding")).toBe(false);
    expect(await response.json()).toEqual({ ok: true });
  });

  it("answers 204 with no body", async () => {
    const { url } = await serve((_req, _body, res) => {
      res.writeHead(204);
      res.end();
    });
    const response = await createHttpFetch()(url, post(""));
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it("follows a redirect with the request intact", async () => {
    const { url } = await serve((req, body, res) => {
      if (req.url === "/old") {
        res.writeHead(307, { location: "/new" });
        res.end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ url: req.url, body }));
    });
    const response = await createHttpFetch()(`${url}/old`, post('{"a":1}'));
    expect(await response.json()).toEqual({ url: "/new", body: '{"a":1}' });
  });

  it("fails when the connection closes before the body is complete", async () => {
    const { url } = await serve((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"partial":');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    await expect(createHttpFetch()(url, post(""))).rejects.toThrow();
  });

  it("on abort while the body stalls, rejects with an AbortError and closes the socket", async () => {
    const { url, state } = await serve((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"choices": [');
    });
    const controller = new AbortController();
    const pending = createHttpFetch()(url, post("", controller.signal));
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    const end = performance.now() + 500;
    while (state.closed === 0 && performance.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(state.closed).toBe(1);
  });
});
