import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

/**
 * The model side of a contract run, shared by every API shape: on the first request of the
 * judge's conversation, call a tool that reads `evidence.txt`; once the tool result comes back,
 * answer a verdict that depends on whether the result holds the run's secret token. Anything
 * else (titles, routers, "who speaks next") is a side request and gets a harmless answer.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const PASS_VERDICT = '{"score": 1, "reason": "evidence token found"}';
export const FAIL_VERDICT = '{"score": 0, "reason": "evidence token missing from the tool result"}';
export const SIDE_TEXT = "Evaluation judge check";

export interface MockOptions {
  /** The secret the tool result must contain for a score of 1. */
  token: string;
  /** Absolute path of evidence.txt, for read-file tools. */
  evidencePath: string;
  /** Folder for `requests.jsonl` and one `NNN.json` body per request. */
  logDir: string;
  /**
   * The file to read when its path is known only from the request (a SKILL.md in the workspace
   * `eb skill run` made): null while the request does not tell it. Absent: `evidencePath`.
   */
  evidenceFrom?: ((body: string) => string | null) | undefined;
}

/** The options for one request: `evidencePath` as the request tells it, when it does. */
export function evidenceFor(options: MockOptions, body: string): MockOptions {
  const found = options.evidenceFrom?.(body) ?? null;
  return found === null ? options : { ...options, evidencePath: found };
}

/** One tool the agent advertised. */
export interface ToolSpec {
  name: string;
  schema: JsonObject | null;
}

/** A model request, reduced to what the decision needs. */
export interface Conversation {
  model: string;
  tools: ToolSpec[];
  /** A tool the request forces (tool_choice), or null. */
  forcedTool: string | null;
  /** Text of every user message, joined by newlines. */
  userText: string;
  /** Every tool result in the conversation, as text. */
  toolResults: string[];
  /** The JSON schema a side request wants its answer in (Gemini's JSON mode), or null. */
  jsonSchema: JsonObject | null;
  /**
   * The last turn (system and developer messages skipped): the judge prompt (a user turn with no
   * model answer before it), a tool result, or something else, such as grok's "dashboard line"
   * side request, which replays the whole conversation and then asks for a summary.
   */
  lastTurn: "prompt" | "tool" | "other";
}

export function turnKind(
  lastIsToolResult: boolean,
  answeredBefore: boolean,
): Conversation["lastTurn"] {
  if (lastIsToolResult) return "tool";
  return answeredBefore ? "other" : "prompt";
}

export type Decision =
  | { kind: "call"; id: string; name: string; args: JsonObject }
  | { kind: "text"; text: string };

/** What the mock saw and did, one entry per request. */
export interface MockRecord {
  index: number;
  method: string;
  url: string;
  /** main: the judge's conversation (a read or shell tool is on offer); side: anything else. */
  role: "main" | "side" | "other";
  model: string | null;
  tools: string[];
  userText: string;
  toolResults: string[];
  decision: Decision | null;
}

export interface Mock {
  /** http://127.0.0.1:PORT, without any API prefix. */
  url: string;
  records: MockRecord[];
  logFile: string;
  close(): Promise<void>;
}

export interface HttpRequest {
  index: number;
  method: string;
  url: string;
  pathname: string;
  body: string;
  json: JsonObject | null;
}

/** Answers one request; returns the record to log (decision etc.), or null for "other". */
export type Route = (request: HttpRequest, response: ServerResponse) => Partial<MockRecord> | null;

/** Starts a loopback server that logs every request and hands it to `route`. */
/** Every OpenAI- or Anthropic-shaped CLI may list models first; all mocks answer alike. */
function routeModelList(request: HttpRequest, res: ServerResponse): boolean {
  if (request.method !== "GET" || !request.pathname.endsWith("/models")) return false;
  sendJson(res, 200, modelList());
  return true;
}

