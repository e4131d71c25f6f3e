import path from "node:path";
import type { RoundStatus } from "../cases/batch-settings.js";
import type { RunCasesOptions } from "../cases/options.js";
import { runCases } from "../cases/run-cases.js";
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

export interface EvalFlags extends Record<string, unknown> {
  cwd: string;
  projectConfig: boolean;
  model?: string;
  target?: string;
  targetEnv?: string[];
  k?: string;
  temperature?: string;
  maxTokens?: string;
  /** undefined: the default for the target kind; true: --cache; false: --no-cache. */
  cache?: boolean;
  flatOutput?: boolean;
  resume?: string;
  verbose?: boolean;
  baseline?: string;
  margin?: string;
  inconclusive?: "fail" | "pass";
  junit?: string;
  dryRun?: boolean;
  batch?: boolean;
  batchPollMs?: string;
}

/** After an interrupt, calls left in flight may hold the process open until they time out. */
const EXIT_GRACE_MS = 200;

export async function evalCommand(cases: string | undefined, given: EvalFlags): Promise<number> {
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
  const argv = baseline
    ? pinBaseline(process.argv.slice(2), baseline.location)
    : process.argv.slice(2);
  if (flags.dryRun) return dryRun(cases, flags, options, config);
  const interrupt = abortOnSignals();
  const progress = createProgress(process.stderr);
  try {
    const run = await runCases({
      ...caseOptions(cases, flags, options, config),
      signal: interrupt.signal,
      onSample: (_row, where) => progress.update(where),
      onBatchStatus: (status) => process.stderr.write(`${batchLine(status)}\n`),
      onWarning: (message) => {
        progress.done();
        printWarning(message);
      },
      argv,
    });
    progress.done();
    const gate = baseline ? "baseline" : "threshold";
    process.stdout.write(runText(terminalSafeStrings(run.document), { gate }));
    debug(`run folder: ${run.runDir}`);
    if (flags.junit !== undefined) await writeJunit(flags.junit, run.report);
    const interrupted = run.exitCode === EXIT.interrupted;
    // An interrupted run is not compared: the resume hint says how to finish it first.
    const compared = baseline && !interrupted ? await baseline.compare(run.runDir) : null;
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
      process.stderr.write(resumeHint(argv, run.runDir));
      exitSoon();
      return run.exitCode;
    }
    return compared ? compared.code : run.exitCode;
  } finally {
    progress.done();
    interrupt.dispose();
  }
}

/** What the run is asked for, from the flags: the same for a run and a dry run. */
function caseOptions(
  cases: string | undefined,
  flags: EvalFlags,
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
  };
}

/** `--dry-run`: the work and estimated cost of the run, without a call; exit 0. */
async function dryRun(
  cases: string | undefined,
  flags: EvalFlags,
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
function batchLine(s: RoundStatus): string {
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
async function baselineOf(flags: EvalFlags, scope: Scope, cases: string | undefined) {
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
export function configOptions(flags: EvalFlags): LoadConfigOptions {
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
function exitSoon(): void {
  setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
}
