import type { CaseConcurrency } from "../report/record.js";
import { InterruptedError } from "./abort.js";

/**
 * How many calls to one model at one endpoint are in flight at once, adapted to its rate limit
 * the way TCP adapts to a network (and Inspect AI to a provider):
 *
 * - slow start: from `start`, the limit doubles after each round of calls that all succeeded
 *   (a round: as many successes as the limit), until the first rate-limit answer;
 * - then additive increase: +5% of the limit (at least 1) per clean round;
 * - multiplicative decrease: a rate-limit answer (429, or 503 with Retry-After) cuts the limit
 *   to 80%, once per burst: an answer to a call that started before the last cut belongs to the
 *   burst that cut already answered for (those calls were launched under the old limit). What
 *   started before a cut says nothing about the new limit either, so its successes do not count
 *   towards growth;
 * - any other error neither shrinks nor grows it;
 * - never above `max`, never below 1.
 *
 * A call waiting before a retry holds no slot: Retry-After delays that call, and the cut, not a
 * pause of everything, slows the others. A pinned limiter (`--workers N`) never changes.
 */
export interface LimiterOptions {
  start: number;
  max: number;
  /** False: the limit stays at `start`. */
  adaptive: boolean;
  /** Whether a failed call was the endpoint saying "too many requests". */
  isRateLimit: (error: unknown) => boolean;
  /** Milliseconds, for the history (default performance.now). */
  now?: () => number;
}

/** [ms since the first call, limit from then on]. */
export type LimitChange = [number, number];

/** What the manifest keeps of one limiter (its schema is in report/record.ts). */
type LimiterRecord = CaseConcurrency["models"][string];

const DECREASE = 0.8;
const INCREASE = 0.05;
/** Entries kept in a limiter's history: the manifest line has a few KB of room for all of it. */
export const HISTORY_LIMIT = 60;

export class ConcurrencyLimiter {
  private current: number;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  /** Cuts so far: a call remembers the epoch it started in. */
  private epoch = 0;
  private slowStart = true;
  private successes = 0;
  private rateLimited = 0;
  private origin: number | null = null;
  private readonly changes: LimitChange[] = [];
  private dropped = 0;
  private readonly now: () => number;

  constructor(private readonly options: LimiterOptions) {
    this.current = Math.max(1, Math.min(options.start, options.max));
    this.now = options.now ?? (() => performance.now());
  }

  get limit(): number {
    return this.current;
  }

  /** Runs `work` once a slot is free; rejects with InterruptedError if `signal` aborts first. */
  async run<T>(signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
    await this.acquire(signal);
    const epoch = this.epoch;
    try {
      const result = await work();
      this.succeeded(epoch);
      return result;
    } catch (error) {
      if (this.options.isRateLimit(error)) this.limited(epoch);
      throw error;
    } finally {
      this.inFlight--;
      this.wake();
    }
  }

  record(): LimiterRecord {
    return {
      history: this.changes.map(([ms, limit]) => [Math.round(ms), limit]),
      ...(this.dropped > 0 ? { changes_not_listed: this.dropped } : {}),
      rate_limited: this.rateLimited,
    };
  }

  private acquire(signal: AbortSignal | undefined): Promise<void> {
    if (this.origin === null) {
      this.origin = this.now();
      this.changes.push([0, this.current]);
    }
    if (signal?.aborted) return Promise.reject(new InterruptedError());
    if (this.inFlight < this.current && this.waiting.length === 0) {
      this.inFlight++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiting.indexOf(start);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new InterruptedError());
      };
      const start = () => {
        signal?.removeEventListener("abort", onAbort);
        this.inFlight++;
        resolve();
      };
      this.waiting.push(start);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  private wake(): void {
    while (this.inFlight < this.current && this.waiting.length > 0) this.waiting.shift()?.();
  }

  private succeeded(epoch: number): void {
    if (!this.options.adaptive || epoch !== this.epoch) return;
    if (++this.successes < this.current) return;
    this.successes = 0;
    const step = this.slowStart ? this.current : Math.max(1, Math.round(this.current * INCREASE));
    this.change(Math.min(this.current + step, this.options.max));
  }

  private limited(epoch: number): void {
    this.rateLimited++;
    if (!this.options.adaptive || epoch !== this.epoch) return;
    this.epoch++;
    this.slowStart = false;
    this.successes = 0;
    this.change(Math.max(1, Math.floor(this.current * DECREASE)));
  }

  private change(limit: number): void {
    if (limit === this.current) return;
    this.current = limit;
    this.changes.push([this.now() - (this.origin ?? 0), limit]);
    if (this.changes.length > HISTORY_LIMIT) {
      // The first entry says where the run started; the latest say where it settled.
      this.changes.splice(1, 1);
      this.dropped++;
    }
    this.wake();
  }
}

/** One limiter per endpoint and model, shared by every target and judge of a run. */
export class Limiters {
  private readonly byKey = new Map<string, { model: string; limiter: ConcurrencyLimiter }>();

  constructor(private readonly options: LimiterOptions) {}

  of(baseURL: string, model: string): ConcurrencyLimiter {
    const key = `${baseURL}\u0000${model}`;
    let entry = this.byKey.get(key);
    if (entry === undefined) {
      entry = { model, limiter: new ConcurrencyLimiter(this.options) };
      this.byKey.set(key, entry);
    }
    return entry.limiter;
  }

  /** The current limit of a model's limiter, or null before its first call. */
  limitOf(model: string): number | null {
    for (const entry of this.byKey.values()) if (entry.model === model) return entry.limiter.limit;
    return null;
  }

  /** By model (a run has one endpoint). */
  records(): Record<string, LimiterRecord> {
    return Object.fromEntries(
      [...this.byKey.values()].map(({ model, limiter }) => [model, limiter.record()]),
    );
  }
}
