import { resolve, sep } from "node:path";
import { isExecutable } from "../agents/preflight.js";
import { type ProcessResult, runProcess } from "../process/run.js";
import { lastLine } from "../process/tail.js";
import { InterruptedError } from "./abort.js";
import { splitCommand } from "./argv.js";
import type { Cache } from "./cache.js";
import { commandCacheKey } from "./cache-key.js";
import { readStoredResult, storedResult } from "./stored-result.js";
import type { CaseInput, CaseTarget, ChatResult } from "./types.js";

export interface CommandTargetOptions {
  /** e.g. "node app.mjs --fast"; split with simple shell-like quoting, run without a shell. */
  command: string;
  cwd: string;
  timeoutMs?: number;
  /** Command targets are not cached unless the caller passes a cache. */
  cache: Cache | null;
  /** The command's environment. */
  env: NodeJS.ProcessEnv;
}

const DEFAULT_TIMEOUT_MS = 120_000;
/** Outputs longer than this are an error rather than a silently truncated text. */
export const MAX_OUTPUT_CHARS = 10_000_000;

/**
 * A program that reads one case as JSON on stdin ({"id","stratum","messages","sample"}) and
 * writes its answer to stdout.
 */
export function createCommandTarget(options: CommandTargetOptions): CaseTarget {
  const [program, ...args] = splitCommand(options.command);
  const cwd = resolve(options.cwd);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const describe = `command ${JSON.stringify(options.command)}`;
  const run = async (
    input: CaseInput,
    sample: number,
    signal?: AbortSignal,
  ): Promise<ChatResult> => {
    // Not started at all once interrupted; otherwise this waits until the process group is gone.
    if (signal?.aborted) throw new InterruptedError(`${describe} was interrupted`);
    const result = await runProcess({
      command: program as string,
      args,
      cwd,
      env: options.env,
      timeoutMs,
      stdin: JSON.stringify({ ...caseJson(input), sample }),
      keepChars: MAX_OUTPUT_CHARS,
      signal,
    });
    if (result.aborted) throw new InterruptedError(`${describe} was interrupted`);
    const problem = failureOf(result, timeoutMs);
    if (problem) throw new Error(`${describe} ${problem}`);
    return { text: result.stdout, model: options.command, usage: {}, ms: result.ms, cached: false };
  };
  return {
    async complete(input, sample, signal) {
      const cache = options.cache;
      if (cache === null) return run(input, sample, signal);
      const key = commandCacheKey(
        { command: options.command, cwd, input: caseJson(input) },
        sample,
      );
      const hit = readStoredResult(await cache.get(key));
      if (hit) return hit;
      const result = await run(input, sample, signal);
      await cache.set(key, storedResult(result));
      return result;
    },
  };
}

/**
 * Why the command's program cannot be started, looked up as the spawn would (a name on the
 * PATH of its environment, a path from its working folder); null when it can be.
 */
export async function missingProgram(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<string | null> {
  const program = splitCommand(command)[0]!;
  if (await isExecutable(program, env.PATH, resolve(cwd))) return null;
  return program.includes(sep)
    ? `${resolve(cwd, program)} is not an executable file`
    : `'${program}' was not found on PATH`;
}

function caseJson(input: CaseInput) {
  return {
    id: input.id,
    stratum: input.stratum,
    messages: input.messages.map((m) => ({ role: m.role, content: m.content })),
  };
}

function failureOf(result: ProcessResult, timeoutMs: number): string | null {
  if (result.spawnError !== null) return `could not start: ${result.spawnError}`;
  if (result.timedOut) return `timed out after ${timeoutMs / 1000}s`;
  const stderr = lastLine(result.stderr) ?? "";
  const shown = stderr.length > 300 ? `${stderr.slice(0, 300)}…` : stderr;
  const detail = shown ? `: ${shown}` : " (stderr empty)";
  if (result.signal !== null) return `was killed by ${result.signal}${detail}`;
  if (result.exitCode !== 0) return `exited with code ${result.exitCode}${detail}`;
  if (result.stdoutTruncated) {
    return `wrote ${result.stdoutChars} characters to stdout, more than the ${MAX_OUTPUT_CHARS} kept`;
  }
  return null;
}
