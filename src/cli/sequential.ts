import path from "node:path";
import { caseIds } from "../cases/load.js";
import { PairedDraws, type PairedResult } from "../cases/paired-draws.js";
import type { Plan } from "../cases/plan.js";
import { EXIT, InputError } from "../errors.js";
import type { CompareBlock } from "../report/blocks.js";
import type { RunRows } from "../report/read-rows.js";
import type { CaseManifest } from "../report/record.js";
import { manifestOfRun } from "../run/run-folder.js";
import { compareOptions } from "./compare-options.js";

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
  plans: readonly Pick<Plan, "config" | "cases" | "lanes">[],
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

/** The target of a baseline sampled live: its model, or its command. */
export type LiveArm = { model: string; target?: undefined } | { model?: undefined; target: string };

/** What this run would send its target: what a baseline re-run live must match. */
export interface LiveSettings {
  cases: string | undefined;
  cwd: string;
  apiBase: string;
  projectRoot: string;
  temperature: number;
  maxTokens: number | null;
}

/**
 * `--baseline RUN --sequential`: the baseline's target as an arm sampled live, when RUN's
 * manifest lets eb re-run it as this run would (the same case file; the same model behind the
 * same endpoint at the same --temperature and --max-tokens, or the same command in the same
 * project); else why not, and the stored run's mean per case stands for the baseline.
 */
export async function liveBaseline(
  location: string,
  now: LiveSettings,
): Promise<{ arm: LiveArm; why: null } | { arm: null; why: string }> {
  const why = (text: string) => ({ arm: null, why: text });
  if (now.cases === undefined) return why("no case file is given");
  let manifest: CaseManifest;
  try {
    manifest = manifestOfRun(location, "cases");
  } catch {
    return why("its manifest is not that of an eb eval run");
  }
  const { sha256 } = await caseIds(path.resolve(now.cwd, now.cases));
  if (sha256 !== manifest.cases_sha256) return why("it ran another version of the case file");
  const { target } = manifest;
  if (target.kind === "command") {
    if (manifest.project_root !== now.projectRoot) return why("it ran in another project");
    return { arm: { target: target.command }, why: null };
  }
  if (target.api_base !== now.apiBase)
    return why(`it called another endpoint (${target.api_base})`);
  if (manifest.temperature !== now.temperature || manifest.max_tokens !== now.maxTokens) {
    return why("it ran at another --temperature or --max-tokens");
  }
  return { arm: { model: target.model }, why: null };
}

/**
 * The command line of a live baseline's arms: --baseline RUN replaced by its target, given
 * first (the first arm is the baseline), so the resume hint and each run's manifest name both.
 */
export function liveArgv(argv: readonly string[], arm: LiveArm): string[] {
  const rest = argv.filter(
    (arg, i) =>
      arg !== "--baseline" && argv[i - 1] !== "--baseline" && !arg.startsWith("--baseline="),
  );
  const flag = arm.model === undefined ? ["--target", arm.target] : ["-m", arm.model];
  return [rest[0]!, ...flag, ...rest.slice(1)];
}
