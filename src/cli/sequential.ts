import { PairedDraws, type PairedResult } from "../cases/paired-draws.js";
import type { Plan } from "../cases/plan.js";
import { EXIT, InputError } from "../errors.js";
import type { CompareBlock } from "../report/blocks.js";
import type { RunRows } from "../report/read-rows.js";
import { compareOptions } from "./compare.js";

/** `--max-k` unless given: the cap of a sequential run, in samples per case per arm. */
const DEFAULT_MAX_K = 10;

/** What a sequential run is told on the command line. */
export interface SequentialFlags {
  sequential?: boolean | undefined;
  k?: string | undefined;
  maxK?: string | undefined;
  maxSamples?: string | undefined;
  seed?: string | undefined;
  margin?: string | undefined;
  batch?: boolean | undefined;
}

/** Flags only a sequential run has. */
const SEQUENTIAL_ONLY = [
  ["--max-k", "maxK"],
  ["--max-samples", "maxSamples"],
] as const;

/** Refuses what a sequential run cannot take, and its own flags without --sequential. */
export function checkSequentialFlags(flags: SequentialFlags): void {
  if (!flags.sequential) {
    for (const [flag, key] of SEQUENTIAL_ONLY) {
      if (flags[key] !== undefined) {
        throw new InputError(`${flag} sets a --sequential run: add --sequential, or drop ${flag}`);
      }
    }
    return;
  }
  if (flags.batch) {
    throw new InputError(
      "--batch sends every call at once, --sequential draws them until the verdict is known: pass one of them",
    );
  }
  if (flags.k !== undefined) {
    throw new InputError(
      "-k: a sequential run draws its samples; --max-k caps them per case per arm",
    );
  }
  whole("--max-k", flags.maxK);
  whole("--max-samples", flags.maxSamples);
}

/** A sequential run's k, as each arm's manifest records it: the cap. */
export function sequentialK(flags: SequentialFlags): Pick<SequentialFlags, "k"> {
  return flags.sequential ? { k: String(maxKOf(flags)) } : {};
}

function maxKOf(flags: SequentialFlags): number {
  return whole("--max-k", flags.maxK) ?? DEFAULT_MAX_K;
}

/**
 * The draws the arms of a sequential run share (one plan per sampled arm, the baseline's
 * first), or with `baseline` (--baseline RUN) the candidate's against that run's mean score per
 * case: then only the cases the baseline has are drawn.
 */
export function pairedDraws(
  plans: readonly Plan[],
  flags: SequentialFlags,
  baseline?: RunRows,
): PairedDraws {
  const plan = plans[0]!;
  if (plan.config.shard !== null) {
    throw new InputError("--sequential draws from every case: drop --shard");
  }
  const means = baseline && baselineMeans(baseline);
  const cases = plan.cases.map((c) => c.id).filter((id) => means?.has(id) ?? true);
  if (cases.length === 0) {
    throw new InputError("--sequential --baseline: the baseline run has none of the cases");
  }
  return new PairedDraws({
    cases,
    margin: compareOptions({ margin: flags.margin ?? "0.02", inconclusive: "fail" }).margin!,
    maxK: maxKOf(flags),
    seed: Number(flags.seed ?? 0),
    window: Math.min(cases.length, ...plans.map((p) => p.lanes)),
    maxSamples: whole("--max-samples", flags.maxSamples),
    baseline: means ?? undefined,
  });
}

/** Each case's mean score in the baseline run. */
function baselineMeans(rows: RunRows): Map<string, number> {
  return new Map([...rows.tally.items.values()].map((item) => [item.id, item.sum / item.n]));
}

function whole(flag: string, raw: string | undefined): number | null {
  if (raw === undefined) return null;
  if (!/^\s*[1-9]\d*\s*$/.test(raw)) {
    throw new InputError(`${flag} ${raw}: expected a whole number ≥ 1`);
  }
  return Number(raw);
}

/**
 * The comparison block as the sequential gate decided it: its verdict, with the figures it
 * rests on in `sequential`; the rest (broke, fixed, the fixed-k interval of the same rows) as
 * the rows say.
 */
export function sequentialBlock(
  result: PairedResult,
  flags: SequentialFlags,
  cases: number,
): (block: CompareBlock) => CompareBlock {
  const { decision, interval, samples } = result;
  const maxK = maxKOf(flags);
  return (block) => ({
    ...block,
    verdict: decision.verdict ?? "inconclusive",
    sequential: {
      reason: decision.reason,
      estimate: Number.isNaN(decision.estimate) ? null : decision.estimate,
      ci_low: interval[0],
      ci_high: interval[1],
      draws: decision.samples,
      samples,
      max_k: maxK,
      fixed_k_samples: maxK * cases,
      seed: Number(flags.seed ?? 0),
      cases,
    },
  });
}

/**
 * A sequential run the budget stopped before its first paired draw has nothing to compare:
 * inconclusive for the budget, its exit code as --inconclusive says. Null when there are draws.
 */
export function nothingDrawn(
  draws: PairedDraws | null,
  inconclusive: "fail" | "pass" | undefined,
): number | null {
  if (draws === null || draws.result().decision.samples > 0) return null;
  process.stdout.write(
    "INCONCLUSIVE: the budget ran out before the first paired draw (--max-samples, --max-cost)\n",
  );
  return inconclusive === "pass" ? EXIT.passed : EXIT.fellShort;
}
