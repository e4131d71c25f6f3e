import type { ChatRequest } from "../model/chat.js";
import type { ChatResult, Usage } from "../model/types.js";
import { judgeCallsOf, judgeRequest } from "./judge-calls.js";
import type { Plan } from "./plan.js";
import { messageChars, type PricedCall, tokensOf } from "./price.js";
import type { Case } from "./schema.js";

/**
 * Token estimates without calling anything. Input tokens are the characters sent divided by 4
 * (OpenAI's rule of thumb for English; no tokenizer is loaded). An answer not in the cache is
 * estimated at `max_tokens` when the run sets it, else at the median of the answers seen (the
 * cached ones to the same cases, then those the run gets), else at 512 tokens; a judge's
 * verdict at 200.
 */
export const DEFAULT_OUTPUT_TOKENS = 512;
export const JUDGE_OUTPUT_TOKENS = 200;

export type OutputBasis = "max_tokens" | "cached median" | "default";

/** One call a sample makes (or takes from the cache). */
export interface CallEstimate extends PricedCall {
  role: "target" | "judge";
}

/** The request a model target sends for a case (what its cache entry is keyed on). */
export function targetRequest(plan: Plan, c: Case): ChatRequest | null {
  if (plan.info.kind !== "model") return null;
  return {
    model: plan.info.model,
    messages: c.messages,
    temperature: plan.temperature ?? 0,
    ...(plan.maxTokens === null ? {} : { maxTokens: plan.maxTokens }),
  };
}

export class Estimator {
  /** The answers' lengths seen so far (cached ones first), while no --max-tokens bounds them. */
  private readonly seen: number[];
  /** When the median is worked out again: as the answers seen grow by a quarter. */
  private nextMedianAt = 1;

  private constructor(
    private readonly plan: Plan,
    public outputTokens: number,
    readonly outputBasis: OutputBasis,
    seen: number[],
  ) {
    this.seen = seen;
  }

  /** Reads the cache for every sample once when the output estimate needs its median. */
  static async of(plan: Plan): Promise<Estimator> {
    if (plan.maxTokens !== null) return new Estimator(plan, plan.maxTokens, "max_tokens", []);
    const counts: number[] = [];
    for (const c of plan.cases) {
      for (let sample = 0; sample < plan.k; sample++) {
        const hit = await lookup(plan, targetRequest(plan, c), sample);
        if (hit?.usage.completion_tokens !== undefined) counts.push(hit.usage.completion_tokens);
      }
    }
    const median = medianOf(counts);
    return median === null
      ? new Estimator(plan, DEFAULT_OUTPUT_TOKENS, "default", counts)
      : new Estimator(plan, median, "cached median", counts);
  }

  /**
   * An answer the run got: without --max-tokens the estimate of the answers still to come is
   * the median of those seen (a budget reserved at 512 tokens an answer for answers of 20 stops
   * a run at a tenth of its cap).
   */
  observe(completionTokens: number): void {
    if (this.outputBasis === "max_tokens") return;
    this.seen.push(completionTokens);
    if (this.seen.length < this.nextMedianAt) return;
    this.nextMedianAt = Math.ceil(this.seen.length * 1.25) + 1;
    this.outputTokens = medianOf(this.seen) ?? this.outputTokens;
  }

  /** The calls of one sample: the target's, then the judge's (one per prompt a grader builds). */
  async sample(c: Case, sample: number): Promise<CallEstimate[]> {
    const request = targetRequest(this.plan, c);
    const hit = await lookup(this.plan, request, sample);
    const target: CallEstimate[] =
      request === null
        ? []
        : [
            {
              role: "target",
              model: request.model,
              cached: hit !== null,
              input: tokensOf(messageChars(c.messages)),
              output: hit?.usage.completion_tokens ?? this.outputTokens,
            },
          ];
    const output = hit ? this.plan.scrubber.scrub(hit.text) : "x".repeat(this.outputTokens * 4);
    return [...target, ...(await this.judgeCalls(c, output, hit !== null))];
  }

  /** With the target's answer cached, so may be the judge's. */
  private async judgeCalls(c: Case, output: string, known: boolean): Promise<CallEstimate[]> {
    const model = this.plan.settings.judge;
    if (this.plan.judge === null || model === null) return [];
    const calls = await judgeCallsOf(c, output, this.plan.judgeSamples);
    return Promise.all(
      calls.map(async ({ prompt, sample }): Promise<CallEstimate> => {
        const hit = known
          ? await lookup(this.plan, judgeRequest(this.plan.settings, model, prompt), sample)
          : null;
        const usage: Usage = hit?.usage ?? {};
        return {
          role: "judge",
          model,
          cached: hit !== null,
          input: tokensOf(prompt),
          output: usage.completion_tokens ?? JUDGE_OUTPUT_TOKENS,
        };
      }),
    );
  }
}

function lookup(
  plan: Plan,
  request: ChatRequest | null,
  sample: number,
): Promise<ChatResult | null> {
  if (request === null || plan.lookup === null) return Promise.resolve(null);
  return plan.lookup(request, sample);
}

function medianOf(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}
