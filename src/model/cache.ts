import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FileWriter } from "./file-writer.js";
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

/** What a target reads and writes. */
export interface Cache {
  readonly dir: string;
  /** The stored value, or null on a miss (absent, truncated or corrupt file). */
  get(key: string): Promise<unknown>;
  /** Resolves once the value is taken (see WriteBehindCache), not necessarily written. */
  set(key: string, value: JsonValue): Promise<void>;
}

/** The cache a run owns: writes go on in the background until flush(). */
export interface WriteBehindCache extends Cache {
  /**
   * Waits for every write started so far. Returns warnings (none when all writes landed): a failed
   * write costs a call next run, not this one, so it is reported rather than thrown.
   */
  flush(): Promise<string[]>;
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

/**
 * Content-addressed JSON files under `<dir>/<2 hex>/<sha256>.json`, written behind: set() hands
 * the entry to a writer thread and returns, so a result goes on to grading while its file is
 * still being created (creating a file costs more than a loopback call on some disks). An entry
 * not yet written is served from memory, so a judge prompt repeated by the next sample still hits.
 * Writes are atomic (temp file, then rename): a reader never sees half an entry.
 */
export function createCache(dir: string): WriteBehindCache {
  const pathOf = (key: string): string => join(dir, key.slice(0, 2), `${key}.json`);
  const pending = new Map<string, JsonValue>();
  const writer = new FileWriter();
  return {
    dir,
    async get(key) {
      return pending.has(key) ? pending.get(key) : readEntry(pathOf(key), key);
    },
    async set(key, value) {
      await writer.room();
      pending.set(key, value);
      writer.write(pathOf(key), JSON.stringify({ key, value }), () => {
        // A later set() of the same key owns the entry now.
        if (pending.get(key) === value) pending.delete(key);
      });
    },
    async flush() {
      const { count, first } = await writer.drain();
      if (count === 0) return [];
      return [
        `${count} cache write${count === 1 ? "" : "s"} under ${dir} failed (first: ${first}); ` +
          "those answers will be asked again next run",
      ];
    },
  };
}

/**
 * A synchronous read on purpose: a cache entry is a small local file, and readFileSync takes a
 * few microseconds where fs/promises spends far more on thread-pool round trips (a cached run of
 * 6000 samples: ~50 ms against ~400 ms); the event loop is held no longer than that. A miss is
 * asked with existsSync first: a failed read costs an exception, several times the check.
 */
function readEntry(path: string, key: string): unknown {
  if (!existsSync(path)) return null;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return null;
  }
  return parseEntry(text, key);
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
