import { setTimeout as sleep } from "node:timers/promises";
import { SharedBudget } from "../cases/budget.js";
import type { RunCasesOptions } from "../cases/options.js";
import type { PairedDraws } from "../cases/paired-draws.js";
import type { Plan } from "../cases/plan.js";
import { type CaseRun, type PlannedCases, planCases } from "../cases/run-cases.js";
import { type Config, loadConfig } from "../config/load.js";
import { EXIT, InputError, RunStoppedError } from "../errors.js";
import { leaderboardText } from "../render/leaderboard-text.js";
import { runText } from "../render/run-text.js";
import type { LeaderboardBlock } from "../report/blocks.js";
import { leaderboard, leaderboardBlock } from "../report/leaderboard.js";
import { readDocument } from "../report/read-document.js";
import { terminalSafe, terminalSafeStrings } from "../report/terminal.js";
import type { RunProgress } from "../run/suite.js";
import { type BaselineCompared, baselineGate } from "./compare.js";
import { compareOptions } from "./compare-options.js";
import {
  type Arm,
  type ArmFlags,
  batchLine,
  caseOptions,
  configOptions,
  dryRun,
  type EvalFlags,
  exitSoon,
} from "./eval.js";
import { githubAsked } from "./github-env.js";
import { abortOnSignals } from "./interrupt.js";
import { printWarning } from "./output.js";
import { createProgress } from "./progress.js";
import { withRunGate } from "./resume-gate.js";
import { resumeHint } from "./resume-hint.js";
import {
  checkSequentialFlags,
  nothingDrawn,
  pairedDraws,
  sequentialBlock,
  sequentialK,
} from "./sequential.js";

/** Flags that make no sense with arms, and why. */
const REFUSED: readonly (readonly [keyof EvalFlags, string])[] = [
  [
    "baseline",
    "--baseline compares one run with a stored one; arms are compared in the run, the first arm the baseline: drop --baseline",
  ],
  [
    "passThreshold",
    "arms are gated by their paired compare with the first arm: drop --pass-threshold",
  ],
  ["flatOutput", "each arm writes a run folder of its own: drop --flat-output"],
  [
    "junit",
    "--junit writes one run's cases: after the run, eb compare latest~1 latest --junit FILE writes the comparison",
  ],
];

/**
 * `eb eval CASES -m A -m B …`: each arm a run folder of its own, all running at once (so drift
 * in the endpoint hits them alike), the cases in the same order; then each arm after the first
 * is compared with it as `--baseline` compares, its report.json carrying the comparison. The
 * last arm's run is the newest (latest; the first arm is latest~1 of two). More than two arms:
 * their leaderboard first. The exit code is the worst gate's.
 */
export async function armsCommand(
  cases: string | undefined,
  given: EvalFlags,
  arms: readonly Arm[],
  argv: readonly string[],
): Promise<number> {
  const { model, target, resume, ...rest } = given;
  const flags = withRunGate<ArmFlags>({ ...rest, resume: arms[0]!.resume }, [
    "margin",
    "inconclusive",
    "scope",
  ]);
  refuse(flags, arms);
  const options = configOptions(flags);
  const config = await loadConfig(options);
  for (const warning of config.warnings) printWarning(warning);
  // A bad --margin stops the run before any call, not after it.
  compareOptions({ margin: flags.margin ?? "0.02", inconclusive: "fail", scope: config.scope });
  const armFlags = arms.map((arm): ArmFlags => ({ ...flags, ...arm, ...sequentialK(flags) }));
  if (flags.dryRun) return dryRunArms(cases, armFlags, config);
  const interrupt = abortOnSignals();
  // Ctrl-C stops every arm, and so does one arm that cannot go on.
  const stopAll = new AbortController();
  interrupt.signal.addEventListener("abort", () => stopAll.abort(), { once: true });
  const progress = armsProgress(arms.length);
  try {
    const planned = await planArms(cases, armFlags, config, {
      signal: stopAll.signal,
      argv,
      onProgress: progress.update,
      onWarning: (message) => {
        progress.done();
        printWarning(message);
      },
    });
    const names = planned.map((arm, i) => `arm ${i + 1} (${targetName(arm.plan)})`);
    checkDistinct(planned, names, flags);
    const plans = planned.map((arm) => arm.plan);
    const draws = flags.sequential ? pairedDraws(plans, flags) : null;
    const runs = await runArms(planned, draws, stopAll);
    progress.done();
    for (const [i, run] of runs.entries()) {
      process.stdout.write(`${terminalSafe(capitalized(names[i]!))}:\n`);
      process.stdout.write(runText(terminalSafeStrings(run.document), { gate: "baseline" }));
    }
    if (runs.some((run) => run.exitCode === EXIT.interrupted)) {
      process.stderr.write(
        resumeHint(
          argv,
          runs.map((run) => run.runDir),
        ),
      );
      exitSoon();
      return EXIT.interrupted;
    }
    return await compareArms(runs, names, draws, { cases, flags, config });
  } finally {
    progress.done();
    interrupt.dispose();
  }
}

