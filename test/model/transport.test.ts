import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { EndpointError } from "../../src/model/retry.js";
import { createHttpFetch } from "../../src/model/transport.js";

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
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
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  closers.push(close);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, state, close };
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
    await until(() => state.closed > 0 && state.closed === state.connections, 500);
    // undici 7 opens a spare connection after an abort and closes it at once (nodejs/undici#5845):
    // the request's socket closes, and none stays open.
    expect(state.closed).toBeGreaterThan(0);
    expect(state.closed).toBe(state.connections);
  });

  it("on abort before the request is on a socket, rejects at once and sends nothing", async () => {
    let requests = 0;
    const { url } = await serve((_req, _body, res) => {
      requests++;
      res.end("{}");
    });
    const controller = new AbortController();
    const pending = createHttpFetch()(url, post("", controller.signal));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(requests).toBe(0);
  });

  it("stops reading a body past maxBodyBytes and closes the connection", async () => {
    let written = 0;
    const { url, state } = await serve((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(64 * 1024, "a");
      const more = () => {
        while (!res.destroyed && written < 1000) {
          written++;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
        res.end();
      };
      more();
    });
    const pending = createHttpFetch({ maxBodyBytes: 100_000 })(url, post(""));
    await expect(pending).rejects.toThrow(/answer is larger than 0.1 MB/);
    await expect(pending).rejects.toBeInstanceOf(EndpointError);
    await until(() => state.closed === 1);
    expect(written).toBeLessThan(100);
  });

  it("reads a body of exactly maxBodyBytes, and caps a compressed one once decoded", async () => {
    const { url } = await serve((req, _body, res) => {
      const gzip = req.url?.startsWith("/gz");
      const body = Buffer.alloc(Number(req.url?.replace(/\D/g, "")), "a");
      res.writeHead(200, gzip ? { "content-encoding": "gzip" } : {});
      res.end(gzip ? gzipSync(body) : body);
    });
    const fetch = createHttpFetch({ maxBodyBytes: 1000 });
    expect((await (await fetch(`${url}/1000`, post(""))).text()).length).toBe(1000);
    expect((await (await fetch(`${url}/gz1000`, post(""))).text()).length).toBe(1000);
    await expect(fetch(`${url}/1001`, post(""))).rejects.toThrow(/larger than 0.001 MB/);
    await expect(fetch(`${url}/gz1001`, post(""))).rejects.toThrow(/larger than 0.001 MB/);
  });

  it("decodes deflate and br as it does gzip, capped once decoded", async () => {
    const encoders = { deflate: deflateSync, br: brotliCompressSync };
    const { url } = await serve((req, _body, res) => {
      const [encoding, size] = (req.url ?? "").slice(1).split("/") as ["deflate" | "br", string];
      res.writeHead(200, { "content-encoding": encoding });
      res.end(encoders[encoding](Buffer.alloc(Number(size), "a")));
    });
    const fetch = createHttpFetch({ maxBodyBytes: 1000 });
    for (const encoding of ["deflate", "br"]) {
      expect((await (await fetch(`${url}/${encoding}/1000`, post(""))).text()).length).toBe(1000);
      await expect(fetch(`${url}/${encoding}/1001`, post(""))).rejects.toThrow(/0.001 MB/);
    }
  });

  it("sends a URL's credentials as Basic auth when no Authorization is sent, else not", async () => {
    const { url } = await serve((req, _body, res) => res.end(req.headers.authorization ?? "none"));
    const fetch = createHttpFetch();
    const withUser = url.replace("//", "//us%40er:p%3Ass@");
    const basic = `Basic ${Buffer.from("us@er:p:ss").toString("base64")}`;
    expect(await (await fetch(withUser, { method: "POST", body: "" })).text()).toBe(basic);
    expect(await (await fetch(withUser, post(""))).text()).toBe("Bearer k");
    expect(await (await fetch(url, { method: "POST", body: "" })).text()).toBe("none");
  });

  it("refuses a redirect to another origin without sending anything there", async () => {
    const other = await serve((_req, _body, res) => res.end("{}"));
    const { url } = await serve((_req, _body, res) => {
      res.writeHead(307, { location: `${other.url}/v1/x` });
      res.end();
    });
    await expect(createHttpFetch()(`${url}/v1/x`, post("{}"))).rejects.toThrow(
      `the endpoint redirected to another origin (${other.url}/v1/x); set --api-base to the final URL`,
    );
    expect(other.state.connections).toBe(0);
  });

  it("refuses a redirect that would turn the POST into a GET, and follows a GET's", async () => {
    const { url } = await serve((req, _body, res) => {
      const status = Number(req.url?.slice(1));
      if (status) res.writeHead(status, { location: "/final" });
      res.end(JSON.stringify({ method: req.method, url: req.url }));
    });
    const fetch = createHttpFetch();
    for (const status of [301, 302, 303]) {
      await expect(fetch(`${url}/${status}`, post("{}")), String(status)).rejects.toThrow(
        `the endpoint answered ${status}, which would resend the POST as a GET without its body`,
      );
      const get = await fetch(`${url}/${status}`, { method: "GET" });
      expect(await get.json()).toEqual({ method: "GET", url: "/final" });
    }
    const put = await fetch(`${url}/308`, { method: "PUT", body: "x" });
    expect(await put.json()).toEqual({ method: "PUT", url: "/final" });
  });

  it("names a redirect loop, or a chain too long to be anything else, in one line", async () => {
    const { url } = await serve((req, _body, res) => {
      const next = req.url === "/a" ? "/b" : req.url === "/b" ? "/a" : `${req.url}x`;
      res.writeHead(307, { location: next });
      res.end();
    });
    const fetch = createHttpFetch();
    await expect(fetch(`${url}/a`, post(""))).rejects.toThrow(
      `the endpoint redirects in a loop (${url}/a -> ${url}/b -> ${url}/a)`,
    );
    await expect(fetch(`${url}/c`, post(""))).rejects.toThrow(
      `the endpoint redirected more than 5 times in a row (last to ${url}/cxxxxxx)`,
    );
  });

  it("lets no URL credentials out in an error, its own or Node's", async () => {
    const other = await serve((_req, _body, res) => res.end("{}"));
    const { url } = await serve((_req, _body, res) => {
      res.writeHead(307, { location: other.url.replace("//", "//u:LOCATIONPW@") });
      res.end();
    });
    const closed = await serve(() => {});
    await closed.close();
    const withPassword = (base: string) => base.replace("//", "//user:URLPW@");
    const fetch = createHttpFetch();
    const errors = await Promise.all(
      [withPassword(url), withPassword(closed.url), "http://user:URLPW@bad host/"].map((u) =>
        fetch(u, post("")).then(
          () => new Error("answered"),
          (e: Error) => e,
        ),
      ),
    );
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringContaining("another origin (http://[redacted]@127.0.0.1:"),
      expect.stringMatching(/ECONNREFUSED/),
      expect.stringMatching(/Invalid URL/),
    ]);
    for (const error of errors) {
      expect(`${error.message} ${String(error.cause)} ${error.stack}`).not.toMatch(
        /URLPW|LOCATIONPW/,
      );
    }
  });

  it("takes what the OpenAI client sends, and says so for anything else", async () => {
    const fetch = createHttpFetch();
    await expect(fetch(new Request("http://127.0.0.1:1/"))).rejects.toThrow(/not a Request/);
    await expect(fetch("file:///etc/passwd")).rejects.toThrow(/http and https, not file:/);
    const stream = { method: "POST", body: new Blob(["x"]) };
    await expect(fetch("http://127.0.0.1:1/", stream)).rejects.toThrow(/text or byte body/);
  });
});

async function until(condition: () => boolean, ms = 1000): Promise<void> {
  const end = performance.now() + ms;
  while (!condition() && performance.now() < end) await new Promise((r) => setTimeout(r, 5));
}
