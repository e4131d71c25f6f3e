import type { z } from "zod";
import { head } from "../report/reason.js";
import type { GraderDefinition, GraderOutcome, GraderResult, GraderSpec } from "./types.js";

export type Compiled =
  | ({ ok: true } & Pick<GraderSpec, "grade" | "criteria" | "python">)
  | { ok: false; issues: readonly z.core.$ZodIssue[] };

/** A grader type with its spec type erased, so differently typed graders share one registry. */
export interface Grader {
  describe: string;
  usesJudge: boolean;
  /** Its own fields (without `type` and `name`), for the case file's JSON Schema. */
  schema: z.ZodType;
  /** Validates a grader's own fields (without `type` and `name`) once, at load time. */
  compile(fields: unknown): Compiled;
}

export function defineGrader<S>(def: GraderDefinition<S>): Grader {
  return {
    describe: def.describe,
    usesJudge: def.usesJudge ?? false,
    schema: def.schema,
    compile(fields) {
      const parsed = def.schema.safeParse(fields);
      if (!parsed.success) return { ok: false, issues: parsed.error.issues };
      const spec = parsed.data;
      return {
        ok: true,
        grade: async (output, ctx) => outcome(await def.grade(output, spec, ctx)),
        ...(def.criteria ? { criteria: def.criteria(spec) } : {}),
        ...(def.python ? { python: def.python(spec) } : {}),
      };
    },
  };
}

function outcome(result: GraderResult): GraderOutcome {
  return typeof result === "boolean" ? { pass: result } : result;
}

/** A text quoted in a reason: its start, with an ellipsis when cut, as one JSON string. */
export function quote(text: string, max = 80): string {
  const shown = text.length > max ? `${head(text, max)}…` : text;
  return JSON.stringify(shown);
}
