import type { Pricing } from "../config/schema.js";
import type { ChatRequest } from "../model/chat.js";
import type { ChatResult } from "../model/types.js";

/** Characters per token of the estimates: OpenAI's rule of thumb for English text. */
export const CHARS_PER_TOKEN = 4;

/** A call as priced: its model, tokens, and whether the cache answered it (then it is free). */
export interface PricedCall {
  model: string;
  cached: boolean;
  input: number;
  output: number;
}

export function tokensOf(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Dollars for these tokens at the model's [pricing]; null when it has no price. */
export function priceOf(
  pricing: Pricing,
  model: string,
  input: number,
  output: number,
): number | null {
  const rate = pricing[model];
  return rate ? (input * rate.input_per_mtok + output * rate.output_per_mtok) / 1e6 : null;
}

/** What a call cost, from the usage it reported (estimated from the texts where it did not). */
export function usageCost(pricing: Pricing, request: ChatRequest, result: ChatResult): number {
  const input = result.usage.prompt_tokens ?? tokensOf(messageChars(request.messages));
  const output = result.usage.completion_tokens ?? tokensOf(result.text);
  return priceOf(pricing, request.model, input, output) ?? 0;
}

export function messageChars(messages: readonly { content: string }[]): string {
  return messages.map((m) => m.content).join("");
}

/** The dollars of the calls not in the cache (a model without a price counts 0). */
export function costOf(pricing: Pricing, calls: readonly PricedCall[]): number {
  return calls
    .filter((call) => !call.cached)
    .reduce((sum, call) => sum + (priceOf(pricing, call.model, call.input, call.output) ?? 0), 0);
}
