import path from "node:path";
import type { BatchOutcome } from "../model/batch.js";
import type { ChatRequest } from "../model/chat.js";
import { responseLimitBytes } from "../model/response-limit.js";
import { storedResult } from "../model/stored-result.js";
import type { CaseTarget } from "../model/types.js";
import {
  BATCHES_FILE,
  type BatchRound,
  type BatchSettings,
  JUDGE_BATCHES_FILE,
} from "./batch-settings.js";
import { targetRequest } from "./estimate.js";
import { judgeCallKey, judgeCallsOf, judgeRequest } from "./judge-calls.js";
import type { Plan } from "./plan.js";
import type { JudgeFn } from "./sample.js";
import type { Case } from "./schema.js";

/**
 * What the batches decided: the samples answered (now in the cache) or failed, with the reason,
 * and the judge calls the judge round could not answer (by judgeCallKey).
 */
export interface BatchAnswers {
  answered: Set<string>;
  failed: Map<string, string>;
  judgeFailed: Map<string, string>;
}

interface BatchContext {
  runDir: string;
  signal: AbortSignal;
  batch: BatchSettings;
}

/** One call a round sends, under its custom id. */
interface Call {
  request: ChatRequest;
  sample: number;
}

/** A round's outcome by custom id. */
interface RoundResult {
  answered: Set<string>;
  failed: Map<string, string>;
}

type ChatModule = typeof import("../model/chat.js");

export const sampleId = (caseId: string, sample: number) => `${caseId}#${sample}`;

/**
 * The pre-pass of a `--batch` run, in two rounds: the target calls the cache cannot answer (and
 * no earlier attempt's row holds) as one batch, then the judge calls their answers lead to as
 * another. Each answer is cached under the key a direct call uses, so the run's per-sample loop
 * finds them in the cache. Null when interrupted.
 */
export async function batchPrepass(
  plan: Plan,
  cases: readonly Case[],
  done: ReadonlySet<string>,
  context: BatchContext,
): Promise<BatchAnswers | null> {
  // The OpenAI client loads only for a batch run (it is the heaviest import).
  const chat = await import("../model/chat.js");
  const targets = await targetCalls(plan, cases, done);
  const target = await sendRound(plan, chat, targets, context, "target");
  if (target === null) return null;
  const judges = await judgeCalls(plan, chat, cases, (id) => done.has(id) || target.failed.has(id));
  const judge = await sendRound(plan, chat, judges.calls, context, "judge");
  if (judge === null) return null;
  const judgeFailed = new Map<string, string>();
  for (const [id, reason] of judge.failed) judgeFailed.set(judges.keys.get(id) ?? id, reason);
  return { answered: target.answered, failed: target.failed, judgeFailed };
}

async function targetCalls(
  plan: Plan,
  cases: readonly Case[],
  done: ReadonlySet<string>,
): Promise<Map<string, Call>> {
  const calls = new Map<string, Call>();
  for (const c of cases) {
    const request = targetRequest(plan, c);
    if (request === null) continue;
    for (let sample = 0; sample < plan.k; sample++) {
      const id = sampleId(c.id, sample);
      if (done.has(id) || (await plan.lookup?.(request, sample))) continue;
      calls.set(id, { request, sample });
    }
  }
  return calls;
}

/**
 * The judge calls of every sample the cache now answers, found by grading its answer as the run
 * will. Their custom ids come from their cache keys, so a resumed run names the same calls.
 */
async function judgeCalls(
  plan: Plan,
  chat: ChatModule,
  cases: readonly Case[],
  skip: (id: string) => boolean,
): Promise<{ calls: Map<string, Call>; keys: Map<string, string> }> {
  const calls = new Map<string, Call>();
  const keys = new Map<string, string>();
  const model = plan.settings.judge;
  if (plan.judge === null || model === null) return { calls, keys };
  for (const c of cases) {
    const request = targetRequest(plan, c);
    if (request === null || !c.graders.some((g) => g.usesJudge)) continue;
    for (let sample = 0; sample < plan.k; sample++) {
      const answer = skip(sampleId(c.id, sample)) ? null : await plan.lookup?.(request, sample);
      if (!answer) continue;
      const output = plan.scrubber.scrub(answer.text);
      for (const call of await judgeCallsOf(c, output, plan.judgeSamples)) {
        const judged = judgeRequest(plan.settings, model, call.prompt);
        if (await plan.lookup?.(judged, call.sample)) continue;
        const key = chat.answerKey(plan.settings.apiBase, judged, call.sample);
        const id = `judge-${key.slice(0, 32)}`;
        calls.set(id, { request: judged, sample: call.sample });
        keys.set(id, judgeCallKey(call));
      }
    }
  }
  return { calls, keys };
}

/**
 * Sends one round's calls as a batch (or polls the one its run folder records) and caches each
 * answer as its line comes in.
 */
async function sendRound(
  plan: Plan,
  chat: ChatModule,
  calls: ReadonlyMap<string, Call>,
  context: BatchContext,
  round: BatchRound,
): Promise<RoundResult | null> {
  const outcome: RoundResult = { answered: new Set(), failed: new Map() };
  if (calls.size === 0) return outcome;
  const { runBatch } = await import("../model/batch.js");
  const { onStatus } = context.batch;
  const result = await runBatch(
    [...calls].map(([customId, { request }]) => ({ customId, body: chat.chatBody(request) })),
    {
      baseURL: plan.settings.apiBase,
      apiKey: context.batch.apiKey,
      stateFile: path.join(context.runDir, round === "target" ? BATCHES_FILE : JUDGE_BATCHES_FILE),
      pollMs: context.batch.pollMs,
      signal: context.signal,
      onStatus: onStatus && ((status) => onStatus({ ...status, round })),
      scrub: plan.scrubber.scrub,
      maxResponseBytes: responseLimitBytes(plan.settings.maxResponseMb),
      onOutcome: async (id, line) => {
        const call = calls.get(id);
        if (call !== undefined) await settle(plan, chat, { id, call, line }, outcome);
      },
    },
  );
  if (result === null) return null;
  for (const id of calls.keys()) {
    const settled = outcome.answered.has(id) || outcome.failed.has(id);
    if (!settled) outcome.failed.set(id, result.missing);
  }
  return outcome;
}

/** Caches an answered line under the key a direct call uses; notes a failed one's reason. */
async function settle(
  plan: Plan,
  chat: ChatModule,
  { id, call, line }: { id: string; call: Call; line: BatchOutcome },
  outcome: RoundResult,
): Promise<void> {
  // A later line for the request overrides an earlier one.
  outcome.answered.delete(id);
  outcome.failed.delete(id);
  if (!line.ok) {
    outcome.failed.set(id, line.error);
    return;
  }
  try {
    const answer = chat.interpretCompletion(line.body, call.request.model);
    await plan.cache.set(
      chat.answerKey(plan.settings.apiBase, call.request, call.sample),
      storedResult({ ...answer, ms: 0, cached: false }),
    );
    outcome.answered.add(id);
  } catch (error) {
    outcome.failed.set(id, `batch: ${error instanceof Error ? error.message : String(error)}`);
  }
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

/** The judge of a batch run: a call the judge round failed is a grader error with its reason. */
export function batchedJudge(judge: JudgeFn, answers: () => BatchAnswers | null): JudgeFn {
  return async (prompt, sample) => {
    const failed = answers()?.judgeFailed.get(judgeCallKey({ prompt, sample }));
    if (failed !== undefined) throw new Error(failed);
    return judge(prompt, sample);
  };
}
