import { z } from "zod";
import { buildCaseJudgePrompt } from "../judge/prompt.js";
import { extractVerdict } from "../judge/verdict.js";
import { defineGrader, quote } from "./define.js";

/** Asks the judge model whether the output meets every criterion; its verdict decides. */
export const judge = defineGrader({
  describe: '{"criteria": ["<criterion>", ...]}',
  schema: z.strictObject({ criteria: z.array(z.string().trim().min(1)).min(1) }),
  usesJudge: true,
  criteria: (spec) => spec.criteria,
  async grade(output, spec, ctx) {
    if (ctx.judge === null) throw new Error("no judge model is configured");
    const text = await ctx.judge(buildCaseJudgePrompt(ctx.request, output, spec.criteria));
    const verdict = extractVerdict(text);
    if (verdict === null) {
      const reason = `judge gave no verdict (no JSON {"score": 0 or 1}) in its answer ${quote(text)}`;
      return { pass: false, reason };
    }
    const reason =
      verdict.reason ?? (verdict.score === 1 ? undefined : "judge scored 0 without a reason");
    return reason === undefined ? { pass: true } : { pass: verdict.score === 1, reason };
  },
});
