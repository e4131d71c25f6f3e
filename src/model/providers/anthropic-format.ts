import { z } from "zod";
import type { ChatRequest } from "../chat.js";
import type { ChatResult } from "../types.js";
import { answered, systemText } from "./messages.js";

/** The Messages API's body: system and developer messages as `system`, the rest in order. */
export function anthropicBody(request: ChatRequest, model: string, maxTokens: number) {
  const system = systemText(request.messages);
  return {
    model,
    max_tokens: maxTokens,
    temperature: request.temperature,
    ...(system === null ? {} : { system }),
    messages: request.messages
      .filter((m) => m.role === "user" || m.role === "assistant")
      .map((m) => ({ role: m.role as "user" | "assistant", content: m.content })),
  };
}

const messageSchema = z.object({
  model: z.string().optional(),
  stop_reason: z.string().nullish(),
  content: z.array(z.object({ type: z.string(), text: z.string().optional() })),
  usage: z
    .object({
      input_tokens: z.number().nullish(),
      output_tokens: z.number().nullish(),
      cache_creation_input_tokens: z.number().nullish(),
      cache_read_input_tokens: z.number().nullish(),
    })
    .nullish(),
});

/**
 * A message as a result: its text blocks joined. The prompt's tokens count those read from and
 * written to Anthropic's prompt cache too (eb asks for none, but a proxy may).
 */
export function readAnthropic(
  answer: unknown,
  requestedModel: string,
): Omit<ChatResult, "ms" | "cached"> {
  const message = answered(messageSchema, answer, "a message");
  const texts = message.content.flatMap((block) =>
    block.type === "text" && block.text !== undefined ? [block.text] : [],
  );
  if (texts.length === 0) {
    throw new Error(
      `endpoint answered with no text (stop_reason: ${message.stop_reason ?? "none"})`,
    );
  }
  const usage = message.usage;
  const prompt = [
    usage?.input_tokens,
    usage?.cache_creation_input_tokens,
    usage?.cache_read_input_tokens,
  ];
  return {
    text: texts.join(""),
    model: message.model ?? requestedModel,
    usage: {
      prompt_tokens: usage?.input_tokens == null ? undefined : sum(prompt),
      completion_tokens: usage?.output_tokens ?? undefined,
    },
  };
}

function sum(values: readonly (number | null | undefined)[]): number {
  return values.reduce<number>((total, value) => total + (value ?? 0), 0);
}
