import { z } from "zod";
import type { ChatResult } from "./types.js";

const storedSchema = z.object({
  text: z.string(),
  model: z.string(),
  usage: z.object({
    prompt_tokens: z.number().optional(),
    completion_tokens: z.number().optional(),
  }),
  ms: z.number(),
  systemFingerprint: z.string().optional(),
});

/** A cache entry back as a result; anything that does not fit is a miss (null). */
export function readStoredResult(value: unknown): ChatResult | null {
  const parsed = storedSchema.safeParse(value);
  return parsed.success ? { ...parsed.data, cached: true } : null;
}

/** The cacheable part of a result (`cached` is a property of the lookup, not of the result). */
export function storedResult(result: ChatResult) {
  return {
    text: result.text,
    model: result.model,
    usage: {
      prompt_tokens: result.usage.prompt_tokens,
      completion_tokens: result.usage.completion_tokens,
    },
    ms: result.ms,
    systemFingerprint: result.systemFingerprint,
  };
}