/**
 * Each arm after the first compared with it (a leaderboard first when there are three or more);
 * the worst gate's exit code.
 */
async function compareArms(
  runs: readonly CaseRun[],
  names: readonly string[],
  draws: PairedDraws | null,
  { cases, flags, config }: { cases: string | undefined; flags: ArmFlags; config: Config },
): Promise<number> {
  const board = runs.length > 2 ? await armsLeaderboard(runs, flags, config) : undefined;
  if (board) process.stdout.write(leaderboardText(terminalSafeStrings(board)));
  const undecided = nothingDrawn(draws, flags.inconclusive);
  if (undecided !== null) return undecided;
  const gate = await baselineGate(runs[0]!.runDir, { ...flags, scope: config.scope }, cases);
  const adjust = draws ? sequentialBlock(draws.result(), flags, draws.cases) : undefined;
  const compared: BaselineCompared[] = [];
  for (const [i, run] of runs.entries()) {
    if (i === 0) continue;
    const last = i === runs.length - 1;
    const after = {
      names: { baseline: names[0]!, candidate: names[i]! },
      adjust,
      ...(last && board && { leaderboard: board }),
    };
    compared.push(await gate.compare(run.runDir, config.reportFormats, after));
  }
  await toGithub(runs.at(-1)!, compared.at(-1)!);
  return Math.max(...compared.map((c) => c.code));
}

function refuse(flags: ArmFlags, arms: readonly Arm[]): void {
  for (const [key, why] of REFUSED) if (flags[key] !== undefined) throw new InputError(why);
  checkSequentialFlags(flags);
  if (flags.sequential && arms.length !== 2) {
    throw new InputError(
      `--sequential pairs two arms, the baseline and the candidate: give two, not ${arms.length}`,
    );
  }
}

/**
 * The same target twice reads the first arm's answers from the cache: an A/A run says nothing
 * then. Without the cache it measures the target's noise, which is allowed.
 */
function checkDistinct(
  planned: readonly PlannedCases[],
  names: readonly string[],
  flags: ArmFlags,
) {
  const seen = new Map<string, number>();
  planned.forEach((arm, i) => {
    const { info } = arm.plan;
    const cached = info.kind === "model" ? flags.cache !== false : flags.cache === true;
    if (!cached) return;
    const key = JSON.stringify(info);
    const first = seen.get(key);
    if (first !== undefined) {
      throw new InputError(
        `${names[first]} and ${names[i]} are the same target: with the cache the second reads the first's answers; compare two targets, or pass --no-cache to measure one target's noise`,
      );
    }
    seen.set(key, i);
  });
}

async function dryRunArms(
  cases: string | undefined,
  armFlags: readonly ArmFlags[],
  config: Config,
): Promise<number> {
  for (const [i, flags] of armFlags.entries()) {
    process.stdout.write(`Arm ${i + 1}:\n`);
    await dryRun(cases, flags, configOptions(flags), config);
  }
  return EXIT.passed;
}

interface ArmHooks {
  signal: AbortSignal;
  argv: readonly string[];
  onProgress: (arm: number, progress: Readonly<RunProgress>) => void;
  onWarning: (message: string) => void;
}

/** Every arm checked (each InputError thrown) before any of them calls anything. */
async function planArms(
  cases: string | undefined,
  armFlags: readonly ArmFlags[],
  config: Config,
  hooks: ArmHooks,
): Promise<PlannedCases[]> {
  const planned: PlannedCases[] = [];
  // --max-cost is the command's: one budget across the arms.
  const sharedBudget = new SharedBudget(armFlags.length);
  for (const [i, flags] of armFlags.entries()) {
    // A signal of its own: each run listens on it in several places.
    const own = new AbortController();
    hooks.signal.addEventListener("abort", () => own.abort(), { once: true });
    const options: RunCasesOptions = {
      ...caseOptions(cases, flags, configOptions(flags), config),
      signal: own.signal,
      onSample: (_row, where) => hooks.onProgress(i, where),
      onBatchStatus: (status) => process.stderr.write(`arm ${i + 1}: ${batchLine(status)}\n`),
      onWarning: hooks.onWarning,
      argv: hooks.argv,
      sharedBudget,
    };
    planned.push(await planCases(options));
  }
  return planned;
}

