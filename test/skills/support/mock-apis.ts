import { execFile } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { SKILLS_DIR } from "./markdown.js";

/** One request as the mock received it. */
export interface Seen {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  json?: unknown;
}

/** Fail the next `times` requests of a route with `status` (and `Retry-After`, if given). */
export interface Fault {
  route: string;
  status: number;
  times: number;
  retryAfter?: string;
  json?: unknown;
}

export interface Mock {
  url: string;
  seen: Seen[];
  /** The requests of one route, as `route()` names them. */
  of(route: string): Seen[];
  close(): Promise<void>;
}

/** A loopback HTTP server (127.0.0.1, a free port) answering with `handle`. */
async function serve(
  route: (seen: Seen) => string,
  handle: (seen: Seen, base: string) => Reply,
  faults: Fault[],
): Promise<Mock> {
  const seen: Seen[] = [];
  const left = faults.map((fault) => ({ ...fault }));
  let base = "";
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request: Seen = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      seen.push(request);
      const fault = left.find((f) => f.route === route(request) && f.times > 0);
      let reply: Reply;
      if (fault) {
        fault.times--;
        reply = {
          status: fault.status,
          headers: fault.retryAfter === undefined ? {} : { "Retry-After": fault.retryAfter },
          json: fault.json ?? { error: { code: fault.status, message: "injected fault" } },
        };
      } else {
        try {
          reply = handle(request, base);
        } catch (error) {
          reply = { status: 500, json: { error: { message: String(error) } } };
        }
      }
      const body = reply.json === undefined ? "" : JSON.stringify(reply.json);
      res.writeHead(reply.status, { "Content-Type": "application/json", ...reply.headers });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    seen,
    of: (name) => seen.filter((request) => route(request) === name),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// --- Gemini ----------------------------------------------------------------------------------

export interface GeminiOptions {
  /** The key the mock accepts; any other gets `badKey` (default: 400 API_KEY_INVALID). */
  key: string;
  badKey?: Reply;
  /** files.get answers PROCESSING this many times before ACTIVE (the upload answers PROCESSING if > 0). */
  processingPolls?: number;
  /** The generateContent answer (default: a text part). */
  answer?: (request: Record<string, unknown>) => Reply;
  faults?: Fault[];
}

interface Session {
  size: number;
  mime: string;
  name: string;
  bytes: Buffer;
}

export interface GeminiMock extends Mock {
  /** Bytes received per uploaded file name (`files/<id>`). */
  uploads: Map<string, { mime: string; bytes: Buffer; displayName: string }>;
}

/**
 * The Gemini endpoints the helpers use, as the docs describe them: the resumable upload
 * (start, upload, upload+finalize, query), files.get, files.delete, models.generateContent.
 */
export async function startGemini(options: GeminiOptions): Promise<GeminiMock> {
  const sessions = new Map<string, Session>();
  const uploads: GeminiMock["uploads"] = new Map();
  const polls = new Map<string, number>();
  let next = 0;
  const route = (seen: Seen): string => {
    const url = new URL(seen.url, "http://mock");
    if (url.pathname === "/upload/v1beta/files" && url.searchParams.has("upload_id")) {
      const command = String(seen.headers["x-goog-upload-command"] ?? "");
      return command === "query" ? "query" : "chunk";
    }
    if (url.pathname === "/upload/v1beta/files") return "start";
    if (/^\/v1beta\/models\/[^/]+:generateContent$/.test(url.pathname)) return "generate";
    if (url.pathname.startsWith("/v1beta/files/"))
      return seen.method === "DELETE" ? "delete" : "get";
    return "unknown";
  };
  const fileJson = (name: string, state: string, base: string) => ({
    name,
    displayName: uploads.get(name)?.displayName,
    mimeType: uploads.get(name)?.mime,
    sizeBytes: String(uploads.get(name)?.bytes.length ?? 0),
    uri: `${base}/v1beta/${name}`,
    state,
  });
  const handle = (seen: Seen, base: string): Reply => {
    const which = route(seen);
    const isSession = which === "chunk" || which === "query";
    if (!isSession && seen.headers["x-goog-api-key"] !== options.key) {
      return (
        options.badKey ?? {
          status: 400,
          json: {
            error: {
              code: 400,
              message: "API key not valid. Please pass a valid API key.",
              status: "INVALID_ARGUMENT",
              details: [{ reason: "API_KEY_INVALID" }],
            },
          },
        }
      );
    }
    const url = new URL(seen.url, "http://mock");
    switch (which) {
      case "start": {
        if (seen.headers["x-goog-upload-protocol"] !== "resumable") return { status: 400 };
        if (seen.headers["x-goog-upload-command"] !== "start") return { status: 400 };
        const id = `f${++next}`;
        const meta = JSON.parse(seen.body.toString()) as { file: { display_name: string } };
        sessions.set(id, {
          size: Number(seen.headers["x-goog-upload-header-content-length"]),
          mime: String(seen.headers["x-goog-upload-header-content-type"]),
          name: `files/${id}`,
          bytes: Buffer.alloc(0),
        });
        uploads.set(`files/${id}`, {
          mime: String(seen.headers["x-goog-upload-header-content-type"]),
          bytes: Buffer.alloc(0),
          displayName: meta.file.display_name,
        });
        return {
          status: 200,
          headers: {
            "X-Goog-Upload-URL": `${base}/upload/v1beta/files?upload_id=${id}&upload_protocol=resumable`,
            "X-Goog-Upload-Status": "active",
          },
        };
      }
      case "query": {
        const session = sessions.get(url.searchParams.get("upload_id") ?? "");
        if (!session) return { status: 404 };
        return {
          status: 200,
          headers: {
            "X-Goog-Upload-Status": "active",
            "X-Goog-Upload-Size-Received": String(session.bytes.length),
          },
        };
      }
      case "chunk": {
        const session = sessions.get(url.searchParams.get("upload_id") ?? "");
        if (!session) return { status: 404 };
        const offset = Number(seen.headers["x-goog-upload-offset"]);
        if (offset !== session.bytes.length)
          return { status: 400, json: { error: { message: "bad offset" } } };
        session.bytes = Buffer.concat([session.bytes, seen.body]);
        const upload = uploads.get(session.name)!;
        upload.bytes = session.bytes;
        const command = String(seen.headers["x-goog-upload-command"]);
        if (command === "upload")
          return { status: 200, headers: { "X-Goog-Upload-Status": "active" } };
        if (command !== "upload, finalize" || session.bytes.length !== session.size) {
          return { status: 400, json: { error: { message: `bad finalize (${command})` } } };
        }
        const processing = (options.processingPolls ?? 0) > 0;
        polls.set(session.name, options.processingPolls ?? 0);
        return {
          status: 200,
          headers: { "X-Goog-Upload-Status": "final" },
          json: { file: fileJson(session.name, processing ? "PROCESSING" : "ACTIVE", base) },
        };
      }
      case "get": {
        const name = url.pathname.replace("/v1beta/", "");
        const left = polls.get(name) ?? 0;
        polls.set(name, left - 1);
        return { status: 200, json: fileJson(name, left > 1 ? "PROCESSING" : "ACTIVE", base) };
      }
      case "delete":
        return { status: 200, json: {} };
      case "generate": {
        const request = JSON.parse(seen.body.toString()) as Record<string, unknown>;
        return (
          options.answer?.(request) ?? {
            status: 200,
            json: {
              candidates: [
                { content: { parts: [{ text: "A yellow banana." }] }, finishReason: "STOP" },
              ],
            },
          }
        );
      }
      default:
        return {
          status: 404,
          json: { error: { message: `no route for ${seen.method} ${seen.url}` } },
        };
    }
  };
  const mock = await serve(route, handle, options.faults ?? []);
  return { ...mock, uploads };
}

/** A generateContent answer whose text is `text`. */
export function geminiText(text: string): Reply {
  return {
    status: 200,
    json: { candidates: [{ content: { parts: [{ text }], role: "model" }, finishReason: "STOP" }] },
  };
}

// --- Mistral ---------------------------------------------------------------------------------

export interface MultipartField {
  name: string;
  filename?: string;
  contentType?: string;
  value: Buffer;
}

/** Parses a multipart/form-data body (enough for the helper's requests). */
export function parseMultipart(body: Buffer, contentType: string): MultipartField[] {
  const boundary = /boundary=([^;]+)/.exec(contentType)?.[1];
  if (!boundary) throw new Error(`no boundary in ${contentType}`);
  const delimiter = Buffer.from(`--${boundary}`);
  const fields: MultipartField[] = [];
  let at = body.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const end = body.indexOf(delimiter, start);
    if (end === -1) throw new Error("unterminated multipart body");
    const part = body.subarray(start + 2, end - 2); // after CRLF, before CRLF
    const split = part.indexOf("\r\n\r\n");
    const head = part.subarray(0, split).toString();
    const disposition =
      /content-disposition: form-data; name="([^"]+)"(?:; filename="([^"]*)")?/i.exec(head);
    if (!disposition) throw new Error(`bad part head: ${head}`);
    fields.push({
      name: disposition[1]!,
      ...(disposition[2] === undefined ? {} : { filename: disposition[2] }),
      ...(/content-type: (.+)/i.exec(head)
        ? { contentType: /content-type: (.+)/i.exec(head)![1]!.trim() }
        : {}),
      value: part.subarray(split + 4),
    });
    at = end;
  }
  return fields;
}