export async function startMockServer(options: MockOptions, route: Route): Promise<Mock> {
  mkdirSync(options.logDir, { recursive: true });
  const logFile = path.join(options.logDir, "requests.jsonl");
  writeFileSync(logFile, "");
  const records: MockRecord[] = [];
  let count = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const index = count++;
      const body = Buffer.concat(chunks).toString("utf8");
      const url = req.url ?? "/";
      const request: HttpRequest = {
        index,
        method: req.method ?? "GET",
        url,
        pathname: new URL(url, "http://mock").pathname,
        body,
        json: parseObject(body),
      };
      writeFileSync(
        path.join(options.logDir, `${String(index).padStart(3, "0")}.json`),
        `${request.method} ${url}\n${JSON.stringify(req.headers)}\n\n${body}`,
      );
      let partial: Partial<MockRecord> | null;
      try {
        partial = routeModelList(request, res) ? null : route(request, res);
      } catch (error) {
        partial = null;
        sendJson(res, 500, { error: { message: `mock failed: ${String(error)}` } });
      }
      const record: MockRecord = {
        index,
        method: request.method,
        url,
        role: "other",
        model: null,
        tools: [],
        userText: "",
        toolResults: [],
        decision: null,
        ...partial,
      };
      records.push(record);
      appendFileSync(logFile, `${JSON.stringify(summarize(record))}\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    records,
    logFile,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function summarize(record: MockRecord): object {
  return {
    ...record,
    tools: record.tools.length > 8 ? [...record.tools.slice(0, 8), "…"] : record.tools,
    userText: clip(record.userText, 300),
    toolResults: record.toolResults.map((text) => clip(text, 300)),
  };
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * The record fields and the decision for a conversation. The judge's turn (a read or shell tool
 * on offer, the prompt or a tool result last) gets the tool call, then the verdict.
 */
export function decide(
  conversation: Conversation,
  options: MockOptions,
  index: number,
): Partial<MockRecord> & { decision: Decision } {
  const reader = pickReader(conversation.tools, options.evidencePath);
  const base = {
    model: conversation.model,
    tools: conversation.tools.map((tool) => tool.name),
    userText: conversation.userText,
    toolResults: conversation.toolResults,
  };
  const id = `call_mock_${index}`;
  if (!reader || conversation.lastTurn === "other") {
    const forced = conversation.tools.find((tool) => tool.name === conversation.forcedTool);
    const decision: Decision = forced
      ? { kind: "call", id, name: forced.name, args: fillObject(forced.schema) }
      : { kind: "text", text: sideText(conversation.jsonSchema) };
    return { ...base, role: "side", decision };
  }
  if (conversation.toolResults.length === 0) {
    return { ...base, role: "main", decision: { kind: "call", id, ...reader } };
  }
  const found = conversation.toolResults.some((text) => text.includes(options.token));
  return {
    ...base,
    role: "main",
    decision: { kind: "text", text: found ? PASS_VERDICT : FAIL_VERDICT },
  };
}

const READ_TOOLS = new Set(["read", "read_file", "readfile", "view_file"]);
const PATH_KEYS = ["file_path", "filePath", "path", "target_file", "absolute_path"];
const SHELL_TOOLS = new Set([
  "bash",
  "shell",
  "exec_command",
  "run_shell_command",
  "run_terminal_command",
  "execute_bash",
  "terminal",
]);
const COMMAND_KEYS = ["command", "cmd"];

/** A read-file tool on evidence.txt if the agent offers one, else `cat evidence.txt`. */
export function pickReader(
  tools: readonly ToolSpec[],
  evidencePath: string,
): { name: string; args: JsonObject } | null {
  for (const tool of tools) {
    if (!READ_TOOLS.has(tool.name.toLowerCase())) continue;
    const key = PATH_KEYS.find((k) => k in properties(tool.schema));
    if (key) return { name: tool.name, args: { ...fillObject(tool.schema), [key]: evidencePath } };
  }
  for (const tool of tools) {
    if (!SHELL_TOOLS.has(tool.name.toLowerCase())) continue;
    const props = properties(tool.schema);
    const key = COMMAND_KEYS.find((k) => k in props);
    if (!key) continue;
    const asArray = (props[key] as JsonObject | undefined)?.type === "array";
    const command: Json = asArray ? ["bash", "-lc", "cat evidence.txt"] : "cat evidence.txt";
    return { name: tool.name, args: { ...fillObject(tool.schema), [key]: command } };
  }
  return null;
}

function properties(schema: JsonObject | null): JsonObject {
  const props = schema?.properties;
  return props && typeof props === "object" && !Array.isArray(props) ? props : {};
}

/** A value for every required property of an object schema. */
export function fillObject(schema: JsonObject | null): JsonObject {
  const props = properties(schema);
  const required = Array.isArray(schema?.required) ? schema.required : [];
  const out: JsonObject = {};
  for (const key of required) {
    if (typeof key === "string") out[key] = fillValue(props[key] as JsonObject | undefined, key);
  }
  return out;
}

function fillValue(schema: JsonObject | undefined, key: string): Json {
  if (!schema) return SIDE_TEXT;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    // Gemini's "who speaks next" check: the user, so the turn ends.
    return schema.enum.includes("user") ? "user" : (schema.enum[0] ?? null);
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "number":
    case "integer":
      return 0;
    case "boolean":
      return false;
    case "array":
      return [];
    case "object":
      return fillObject(schema);
    default:
      return key === "reasoning" ? "The judge answered." : SIDE_TEXT;
  }
}

function sideText(jsonSchema: JsonObject | null): string {
  return jsonSchema ? JSON.stringify(fillObject(jsonSchema)) : SIDE_TEXT;
}

// ---- helpers for the API files ----

export function parseObject(text: string): JsonObject | null {
  try {
    const value = JSON.parse(text) as Json;
    return value && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

export function asObject(value: Json | undefined): JsonObject | null {
  return value && typeof value === "object" && !Array.isArray(value) ? value : null;
}

export function asArray(value: Json | undefined): Json[] {
  return Array.isArray(value) ? value : [];
}

/** The objects in an array value, skipping anything else. */
export function objectsOf(value: Json | undefined): JsonObject[] {
  return asArray(value).flatMap((item) => {
    const object = asObject(item);
    return object ? [object] : [];
  });
}

export function asString(value: Json | undefined): string | null {
  return typeof value === "string" ? value : null;
}

/** Text of a string, or of the `text` fields in an array of content parts. */
export function textOf(content: Json | undefined): string {
  if (typeof content === "string") return content;
  return asArray(content)
    .map((part) => asString(asObject(part)?.text) ?? "")
    .filter((text) => text !== "")
    .join("\n");
}

/** Any JSON value as searchable text (tool results come in many wrappers). */
export function flatten(value: Json | undefined): string {
  return typeof value === "string" ? value : JSON.stringify(value ?? null);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Server-sent events; `event` lines only where given. */
export function sendSse(
  res: ServerResponse,
  events: readonly { event?: string; data: unknown }[],
  trailer?: string,
): void {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  for (const { event, data } of events) {
    const payload = typeof data === "string" ? data : JSON.stringify(data);
    res.write(`${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`);
  }
  if (trailer) res.write(trailer);
  res.end();
}

/** The usual model list, for agents that look their model up. */
export function modelList(): object {
  return {
    object: "list",
    data: [{ id: "mock-model", object: "model", created: 1_700_000_000, owned_by: "mock" }],
  };
}
