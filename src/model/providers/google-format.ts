import { z } from "zod";
import type { ChatRequest } from "../chat.js";
import type { ChatResult } from "../types.js";
import { answered, systemText } from "./messages.js";

/**
 * generateContent's parameters: system and developer messages as the system instruction, the
 * assistant's turns as the model's.
 */
export function googleParameters(request: ChatRequest, model: string) {
  const system = systemText(request.messages);
  return {
    model,
    contents: request.messages
      .filter((m) => m.role === "user" || m.role === "assistant")
      .map((m) => ({ role: m.role === "user" ? "user" : "model", parts: [{ text: m.content }] })),
    config: {
      temperature: request.temperature,
      ...(request.maxTokens === undefined ? {} : { maxOutputTokens: request.maxTokens }),
      ...(system === null ? {} : { systemInstruction: system }),
    },
  };
}

const responseSchema = z.object({
  modelVersion: z.string().optional(),
  candidates: z
    .array(
      z.object({
        finishReason: z.string().optional(),
        content: z
          .object({
            parts: z
              .array(z.object({ text: z.string().optional(), thought: z.boolean().optional() }))
              .optional(),
          })
          .optional(),
      }),
    )
    .optional(),
  promptFeedback: z.object({ blockReason: z.string().optional() }).optional(),
  usageMetadata: z
    .object({
      promptTokenCount: z.number().optional(),
      candidatesTokenCount: z.number().optional(),
      thoughtsTokenCount: z.number().optional(),
    })
    .optional(),
});

/**
 * A response as a result: the first candidate's text parts, its thoughts left out. Thinking
 * tokens are billed as output, so they count among the completion's.
 */
export function readGoogle(
  answer: unknown,
  requestedModel: string,
): Omit<ChatResult, "ms" | "cached"> {
  const response = answered(responseSchema, answer, "a generateContent response");
  const candidate = response.candidates?.[0];
  const texts = (candidate?.content?.parts ?? []).flatMap((part) =>
    part.text !== undefined && part.thought !== true ? [part.text] : [],
  );
  if (texts.length === 0) {
    const blocked = response.promptFeedback?.blockReason;
    const why = blocked
      ? `the prompt was blocked: ${blocked}`
      : `finishReason: ${candidate?.finishReason ?? "none"}`;
    throw new Error(`endpoint answered with no text (${why})`);
  }
  const usage = response.usageMetadata;
  const output = usage?.candidatesTokenCount;
  return {
    text: texts.join(""),
    model: response.modelVersion ?? requestedModel,
    usage: {
      prompt_tokens: usage?.promptTokenCount,
      completion_tokens:
        output === undefined ? undefined : output + (usage?.thoughtsTokenCount ?? 0),
    },
  };
}
