import v8 from "node:v8";
import { CommanderError } from "commander";
import { EXIT, InputError, InputProblems, RunStoppedError } from "../errors.js";
import { terminalSafeLine } from "../report/terminal.js";
import { guardOutput, printError } from "./output.js";
import { program } from "./program.js";

// A run is short-lived and spends its time in a few hot paths (a call, a grade, a row, thousands
// of times), which V8 optimizes only once a function has run ~132 KB of bytecode; a whole run
// is over before much of it is. An eighth of that budget: `eb eval` of 6000 loopback calls
// 1.68 s -> 1.48 s (median of 5).
v8.setFlagsFromString("--interrupt-budget=16384");
// undici parses HTTP with WebAssembly (llhttp): V8 compiles it at once with Liftoff, then again
// with TurboFan in the background, and Node waits for that before it exits: ~110 ms of a 1-case
// `eb eval`. Liftoff's code is fast enough for the few KB of headers a call parses (6000
// loopback calls take the same CPU time either way). Set before undici loads.
v8.setFlagsFromString("--liftoff-only");
// A run makes many short-lived objects (a request, an answer, a row per sample); young-generation
// collections of up to 32 MB (Node 20's default cap is lower) make fewer of them: a cached run of
// 6000 samples 5.01 -> 4.84 G instructions, a 1-case run unchanged (the space grows only as
// needed).
v8.setFlagsFromString("--max-semi-space-size=32");

guardOutput();

/** Parses the command line and runs the command, its exit code on process.exitCode. */
export async function main(): Promise<void> {
  try {
    await program.parseAsync(process.argv);
  } catch (error) {
    process.exitCode = exitCodeFor(error);
  }
}

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    // Help and version also arrive here, with exit code 0.
    return error.exitCode === 0 ? 0 : EXIT.couldNotRun;
  }
  if (error instanceof InputError) {
    const problems = error instanceof InputProblems ? error.problems : [error.message];
    for (const problem of problems) printError(problem);
    return EXIT.couldNotRun;
  }
  if (error instanceof RunStoppedError) {
    // One sentence of eb's quoting an endpoint's or a target's text, newlines and all.
    printError(terminalSafeLine(error.message));
    return error.exitCode;
  }
  printError(
    `unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  return EXIT.couldNotRun;
}
