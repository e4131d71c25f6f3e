import { describe, expect, it } from "vitest";
import { readAnthropic } from "../../src/model/providers/anthropic-format.js";
import { readGoogle } from "../../src/model/providers/google-format.js";
import { baseOf, routeOf } from "../../src/model/providers/route.js";

describe("a model's name routes its calls", () => {
  it.each([
    ["anthropic/claude-x", "anthropic", "claude-x"],
    ["google/gemini-x", "google", "gemini-x"],
    ["openai/gpt-x", null, "gpt-x"],
    ["openai/google/gemma-2", null, "google/gemma-2"],
    ["meta-llama/Llama-3", null, "meta-llama/Llama-3"],
    ["gpt-x", null, "gpt-x"],
  ])("%s: provider %s, model %s", (name, provider, model) => {
    const route = routeOf(name);
    expect(route.provider?.name ?? null).toBe(provider);
    expect(route.model).toBe(model);
  });

  it("--api-base left at OpenAI's is the provider's own API; another is the provider's root", () => {
    expect(baseOf("anthropic/c", "https://api.openai.com/v1")).toBe("https://api.anthropic.com");
    expect(baseOf("google/g", "https://api.openai.com/v1")).toBe(
      "https://generativelanguage.googleapis.com",
    );
    expect(baseOf("anthropic/c", "http://127.0.0.1:9")).toBe("http://127.0.0.1:9");
    expect(baseOf("gpt-x", "https://api.openai.com/v1")).toBe("https://api.openai.com/v1");
  });
});

describe("a provider's answer as text and usage", () => {
  it("Anthropic: text blocks joined, cache tokens counted as prompt, none is an error", () => {
    const message = {
      model: "claude-x-1",
      content: [
        { type: "thinking", thinking: "hmm" },
        { type: "text", text: "a" },
        { type: "text", text: "b" },
      ],
      usage: { input_tokens: 5, output_tokens: 3, cache_read_input_tokens: 2 },
    };
    expect(readAnthropic(message, "anthropic/claude-x")).toEqual({
      text: "ab",
      model: "claude-x-1",
      usage: { prompt_tokens: 7, completion_tokens: 3 },
    });
    expect(() => readAnthropic({ content: [], stop_reason: "refusal" }, "m")).toThrow(
      "endpoint answered with no text (stop_reason: refusal)",
    );
    expect(() => readAnthropic({ content: "no" }, "m")).toThrow(
      "endpoint answered with JSON that is not a message (content:",
    );
  });

  it("Gemini: thoughts left out of the text but counted as output; a blocked prompt says so", () => {
    const response = {
      candidates: [{ content: { parts: [{ text: "why", thought: true }, { text: "yes" }] } }],
      usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 1, thoughtsTokenCount: 9 },
    };
    expect(readGoogle(response, "google/g")).toEqual({
      text: "yes",
      model: "google/g",
      usage: { prompt_tokens: 4, completion_tokens: 10 },
    });
    expect(() => readGoogle({ promptFeedback: { blockReason: "SAFETY" } }, "g")).toThrow(
      "endpoint answered with no text (the prompt was blocked: SAFETY)",
    );
  });
});
