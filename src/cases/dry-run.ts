import { readRows } from "../report/read-rows.js";
import { rowsFileOf } from "../run/run-folder.js";
import { type CallEstimate, Estimator, JUDGE_OUTPUT_TOKENS, type OutputBasis } from "./estimate.js";
import type { RunCasesOptions } from "./options.js";
import { planRun } from "./plan.js";
import { CHARS_PER_TOKEN, priceOf } from "./price.js";

/** The calls of one model in one role, summed over the samples to run. */
export interface DryRunCalls {
  role: "target" | "judge";
  model: string;
  calls: number;
  cached: number;
  /** Estimated tokens of the calls to make (the cached ones cost nothing). */
  input: number;
  output: number;
  /** Dollars at [pricing]; null when the model has no price. */
  cost: number | null;
}

/** What `eb eval --dry-run` prints: the work of a run, and its estimated cost, before any call. */
export interface DryRun {
  casesFile: string;
  items: number;
  k: number;
  /** Samples the run would make (with --resume: those still missing). */
  samples: number;
  /** A `--target` command runs once per sample; it has no tokens or price. */
  command: string | null;
  calls: DryRunCalls[];
  outputTokens: number;
  outputBasis: OutputBasis;
  /** Null when a model with calls to make has no price. */
  cost: number | null;
}

/** Plans the run as `eb eval` would, reads the cache, and calls nothing. */
export async function dryRunCases(options: RunCasesOptions): Promise<DryRun> {
  const plan = await planRun(options, new AbortController().signal);
  try {
    const estimator = await Estimator.of(plan);
    const done = await doneSamples(options.resume);
    const estimates: CallEstimate[] = [];
    let samples = 0;
    for (const c of plan.cases) {
      for (let sample = 0; sample < plan.k; sample++) {
        if (done.has(`${c.id}\u0000${sample}`)) continue;
        samples++;
        // One by one: a case's judge calls are as many as its graders, too many to spread.
        for (const estimate of await estimator.sample(c, sample)) estimates.push(estimate);
      }
    }
    const calls = summed(estimates, plan.config.pricing);
    const costs = calls.map((line) => (line.calls === line.cached ? 0 : line.cost));
    return {
      casesFile: plan.casesFile,
      items: plan.cases.length,
      k: plan.k,
      samples,
      command: plan.info.kind === "command" ? plan.info.command : null,
      calls,
      outputTokens: estimator.outputTokens,
      outputBasis: estimator.outputBasis,
      cost: costs.includes(null) ? null : costs.reduce<number>((sum, x) => sum + (x ?? 0), 0),
    };
  } finally {
    await plan.cache.flush();
  }
}

async function doneSamples(resume: string | undefined): Promise<Set<string>> {
  if (resume === undefined) return new Set();
  const rows = await readRows(rowsFileOf(resume));
  return new Set(rows.map((row) => `${row.id}\u0000${row.sample ?? 0}`));
}

function summed(
  estimates: readonly CallEstimate[],
  pricing: Parameters<typeof priceOf>[0],
): DryRunCalls[] {
  const lines = new Map<string, DryRunCalls>();
  for (const call of estimates) {
    const key = `${call.role}\u0000${call.model}`;
    const line = lines.get(key) ?? { ...call, calls: 0, cached: 0, input: 0, output: 0, cost: 0 };
    line.calls++;
    if (call.cached) line.cached++;
    else {
      line.input += call.input;
      line.output += call.output;
    }
    lines.set(key, line);
  }
  return [...lines.values()].map((line) => ({
    role: line.role,
    model: line.model,
    calls: line.calls,
    cached: line.cached,
    input: line.input,
    output: line.output,
    cost: priceOf(pricing, line.model, line.input, line.output),
  }));
}

const BASIS: Record<OutputBasis, string> = {
  max_tokens: "--max-tokens",
  "cached median": "the median of the cached answers",
  default: "no max_tokens and no cached answer: a default",
};

export function dryRunText(d: DryRun): string {
  const count = (n: number) => n.toLocaleString("en-US");
  const money = (x: number | null, model: string) =>
    x === null ? `cost unknown (no [pricing."${model}"])` : `est. $${x.toFixed(4)}`;
  const lines = [
    `Dry run of ${d.casesFile}: nothing was called.`,
    `Items: ${count(d.items)} cases × k=${d.k}: ${count(d.samples)} samples to run`,
    ...(d.command === null ? [] : [`Target: command ${d.command}, ${count(d.samples)} runs`]),
    ...d.calls.map(
      (c) =>
        `${c.role === "target" ? "Target" : "Judge"} ${c.model}: ${count(c.calls)} calls, ` +
        `${count(c.cached)} cached, ${count(c.calls - c.cached)} to make; est. ` +
        `${count(c.input)} input + ${count(c.output)} output tokens; ${money(c.cost, c.model)}`,
    ),
    `Estimated cost: ${d.cost === null ? "unknown (a model has no [pricing])" : `$${d.cost.toFixed(4)}`}`,
    `Estimates: input = characters / ${CHARS_PER_TOKEN}; an answer not cached = ` +
      `${count(d.outputTokens)} tokens (${BASIS[d.outputBasis]}), a judge verdict ` +
      `${JUDGE_OUTPUT_TOKENS}; prices from [pricing] in the config.`,
  ];
  return `${lines.join("\n")}\n`;
}
