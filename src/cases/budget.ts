import type { Pricing } from "../config/schema.js";
import type { ChatTarget } from "../model/chat.js";
import type { StoredRow } from "../report/record.js";
import { priceOf, usageCost } from "./price.js";

/** What the runs sharing one `--max-cost` have spent and hold (one run: one arm). */
class Ledger {
  spent = 0;
  reserved = 0;
  inFlight = 0;
  refused = false;
  waiting: (() => void)[] = [];
  /** Per arm: what its samples spent and hold; whether its run has ended. */
  readonly committed: number[];
  readonly ended: boolean[];

  constructor(
    readonly maxCost: number,
    arms: number,
  ) {
    this.committed = Array<number>(arms).fill(0);
    this.ended = Array<boolean>(arms).fill(false);
  }

  wakeAll(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resume of waiting) resume();
  }
}

/**
 * `--max-cost`: a sample starts only while what was spent (earlier attempts of the run
 * included), plus the estimates of the samples in flight, plus its own estimate stays within
 * the cap. A sample that would pass it waits while samples are in flight (they often cost less
 * than their estimates); with none in flight, it is refused, and from then on no sample that
 * would call anything starts (the run ends `budget_exceeded`); samples answered wholly from the
 * cache still run. A sample in flight is never cut short, so the spend can pass the cap by what
 * those cost beyond their estimates.
 *
 * Arms sharing one budget (SharedBudget) each get a fair share: an arm past cap / arms waits
 * while another arm's run goes on and samples are in flight, so the first arm to start does not
 * spend the cap alone; with nothing in flight, only the cap counts.
 */
export class Budget {
  private readonly ledger: Ledger;
  private readonly arm: number;

  constructor(
    readonly maxCost: number,
    shared?: { ledger: Ledger; arm: number },
  ) {
    this.ledger = shared?.ledger ?? new Ledger(maxCost, 1);
    this.arm = shared?.arm ?? 0;
  }

  get exceeded(): boolean {
    return this.ledger.refused;
  }

  /** What every run sharing the budget spent. */
  get spentSoFar(): number {
    return this.ledger.spent;
  }

  /**
   * Whether a sample estimated at `cost` may start ("yes": its estimate is held until
   * `release`), must wait for a sample in flight to end ("wait"), or is refused.
   */
  private admit(cost: number): "yes" | "wait" | "no" {
    if (cost === 0) return "yes";
    const l = this.ledger;
    if (l.refused) return "no";
    if (l.spent + l.reserved + cost > l.maxCost) {
      if (l.inFlight > 0) return "wait";
      l.refused = true;
      return "no";
    }
    if (l.inFlight > 0 && this.pastShare(cost)) return "wait";
    l.reserved += cost;
    l.committed[this.arm]! += cost;
    l.inFlight++;
    return "yes";
  }

  /** Past its share of the cap while another arm's run goes on. */
  private pastShare(cost: number): boolean {
    const { committed, ended, maxCost } = this.ledger;
    const others = ended.some((done, arm) => !done && arm !== this.arm);
    return others && committed[this.arm]! + cost > maxCost / committed.length;
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
      await new Promise<void>((resolve) => this.ledger.waiting.push(resolve));
    }
  }

  release(cost: number): void {
    if (cost === 0) return;
    const l = this.ledger;
    l.reserved -= cost;
    l.committed[this.arm]! -= cost;
    l.inFlight--;
    l.wakeAll();
  }

  spend(cost: number): void {
    this.ledger.spent += cost;
    this.ledger.committed[this.arm]! += cost;
  }

  /** The arm's run has ended: its share goes to the others. */
  end(): void {
    this.ledger.ended[this.arm] = true;
    this.ledger.wakeAll();
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

/**
 * One `--max-cost` for several runs (eb eval's arms, all planned before any sample): each
 * arm's Budget draws on one ledger, so the cap is the command's total.
 */
export class SharedBudget {
  private ledger: Ledger | null = null;
  private arms = 0;

  constructor(private readonly count: number) {}

  of(maxCost: number): Budget {
    this.ledger ??= new Ledger(maxCost, this.count);
    return new Budget(maxCost, { ledger: this.ledger, arm: this.arms++ });
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
