import type { EvalConfig } from "../config/load.js";
import { gradeOutput } from "../graders/grade.js";
import type { ChatRequest } from "../model/chat.js";
import type { Case } from "./schema.js";

/** One judge call: a prompt and which of its verdicts (the cache's sample index) it asks for. */
export interface JudgeCall {
  prompt: string;
  sample: number;
}

/** Tells judge calls apart in a map. */
export const judgeCallKey = (call: JudgeCall) => `${call.sample}:${call.prompt}`;

/** The request the judge sends for a prompt (what its cache entry is keyed on, with the sample). */
export function judgeRequest(
  settings: Pick<EvalConfig, "judgeTemperature">,
  model: string,
  prompt: string,
): ChatRequest {
  const messages = [{ role: "user" as const, content: prompt }];
  return { model, messages, temperature: settings.judgeTemperature };
}

/**
 * The judge calls a case's judge graders make for an output, found by grading with a judge that
 * only notes them: exactly the ones a run would make, without calling anything.
 */
export async function judgeCallsOf(
  c: Case,
  output: string,
  judgeSamples: number,
): Promise<JudgeCall[]> {
  const graders = c.graders.filter((g) => g.usesJudge);
  if (graders.length === 0) return [];
  const calls: JudgeCall[] = [];
  const judge = async (prompt: string, sample: number) => {
    calls.push({ prompt, sample });
    return '{"score": 1, "reason": "noted"}';
  };
  const request = c.messages.at(-1)?.content ?? "";
  // Only judge graders run here: no grader program is started.
  const item = { id: c.id, stratum: c.stratum, sample: 0 };
  await gradeOutput(output, graders, {
    request,
    messages: c.messages,
    judge,
    judgeSamples,
    item,
    processes: null,
  });
  return calls;
}
