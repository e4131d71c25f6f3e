import type { ServerResponse } from "node:http";
import {
  asArray,
  asObject,
  asString,
  type Conversation,
  type Decision,
  decide,
  evidenceFor,
  flatten,
  type JsonObject,
  type Mock,
  type MockOptions,
  objectsOf,
  sendJson,
  sendSse,
  startMockServer,
  textOf,
  turnKind,
} from "./common.js";

/**
 * Anthropic Messages (claude): `POST /v1/messages?beta=true`, SSE `message_start`,
 * `content_block_start` (tool_use or text), `input_json_delta` / `text_delta`, …, `message_stop`.
 */
export function startAnthropicMock(options: MockOptions): Promise<Mock> {
  return startMockServer(options, (request, res) => {
    if (request.method === "POST" && request.pathname.endsWith("/messages/count_tokens")) {
      sendJson(res, 200, { input_tokens: 10 });
      return null;
    }
    if (request.method !== "POST" || !request.pathname.endsWith("/messages")) {
      sendJson(res, 404, { type: "error", error: { type: "not_found_error", message: "no" } });
      return null;
    }
    const body = request.json ?? {};
    const result = decide(conversation(body), evidenceFor(options, request.body), request.index);
    reply(res, body, result.decision, request.index);
    return result;
  });
}

function conversation(body: JsonObject): Conversation {
  const messages = asArray(body.messages).map(asObject);
  const blocks = (role: string) =>
    messages
      .filter((m) => m?.role === role)
      .flatMap((m) =>
        typeof m?.content === "string"
          ? [{ type: "text", text: m.content } as JsonObject]
          : objectsOf(m?.content),
      );
  const user = blocks("user");
  // claude 2.1 puts its environment in a role "system" message after the prompt.
  const last = messages.filter((m) => m?.role !== "system").at(-1);
  const lastBlocks =
    typeof last?.content === "string"
      ? [{ type: "text", text: last.content } as JsonObject]
      : objectsOf(last?.content);
  const tools = asArray(body.tools).flatMap((tool) => {
    const t = asObject(tool);
    const name = asString(t?.name);
    return name ? [{ name, schema: asObject(t?.input_schema) }] : [];
  });
  const choice = asObject(body.tool_choice);
  return {
    model: asString(body.model) ?? "",
    tools,
    forcedTool: choice?.type === "tool" ? asString(choice.name) : null,
    userText: user
      .filter((b) => b.type === "text")
      .map((b) => textOf([b]))
      .join("\n"),
    toolResults: user.filter((b) => b.type === "tool_result").map((b) => flatten(b.content)),
    jsonSchema: null,
    lastTurn: turnKind(
      lastBlocks.some((b) => b.type === "tool_result"),
      messages.some((m) => m?.role === "assistant"),
    ),
  };
}

function reply(res: ServerResponse, body: JsonObject, decision: Decision, index: number): void {
  const model = asString(body.model) ?? "mock-model";
  const block =
    decision.kind === "call"
      ? { type: "tool_use", id: `toolu_mock_${index}`, name: decision.name, input: decision.args }
      : { type: "text", text: decision.text };
  const stopReason = decision.kind === "call" ? "tool_use" : "end_turn";
  const message = {
    id: `msg_mock_${index}`,
    type: "message",
    role: "assistant",
    model,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
  if (body.stream !== true) {
    sendJson(res, 200, { ...message, content: [block], stop_reason: stopReason });
    return;
  }
  const start = decision.kind === "call" ? { ...block, input: {} } : { type: "text", text: "" };
  const delta =
    decision.kind === "call"
      ? { type: "input_json_delta", partial_json: JSON.stringify(decision.args) }
      : { type: "text_delta", text: decision.text };
  const event = (type: string, data: object) => ({ event: type, data: { type, ...data } });
  sendSse(res, [
    event("message_start", {
      message: {
        ...message,
        content: [],
        stop_reason: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    }),
    event("content_block_start", { index: 0, content_block: start }),
    event("ping", {}),
    event("content_block_delta", { index: 0, delta }),
    event("content_block_stop", { index: 0 }),
    event("message_delta", {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 5 },
    }),
    event("message_stop", {}),
  ]);
}
