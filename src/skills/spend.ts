import { Budget } from "../cases/budget.js";
import { priceOf } from "../cases/price.js";
import type { Pricing } from "../config/schema.js";
import { InputError } from "../errors.js";
import type { CaseRow, StoredRow } from "../report/record.js";

/**
 * `--max-cost` of a skill run: one budget for both arms, the agent's samples and the judge's
 * calls together (the judge's are metered where they are sent). An agent sample is priced from
 * the tokens its transcript reports at its model's [pricing]; before it starts it is estimated
 * at the mean of the agent samples finished so far, and never at nothing, so that once the cap
 * is spent no agent starts.
 */
export class AgentSpend {
  private total = 0;
  private count = 0;

  private constructor(
    private readonly budget: Budget | null,
    private readonly pricing: Pricing,
    private readonly judgeModel: string | null,
  ) {}

  /** The budget of `maxCost` (null: no cap), its models' prices checked before anything runs. */
  static of(
    budget: Budget | null,
    plan: { maxCost: number | null; pricing: Pricing; model: string; judgeModel: string | null },
  ): AgentSpend {
    if (plan.maxCost === null) return new AgentSpend(null, plan.pricing, plan.judgeModel);
    if (plan.pricing[plan.model] === undefined) {
      throw new InputError(
        `--max-cost needs a price for the agent's model "${plan.model}": pass -m MODEL and add [pricing."${plan.model}"] with input_per_mtok and output_per_mtok to the config; nothing was run`,
      );
    }
    return new AgentSpend(budget ?? new Budget(plan.maxCost), plan.pricing, plan.judgeModel);
  }

  get budgetBlock(): { max_cost: number; spent: number } | null {
    return this.budget && { max_cost: this.budget.maxCost, spent: this.budget.spentSoFar };
  }

  get exceeded(): boolean {
    return this.budget?.exceeded ?? false;
  }

  /** The sample's estimate once the budget admits it (0 without a cap); null: refused. */
  admit(signal: AbortSignal): Promise<number | null> {
    if (this.budget === null) return Promise.resolve(0);
    const mean = this.count === 0 ? 0 : this.total / this.count;
    return this.budget.take(async () => Math.max(mean, Number.EPSILON), signal);
  }

  release(estimate: number): void {
    this.budget?.release(estimate);
  }

  /** What the agent of a finished sample cost (its judge's calls were metered as they were sent). */
  spent(row: CaseRow): void {
    if (this.budget === null) return;
    const cost = this.agentCost(row);
    this.total += cost;
    this.count++;
    this.budget.spend(cost);
  }

  /** An earlier attempt's row (`--resume`): its agent and its judge calls. */
  restore(row: StoredRow): void {
    this.budget?.restore(row, this.pricing, this.judgeModel);
  }

  private agentCost(row: CaseRow): number {
    const model = row.model ?? "";
    return priceOf(this.pricing, model, row.prompt_tokens ?? 0, row.completion_tokens ?? 0) ?? 0;
  }
}
