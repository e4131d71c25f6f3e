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

/**
 * The known name nearest to a misspelt one, for a "did you mean" hint, or null when none is
 * near enough to be a likely typo: at most one edit per three characters of `name` (at least
 * one), counting a swap of two neighbours as one edit and ignoring case.
 */
export function nearestName(name: string, known: Iterable<string>): string | null {
  const cutoff = Math.max(1, Math.floor(name.length / 3));
  let best: string | null = null;
  let bestDistance = cutoff + 1;
  for (const candidate of known) {
    if (candidate === name) continue;
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** `did you mean 'deterministic'?` (in the quotes given), or null when no name is near. */
export function didYouMean(name: string, known: Iterable<string>, quote = "'"): string | null {
  const nearest = nearestName(name, known);
  return nearest === null ? null : `did you mean ${quote}${nearest}${quote}?`;
}

/** Damerau-Levenshtein distance (optimal string alignment): inserts, deletes, changes, swaps. */
function editDistance(a: string, b: string): number {
  // Rows i-2, i-1 and i of the table, reused.
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const change = a[i - 1] === b[j - 1] ? 0 : 1;
      let cost = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + change);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        cost = Math.min(cost, before[j - 2]! + 1);
      }
      row.push(cost);
    }
    [before, previous] = [previous, row];
  }
  return previous[b.length]!;
}
