import type { ServerResponse } from "node:http";
import {
  asArray,
  asObject,
  asString,
  type Conversation,
  type Decision,
  decide,
  flatten,
  type JsonObject,
  type Mock,
  type MockOptions,
  sendJson,
  sendSse,
  startMockServer,
  textOf,
  turnKind,
} from "./common.js";

/**
 * OpenAI Responses API (codex): `POST /v1/responses` with `stream: true`, answered with the
 * `response.created` … `response.completed` event sequence. Codex's WebSocket attempt (a GET
 * with `Upgrade: websocket`, only for its built-in provider) gets a 404.
 */
export function startResponsesMock(options: MockOptions): Promise<Mock> {
  return startMockServer(options, (request, res) => {
    if (request.method !== "POST" || !request.pathname.endsWith("/responses")) {
      sendJson(res, 404, { error: { message: "not here" } });
      return null;
    }
    const body = request.json ?? {};
    const result = decide(conversation(body), options, request.index);
    reply(res, body, result.decision, request.index);
    return result;
  });
}

function conversation(body: JsonObject): Conversation {
  const input = typeof body.input === "string" ? [] : asArray(body.input).map(asObject);
  const last = input.filter((item) => item?.role !== "system" && item?.role !== "developer").at(-1);
  const tools = asArray(body.tools).flatMap((tool) => {
    const t = asObject(tool);
    const name = asString(t?.name);
    return t?.type === "function" && name ? [{ name, schema: asObject(t.parameters) }] : [];
  });
  const userText =
    typeof body.input === "string"
      ? body.input
      : input
          .filter((item) => item?.type === "message" && item.role === "user")
          .map((item) => textOf(item?.content))
          .join("\n");
  return {
    model: asString(body.model) ?? "",
    tools,
    forcedTool: asString(asObject(body.tool_choice)?.name) ?? null,
    userText,
    toolResults: input.filter(isToolOutput).map((item) => flatten(item?.output)),
    jsonSchema: null,
    lastTurn: turnKind(
      isToolOutput(last),
      input.some((item) => item?.role === "assistant" || item?.type === "function_call"),
    ),
  };
}

function isToolOutput(item: JsonObject | null | undefined): boolean {
  return typeof item?.type === "string" && item.type.endsWith("_call_output");
}

function reply(res: ServerResponse, body: JsonObject, decision: Decision, index: number): void {
  const id = `resp_mock_${index}`;
  const item =
    decision.kind === "call"
      ? {
          type: "function_call",
          id: `fc_mock_${index}`,
          call_id: decision.id,
          name: decision.name,
          arguments: JSON.stringify(decision.args),
          status: "completed",
        }
      : {
          type: "message",
          id: `msg_mock_${index}`,
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: decision.text, annotations: [] }],
        };
  const response = (status: string, output: object[]) => ({
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: asString(body.model) ?? "mock-model",
    output,
    usage:
      status === "completed"
        ? {
            input_tokens: 10,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 5,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 15,
          }
        : null,
  });
  if (body.stream !== true) {
    sendJson(res, 200, response("completed", [item]));
    return;
  }
  let seq = 0;
  const event = (type: string, data: object) => ({
    event: type,
    data: { type, sequence_number: seq++, ...data },
  });
  const added =
    item.type === "message"
      ? { ...item, status: "in_progress", content: [] }
      : { ...item, status: "in_progress", arguments: "" };
  const middle =
    decision.kind === "call"
      ? [
          event("response.function_call_arguments.delta", {
            item_id: item.id,
            output_index: 0,
            delta: JSON.stringify(decision.args),
          }),
          event("response.function_call_arguments.done", {
            item_id: item.id,
            output_index: 0,
            arguments: JSON.stringify(decision.args),
          }),
        ]
      : [
          event("response.content_part.added", {
            item_id: item.id,
            output_index: 0,
            content_index: 0,
            part: { type: "output_text", text: "", annotations: [] },
          }),
          event("response.output_text.delta", {
            item_id: item.id,
            output_index: 0,
            content_index: 0,
            delta: decision.text,
          }),
          event("response.output_text.done", {
            item_id: item.id,
            output_index: 0,
            content_index: 0,
            text: decision.text,
          }),
          event("response.content_part.done", {
            item_id: item.id,
            output_index: 0,
            content_index: 0,
            part: { type: "output_text", text: decision.text, annotations: [] },
          }),
        ];
  sendSse(res, [
    event("response.created", { response: response("in_progress", []) }),
    event("response.in_progress", { response: response("in_progress", []) }),
    event("response.output_item.added", { output_index: 0, item: added }),
    ...middle,
    event("response.output_item.done", { output_index: 0, item }),
    event("response.completed", { response: response("completed", [item]) }),
  ]);
}
