import { createHash, randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
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

export interface Cache {
  readonly dir: string;
  /** The stored value, or null on a miss (absent, truncated or corrupt file). */
  get(key: string): Promise<unknown>;
  set(key: string, value: JsonValue): Promise<void>;
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

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export function chatCacheKey(request: ChatRequestIdentity, sample: number): string {
  return sha256(
    canonicalJson({
      kind: "chat",
      // "http://h/v1" and "http://h/v1/" are the same endpoint.
      baseURL: request.baseURL.replace(/\/+$/, ""),
      model: request.model,
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
      params: { ...request.params },
      sample,
    }),
  );
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

/** Content-addressed JSON files under `<dir>/<2 hex>/<sha256>.json`. */
export function createCache(dir: string): Cache {
  const pathOf = (key: string): string => join(dir, key.slice(0, 2), `${key}.json`);
  return {
    dir,
    async get(key) {
      let text: string;
      try {
        text = await readFile(pathOf(key), "utf8");
      } catch {
        return null;
      }
      return parseEntry(text, key);
    },
    async set(key, value) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      // Same directory as the target so the rename is atomic; unique so parallel writers of
      // the same key never share a temp file.
      const temp = `${path}.${process.pid}.${randomUUID()}.tmp`;
      try {
        await writeFile(temp, JSON.stringify({ key, value }));
        await rename(temp, path);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    },
  };
}

function parseEntry(text: string, key: string): unknown {
  try {
    const entry: unknown = JSON.parse(text);
    if (typeof entry !== "object" || entry === null || !("key" in entry)) return null;
    if (entry.key !== key || !("value" in entry)) return null;
    return entry.value ?? null;
  } catch {
    return null;
  }
}
