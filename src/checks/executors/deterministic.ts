import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { LAUNCHER } from "../../process/python.js";
import { type ProcessResult, runProcess } from "../../process/run.js";
import { targetsContext } from "../targets.js";
import type { DeterministicCheck } from "../types.js";
import { scriptReason, shownPath } from "./script-reason.js";
import type { ExecContext, ExecOutcome, PreparedCheck } from "./types.js";

/**
 * Runs a deterministic check: exit 0 = passed, any other exit = failed, could not start or
 * timed out = error. The frozen script snapshot is what runs, never the file as it is now.
 */
export async function runDeterministic(
  check: DeterministicCheck,
  context: ExecContext,
  prepared: PreparedCheck,
): Promise<ExecOutcome> {
  const { config, python } = context;
  const snapshot = prepared.script;
  if (snapshot?.state === "unavailable") return errorOutcome(snapshot.reason);
  const syntaxError = await prepared.syntaxError;
  if (syntaxError !== null) return errorOutcome(syntaxError);

  const evidenceDir = path.join(context.checksDir, context.stem);
  const contextPath = path.join(context.scratchDir, "context.json");
  const targets = await targetsContext(config.projectRoot, check.targetPaths);
  // A folder and two small files, made in place: as promises each would be a round trip or three
  // through the thread pool between one check's end and the next one's start.
  mkdirSync(evidenceDir, { recursive: true });
  writeFileSync(
    contextPath,
    JSON.stringify(
      {
        check_id: check.id,
        description: check.description,
        project_root: config.projectRoot,
        source_path: check.sourcePath,
        output_dir: evidenceDir,
        ...targets,
      },
      null,
      2,
    ),
  );
  const script = launch(check, snapshot, context.scratchDir, config.projectRoot);
  const result = await runProcess({
    command: python.executable,
    args: ["-c", LAUNCHER, script.file, script.original, contextPath, script.shown, script.line],
    cwd: config.projectRoot,
    env: context.env,
    timeoutMs: config.checkTimeoutSeconds * 1000,
    stdoutFile: path.join(context.checksDir, `${context.stem}.stdout.txt`),
    stderrFile: path.join(context.checksDir, `${context.stem}.stderr.txt`),
    signal: context.signal,
    scrubber: context.scrubber,
  });
  return outcomeOf(result, config.checkTimeoutSeconds, context.checksDir, script.shown);
}

/** The script file that runs, what it believes it is, and how its tracebacks name it. */
interface Launch {
  file: string;
  original: string;
  shown: string;
  /** The line its first line is shown as. */
  line: string;
}

/**
 * A `script_path` check runs its frozen bytes under its own name; an inline script runs from a
 * scratch file but its tracebacks name the YAML file and the script's lines in it (when they
 * map one to one, else the lines are counted from the script's start).
 */
function launch(
  check: DeterministicCheck,
  snapshot: PreparedCheck["script"],
  scratchDir: string,
  projectRoot: string,
): Launch {
  if (snapshot?.state === "readable") {
    const frozen = path.join(scratchDir, "frozen_script.py");
    writeFileSync(frozen, snapshot.bytes);
    const shown = shownPath(projectRoot, snapshot.resolvedPath);
    return { file: frozen, original: snapshot.resolvedPath, shown, line: "1" };
  }
  const inline = path.join(scratchDir, "inline_check.py");
  writeFileSync(inline, check.script ?? "");
  const yaml = shownPath(projectRoot, check.sourcePath);
  const mapped = check.scriptLine !== null;
  return {
    file: inline,
    original: inline,
    shown: mapped ? yaml : `${yaml} (inline script)`,
    line: String(check.scriptLine ?? 1),
  };
}

function outcomeOf(
  result: ProcessResult,
  timeoutSeconds: number,
  checksDir: string,
  shown: string,
): ExecOutcome {
  const streams = {
    stdout: result.stdout,
    stdoutChars: result.stdoutChars,
    stderr: result.stderr,
    stderrChars: result.stderrChars,
    details: {},
    aborted: result.aborted,
  };
  if (result.spawnError !== null)
    return errorOutcome(`Could not start Python: ${result.spawnError}`);
  if (result.timedOut) {
    return {
      ...streams,
      status: "error",
      reason: null,
      errorDetail: `Deterministic script timed out after ${timeoutSeconds} seconds (its process group was killed)`,
      exitCode: null,
    };
  }
  const exitCode = result.exitCode ?? signalExitCode(result.signal);
  const unsaved = unsavedOutput(result, checksDir);
  if (unsaved !== null) {
    return { ...streams, status: "error", reason: null, errorDetail: unsaved, exitCode };
  }
  const passed = exitCode === 0;
  return {
    ...streams,
    status: passed ? "passed" : "failed",
    reason: passed ? null : scriptReason(result, exitCode, shown),
    errorDetail: null,
    exitCode,
  };
}

/**
 * Why a check's output files could not be written (a full disk), with run-relative paths; the
 * verdict of a check whose evidence was lost is not trusted.
 */
export function unsavedOutput(result: ProcessResult, checksDir: string): string | null {
  if (result.writeError === null) return null;
  return `${result.writeError.replaceAll(checksDir, "checks")}; the check's output was not saved`;
}

/** A signal-killed script is a failure with a negative code, as Python's subprocess reports. */
function signalExitCode(signal: string | null): number {
  const number = signal ? (os.constants.signals as Record<string, number>)[signal] : undefined;
  return number === undefined ? -1 : -number;
}

export function errorOutcome(
  errorDetail: string,
  details: Record<string, unknown> = {},
): ExecOutcome {
  return {
    status: "error",
    reason: null,
    errorDetail,
    stdout: "",
    stdoutChars: 0,
    stderr: "",
    stderrChars: 0,
    exitCode: null,
    details,
    aborted: false,
  };
}
