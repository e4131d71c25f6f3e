import type { Pricing } from "../config/schema.js";
import type { ChatTarget } from "../model/chat.js";
import type { StoredRow } from "../report/record.js";
import { priceOf, usageCost } from "./price.js";

/**
 * `--max-cost`: a sample starts only while what was spent (earlier attempts of the run
 * included), plus the estimates of the samples in flight, plus its own estimate stays within
 * the cap. Once one is refused, no sample that would call anything starts (the run ends
 * `budget_exceeded`); samples answered wholly from the cache still run. A sample in flight is
 * never cut short, so the spend can pass the cap by what those cost beyond their estimates.
 */
export class Budget {
  private spent = 0;
  private reserved = 0;
  private refused = false;

  constructor(readonly maxCost: number) {}

  get exceeded(): boolean {
    return this.refused;
  }

  get spentSoFar(): number {
    return this.spent;
  }

  /** Whether a sample estimated at `cost` may start; if so, its estimate is held until `release`. */
  admit(cost: number): boolean {
    if (cost === 0) return true;
    if (this.refused || this.spent + this.reserved + cost > this.maxCost) {
      this.refused = true;
      return false;
    }
    this.reserved += cost;
    return true;
  }

  release(cost: number): void {
    this.reserved -= cost;
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
