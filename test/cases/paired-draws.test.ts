import { describe, expect, it } from "vitest";
import { type PairedDrawOptions, PairedDraws } from "../../src/cases/paired-draws.js";
import type { StoredRow } from "../../src/report/record.js";
import { createRng } from "../../src/stats/rng.js";

const CASES = Array.from({ length: 30 }, (_, i) => `case${i}`);

/** A sample's score: a fixed coin per arm, case and sample (flaky cases pass 70%, arm 1 less `drop`). */
function scoreOf(arm: number, id: string, sample: number, drop: number): number {
  const seed = [...`${arm}/${id}/${sample}`].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
  const u = createRng(seed).uniform();
  const index = Number(id.slice(4));
  const p = (index < 6 ? 0.7 : 1) - (arm === 1 ? drop : 0);
  return u < p ? 1 : 0;
}

interface Drive {
  workers: number;
  /** Seed of how many turns each sample takes: the order samples come back in. */
  timing: number;
  drop?: number;
  /** Abort once this many samples are settled: an interrupt. */
  interruptAfter?: number;
  restore?: { id: string; sample: number; score: number }[][];
}

/** Runs both arms as the run engine does: `workers` lanes each, samples coming back out of order. */
async function drive(options: Omit<PairedDrawOptions, "cases">, how: Drive) {
  const draws = new PairedDraws({ cases: CASES, ...options });
  const rows: { id: string; sample: number; score: number }[][] = [[], []];
  for (const [arm, restored] of (how.restore ?? []).entries()) {
    for (const row of restored) {
      draws.arms[arm]!.restore(row as unknown as StoredRow);
      rows[arm]!.push(row);
    }
  }
  const rng = createRng(how.timing);
  const stop = new AbortController();
  let settled = 0;
  const lane = async (arm: number) => {
    for (;;) {
      const next = await draws.arms[arm]!.next(stop.signal);
      if (next === null) return;
      const turns = Math.floor(rng.uniform() * 20);
      for (let i = 0; i < turns; i++) await null;
      // An interrupted sample is not a result.
      if (stop.signal.aborted) return;
      const score = scoreOf(arm, next.id, next.sample, how.drop ?? 0);
      rows[arm]!.push({ ...next, score });
      draws.arms[arm]!.settled(next.id, next.sample, score);
      if (++settled === how.interruptAfter) stop.abort();
    }
  };
  await Promise.all([0, 1].flatMap((arm) => Array.from({ length: how.workers }, () => lane(arm))));
  return { result: draws.result(), rows };
}

const OPTIONS = { margin: 0.1, maxK: 10, seed: 3, window: 6, maxSamples: null };

describe("PairedDraws: the draws two arms share", () => {
  it("picks the same cases whatever order the samples come back in", async () => {
    const a = await drive(OPTIONS, { workers: 6, timing: 1 });
    const b = await drive(OPTIONS, { workers: 3, timing: 2 });
    expect(a.result.decision).toEqual(b.result.decision);
    expect(a.result.decision.verdict).toBe("pass");
    expect(a.result.decision.samples).toBeLessThan(10 * CASES.length);
  });

  it("finds a regression, and stops within the window of the step that decided", async () => {
    const { result, rows } = await drive(OPTIONS, { workers: 6, timing: 1, drop: 0.5 });
    expect(result.decision).toMatchObject({ verdict: "regression", reason: "decided" });
    expect(result.interval[1]).toBeLessThan(0);
    for (const arm of rows) expect(arm.length).toBeLessThanOrEqual(result.decision.samples + 6);
  });

  it("a resumed run replays its rows and ends as the uninterrupted run does", async () => {
    const whole = await drive(OPTIONS, { workers: 4, timing: 5, drop: 0.05 });
    const cut = await drive(OPTIONS, { workers: 4, timing: 5, drop: 0.05, interruptAfter: 60 });
    expect(cut.rows[0]!.length + cut.rows[1]!.length).toBeLessThan(whole.rows[0]!.length);
    const resumed = await drive(OPTIONS, { workers: 2, timing: 9, drop: 0.05, restore: cut.rows });
    expect(resumed.result.decision).toEqual(whole.result.decision);
    expect(resumed.result.interval).toEqual(whole.result.interval);
  });

  it("stops undecided at --max-samples: inconclusive, for the budget", async () => {
    const { result, rows } = await drive({ ...OPTIONS, maxSamples: 24 }, { workers: 4, timing: 1 });
    expect(result.decision).toMatchObject({
      verdict: "inconclusive",
      reason: "budget",
      samples: 12,
    });
    expect(rows.map((arm) => arm.length)).toEqual([12, 12]);
  });

  it("stops undecided at --max-k", async () => {
    const { result } = await drive(
      { ...OPTIONS, maxK: 1, margin: 0.01 },
      { workers: 4, timing: 1, drop: 0.01 },
    );
    expect(result.decision).toMatchObject({
      verdict: "inconclusive",
      reason: "max-k",
      samples: 30,
    });
  });

  it("a sample the budget refuses stops the run for the budget", async () => {
    const draws = new PairedDraws({ cases: CASES, ...OPTIONS });
    const signal = new AbortController().signal;
    const [first, second] = [draws.arms[0]!, draws.arms[1]!];
    const [a, b] = await Promise.all([first.next(signal), second.next(signal)]);
    first.settled(a!.id, a!.sample, 1);
    second.settled(b!.id, b!.sample, null);
    expect(draws.result().decision).toMatchObject({ verdict: "inconclusive", reason: "budget" });
    expect(await first.next(signal)).toBeNull();
  });
});
