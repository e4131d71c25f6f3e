import { createHash } from "node:crypto";
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCache } from "../../src/model/cache.js";
import {
  type ChatRequestIdentity,
  canonicalJson,
  chatCacheKeys,
  commandCacheKey,
} from "../../src/model/cache-key.js";

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

/** One sample's key, as a run takes it from the request's keys. */
const chatCacheKey = (identity: ChatRequestIdentity, sample: number) =>
  chatCacheKeys(identity)(sample);

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

  it("are the sha256 of the canonical JSON of the request and the sample", () => {
    const messages = [
      { role: "system", content: "Be brief." },
      { role: "user", content: 'ünïcode \u2028 "quoted"' },
    ] as const;
    const params = { temperature: 0, max_tokens: 20, top_p: 0.9, seed: undefined };
    const full = { ...request, baseURL: "http://h/v1/", messages, params };
    const expected = createHash("sha256")
      .update(
        canonicalJson({
          sample: 2,
          params,
          model: "m",
          messages: messages.map((m) => ({ role: m.role, content: m.content })),
          kind: "chat",
          baseURL: "http://h/v1",
        }),
      )
      .digest("hex");
    expect(chatCacheKey(full, 2)).toBe(expected);
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

const packsOf = (root: string) => readdirSync(join(root, "packs")).sort();
const keyOf = (sample: number) => chatCacheKey(request, sample);

/** Writes one entry per sample as a run would, and closes the run's pack. */
async function writeRun(root: string, samples: readonly number[]): Promise<void> {
  const cache = createCache(root);
  for (const sample of samples) await cache.set(keyOf(sample), { sample });
  expect(await cache.flush()).toEqual([]);
}

describe("createCache", () => {
  it("appends `<key> <json>` lines to a pack of its own and reads them back", async () => {
    const root = join(dir, "a");
    const cache = createCache(root);
    expect(await cache.get(keyOf(0))).toBeNull();
    await cache.set(keyOf(0), { text: "héllo\nwörld", n: [1, 2] });
    await cache.set(keyOf(1), { text: "x".repeat(300_000) });
    // Read back in the same run: a judge prompt asked again by the next sample hits.
    expect(await cache.get(keyOf(0))).toEqual({ text: "héllo\nwörld", n: [1, 2] });
    // Named by time, host, pid and a random part: no clash between the packs of CI machines.
    const host = hostname()
      .replace(/[^A-Za-z0-9]/g, "_")
      .slice(0, 32);
    const name = new RegExp(`^\\d{8}T\\d{9}Z-${host}-${process.pid}-[0-9a-f]{8}\\.open$`);
    expect(packsOf(root)).toEqual([expect.stringMatching(name)]);
    expect(await cache.flush()).toEqual([]);
    const [pack] = packsOf(root);
    expect(pack).toMatch(/\.pack$/);
    const lines = readFileSync(join(root, "packs", pack as string), "utf8").split("\n");
    expect(lines[0]).toBe(`${keyOf(0)} {"text":"héllo\\nwörld","n":[1,2]}`);
    expect(lines).toHaveLength(3);
    const next = createCache(root);
    expect(await next.get(keyOf(1))).toEqual({ text: "x".repeat(300_000) });
    expect(await next.get(keyOf(2))).toBeNull();
    expect(await next.flush()).toEqual([]);
  });

  it("skips a torn last line, garbage and undecodable entries, and stores them again", async () => {
    const root = join(dir, "b");
    await writeRun(root, [0, 1, 2]);
    const path = join(root, "packs", packsOf(root)[0] as string);
    const [first, second, third] = readFileSync(path, "utf8").split("\n");
    // A killed run leaves a line without its newline; a damaged disk, anything.
    writeFileSync(
      path,
      [first, `${keyOf(1)} {"sample":`, "not an entry", third?.slice(0, 40), "", ""].join("\n") +
        (second as string).slice(0, 90),
    );
    const damaged = createCache(root);
    expect(await damaged.get(keyOf(0))).toEqual({ sample: 0 });
    expect(await damaged.get(keyOf(1))).toBeNull();
    expect(await damaged.get(keyOf(2))).toBeNull();
    await damaged.set(keyOf(1), { sample: 1 });
    expect(await damaged.flush()).toEqual([]);
    expect(await createCache(root).get(keyOf(1))).toEqual({ sample: 1 });
  });

  it("lets runs write at once: each its own pack, the next run sees all", async () => {
    const root = join(dir, "c");
    const runs = [createCache(root), createCache(root)];
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => runs[i % 2]?.set(keyOf(i), { i }) ?? Promise.resolve()),
    );
    for (const run of runs) expect(await run.flush()).toEqual([]);
    expect(packsOf(root)).toHaveLength(2);
    const next = createCache(root);
    for (let i = 0; i < 40; i++) expect(await next.get(keyOf(i))).toEqual({ i });
  });

  it("merges closed and stale packs once there are many, and leaves live ones alone", async () => {
    const root = join(dir, "d");
    // A run that died a day ago, and one still running (its pack is young).
    const dead = createCache(root);
    await dead.set(keyOf(50), { sample: 50 });
    const live = createCache(root);
    await live.set(keyOf(60), { sample: 60 });
    // Their appends reach the disk at the end of this turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    // Nine closed packs: one more than are kept apart.
    for (let run = 0; run < 9; run++) await writeRun(root, [run, 100 + run]);
    expect(packsOf(root)).toHaveLength(11);
    // A damaged copy of an entry after the good one is not carried into the merged pack.
    const first = join(root, "packs", packsOf(root).find((n) => n.endsWith(".pack")) as string);
    appendFileSync(first, `${keyOf(0)} {"sample": 0, "tor\n`);
    const [deadPack, livePack] = packsOf(root).filter((n) => n.endsWith(".open"));
    const old = new Date(Date.now() - 25 * 3600 * 1000);
    utimesSync(join(root, "packs", deadPack as string), old, old);
    const reader = createCache(root);
    expect(await reader.get(keyOf(3))).toEqual({ sample: 3 });
    const after = packsOf(root);
    expect(after).toHaveLength(2);
    expect(after).toContain(livePack);
    for (const sample of [0, 8, 100, 108, 50, 60]) {
      expect(await reader.get(keyOf(sample))).toEqual({ sample });
    }
    // The live run's pack keeps taking appends and closes as usual.
    await live.set(keyOf(61), { sample: 61 });
    expect(await live.flush()).toEqual([]);
    expect(await createCache(root).get(keyOf(61))).toEqual({ sample: 61 });
  });

  it("reads, and merges, the packs of many machines copied into one folder without losing one", async () => {
    const shared = join(dir, "shared");
    for (let machine = 0; machine < 12; machine++) {
      const own = join(dir, `machine-${machine}`);
      // Every machine restored the same cache (sample 0), then added samples of its own.
      await writeRun(own, [0, 1 + machine * 2, 2 + machine * 2]);
      cpSync(join(own, "packs"), join(shared, "packs"), { recursive: true });
    }
    expect(packsOf(shared)).toHaveLength(12);
    const cache = createCache(shared);
    for (let sample = 0; sample <= 24; sample++) {
      expect(await cache.get(keyOf(sample))).toEqual({ sample });
    }
    expect(await cache.flush()).toEqual([]);
    // Twelve closed packs are more than a merge lets stand: they became one, whole.
    expect(packsOf(shared)).toHaveLength(1);
    const again = createCache(shared);
    for (let sample = 0; sample <= 24; sample++) {
      expect(await again.get(keyOf(sample))).toEqual({ sample });
    }
    await again.flush();
  });

  it("is closed by flush(): a late set() writes nothing, a late get() misses", async () => {
    const root = join(dir, "i");
    const cache = createCache(root);
    await cache.set(keyOf(0), { sample: 0 });
    expect(await cache.flush()).toEqual([]);
    await cache.set(keyOf(1), { sample: 1 });
    expect(await cache.get(keyOf(0))).toBeNull();
    expect(packsOf(root)).toEqual([expect.stringMatching(/\.pack$/)]);
    expect(await createCache(root).get(keyOf(1))).toBeNull();
  });

  it("reads an earlier copy of an entry when the later one is damaged", async () => {
    const packs = join(dir, "g", "packs");
    mkdirSync(packs, { recursive: true });
    writeFileSync(join(packs, "20260101T000000000Z-1-aaaaaaaa.pack"), `${keyOf(0)} {"sample":0}\n`);
    writeFileSync(join(packs, "20260101T000000001Z-1-bbbbbbbb.pack"), `${keyOf(0)} {"sam\n`);
    expect(await createCache(join(dir, "g")).get(keyOf(0))).toEqual({ sample: 0 });
  });

  it("leaves a pack larger than all the others together out of a merge", async () => {
    const root = join(dir, "h");
    await writeRun(
      root,
      Array.from({ length: 50 }, (_, i) => 1000 + i),
    );
    const [big] = packsOf(root);
    for (let run = 0; run < 8; run++) await writeRun(root, [run]);
    const reader = createCache(root);
    expect(await reader.get(keyOf(1049))).toEqual({ sample: 1049 });
    expect(await reader.get(keyOf(7))).toEqual({ sample: 7 });
    const after = packsOf(root);
    expect(after).toHaveLength(2);
    expect(after).toContain(big);
  });

  it("still reads a pack another run merged away after it was indexed", async () => {
    const root = join(dir, "e");
    await writeRun(root, [0]);
    const reader = createCache(root);
    expect(await reader.get(keyOf(1))).toBeNull();
    const pack = join(root, "packs", packsOf(root)[0] as string);
    renameSync(pack, `${pack}.gone`);
    rmSync(`${pack}.gone`);
    expect(await reader.get(keyOf(0))).toEqual({ sample: 0 });
  });

  it("reports failed writes at flush(), once per run, instead of throwing", async () => {
    const blocker = join(dir, "not-a-folder");
    writeFileSync(blocker, "a file where the cache folder should be");
    const cache = createCache(blocker);
    expect(await cache.get(keyOf(6))).toBeNull();
    await cache.set(keyOf(6), { n: 1 });
    await cache.set(keyOf(7), { n: 2 });
    const warnings = await cache.flush();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^2 cache writes under .*not-a-folder failed \(first: .+\); /);
  });

  it("keeps its answers when the cache folder is removed mid-run", async () => {
    const root = join(dir, "f");
    const cache = createCache(root);
    await cache.set(keyOf(0), { sample: 0 });
    rmSync(root, { recursive: true });
    await cache.set(keyOf(1), { sample: 1 });
    expect(await cache.flush()).toEqual([]);
    const next = createCache(root);
    expect(await next.get(keyOf(0))).toEqual({ sample: 0 });
    expect(await next.get(keyOf(1))).toEqual({ sample: 1 });
  });
});
