import { resolveTemplate } from "../agents/resolve.js";
import type { Config } from "../config/load.js";
import { InputError } from "../errors.js";
import type { Check } from "./types.js";

/** The agent and model that judge a harness_judge check, as its run would name them. */
export interface JudgeRun {
  agent: string | null;
  /** Null when neither the check, [harness] model nor the agent's template names one. */
  model: string | null;
  /** `[pricing."MODEL"] per_run`; null when unknown. */
  price: number | null;
}

/**
 * Who judges `check` and what one run costs. Agent CLIs report no usage to eb, so a judge run is
 * priced only by the estimate the config gives its model: nothing is guessed.
 */
export function judgeRunOf(check: Check, config: Config): JudgeRun {
  const agent = config.harness.agent;
  const model =
    (check.type === "harness_judge" ? check.model : null) ??
    config.harness.model ??
    (agent === null ? null : resolveTemplate(agent, config.agents).defaultModel);
  return { agent, model, price: model === null ? null : (config.runPrices[model] ?? null) };
}

/** Why a judge run has no price, and the key that would give it one. */
export function unpricedReason(judge: JudgeRun): string {
  if (judge.model === null) {
    return `${judge.agent ?? "the judge agent"} runs its own default model, which eb cannot price: name it in [harness] model (or the check's model:) and give it [pricing."MODEL"] per_run`;
  }
  return `no [pricing."${judge.model}"] per_run (the estimated dollars of one agent run; agent CLIs report no usage to eb)`;
}

/**
 * `eb run --max-cost`: each harness-judge run is booked at its per_run price as it starts, and
 * refused (it and every judge run after it: the run ends budget_exceeded) when the runs booked
 * would pass the cap. A price is the whole estimate, so what is booked is what is spent.
 * Deterministic checks cost nothing and still run.
 */
export class JudgeBudget {
  private booked = 0;
  private refused = false;

  constructor(readonly maxCost: number) {}

  get exceeded(): boolean {
    return this.refused;
  }

  get spent(): number {
    return this.booked;
  }

  /** Books a run at `price`; false once the cap would be passed. */
  book(price: number): boolean {
    if (price === 0) return true;
    this.refused ||= this.booked + price > this.maxCost;
    if (!this.refused) this.booked += price;
    return !this.refused;
  }

  /** A booked run that never ran (interrupted). */
  unbook(price: number): void {
    this.booked -= price;
  }

  /** A judge run of an earlier attempt (--resume). */
  restore(price: number): void {
    this.booked += price;
  }
}

/**
 * The budget of `eb run --max-cost`, and each check's price under it; null without a cap. A
 * judge with no price stops the run before anything runs: a cap that cannot count a judge's
 * runs would not hold.
 */
export function judgeBudgetOf(
  checks: readonly Check[],
  config: Config,
): { budget: JudgeBudget; priceOf: (check: Check) => number } | null {
  if (config.maxCost === null) return null;
  const prices = new Map<string, number>();
  const problems: string[] = [];
  for (const check of checks) {
    if (check.type !== "harness_judge") continue;
    const judge = judgeRunOf(check, config);
    if (judge.price === null) problems.push(`check '${check.id}': ${unpricedReason(judge)}`);
    else prices.set(check.id, judge.price);
  }
  if (problems.length > 0) {
    throw new InputError(
      `--max-cost needs a price for every judge run, and ${problems.length === 1 ? "one has" : `${problems.length} have`} none: ${problems.slice(0, 3).join("; ")}${problems.length > 3 ? `; and ${problems.length - 3} more` : ""}. Nothing ran.`,
    );
  }
  return { budget: new JudgeBudget(config.maxCost), priceOf: (check) => prices.get(check.id) ?? 0 };
}
