import path from "node:path";
import type { RoundStatus } from "../cases/batch-settings.js";
import type { RunCasesOptions } from "../cases/options.js";
import { planCases } from "../cases/run-cases.js";
import { type Config, type LoadConfigOptions, loadConfig } from "../config/load.js";
import { EXIT, InputError } from "../errors.js";
import { gateLine, runText } from "../render/run-text.js";
import type { RunDocument } from "../report/document.js";
import { terminalSafe, terminalSafeLine, terminalSafeStrings } from "../report/terminal.js";
import type { Scope } from "../stats/types.js";
import { githubAsked } from "./github-env.js";
import { abortOnSignals } from "./interrupt.js";
import { settingFlags } from "./options.js";
import { debugLogger, printWarning } from "./output.js";
import { createProgress } from "./progress.js";
import { withRunGate } from "./resume-gate.js";
import { resumeHint } from "./resume-hint.js";
import {
  checkSequentialFlags,
  type LiveArm,
  liveArgv,
  liveBaseline,
  nothingDrawn,
  pairedDraws,
  sequentialBlock,
  sequentialK,
} from "./sequential.js";

/** eb eval's flags but its targets and --resume, which name the arms. */
interface RunFlags extends Record<string, unknown> {
  cwd: string;
  projectConfig: boolean;
  targetEnv?: string[];
  k?: string;
  temperature?: string;
  maxTokens?: string;
  /** undefined: the default for the target kind; true: --cache; false: --no-cache. */
  cache?: boolean;
  flatOutput?: boolean;
  verbose?: boolean;
  baseline?: string;
  margin?: string;
  inconclusive?: "fail" | "pass";
  junit?: string;
  dryRun?: boolean;
  batch?: boolean;
  batchPollMs?: string;
  seed?: string;
  sequential?: boolean;
  maxK?: string;
  maxSamples?: string;
}

export interface EvalFlags extends RunFlags {
  /** Each -m, in order (with --target: each target is an arm, see armsOf). */
  model?: string[];
  target?: string[];
  /** Each --resume: one run folder per arm. */
  resume?: string[];
}

/** The flags of one run folder: one target, one --resume. */
export interface ArmFlags extends RunFlags {
  model?: string | undefined;
  target?: string | undefined;
  resume?: string | undefined;
}

/** What makes one arm: its target (none: the resumed run's) and the run folder it resumes. */
export type Arm = Pick<ArmFlags, "model" | "target" | "resume">;

/** After an interrupt, calls left in flight may hold the process open until they time out. */
const EXIT_GRACE_MS = 200;

/** `eb eval`: one run, or with several targets (or --resume given once per arm) their arms. */
export async function evalCommand(cases: string | undefined, given: EvalFlags): Promise<number> {
  const argv = process.argv.slice(2);
  const arms = armsOf(given, argv);
  if (arms.length > 1) {
    return (await import("./arms.js")).armsCommand(cases, given, arms, argv);
  }
  const { model, target, resume, ...rest } = given;
  return oneRun(cases, { ...rest, ...arms[0] }, argv);
}

/**
 * The arms of the command line: each -m and --target in the order given (the first is the
 * baseline), each paired with its --resume; --resume alone, given once per arm, resumes the arms
 * with the targets they recorded.
 */
export function armsOf(
  flags: Pick<EvalFlags, "model" | "target" | "resume">,
  argv: readonly string[],
): Arm[] {
  const models = [...(flags.model ?? [])];
  const targets = [...(flags.target ?? [])];
  const order = targetFlagOrder(argv);
  const inOrder = order.length === models.length + targets.length;
  const given: Arm[] = inOrder
    ? order.map((kind) =>
        kind === "model" ? { model: models.shift() } : { target: targets.shift() },
      )
    : [...models.map((model) => ({ model })), ...targets.map((target) => ({ target }))];
  const resumes = flags.resume ?? [];
  if (given.length <= 1 && resumes.length <= 1) return [{ ...given[0], resume: resumes[0] }];
  if (given.length === 0) return resumes.map((resume) => ({ resume }));
  if (resumes.length === 0) return given;
  if (resumes.length !== given.length) {
    throw new InputError(
      `--resume given ${resumes.length} times for ${given.length} arm(s): pass one run folder per arm, in the order of the arms`,
    );
  }
  return given.map((arm, i) => ({ ...arm, resume: resumes[i] }));
}

/** Which of -m/--model and --target the command line gives, in its order. */
function targetFlagOrder(argv: readonly string[]): ("model" | "target")[] {
  const order: ("model" | "target")[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const kind = /^(-m|--model)(=|$)|^-m./.test(arg)
      ? "model"
      : /^--target(=|$)/.test(arg)
        ? "target"
        : null;
    if (kind === null) continue;
    order.push(kind);
    // The value that follows is not a flag, whatever it looks like.
    if (arg === "-m" || arg === "--model" || arg === "--target") i++;
  }
  return order;
}

