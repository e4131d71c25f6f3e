import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { StatusError, withRetries } from "../../src/model/retry.js";

beforeEach(() => {
  vi.useFakeTimers();
  // No jitter: the waits are the backoff itself.
  vi.spyOn(Math, "random").mockReturnValue(0);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** The waits between the attempts of a call whose every attempt fails with a 500. */
async function waitsBetweenAttempts(maxRetries: number, maxWaitMs: number): Promise<number[]> {
  const startedAt: number[] = [];
  const call = withRetries({ maxRetries, maxWaitMs }, undefined, () => {
    startedAt.push(Date.now());
    return Promise.reject(new StatusError(500, {}, "500 server error"));
  });
  const settled = call.then(
    () => null,
    (error: unknown) => error,
  );
  await vi.runAllTimersAsync();
  expect(await settled).toBeInstanceOf(StatusError);
  return startedAt.slice(1).map((at, i) => at - startedAt[i]!);
}

describe("withRetries", () => {
  it("backs off from 0.5 s, doubling, never more than 8 s a wait without a Retry-After", async () => {
    const waits = await waitsBetweenAttempts(7, 60_000);
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it("waits no longer than the policy's cap, below the backoff's own", async () => {
    expect(await waitsBetweenAttempts(4, 1500)).toEqual([500, 1000, 1500, 1500]);
  });
});
