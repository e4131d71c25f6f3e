import type { GraderContext, GraderOutcome, GraderSpec } from "./types.js";

export interface Grades {
  /** Grader name → passed, in the case's grader order. */
  marks: Record<string, boolean>;
  /** Why a grader failed, for the failing graders that said so. */
  reasons: Record<string, string>;
}

/** Runs every grader of a case on one output; a grader that throws fails with its message. */
export async function gradeOutput(
  output: string,
  graders: readonly GraderSpec[],
  ctx: GraderContext,
): Promise<Grades> {
  const outcomes = await Promise.all(graders.map((g) => safeGrade(g, output, ctx)));
  const grades: Grades = { marks: {}, reasons: {} };
  graders.forEach((g, i) => {
    const outcome = outcomes[i] as GraderOutcome;
    grades.marks[g.name] = outcome.pass;
    if (!outcome.pass && outcome.reason) grades.reasons[g.name] = outcome.reason;
  });
  return grades;
}

async function safeGrade(
  g: GraderSpec,
  output: string,
  ctx: GraderContext,
): Promise<GraderOutcome> {
  try {
    const outcome = await g.grade(output, ctx);
    return { pass: outcome.pass === true, reason: outcome.reason };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { pass: false, reason: `grader error: ${message}` };
  }
}
