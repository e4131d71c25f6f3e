/** `--name VALUE` from a bench's command line, else the fallback. */
export function flag(args: readonly string[], name: string, fallback: string): string {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && at + 1 < args.length ? args[at + 1]! : fallback;
}

/** A chat completion whose message content is `content`, as the loopback endpoints answer. */
export function completionBody(content: string): string {
  return JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    model: "bench-model-2026",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 12, completion_tokens: 1, total_tokens: 13 },
  });
}

/** What the loopback model endpoints of the benches answer: one short chat completion. */
export const ANSWER = completionBody("Paris");
