import type { JudgeFn } from "./sample.js";

/** The judge verdicts a run asked for, and how many the cache answered. */
export interface JudgeCacheCount {
  verdicts: number;
  cached: number;
}

/**
 * The judge, counting its verdicts as they come: the cache keys a verdict on the endpoint, the
 * judge model's name, the prompt, the temperature and the verdict number, so a deployment that
 * changed behind the same name keeps answering from it until --no-cache; the count says how
 * much of a run's judging that is.
 */
export function countingJudge(judge: JudgeFn | null): {
  judge: JudgeFn | null;
  count: JudgeCacheCount | null;
} {
  if (judge === null) return { judge, count: null };
  const count = { verdicts: 0, cached: 0 };
  return {
    count,
    judge: async (prompt, sample) => {
      const reply = await judge(prompt, sample);
      count.verdicts++;
      if (typeof reply !== "string" && reply.cached === true) count.cached++;
      return reply;
    },
  };
}