/** One run folder: the threshold gate, or the compare with --baseline RUN. */
async function oneRun(
  cases: string | undefined,
  given: ArmFlags,
  argv: readonly string[],
): Promise<number> {
  checkSequentialFlags(given);
  const flags = withRunGate(given, [
    "passThreshold",
    "baseline",
    "margin",
    "inconclusive",
    "scope",
  ]);
  const debug = debugLogger(flags.verbose);
  const options = configOptions(flags);
  const config = await loadConfig(options);
  for (const warning of config.warnings) printWarning(warning);
  debug(`config: ${config.configPath ?? "(none)"}; project root: ${config.projectRoot}`);
  const baseline = await baselineOf(flags, config.scope, cases);
  const recorded = baseline ? pinBaseline(argv, baseline.location) : [...argv];
  if (flags.sequential && baseline === null) {
    throw new InputError(
      "--sequential samples until a paired verdict is known: give two arms (-m A -m B, or --target twice), or --baseline RUN",
    );
  }
  if (flags.sequential && baseline && flags.resume === undefined) {
    const live = await liveBaselineOf(cases, flags, config, baseline.location);
    if (live.arm) return liveArms(cases, flags, live.arm, baseline.location, argv);
    printWarning(
      `--baseline ${baseline.location} is not sampled again (${live.why}): its mean score per case stands for the baseline's`,
    );
  }
  const armFlags = { ...flags, ...sequentialK(flags) };
  if (flags.dryRun) return dryRun(cases, armFlags, options, config);
  const interrupt = abortOnSignals();
  const progress = createProgress(process.stderr);
  try {
    const planned = await planCases({
      ...caseOptions(cases, armFlags, options, config),
      signal: interrupt.signal,
      onSample: (_row, where) => progress.update(where),
      onBatchStatus: (status) => process.stderr.write(`${batchLine(status)}\n`),
      onWarning: (message) => {
        progress.done();
        printWarning(message);
      },
      argv: recorded,
    });
    const draws =
      flags.sequential && baseline ? pairedDraws([planned.plan], flags, baseline.rows) : null;
    const run = await planned.run({ draws: draws?.arms[0] });
    progress.done();
    const gate = baseline ? "baseline" : "threshold";
    process.stdout.write(runText(terminalSafeStrings(run.document), { gate }));
    debug(`run folder: ${run.runDir}`);
    if (flags.junit !== undefined) await writeJunit(flags.junit, run.report);
    const interrupted = run.exitCode === EXIT.interrupted;
    // An interrupted run is not compared: the resume hint says how to finish it first.
    const undecided = interrupted ? null : nothingDrawn(draws, flags.inconclusive);
    if (undecided !== null) return undecided;
    const adjust = draws ? sequentialBlock(draws.result(), flags, draws.cases) : undefined;
    const compared =
      baseline && !interrupted
        ? await baseline.compare(run.runDir, config.reportFormats, { adjust })
        : null;
    if (githubAsked()) {
      await (await import("./github.js")).runToGithub({
        command: "eb eval",
        runDir: run.runDir,
        report: run.report,
        gate: compared ? compared.gateLine : gateLine(run.report),
        baseline: compared ?? undefined,
        annotations: process.stdout,
      });
    }
    if (interrupted) {
      process.stderr.write(resumeHint(recorded, run.runDir));
      exitSoon();
      return run.exitCode;
    }
    return compared ? compared.code : run.exitCode;
  } finally {
    progress.done();
    interrupt.dispose();
  }
}

/** Whether the baseline of `--baseline RUN --sequential` can be sampled live, as an arm. */
async function liveBaselineOf(
  cases: string | undefined,
  flags: ArmFlags,
  config: Config,
  location: string,
) {
  // Arms write run folders of their own, and --junit writes one run's cases.
  if (flags.flatOutput || flags.junit !== undefined) {
    return { arm: null, why: "--flat-output and --junit write one run" };
  }
  const live = await liveBaseline(location, {
    cases,
    cwd: flags.cwd,
    apiBase: config.eval.apiBase,
    projectRoot: config.projectRoot,
    temperature: number("--temperature", flags.temperature) ?? 0,
    maxTokens: integer("--max-tokens", flags.maxTokens) ?? null,
  });
  const same = live.arm && live.arm.model === flags.model && live.arm.target === flags.target;
  return same ? { arm: null, why: "its target is the candidate's" } : live;
}

