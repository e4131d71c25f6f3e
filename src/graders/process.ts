import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { splitCommand } from "../model/argv.js";
import { type ProcessResult, runProcess } from "../process/run.js";
import { lastLine } from "../process/tail.js";
import { defineGrader } from "./define.js";
import type { GraderContext, GraderOutcome, GraderProcesses } from "./types.js";

/** The JSON a program grader reads: the case, the sample and the answer. */
function contextJson(output: string, ctx: GraderContext): string {
  return JSON.stringify({
    case: { id: ctx.item.id, stratum: ctx.item.stratum, messages: ctx.messages },
    sample: ctx.item.sample,
    answer: output,
  });
}

function runtime(ctx: GraderContext): GraderProcesses {
  if (ctx.processes === null) throw new Error("this run cannot start grader programs");
  return ctx.processes;
}

/**
 * Exit 0 passes, any other exit fails with the program's own words (the last line of stderr,
 * else of stdout); a program that cannot start or times out could not grade, which throws.
 */
function verdictOf(result: ProcessResult, what: string, timeoutMs: number): GraderOutcome {
  if (result.spawnError !== null) throw new Error(`${what} could not start: ${result.spawnError}`);
  if (result.timedOut) throw new Error(`${what} timed out after ${timeoutMs / 1000}s`);
  if (result.aborted) throw new Error(`${what} was interrupted`);
  if (result.exitCode === 0) return { pass: true };
  const said = lastLine(result.stderr) ?? lastLine(result.stdout);
  const how = result.signal === null ? `exit ${result.exitCode}` : `killed by ${result.signal}`;
  return { pass: false, reason: said === null ? `${what}: ${how}` : `${said} (${how})` };
}

const scriptSpec = z
  .strictObject({
    script: z.string().min(1).optional(),
    script_path: z.string().min(1).optional(),
  })
  .refine((spec) => (spec.script === undefined) !== (spec.script_path === undefined), {
    message: "give exactly one of script and script_path",
  });
export type ScriptSpec = z.output<typeof scriptSpec>;

/**
 * Python, with a deterministic check's contract: argv[1] is a context JSON file (`case`,
 * `sample`, `answer`), exit 0 passes, an assertion's message (the last stderr line) is the reason.
 */
export const script = defineGrader<ScriptSpec>({
  describe: '{"script": "<Python source>"} or {"script_path": "<file, relative to the case file>"}',
  schema: scriptSpec,
  python: (spec) =>
    spec.script === undefined ? { path: spec.script_path! } : { source: spec.script },
  async grade(output, spec, ctx) {
    const run = runtime(ctx);
    const python = await run.python();
    if (python.error !== null) throw new Error(python.error);
    const scratch = await mkdtemp(path.join(os.tmpdir(), "eb-grader-"));
    try {
      const contextFile = path.join(scratch, "context.json");
      await writeFile(contextFile, contextJson(output, ctx));
      const file =
        spec.script === undefined
          ? path.resolve(run.casesDir, spec.script_path!)
          : await written(path.join(scratch, "grader.py"), spec.script);
      const result = await runProcess({
        command: python.executable,
        args: [file, contextFile],
        cwd: run.cwd,
        env: run.env,
        timeoutMs: run.timeoutMs,
        signal: run.signal,
      });
      return verdictOf(result, "the script", run.timeoutMs);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  },
});

/** Writes `text` to `file` and returns the file. */
async function written(file: string, text: string): Promise<string> {
  await writeFile(file, text);
  return file;
}

const commandSpec = z.strictObject({ command: z.string().trim().min(1) });

/** Any program: the same context JSON on stdin; exit 0 passes. */
export const command = defineGrader({
  describe: '{"command": "<program and arguments, e.g. node grade.mjs>"}',
  schema: commandSpec,
  async grade(output, spec, ctx) {
    const run = runtime(ctx);
    const [program, ...args] = splitCommand(spec.command);
    const result = await runProcess({
      command: program!,
      args,
      cwd: run.cwd,
      env: run.env,
      timeoutMs: run.timeoutMs,
      stdin: contextJson(output, ctx),
      signal: run.signal,
    });
    return verdictOf(result, JSON.stringify(spec.command), run.timeoutMs);
  },
});
