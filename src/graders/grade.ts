import { RunStoppedError } from "../errors.js";
import type { GraderContext, GraderOutcome, GraderSpec, Vote } from "./types.js";

export interface Grades {
  /** Grader name → passed, in the case's grader order. */
  marks: Record<string, boolean>;
  /** Why a grader failed, for the failing graders that said so (errors included). */
  reasons: Record<string, string>;
  /**
   * Graders that could not decide (they threw: a judge call that failed, a bug in a custom
   * grader), with why. The output was not judged, so the sample is an error, not a failure.
   */
  errors: Record<string, string>;
  /** The verdicts of each grader that asked its judge more than once (`--judge-samples`). */
  votes: Record<string, Vote[]>;
}

/** Runs every grader of a case on one output; a grader that throws is an error, marked failed. */
export async function gradeOutput(
  output: string,
  graders: readonly GraderSpec[],
  ctx: GraderContext,
): Promise<Grades> {
  const outcomes = await Promise.all(graders.map((g) => safeGrade(g, output, ctx)));
  const marks: [string, boolean][] = [];
  const reasons: [string, string][] = [];
  const errors: [string, string][] = [];
  const votes: [string, Vote[]][] = [];
  // One pass, no list per field: this runs for every sample of a run.
  graders.forEach(({ name }, i) => {
    const o = outcomes[i] as SafeOutcome;
    marks.push([name, o.pass]);
    if (!o.pass && o.reason) reasons.push([name, o.reason]);
    if (o.error !== undefined) errors.push([name, o.error]);
    if (o.votes) votes.push([name, o.votes]);
  });
  // fromEntries defines own properties: a grader named "__proto__" must not vanish (and with
  // it a failing mark) the way an assignment to it would.
  return {
    marks: Object.fromEntries(marks),
    reasons: Object.fromEntries(reasons),
    errors: Object.fromEntries(errors),
    votes: Object.fromEntries(votes),
  };
}

interface SafeOutcome extends GraderOutcome {
  error?: string;
}

async function safeGrade(g: GraderSpec, output: string, ctx: GraderContext): Promise<SafeOutcome> {
  try {
    const outcome = await g.grade(output, ctx);
    return { pass: outcome.pass === true, reason: outcome.reason, votes: outcome.votes };
  } catch (error) {
    // A judge endpoint that refused the key stops the run: no grader could grade.
    if (error instanceof RunStoppedError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    return { pass: false, reason: `grader error: ${message}`, error: message };
  }
}