/**
 * Starts the arms in order, each once the one before has its run folder, so the last arm's run
 * is the newest (latest). One arm that stops with an error stops the others, then throws.
 */
async function runArms(
  planned: readonly PlannedCases[],
  draws: PairedDraws | null,
  stopAll: AbortController,
): Promise<CaseRun[]> {
  const runs: Promise<CaseRun>[] = [];
  const folders: string[] = [];
  for (const [i, arm] of planned.entries()) {
    let opened = noop;
    const started = new Promise<void>((resolve) => {
      opened = resolve;
    });
    const onStart = (runDir: string) => {
      folders[i] = runDir;
      opened();
    };
    const run = arm.run({ draws: draws?.arms[i], onStart });
    run.catch(() => stopAll.abort());
    runs.push(run);
    await Promise.race([started, run.then(noop, noop)]);
    // The runs' start times (milliseconds) order them for latest.
    await sleep(2);
  }
  const settled = await Promise.allSettled(runs);
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) throw resumeAll(failed.reason, folders);
  return settled.map((s) => (s as PromiseFulfilledResult<CaseRun>).value);
}

function noop(): void {}

/** An arm that stopped says how to finish its run; with arms, every arm's folder is resumed. */
function resumeAll(error: unknown, folders: readonly string[]): unknown {
  if (!(error instanceof RunStoppedError) || folders.length < 2) return error;
  const resumes = folders.map((folder) => `--resume ${folder}`).join(" ");
  return new RunStoppedError(
    `${error.message} The arms are finished together: ${resumes}.`,
    error.exitCode,
  );
}

/** The arms ranked, each paired with the best (as eb report A B C): the last arm's report has it. */
async function armsLeaderboard(
  runs: readonly CaseRun[],
  flags: ArmFlags,
  config: Config,
): Promise<LeaderboardBlock> {
  const options = {
    method: "clopper-pearson" as const,
    level: 0.95,
    seed: Number(flags.seed ?? 0),
  };
  const read = await Promise.all(
    runs.map(async (run) => {
      const document = await readDocument(run.runDir, { ...options, pricing: config.pricing });
      return { location: run.runDir, ...document };
    }),
  );
  const board = leaderboard(read, options);
  for (const warning of board.warnings) printWarning(warning);
  return leaderboardBlock(board);
}

async function toGithub(run: CaseRun, compared: BaselineCompared): Promise<void> {
  if (!githubAsked()) return;
  await (await import("./github.js")).runToGithub({
    command: "eb eval",
    runDir: run.runDir,
    report: run.report,
    gate: compared.gateLine,
    baseline: compared,
    annotations: process.stdout,
  });
}

/** One progress line for all arms: their counts added up. */
function armsProgress(arms: number) {
  const sink = createProgress(process.stderr);
  const latest: (Readonly<RunProgress> | undefined)[] = Array(arms).fill(undefined);
  return {
    update: (arm: number, progress: Readonly<RunProgress>) => {
      latest[arm] = progress;
      const known = latest.filter((p) => p !== undefined);
      sink.update(known.reduce(added));
    },
    done: () => sink.done(),
  };
}

const COUNTS = [
  "itemsDone",
  "itemsTotal",
  "samplesDone",
  "samplesTotal",
  "passed",
  "errors",
  "cached",
  "earlierSamples",
  "earlierCached",
] as const;

function added(a: Readonly<RunProgress>, b: Readonly<RunProgress>): RunProgress {
  const sum: RunProgress = { ...a, startedAt: Math.min(a.startedAt, b.startedAt) };
  for (const key of COUNTS) sum[key] = a[key] + b[key];
  return { ...sum, limits: [...(a.limits ?? []), ...(b.limits ?? [])] };
}

/** `model gpt-4.1` or `node app.mjs`: how the verdict lines name an arm. */
function targetName(plan: Plan): string {
  return plan.info.kind === "model" ? plan.info.model : plan.info.command;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