/** The baseline's target sampled live beside the candidate: the two arms of one run. */
async function liveArms(
  cases: string | undefined,
  flags: ArmFlags,
  arm: LiveArm,
  location: string,
  argv: readonly string[],
): Promise<number> {
  process.stderr.write(
    `--baseline ${terminalSafeLine(location)}: its manifest lets eb re-run its target (${terminalSafeLine(arm.model ?? arm.target ?? "")}), so it is sampled live as arm 1, beside the candidate\n`,
  );
  const { model, target, resume: _, baseline: __, ...rest } = flags;
  const arms = await import("./arms.js");
  return arms.armsCommand(cases, rest, [arm, { model, target }], liveArgv(argv, arm));
}

/** What the run is asked for, from the flags: the same for a run and a dry run. */
export function caseOptions(
  cases: string | undefined,
  flags: ArmFlags,
  options: LoadConfigOptions,
  config: Config,
): RunCasesOptions {
  return {
    ...options,
    config,
    cases,
    model: flags.model,
    command: flags.target,
    targetEnv: flags.targetEnv,
    k: integer("-k", flags.k),
    temperature: number("--temperature", flags.temperature),
    maxTokens: integer("--max-tokens", flags.maxTokens),
    cache: flags.cache,
    batch: flags.batch,
    batchPollMs: integer("--batch-poll-ms", flags.batchPollMs),
    flatOutput: flags.flatOutput,
    resume: flags.resume === undefined ? undefined : path.resolve(flags.resume),
    seed: integer("--seed", flags.seed),
  };
}

/** `--dry-run`: the work and estimated cost of the run, without a call; exit 0. */
export async function dryRun(
  cases: string | undefined,
  flags: ArmFlags,
  options: LoadConfigOptions,
  config: Config,
): Promise<number> {
  const { dryRunCases, dryRunText } = await import("../cases/dry-run.js");
  const estimate = await dryRunCases(caseOptions(cases, flags, options, config));
  process.stdout.write(terminalSafe(dryRunText(estimate)));
  return EXIT.passed;
}

/**
 * One poll of a batch, for stderr: "batch batch_1: in_progress, 3/10 completed, 0 failed", and
 * "judge batch batch_2: …" for the judge round.
 */
export function batchLine(s: RoundStatus): string {
  const round = s.round === "judge" ? "judge " : "";
  const counts = `${s.completed}/${s.total} completed, ${s.failed} failed`;
  return `${round}batch ${terminalSafeLine(s.id)}: ${terminalSafeLine(s.status)}, ${counts}`;
}

/** `--junit FILE`: loaded only when asked for. */
async function writeJunit(file: string, report: RunDocument): Promise<void> {
  const [{ runJunit }, write] = await Promise.all([
    import("../render/junit.js"),
    import("./write-whole.js"),
  ]);
  await write.writeJunit(file, runJunit(report));
}

/** With --baseline the paired compare is the gate: the threshold gate's options do not apply. */
async function baselineOf(flags: ArmFlags, scope: Scope, cases: string | undefined) {
  if (flags.baseline === undefined) {
    const gateFlags = [
      ["--margin", flags.margin],
      ["--inconclusive", flags.inconclusive],
      ["--scope", flags.scope],
    ] as const;
    for (const [flag, value] of gateFlags) {
      if (value !== undefined) throw new InputError(`${flag} sets the compare of --baseline RUN`);
    }
    return null;
  }
  if (flags.passThreshold !== undefined) {
    throw new InputError(
      "--baseline and --pass-threshold are two gates: the compare with the baseline decides the exit code, so pass one of them",
    );
  }
  const gate = await (await import("./compare.js")).baselineGate(
    flags.baseline,
    { ...flags, scope },
    cases,
  );
  if (flags.resume !== undefined && path.resolve(flags.resume) === path.resolve(gate.location)) {
    throw new InputError(
      `--baseline ${flags.baseline} is the run being resumed: name the baseline's own folder (latest~1, …)`,
    );
  }
  return gate;
}

/** The arguments with --baseline naming the folder it found: `latest` moves on as runs are added. */
function pinBaseline(argv: readonly string[], location: string): string[] {
  return argv.map((arg, i) => {
    if (argv[i - 1] === "--baseline") return location;
    return arg.startsWith("--baseline=") ? `--baseline=${location}` : arg;
  });
}

/** The config search and setting flags of a command that writes a run folder. */
export function configOptions(flags: ArmFlags): LoadConfigOptions {
  return { cwd: flags.cwd, noProjectConfig: !flags.projectConfig, flags: settingFlags(flags) };
}

export function integer(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\s*\d+\s*$/.test(raw)) throw new InputError(`${flag} ${raw}: expected a whole number`);
  return Number(raw);
}

function number(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = raw.trim() === "" ? Number.NaN : Number(raw);
  if (!Number.isFinite(value)) throw new InputError(`${flag} ${raw}: expected a number`);
  return value;
}

/** Exits with the exit code already set once the output is written, whatever is still pending. */
export function exitSoon(): void {
  setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
}
