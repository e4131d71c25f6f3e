import { afterEach, describe, expect, it } from "vitest";
import { createChatTarget } from "../../src/model/chat.js";
import { Limiters } from "../../src/model/limiter.js";
import { isRateLimit } from "../../src/model/retry.js";
import { type FaultServer, reply, startFaultServer } from "../faults/fault-server.js";
import { completion, lastContent } from "../helpers/loopback-server.js";

let server: FaultServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function chat(baseURL: string, limiters: Limiters) {
  return createChatTarget({
    baseURL,
    apiKey: "sk-test",
    timeoutMs: 5000,
    maxRetries: 2,
    maxRetryWaitMs: 5000,
    cache: null,
    limiters,
  });
}

const ask = (content: string) => ({
  model: "m",
  messages: [{ role: "user" as const, content }],
  temperature: 0,
});

describe("the limiter behind a chat target", () => {
  it("Retry-After delays the call it answered, not the others, and the burst cuts the limit once", async () => {
    const limited = new Set<string>();
    server = await startFaultServer((request) => {
      const content = lastContent(request);
      // "slow" is refused once with a wait; every other call is answered after 50 ms.
      if (content === "slow" && !limited.has(content)) {
        limited.add(content);
        return reply({ error: { message: "Rate limit" } }, 429, { "retry-after-ms": "1500" });
      }
      return { kind: "delay", ms: 50, next: reply(completion(`echo: ${content}`)) };
    });
    const limiters = new Limiters({ start: 4, max: 64, adaptive: true, isRateLimit });
    const target = chat(server.baseURL, limiters);
    const started = performance.now();
    const finished = new Map<string, number>();
    const names = ["slow", ...Array.from({ length: 11 }, (_, i) => `fast-${i}`)];
    await Promise.all(
      names.map(async (name) => {
        await target.complete(ask(name), 0);
        finished.set(name, performance.now() - started);
      }),
    );
    const slow = finished.get("slow") ?? 0;
    expect(slow).toBeGreaterThanOrEqual(1500);
    const fast = names.slice(1).map((name) => finished.get(name) ?? Number.POSITIVE_INFINITY);
    // 11 calls of 50 ms through at most 4 slots (3 after the cut) end before the wait does; were
    // they held by it, they would end after the slow call. An order, not a time: other test
    // files on the same cores stretch every time alike.
    expect(Math.max(...fast)).toBeLessThan(slow);
    const record = limiters.records().m;
    expect(record?.rate_limited).toBe(1);
    // Cut once, 4 → 3, then growing additively again on the successes after the cut.
    const limits = record?.history.map(([, limit]) => limit ?? Number.NaN);
    expect(limits?.slice(0, 2)).toEqual([4, 3]);
    expect(limits?.slice(1)).toEqual([...(limits?.slice(1) ?? [])].sort((a, b) => a - b));
    expect(server.requests).toHaveLength(13);
  });

  it("a 503 without Retry-After is an error like any other: the limit stays", async () => {
    let count = 0;
    server = await startFaultServer(() =>
      count++ % 2 === 0 ? reply({ error: { message: "busy" } }, 503) : reply(completion("ok")),
    );
    const limiters = new Limiters({ start: 4, max: 64, adaptive: true, isRateLimit });
    const target = chat(server.baseURL, limiters);
    await Promise.all(Array.from({ length: 3 }, (_, i) => target.complete(ask(`q${i}`), 0)));
    expect(limiters.records().m?.rate_limited).toBe(0);
    expect(limiters.limitOf("m")).toBe(4);
  });
});
