import type { ChatRequest } from "../chat.js";
import type { ChatResult } from "../types.js";
import { readAnthropic } from "./anthropic-format.js";
import { readGoogle } from "./google-format.js";

/** What a provider's wire is built from: where it calls, with which key, within which bounds. */
export interface WireOptions {
  baseURL: string;
  apiKey: string;
  /** Per attempt, including reading the body (eb's transport enforces it). */
  timeoutMs: number;
  maxResponseBytes: number | undefined;
}

/**
 * An API eb calls through its official client, as data. A model named `NAME/MODEL` goes to the
 * provider NAME; any other name (or `openai/MODEL`) to the OpenAI-compatible endpoint.
 */
export interface Provider {
  name: string;
  /** Where its key is read, in this order; EVAL_BANANA_API_KEY after them. */
  keyVariables: readonly string[];
  /** Its API's root, unless --api-base names another. */
  defaultBase: string;
  /** max_tokens sent when --max-tokens is not given (the API requires one); null: none sent. */
  defaultMaxTokens: number | null;
  /** How a call is made, with its client: loaded only by a run that calls this provider. */
  send: () => Promise<(options: WireOptions) => Send>;
  /** How its answer reads as text and usage. */
  read: (answer: unknown, requestedModel: string) => Omit<ChatResult, "ms" | "cached">;
}

/**
 * One attempt of `request` to `model` (the name the API knows); it rejects as the client does,
 * eb's transport's own errors inside (see fetch.ts).
 */
export type Send = (
  request: ChatRequest,
  model: string,
  signal: AbortSignal | undefined,
) => Promise<unknown>;

/** The variable read after a provider's own. */
export const SHARED_KEY_VARIABLE = "EVAL_BANANA_API_KEY";

/**
 * 4096: every Claude model can answer that many tokens, and more than an eval's answer needs;
 * `--max-tokens` sets another.
 */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

export const PROVIDERS: readonly Provider[] = [
  {
    name: "anthropic",
    keyVariables: ["ANTHROPIC_API_KEY"],
    defaultBase: "https://api.anthropic.com",
    defaultMaxTokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
    send: async () => (await import("./anthropic.js")).anthropicSend,
    read: readAnthropic,
  },
  {
    name: "google",
    keyVariables: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    defaultBase: "https://generativelanguage.googleapis.com",
    defaultMaxTokens: null,
    send: async () => (await import("./google.js")).googleSend,
    read: readGoogle,
  },
];
