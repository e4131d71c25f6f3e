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
