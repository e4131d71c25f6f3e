import type { z } from "zod";
import type { GraderContext, GraderDefinition, GraderOutcome, GraderResult } from "./types.js";

export type Compiled =
  | { ok: true; grade: (output: string, ctx: GraderContext) => Promise<GraderOutcome> }
  | { ok: false; issues: readonly z.core.$ZodIssue[] };

/** A grader type with its spec type erased, so differently typed graders share one registry. */
export interface Grader {
  describe: string;
  usesJudge: boolean;
  /** Validates a grader's own fields (without `type` and `name`) once, at load time. */
  compile(fields: unknown): Compiled;
}

export function defineGrader<S>(def: GraderDefinition<S>): Grader {
  return {
    describe: def.describe,
    usesJudge: def.usesJudge ?? false,
    compile(fields) {
      const parsed = def.schema.safeParse(fields);
      if (!parsed.success) return { ok: false, issues: parsed.error.issues };
      const spec = parsed.data;
      return {
        ok: true,
        grade: async (output, ctx) => outcome(await def.grade(output, spec, ctx)),
      };
    },
  };
}

function outcome(result: GraderResult): GraderOutcome {
  return typeof result === "boolean" ? { pass: result } : result;
}

/** Shortens a text quoted in a reason. */
export function quote(text: string, max = 80): string {
  const shown = text.length > max ? `${text.slice(0, max)}…` : text;
  return JSON.stringify(shown);
}
