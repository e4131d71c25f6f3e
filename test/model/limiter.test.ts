import { describe, expect, it } from "vitest";
import { InterruptedError } from "../../src/model/abort.js";
import {
  ConcurrencyLimiter,
  HISTORY_LIMIT,
  type LimiterOptions,
  Limiters,
} from "../../src/model/limiter.js";

class RateLimited extends Error {}

/** A call the test settles by hand, and what the limiter let through. */
interface Pending {
  started: boolean;
  settle(outcome: "ok" | "429" | "500"): Promise<void>;
}

function harness(options: Partial<LimiterOptions> = {}) {
  let clock = 0;
  const limiter = new ConcurrencyLimiter({
    start: 8,
    max: 64,
    adaptive: true,
    isRateLimit: (error) => error instanceof RateLimited,
    now: () => clock,
    ...options,
  });
  let inFlight = 0;
  let peak = 0;
  const call = (signal?: AbortSignal): Pending & { done: Promise<unknown> } => {
    let finish: (outcome: "ok" | "429" | "500") => void = () => {};
    const state = { started: false };
    const done = limiter
      .run(signal, () => {
        state.started = true;
        peak = Math.max(peak, ++inFlight);
        return new Promise<string>((resolve, reject) => {
          finish = (outcome) => {
            inFlight--;
            if (outcome === "ok") resolve("ok");
            else reject(outcome === "429" ? new RateLimited() : new Error("HTTP 500"));
          };
        });
      })
      .catch((error: unknown) => error);
    return {
      get started() {
        return state.started;
      },
      done,
      async settle(outcome) {
        finish(outcome);
        await done;
        await flush();
      },
    };
  };
  const calls = async (n: number, signal?: AbortSignal) => {
    const made = Array.from({ length: n }, () => call(signal));
    await flush();
    return made;
  };
  /** Runs `n` calls to completion with `outcome`, as many at once as the limiter allows. */
  const round = async (n: number, outcome: "ok" | "429" | "500" = "ok") => {
    const made = await calls(n);
    for (const pending of made) await pending.settle(outcome);
  };
  return {
    limiter,
    call,
    calls,
    round,
    tick: (ms: number) => {
      clock += ms;
    },
    peak: () => peak,
  };
}

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe("ConcurrencyLimiter", () => {
  it("slow start: starts at 8 and doubles after each clean round, up to max", async () => {
    const h = harness();
    expect(h.limiter.limit).toBe(8);
    await h.round(8);
    expect(h.limiter.limit).toBe(16);
    await h.round(16);
    expect(h.limiter.limit).toBe(32);
    await h.round(32);
    expect(h.limiter.limit).toBe(64);
    await h.round(200);
    expect(h.limiter.limit).toBe(64);
    expect(h.peak()).toBeLessThanOrEqual(64);
  });

  it("never lets more calls run than the limit", async () => {
    const h = harness();
    const made = await h.calls(20);
    expect(made.filter((c) => c.started)).toHaveLength(8);
    await made[0]!.settle("ok");
    expect(made.filter((c) => c.started)).toHaveLength(9);
    expect(h.peak()).toBe(8);
    for (const pending of made) await pending.settle("ok");
  });

  it("cuts once per burst: the 429s of calls launched before the cut count as one", async () => {
    const h = harness({ start: 20 });
    const burst = await h.calls(20);
    for (const pending of burst) await pending.settle("429");
    expect(h.limiter.limit).toBe(16);
    // A call launched under the new limit that is refused again is a new burst.
    const [next] = await h.calls(1);
    await next!.settle("429");
    expect(h.limiter.limit).toBe(12);
    expect(h.limiter.record().rate_limited).toBe(21);
  });

  it("after the first cut grows additively, and not on what started before the cut", async () => {
    const h = harness({ start: 20 });
    const before = await h.calls(20);
    await before[0]!.settle("429");
    expect(h.limiter.limit).toBe(16);
    for (const pending of before.slice(1)) await pending.settle("ok");
    expect(h.limiter.limit).toBe(16);
    await h.round(16);
    expect(h.limiter.limit).toBe(17);
    await h.round(17);
    expect(h.limiter.limit).toBe(18);
  });

  it("never shrinks (nor grows) on other errors", async () => {
    const h = harness();
    await h.round(40, "500");
    expect(h.limiter.limit).toBe(8);
    expect(h.limiter.record()).toEqual({ history: [[0, 8]], rate_limited: 0 });
  });

  it("pinned: the limit never moves, whatever the answers", async () => {
    const h = harness({ adaptive: false, start: 5 });
    await h.round(30);
    await h.round(10, "429");
    expect(h.limiter.limit).toBe(5);
    expect(h.peak()).toBe(5);
  });

  it("a call still waiting for a slot is dropped at once when its signal aborts", async () => {
    const h = harness({ start: 1 });
    const [first] = await h.calls(1);
    const controller = new AbortController();
    const [waiting] = await h.calls(1, controller.signal);
    controller.abort();
    expect(await waiting!.done).toBeInstanceOf(InterruptedError);
    const [after] = await h.calls(1);
    await first!.settle("ok");
    expect(after!.started).toBe(true);
    expect(waiting!.started).toBe(false);
  });

  it("records the limit at each change, in ms since the first call, bounded in size", async () => {
    const h = harness();
    await h.round(1);
    h.tick(250);
    await h.round(7);
    expect(h.limiter.record().history).toEqual([
      [0, 8],
      [250, 16],
    ]);
    const long = harness({ start: 40 });
    for (let i = 0; i < HISTORY_LIMIT * 2; i++) {
      long.tick(10);
      await long.round(1, i % 2 === 0 ? "429" : "ok");
      await long.round(long.limiter.limit);
    }
    const record = long.limiter.record();
    expect(record.history).toHaveLength(HISTORY_LIMIT);
    expect(record.history[0]).toEqual([0, 40]);
    expect(record.changes_not_listed).toBeGreaterThan(0);
  });
});

describe("Limiters", () => {
  it("one limiter per endpoint and model: a target and a judge of one model share it", () => {
    const limiters = new Limiters({ start: 8, max: 64, adaptive: true, isRateLimit: () => false });
    const target = limiters.of("http://a/v1", "m");
    expect(limiters.of("http://a/v1", "m")).toBe(target);
    expect(limiters.of("http://a/v1", "judge")).not.toBe(target);
    expect(limiters.of("http://b/v1", "m")).not.toBe(target);
  });
});
