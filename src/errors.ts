/**
 * A problem in what the user gave us (flags, config, definitions, case files).
 * The CLI prints the message and exits 2 before any item runs; every message names
 * the file (and line, where there is one) and says what to do.
 */
export class InputError extends Error {
  override name = "InputError";
}

/**
 * A run that started but cannot go on: a full disk (exit 1), an endpoint that refuses the API
 * key (exit 2: every further call would be refused alike). Thrown by a sample, it stops every
 * lane; the rows written so far stay valid, and the CLI prints the message (which says how to
 * finish the run) and exits with `exitCode`.
 */
export class RunStoppedError extends Error {
  override name = "RunStoppedError";

  constructor(
    message: string,
    readonly exitCode: number = EXIT.fellShort,
  ) {
    super(message);
  }
}

/** Exit codes shared by every command (DESIGN.md). */
export const EXIT = {
  passed: 0,
  fellShort: 1,
  couldNotRun: 2,
  interrupted: 130,
} as const;

/**
 * Several problems in what the user gave us, found in one pass so they can all be fixed at once
 * (every broken check file, every duplicate id, every script that does not compile). The CLI
 * prints each as its own error line; the message holds them all, one after another.
 */
export class InputProblems extends InputError {
  override name = "InputError";
  constructor(readonly problems: readonly string[]) {
    super(problems.join("\n"));
  }
}

/** Throws the problems found, if any. */
export function throwProblems(problems: readonly string[]): void {
  if (problems.length > 0) throw new InputProblems(problems);
}
