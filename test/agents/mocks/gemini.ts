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
  objectsOf,
  sendJson,
  sendSse,
  startMockServer,
  turnKind,
} from "./common.js";

/**
 * Gemini API (gemini-cli): `POST /v1beta/models/M:streamGenerateContent?alt=sse` (and the
 * non-streaming `:generateContent` its side calls use), answered with `functionCall` parts.
 */
export function startGeminiMock(options: MockOptions): Promise<Mock> {
  return startMockServer(options, (request, res) => {
    const match = /\/models\/([^/:]+):([A-Za-z]+)$/.exec(request.pathname);
    const [, model = "", method = ""] = match ?? [];
    if (request.method === "POST" && method === "countTokens") {
      sendJson(res, 200, { totalTokens: 10 });
      return null;
    }
    if (request.method !== "POST" || !method.endsWith("enerateContent")) {
      sendJson(res, 404, { error: { code: 404, message: "not here", status: "NOT_FOUND" } });
      return null;
    }
    const body = request.json ?? {};
    const result = decide(conversation(decodeURIComponent(model), body), options, request.index);
    reply(res, method === "streamGenerateContent", decodeURIComponent(model), result.decision);
    return result;
  });
}

function conversation(model: string, body: JsonObject): Conversation {
  const contents = asArray(body.contents).map(asObject);
  const parts = (role: string) =>
    contents.filter((c) => (c?.role ?? "user") === role).flatMap((c) => objectsOf(c?.parts));
  const user = parts("user");
  const lastParts = objectsOf(contents.at(-1)?.parts);
  const tools = asArray(body.tools).flatMap((tool) =>
    asArray(asObject(tool)?.functionDeclarations).flatMap((declaration) => {
      const d = asObject(declaration);
      const name = asString(d?.name);
      const schema = asObject(d?.parametersJsonSchema) ?? asObject(d?.parameters);
      return name ? [{ name, schema }] : [];
    }),
  );
  const calling = asObject(asObject(body.toolConfig)?.functionCallingConfig);
  const allowed = asArray(calling?.allowedFunctionNames);
  const generation = asObject(body.generationConfig);
  const wantsJson = generation?.responseMimeType === "application/json";
  return {
    model,
    tools,
    forcedTool: calling?.mode === "ANY" ? asString(allowed[0]) : null,
    userText: user
      .map((p) => asString(p.text) ?? "")
      .filter((t) => t !== "")
      .join("\n"),
    toolResults: user.filter((p) => p.functionResponse).map((p) => flatten(p.functionResponse)),
    jsonSchema: wantsJson
      ? (asObject(generation?.responseJsonSchema) ?? asObject(generation?.responseSchema) ?? {})
      : null,
    lastTurn: turnKind(
      lastParts.some((p) => p.functionResponse),
      contents.some((c) => c?.role === "model"),
    ),
  };
}

function reply(res: ServerResponse, stream: boolean, model: string, decision: Decision): void {
  const part =
    decision.kind === "call"
      ? { functionCall: { id: decision.id, name: decision.name, args: decision.args } }
      : { text: decision.text };
  const chunk = {
    candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: model,
    responseId: `mock-${Date.now()}`,
  };
  if (stream) sendSse(res, [{ data: chunk }]);
  else sendJson(res, 200, chunk);
}
