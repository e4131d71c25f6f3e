import type { Pricing } from "../config/schema.js";
import type { ChatTarget } from "../model/chat.js";
import type { StoredRow } from "../report/record.js";
import { priceOf, usageCost } from "./price.js";

/**
 * `--max-cost`: a sample starts only while what was spent (earlier attempts of the run
 * included), plus the estimates of the samples in flight, plus its own estimate stays within
 * the cap. A sample that would pass it waits while samples are in flight (they often cost less
 * than their estimates); with none in flight, it is refused, and from then on no sample that
 * would call anything starts (the run ends `budget_exceeded`); samples answered wholly from the
 * cache still run. A sample in flight is never cut short, so the spend can pass the cap by what
 * those cost beyond their estimates.
 */
export class Budget {
  private spent = 0;
  private reserved = 0;
  private inFlight = 0;
  private refused = false;
  private waiting: (() => void)[] = [];

  constructor(readonly maxCost: number) {}

  get exceeded(): boolean {
    return this.refused;
  }

  get spentSoFar(): number {
    return this.spent;
  }

  /**
   * Whether a sample estimated at `cost` may start ("yes": its estimate is held until
   * `release`), must wait for a sample in flight to end ("wait"), or is refused.
   */
  private admit(cost: number): "yes" | "wait" | "no" {
    if (cost === 0) return "yes";
    if (this.refused) return "no";
    if (this.spent + this.reserved + cost <= this.maxCost) {
      this.reserved += cost;
      this.inFlight++;
      return "yes";
    }
    if (this.inFlight > 0) return "wait";
    this.refused = true;
    return "no";
  }

  /**
   * A sample's estimate once it is admitted (held until `release`), waiting for the samples in
   * flight as long as `admit` says so; null when refused (or interrupted while it waited). The
   * estimate is asked again after each wait: the answers seen meanwhile may have changed it.
   */
  async take(estimate: () => Promise<number>, signal?: AbortSignal): Promise<number | null> {
    for (;;) {
      const cost = await estimate();
      const answer = this.admit(cost);
      if (answer === "yes") return cost;
      if (answer === "no" || signal?.aborted) return null;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  release(cost: number): void {
    if (cost === 0) return;
    this.reserved -= cost;
    this.inFlight--;
    const waiting = this.waiting;
    this.waiting = [];
    for (const resume of waiting) resume();
  }

  spend(cost: number): void {
    this.spent += cost;
  }

  /** What an earlier attempt's row cost (a cached target answer: its judge calls only). */
  restore(row: StoredRow, pricing: Pricing, judgeModel: string | null): void {
    const target =
      row.cached === true || row.model == null
        ? 0
        : (priceOf(pricing, row.model, row.prompt_tokens ?? 0, row.completion_tokens ?? 0) ?? 0);
    const judge =
      judgeModel === null
        ? 0
        : (priceOf(
            pricing,
            judgeModel,
            row.judge_prompt_tokens ?? 0,
            row.judge_completion_tokens ?? 0,
          ) ?? 0);
    this.spend(target + judge);
  }
}

/** Counts what every call that was not answered from the cache cost. */
export function metered(chat: ChatTarget, budget: Budget, pricing: Pricing): ChatTarget {
  return {
    complete: async (request, sample, signal) => {
      const result = await chat.complete(request, sample, signal);
      if (!result.cached) budget.spend(usageCost(pricing, request, result));
      return result;
    },
  };
}
