import { z } from "zod";
import { buildCaseJudgePrompt } from "../judge/prompt.js";
import { extractVerdict } from "../judge/verdict.js";
import { defineGrader, quote } from "./define.js";
import type { GraderOutcome, Vote } from "./types.js";

/**
 * Asks the judge model whether the output meets every criterion; its verdict decides. Asked
 * several times (`--judge-samples`), the majority decides (a tie fails) and every verdict is kept.
 */
export const judge = defineGrader({
  describe: '{"criteria": ["<criterion>", ...]}',
  schema: z.strictObject({ criteria: z.array(z.string().trim().min(1)).min(1) }),
  usesJudge: true,
  criteria: (spec) => spec.criteria,
  async grade(output, spec, ctx) {
    const ask = ctx.judge;
    if (ask === null) throw new Error("no judge model is configured");
    const prompt = buildCaseJudgePrompt(ctx.request, output, spec.criteria);
    const asked = Array.from({ length: ctx.judgeSamples }, (_, sample) => ask(prompt, sample));
    const verdicts = (await Promise.all(asked)).map(verdictOf);
    const [first] = verdicts;
    if (verdicts.length === 1 && first) return first;
    return majority(verdicts);
  },
});

function verdictOf(text: string): GraderOutcome {
  const verdict = extractVerdict(text);
  if (verdict === null) {
    const reason = `judge gave no verdict (no JSON {"score": 0 or 1}) in its answer ${quote(text)}`;
    return { pass: false, reason };
  }
  const reason =
    verdict.reason ?? (verdict.score === 1 ? undefined : "judge scored 0 without a reason");
  return reason === undefined ? { pass: true } : { pass: verdict.score === 1, reason };
}

function majority(verdicts: readonly GraderOutcome[]): GraderOutcome {
  const votes = verdicts.map((v): Vote => (v.pass ? 1 : 0));
  const passes = votes.filter(Boolean).length;
  if (passes * 2 > votes.length) {
    // Kept for whoever reads a pass's evidence (eb skill run's grading.json).
    const reason = verdicts.find((v) => v.pass)?.reason;
    return reason === undefined ? { pass: true, votes } : { pass: true, reason, votes };
  }
  const failed = verdicts.find((v) => !v.pass);
  const reason = `${votes.length - passes} of ${votes.length} verdicts failed: ${failed?.reason ?? "failed"}`;
  return { pass: false, reason, votes };
}
