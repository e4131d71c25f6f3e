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

/** OpenAI chat completions (opencode, pi, grok): `POST /v1/chat/completions`, SSE or JSON. */
export function startChatCompletionsMock(options: MockOptions): Promise<Mock> {
  return startMockServer(options, (request, res) => {
    if (request.method !== "POST" || !request.pathname.endsWith("/chat/completions")) {
      sendJson(res, request.pathname === "/" ? 200 : 404, {});
      return null;
    }
    const body = request.json ?? {};
    const result = decide(conversation(body), options, request.index);
    reply(res, body, result.decision);
    return result;
  });
}

function conversation(body: JsonObject): Conversation {
  const messages = asArray(body.messages).map(asObject);
  const last = messages.filter((m) => m?.role !== "system" && m?.role !== "developer").at(-1);
  const tools = asArray(body.tools).flatMap((tool) => {
    const fn = asObject(asObject(tool)?.function);
    const name = asString(fn?.name);
    return name ? [{ name, schema: asObject(fn?.parameters) }] : [];
  });
  const choice = asObject(body.tool_choice);
  return {
    model: asString(body.model) ?? "",
    tools,
    forcedTool: asString(asObject(choice?.function)?.name) ?? null,
    userText: messages
      .filter((m) => m?.role === "user")
      .map((m) => textOf(m?.content))
      .join("\n"),
    toolResults: messages.filter((m) => m?.role === "tool").map((m) => flatten(m?.content)),
    jsonSchema: null,
    lastTurn: turnKind(
      last?.role === "tool",
      messages.some((m) => m?.role === "assistant"),
    ),
  };
}

function reply(res: ServerResponse, body: JsonObject, decision: Decision): void {
  const model = asString(body.model) ?? "mock-model";
  const base = { id: "chatcmpl-mock", created: Math.floor(Date.now() / 1000), model };
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const call = (d: Extract<Decision, { kind: "call" }>, args: string) => ({
    index: 0,
    id: d.id,
    type: "function",
    function: { name: d.name, arguments: args },
  });
  const finish = decision.kind === "call" ? "tool_calls" : "stop";
  if (body.stream !== true) {
    const message =
      decision.kind === "call"
        ? { role: "assistant", content: null, tool_calls: [call(decision, argsOf(decision))] }
        : { role: "assistant", content: decision.text };
    sendJson(res, 200, {
      ...base,
      object: "chat.completion",
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    });
    return;
  }
  const chunk = (delta: object, finishReason: string | null = null) => ({
    data: {
      ...base,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    },
  });
  const events =
    decision.kind === "call"
      ? [
          chunk({ role: "assistant", content: null, tool_calls: [call(decision, "")] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: argsOf(decision) } }] }),
        ]
      : [chunk({ role: "assistant", content: "" }), chunk({ content: decision.text })];
  const includeUsage = asObject(body.stream_options)?.include_usage === true;
  sendSse(
    res,
    [
      ...events,
      chunk({}, finish),
      ...(includeUsage
        ? [{ data: { ...base, object: "chat.completion.chunk", choices: [], usage } }]
        : []),
    ],
    "data: [DONE]\n\n",
  );
}

function argsOf(decision: Extract<Decision, { kind: "call" }>): string {
  return JSON.stringify(decision.args);
}
