import { z } from "zod";
import { defineGrader } from "./define.js";
import { pythonToJsRegex } from "./python-regex.js";

/**
 * JavaScript regexes cannot be interrupted, so a pattern with catastrophic backtracking can hang
 * the process. Bounding the text it sees limits the damage of merely slow patterns but not of
 * exponential ones; running the match in a worker with a deadline is left to a later change.
 */
export const MAX_REGEX_INPUT = 1_000_000;

/** Matches anywhere in the output, ignoring case, "." matching newlines (Python re.S | re.I). */
export const regex = defineGrader({
  describe: '{"pattern": "<regular expression>"} (Python or JavaScript syntax)',
  schema: z.strictObject({ pattern: z.string().min(1) }).transform((spec, ctx) => {
    try {
      const { source, flags } = pythonToJsRegex(spec.pattern);
      return { pattern: spec.pattern, re: new RegExp(source, `is${flags}`) };
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      // V8 repeats the whole pattern in its message; the user has it in front of them.
      const short = why.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "");
      ctx.addIssue({ code: "custom", path: ["pattern"], message: `invalid regex (${short})` });
      return z.NEVER;
    }
  }),
  grade(output, spec) {
    const seen = output.length > MAX_REGEX_INPUT ? output.slice(0, MAX_REGEX_INPUT) : output;
    if (spec.re.test(seen)) return true;
    const scope = seen === output ? "" : ` in the first ${MAX_REGEX_INPUT} characters`;
    return { pass: false, reason: `no match for /${spec.pattern}/${scope}` };
  },
});