export interface MistralOptions {
  key: string;
  answer?: (fields: MultipartField[]) => Reply;
  faults?: Fault[];
}

/** Mistral's POST /v1/audio/transcriptions. */
export async function startMistral(options: MistralOptions): Promise<Mock> {
  const route = (seen: Seen) =>
    seen.method === "POST" && seen.url === "/v1/audio/transcriptions" ? "transcribe" : "unknown";
  const handle = (seen: Seen): Reply => {
    if (route(seen) !== "transcribe") return { status: 404, json: { message: "not found" } };
    if (seen.headers.authorization !== `Bearer ${options.key}`) {
      return { status: 401, json: { message: "Unauthorized", request_id: "r1" } };
    }
    const fields = parseMultipart(seen.body, String(seen.headers["content-type"]));
    if (!fields.some((f) => f.name === "file") || !fields.some((f) => f.name === "model")) {
      return { status: 422, json: { detail: "model and file are required" } };
    }
    return (
      options.answer?.(fields) ?? {
        status: 200,
        json: {
          model: "voxtral-mini-2602",
          text: "Hello and welcome to Banana Radio. Today, Ada talks about bananas.",
          language: "en",
          segments: [
            { text: "Hello and welcome to Banana Radio.", start: 0.0, end: 2.4 },
            { text: "Today, Ada talks about bananas.", start: 2.4, end: 4.9 },
          ],
          usage: {
            prompt_audio_seconds: 5,
            prompt_tokens: 5,
            completion_tokens: 16,
            total_tokens: 21,
          },
        },
      }
    );
  };
  return serve(route, handle, options.faults ?? []);
}

// --- running the helpers ---------------------------------------------------------------------

export const GEMINI_SCRIPTS = path.join(SKILLS_DIR, "gemini-media-use/scripts");
export const VOXTRAL_SCRIPTS = path.join(SKILLS_DIR, "voxtral-transcribe/scripts");

export interface PythonResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Runs a helper with the real python3 and only the variables given (plus PATH and HOME): no real
 * key from the developer's shell can reach a mock, or a real API.
 */
export function runPython(
  script: string,
  args: readonly string[],
  env: Record<string, string>,
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<PythonResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      "python3",
      [script, ...args],
      {
        cwd: options.cwd,
        timeout: options.timeoutMs ?? 20_000,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          PYTHONDONTWRITEBYTECODE: "1",
          ...env,
        },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr, ms: performance.now() - started });
      },
    );
  });
}
