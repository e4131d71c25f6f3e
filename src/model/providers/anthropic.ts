import Anthropic from "@anthropic-ai/sdk";
import { anthropicBody } from "./anthropic-format.js";
import { transportFetch } from "./fetch.js";
import { ANTHROPIC_DEFAULT_MAX_TOKENS, type Send, type WireOptions } from "./table.js";

/**
 * The Messages API through Anthropic's client, over eb's transport, with none of its own retries:
 * eb's decide, under its limiter. Its timeout only backs eb's up (each attempt's, in the transport).
 */
export function anthropicSend(options: WireOptions): Send {
  const client = new Anthropic({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    fetch: transportFetch(options),
    maxRetries: 0,
    timeout: options.timeoutMs + BACKSTOP_MS,
    logLevel: "off",
  });
  return (request, model, signal) =>
    client.messages.create(
      anthropicBody(request, model, request.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS),
      { signal: signal ?? null },
    );
}

const BACKSTOP_MS = 10_000;
