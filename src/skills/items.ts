import { getGrader } from "../graders/registry.js";
import type { GraderSpec } from "../graders/types.js";
import type { SkillEval, SkillEvalFile } from "./evals.js";
import type { SkillItem } from "./suite.js";

/**
 * The items of a skill run: each eval a case with one judge grader per expectation (named by
 * its text, so the row's marks are the expectation verdicts); an eval without expectations is
 * judged by its expected_output, and one with neither passes when the agent finishes.
 */
export function evalItems(files: readonly SkillEvalFile[]): SkillItem[] {
  return files.flatMap((file) =>
    file.evals.map((e) => ({
      ...caseOf(e.id, e.prompt),
      files: e.files,
      graders: gradersOf(e),
      shouldTrigger: null,
    })),
  );
}

/** The trigger queries: graded by the delivery proof alone (see the suite). */
export function triggerItems(files: readonly SkillEvalFile[]): SkillItem[] {
  return files.flatMap((file) =>
    file.triggers.map((t) => ({
      ...caseOf(t.id, t.query),
      files: [],
      graders: [],
      shouldTrigger: t.shouldTrigger,
    })),
  );
}

function caseOf(id: string, prompt: string) {
  return { id, stratum: "none", messages: [{ role: "user" as const, content: prompt }], line: 1 };
}

function gradersOf(e: SkillEval): GraderSpec[] {
  const criteria =
    e.expectations.length > 0
      ? e.expectations
      : e.expectedOutput === null
        ? []
        : [e.expectedOutput];
  const seen = new Map<string, number>();
  return criteria.map((text) => {
    const count = (seen.get(text) ?? 0) + 1;
    seen.set(text, count);
    return judgeGrader(count === 1 ? text : `${text} (${count})`, text);
  });
}

function judgeGrader(name: string, criterion: string): GraderSpec {
  const compiled = getGrader("judge")!.compile({ criteria: [criterion] });
  if (!compiled.ok) throw new Error(`expectation ${JSON.stringify(name)} is not a judge criterion`);
  return { type: "judge", name, usesJudge: true, criteria: [criterion], grade: compiled.grade };
}

/** Whether any item needs the judge model. */
export function needsJudge(items: readonly SkillItem[]): boolean {
  return items.some((item) => item.graders.length > 0);
}
