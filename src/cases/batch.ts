import path from "node:path";
import type { ChatRequest } from "../model/chat.js";
import { storedResult } from "../model/stored-result.js";
import type { CaseTarget } from "../model/types.js";
import { BATCHES_FILE, type BatchSettings } from "./batch-settings.js";
import { targetRequest } from "./estimate.js";
import type { Plan } from "./plan.js";
import type { Case } from "./schema.js";

/** What the batch decided per sample: answered (now in the cache) or failed, with its reason. */
export interface BatchAnswers {
  answered: Set<string>;
  failed: Map<string, string>;
}

export const sampleId = (caseId: string, sample: number) => `${caseId}#${sample}`;

/**
 * The pre-pass of a `--batch` run: sends the target calls the cache cannot answer (and no
 * earlier attempt's row holds) as one batch, and caches each answer under the key a direct call
 * uses. The run's per-sample loop then finds them in the cache. Null when interrupted.
 */
export async function batchPrepass(
  plan: Plan,
  cases: readonly Case[],
  done: ReadonlySet<string>,
  context: { runDir: string; signal: AbortSignal; batch: BatchSettings },
): Promise<BatchAnswers | null> {
  // The OpenAI client loads only for a batch run (it is the heaviest import).
  const { runBatch } = await import("../model/batch.js");
  const { answerKey, chatBody, interpretCompletion } = await import("../model/chat.js");
  const wanted = new Map<string, { request: ChatRequest; sample: number }>();
  for (const c of cases) {
    const request = targetRequest(plan, c);
    if (request === null) continue;
    for (let sample = 0; sample < plan.k; sample++) {
      const id = sampleId(c.id, sample);
      if (done.has(id) || (await plan.lookup?.(request, sample))) continue;
      wanted.set(id, { request, sample });
    }
  }
  const answers: BatchAnswers = { answered: new Set(), failed: new Map() };
  const result = await runBatch(
    [...wanted].map(([customId, { request }]) => ({ customId, body: chatBody(request) })),
    {
      baseURL: plan.settings.apiBase,
      apiKey: context.batch.apiKey,
      stateFile: path.join(context.runDir, BATCHES_FILE),
      pollMs: context.batch.pollMs,
      signal: context.signal,
      onStatus: context.batch.onStatus,
      scrub: plan.scrubber.scrub,
    },
  );
  if (result === null) return null;
  for (const [id, { request, sample }] of wanted) {
    const outcome = result.outcomes.get(id) ?? { ok: false, error: result.missing };
    if (!outcome.ok) {
      answers.failed.set(id, outcome.error);
      continue;
    }
    try {
      const answer = interpretCompletion(outcome.body, request.model);
      await plan.cache.set(
        answerKey(plan.settings.apiBase, request, sample),
        storedResult({ ...answer, ms: 0, cached: false }),
      );
      answers.answered.add(id);
    } catch (error) {
      answers.failed.set(id, `batch: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return answers;
}

/**
 * The target of a batch run: a sample the batch failed is an error with the batch's reason (not
 * a direct call); one it answered comes from the cache, but was paid by this run, not cached.
 */
export function batchedTarget(target: CaseTarget, answers: () => BatchAnswers | null): CaseTarget {
  return {
    complete: async (input, sample, signal) => {
      const id = sampleId(input.id, sample);
      const failed = answers()?.failed.get(id);
      if (failed !== undefined) throw new Error(failed);
      const result = await target.complete(input, sample, signal);
      return answers()?.answered.has(id) ? { ...result, cached: false } : result;
    },
  };
}
