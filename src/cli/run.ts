import path from "node:path";
import pc from "picocolors";
import type { Config } from "../config/load.js";
import { EXIT, InputError } from "../errors.js";
import type { CheckRow, RunProgress } from "../index.js";
import {
  gateLine,
  type LoadConfigOptions,
  loadConfig,
  runChecks,
  runJunit,
  runText,
} from "../index.js";
import { terminalSafe, terminalSafeStrings } from "../report/terminal.js";
import { runToGithub } from "./github.js";
import { abortOnSignals } from "./interrupt.js";
import { settingFlags } from "./options.js";
import { debugLogger, printWarning, reportJson } from "./output.js";
import { type ResultOutFlags, type RunSeen, withResultFile } from "./result-out.js";
import { withRunGate } from "./resume-gate.js";
import { resumeHint } from "./resume-hint.js";
import { writeJunit } from "./write-whole.js";

export interface RunFlags extends Record<string, unknown>, ResultOutFlags {
  cwd: string;
  projectConfig?: boolean;
  checkDir?: string;
  checkId?: string[];
  tag?: string[];
  json?: boolean;
  flatOutput?: boolean;
  resume?: string;
  junit?: string;
  verbose?: boolean;
  dryRun?: boolean;
}

export function configOptions(flags: RunFlags): LoadConfigOptions {
  // `list` has no --no-project-config, so an absent flag means "use the config".
  return {
    cwd: flags.cwd,
    noProjectConfig: flags.projectConfig === false,
    flags: settingFlags(flags),
  };
}

export async function runCommand(given: RunFlags): Promise<number> {
  const flags = withRunGate(given, ["passThreshold"]);
  if (flags.dryRun) refuseWithDryRun(flags);
  return withResultFile(flags, (seen) => runAndPrint(flags, seen));
}

/** A dry run runs nothing: there is no result to write. */
function refuseWithDryRun(flags: RunFlags): void {
  if (flags.resultOut !== undefined) {
    throw new InputError("--dry-run runs nothing, so it writes no result file: drop --result-out");
  }
}

async function runAndPrint(flags: RunFlags, seen: RunSeen): Promise<number> {
  const debug = debugLogger(flags.verbose);
  const options = configOptions(flags);
  const config = await loadConfig(options);
  seen.config = config;
  for (const warning of config.warnings) printWarning(warning);
  debug(`config: ${config.configPath ?? "(none)"}; project root: ${config.projectRoot}`);
  if (flags.dryRun) return dryRun(flags, { ...options, config });
  const interrupt = abortOnSignals();
  const progress = process.stderr.isTTY ? liveProgress : debugProgress(debug);
  try {
    const run = await runChecks({
      // The flags too: --resume takes from the run's manifest only what they leave out.
      ...options,
      ...selection(flags),
      config,
      flatOutput: flags.flatOutput,
      signal: interrupt.signal,
      onSample: progress,
      onWarning: (message) => {
        if (process.stderr.isTTY) process.stderr.write("\r\x1b[K");
        printWarning(message);
      },
      argv: process.argv.slice(2),
    });
    seen.run = run;
    if (process.stderr.isTTY) process.stderr.write("\r\x1b[K");
    process.stdout.write(
      flags.json
        ? await reportJson(run.runDir)
        : runText(terminalSafeStrings(run.document), { all: flags.verbose === true }),
    );
    if (flags.junit !== undefined) {
      await writeJunit(flags.junit, runJunit(run.report));
    }
    await runToGithub({
      command: "eb run",
      runDir: run.runDir,
      report: run.report,
      gate: gateLine(run.report),
      annotations: flags.json ? process.stderr : process.stdout,
    });
    if (run.exitCode === EXIT.interrupted) {
      process.stderr.write(resumeHint(process.argv.slice(2), run.runDir));
    }
    return run.exitCode;
  } finally {
    interrupt.dispose();
  }
}

/** `--dry-run`: the checks, samples and judge runs of the run, and their cost; runs nothing. */
async function dryRun(flags: RunFlags, options: LoadConfigOptions & { config: Config }) {
  const { dryRunChecks, checkDryRunText } = await import("../checks/dry-run.js");
  const { plan, warnings } = await dryRunChecks({ ...options, ...selection(flags) }, process.env);
  for (const warning of warnings) printWarning(warning);
  process.stdout.write(terminalSafe(checkDryRunText(plan)));
  return EXIT.passed;
}

/** Which checks a run (or a dry run) takes: the flags', or those of the run it resumes. */
function selection(flags: RunFlags) {
  const resume = flags.resume === undefined ? undefined : path.resolve(flags.resume);
  return { checkDir: flags.checkDir, checkIds: flags.checkId, tags: flags.tag, resume };
}

function liveProgress(row: CheckRow, progress: Readonly<RunProgress>): void {
  const count = `[${progress.samplesDone}/${progress.samplesTotal}]`;
  process.stderr.write(`\r\x1b[K${pc.dim(count)} ${row.id}: ${row.status}`);
}

function debugProgress(debug: (message: string) => void) {
  return (row: CheckRow, progress: Readonly<RunProgress>) =>
    debug(
      `[${progress.samplesDone}/${progress.samplesTotal}] ${row.id}: ${row.status} (${row.ms} ms)`,
    );
}
