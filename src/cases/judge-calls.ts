import { gradeOutput } from "../graders/grade.js";
import type { ChatRequest } from "../model/chat.js";
import type { Case } from "./schema.js";

/** The request the judge sends for a prompt (what its cache entry is keyed on). */
export function judgeRequest(model: string, prompt: string): ChatRequest {
  return { model, messages: [{ role: "user", content: prompt }], temperature: 0 };
}

/**
 * The prompts a case's judge graders send for an output, found by grading with a judge that
 * only notes them: exactly the ones a run would send, without calling anything.
 */
export async function judgePrompts(c: Case, output: string): Promise<string[]> {
  const graders = c.graders.filter((g) => g.usesJudge);
  if (graders.length === 0) return [];
  const prompts: string[] = [];
  const judge = async (prompt: string) => {
    prompts.push(prompt);
    return '{"score": 1, "reason": "noted"}';
  };
  const request = c.messages.at(-1)?.content ?? "";
  await gradeOutput(output, graders, { request, messages: c.messages, judge });
  return prompts;
}
