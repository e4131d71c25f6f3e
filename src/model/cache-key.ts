import { hash } from "node:crypto";
import type { Message } from "./types.js";

export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue | undefined };

/**
 * Everything that decides a chat completion's content. There is deliberately no place for an
 * API key: the key function copies these named fields and nothing else.
 */
export interface ChatRequestIdentity {
  baseURL: string;
  model: string;
  messages: readonly Message[];
  /** Every sampling parameter sent (temperature, max_tokens, ...); undefined ones are dropped. */
  params: Readonly<Record<string, JsonValue | undefined>>;
}

export interface CommandIdentity {
  command: string;
  cwd: string;
  /** The exact stdin the command receives, minus the sample index. */
  input: JsonValue;
}

/** JSON with object keys sorted at every depth, so equal requests give equal bytes. */
export function canonicalJson(value: JsonValue | undefined): string {
  return JSON.stringify(sortKeys(value)) ?? "null";
}

function sortKeys(value: JsonValue | undefined): JsonValue | undefined {
  if (Array.isArray(value)) return value.map((v: JsonValue) => sortKeys(v) ?? null);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, JsonValue> = {};
  for (const key of Object.keys(value).sort()) {
    const v = sortKeys((value as Record<string, JsonValue | undefined>)[key]);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** One call, no Hash object: a cached run makes a key per sample. */
function sha256(text: string): string {
  return hash("sha256", text, "hex");
}

/**
 * The keys of a request's samples: the canonical JSON of `{kind, baseURL, model, messages,
 * params, sample}`, built with its keys already in sorted order (sorting every message of every
 * call was a tenth of a cached run), and once for all of them (`sample` is its last key): a run
 * asks for k samples of the same request.
 */
export function chatCacheKeys(request: ChatRequestIdentity): (sample: number) => string {
  const json = JSON.stringify({
    // "http://h/v1" and "http://h/v1/" are the same endpoint.
    baseURL: request.baseURL.replace(/\/+$/, ""),
    kind: "chat",
    messages: request.messages.map((m) => ({ content: m.content, role: m.role })),
    model: request.model,
    params: sortKeys({ ...request.params }),
    sample: 0,
  });
  const head = json.slice(0, -"0}".length);
  return (sample) => sha256(`${head}${JSON.stringify(sample)}}`);
}

export function commandCacheKey(identity: CommandIdentity, sample: number): string {
  return sha256(
    canonicalJson({
      kind: "command",
      command: identity.command,
      cwd: identity.cwd,
      input: identity.input,
      sample,
    }),
  );
}
