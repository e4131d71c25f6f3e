import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ChatRequestIdentity,
  canonicalJson,
  chatCacheKey,
  commandCacheKey,
  createCache,
} from "../../src/model/cache.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "eb-cache-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const request: ChatRequestIdentity = {
  baseURL: "http://127.0.0.1:9/v1",
  model: "m",
  messages: [{ role: "user", content: "hi" }],
  params: { temperature: 0.7, max_tokens: undefined },
};

describe("canonicalJson", () => {
  it("sorts keys at every depth and drops undefined", () => {
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: undefined, b: null }], c: { z: 1, y: 2 } })).toBe(
      '{"a":[{"b":null,"d":1}],"b":1,"c":{"y":2,"z":1}}',
    );
  });
});

describe("cache keys", () => {
  const key = chatCacheKey(request, 0);

  it("are sha256 hex and stable", () => {
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(
      chatCacheKey({ ...request, params: { max_tokens: undefined, temperature: 0.7 } }, 0),
    ).toBe(key);
    expect(chatCacheKey({ ...request, baseURL: "http://127.0.0.1:9/v1/" }, 0)).toBe(key);
  });

  it("change with the sample index and every part of the request", () => {
    const variants = [
      chatCacheKey(request, 1),
      chatCacheKey({ ...request, params: { temperature: 0 } }, 0),
      chatCacheKey({ ...request, params: { temperature: 0.7, max_tokens: 10 } }, 0),
      chatCacheKey({ ...request, model: "m2" }, 0),
      chatCacheKey({ ...request, messages: [{ role: "user", content: "hi!" }] }, 0),
      chatCacheKey({ ...request, messages: [{ role: "system", content: "hi" }] }, 0),
      chatCacheKey({ ...request, baseURL: "http://127.0.0.1:10/v1" }, 0),
    ];
    expect(new Set([key, ...variants]).size).toBe(variants.length + 1);
  });

  it("never see an API key: only the named fields are hashed", () => {
    const withKey = { ...request, apiKey: "sk-test-SECRET123" };
    expect(chatCacheKey(withKey, 0)).toBe(key);
  });

  it("for commands change with the command, the folder, the input and the sample", () => {
    const base = { command: "node a.mjs", cwd: "/x", input: { id: "a" } };
    const keys = [
      commandCacheKey(base, 0),
      commandCacheKey(base, 1),
      commandCacheKey({ ...base, command: "node b.mjs" }, 0),
      commandCacheKey({ ...base, cwd: "/y" }, 0),
      commandCacheKey({ ...base, input: { id: "b" } }, 0),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe("createCache", () => {
  it("stores under <2 hex>/<key>.json and reads it back", async () => {
    const cache = createCache(join(dir, "a"));
    const key = chatCacheKey(request, 0);
    expect(await cache.get(key)).toBeNull();
    await cache.set(key, { text: "hello", n: [1, 2] });
    expect(await cache.get(key)).toEqual({ text: "hello", n: [1, 2] });
    expect(await cache.flush()).toEqual([]);
    const files = await readdir(join(dir, "a", key.slice(0, 2)));
    expect(files).toEqual([`${key}.json`]);
    expect(await createCache(join(dir, "a")).get(key)).toEqual({ text: "hello", n: [1, 2] });
  });

  it("treats a truncated or foreign file as a miss, and overwrites it", async () => {
    const cache = createCache(join(dir, "b"));
    const key = chatCacheKey(request, 3);
    await cache.set(key, { text: "x" });
    await cache.flush();
    const path = join(dir, "b", key.slice(0, 2), `${key}.json`);
    const full = await readFile(path, "utf8");
    await writeFile(path, full.slice(0, full.length - 5));
    expect(await cache.get(key)).toBeNull();
    await writeFile(path, JSON.stringify({ key: "other", value: { text: "x" } }));
    expect(await cache.get(key)).toBeNull();
    await writeFile(path, "");
    expect(await cache.get(key)).toBeNull();
    await cache.set(key, { text: "y" });
    await cache.flush();
    expect(await createCache(join(dir, "b")).get(key)).toEqual({ text: "y" });
  });

  it("survives parallel writers of one key and leaves no temp files", async () => {
    const caches = [createCache(join(dir, "c")), createCache(join(dir, "c"))];
    const key = chatCacheKey(request, 4);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => caches[i % 2]?.set(key, { i }) ?? Promise.resolve()),
    );
    for (const cache of caches) expect(await cache.flush()).toEqual([]);
    expect(await createCache(join(dir, "c")).get(key)).toHaveProperty("i");
    expect(await readdir(join(dir, "c", key.slice(0, 2)))).toEqual([`${key}.json`]);
  });

  it("serves an entry from memory while it is written, and lands it by flush()", async () => {
    const root = join(dir, "d");
    const cache = createCache(root);
    const keys = Array.from({ length: 200 }, (_, i) => chatCacheKey(request, 100 + i));
    for (const [i, key] of keys.entries()) await cache.set(key, { i });
    // set() returned before the files were written; reads still see every value.
    for (const [i, key] of keys.entries()) expect(await cache.get(key)).toEqual({ i });
    expect(await cache.flush()).toEqual([]);
    const disk = createCache(root);
    for (const [i, key] of keys.entries()) expect(await disk.get(key)).toEqual({ i });
  });

  it("writes again into a folder removed after it was made", async () => {
    const root = join(dir, "e");
    const cache = createCache(root);
    const key = chatCacheKey(request, 5);
    const file = join(root, key.slice(0, 2), `${key}.json`);
    await cache.set(key, { n: 1 });
    // The writer is still running (no flush yet) and believes the folder exists.
    const end = Date.now() + 5000;
    while (!existsSync(file) && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
    await rm(root, { recursive: true, force: true });
    await cache.set(key, { n: 2 });
    expect(await cache.flush()).toEqual([]);
    expect(await createCache(root).get(key)).toEqual({ n: 2 });
  });

  it("reports failed writes once, at flush(), instead of throwing", async () => {
    const blocker = join(dir, "not-a-folder");
    await writeFile(blocker, "a file where the cache folder should be");
    const cache = createCache(blocker);
    await cache.set(chatCacheKey(request, 6), { n: 1 });
    await cache.set(chatCacheKey(request, 7), { n: 2 });
    const warnings = await cache.flush();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^2 cache writes under .*not-a-folder failed \(first: .+\); /);
    expect(await cache.flush()).toHaveLength(1);
  });
});
