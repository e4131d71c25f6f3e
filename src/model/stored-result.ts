import { isObject } from "../report/json.js";
import type { ChatResult, Usage } from "./types.js";

/**
 * A cache entry back as a result; anything that does not fit is a miss (null). Checked by hand,
 * not by a schema: it runs for every cached sample, and the schema's parse cost a cached run of
 * 2,000 cases × 3 more than reading the entries did.
 */
export function readStoredResult(value: unknown): ChatResult | null {
  if (!isObject(value) || !isObject(value.usage)) return null;
  const { text, model, ms, systemFingerprint } = value;
  const usage = usageOf(value.usage);
  if (typeof text !== "string" || typeof model !== "string" || typeof ms !== "number") return null;
  if (usage === null || !(systemFingerprint === undefined || typeof systemFingerprint === "string"))
    return null;
  return {
    text,
    model,
    usage,
    ms,
    ...(systemFingerprint !== undefined && { systemFingerprint }),
    cached: true,
  };
}

/** The token counts an entry holds (others are left out), or null when one is not a number. */
function usageOf({ prompt_tokens, completion_tokens }: Record<string, unknown>): Usage | null {
  const counts = [prompt_tokens, completion_tokens];
  if (!counts.every((n) => n === undefined || typeof n === "number")) return null;
  return {
    ...(prompt_tokens !== undefined && { prompt_tokens: prompt_tokens as number }),
    ...(completion_tokens !== undefined && { completion_tokens: completion_tokens as number }),
  };
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
