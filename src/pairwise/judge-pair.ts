import type { JudgeFn } from "../cases/sample.js";
import { RunStoppedError } from "../errors.js";
import { quote } from "../graders/define.js";
import { buildPairJudgePrompt } from "../judge/prompt.js";
import { extractWinner, type Winner } from "../judge/verdict.js";
import { oneLine } from "../report/reason.js";
import type { PairOutcome, PairVerdict, PairwiseRow } from "../report/record.js";
import type { Answer, PairItem } from "./pairs.js";

/** Which run's answer is shown first. */
type First = "baseline" | "candidate";

/** One order as judged: its verdict, or why it has none, and what the call cost. */
interface Judged {
  verdict: PairVerdict;
  error: string | null;
  cached: boolean;
  promptTokens: number | null;
  completionTokens: number | null;
}

/** The run whose answer a winner names, in each order. */
const CHOSEN: Record<First, Record<Winner, "baseline" | "candidate" | "tie">> = {
  baseline: { A: "baseline", B: "candidate", tie: "tie" },
  candidate: { A: "candidate", B: "baseline", tie: "tie" },
};

const OUTCOME = { candidate: "win", baseline: "loss", tie: "tie" } as const;

/** The two prompts of a pair: baseline first, then candidate first. */
export function pairPrompts(item: PairItem, base: string, cand: string): [string, string] {
  return [
    buildPairJudgePrompt(item.request, { a: base, b: cand }, item.criteria),
    buildPairJudgePrompt(item.request, { a: cand, b: base }, item.criteria),
  ];
}

/**
 * One pair judged in both orders. It is a win (loss, tie) only when both orders choose the same
 * run's answer (both a tie); otherwise inconsistent. A call that fails, an answer with no
 * verdict, or a run with no answer to show makes an error row; a refused key stops the run.
 */
export async function judgePair(
  item: PairItem,
  sample: number,
  judge: JudgeFn,
  model: string,
): Promise<PairwiseRow> {
  const started = performance.now();
  const texts = textsOf(item.answers.get(sample)!);
  // No answer to show: neither order is asked.
  if (typeof texts === "string")
    return rowOf(item, sample, model, [NOT_ASKED, NOT_ASKED], texts, 0);
  const [baseFirst, candFirst] = pairPrompts(item, texts.base, texts.cand);
  const judged = await Promise.all([judgeOnce(judge, baseFirst), judgeOnce(judge, candFirst)]);
  const ms = Math.round(performance.now() - started);
  return rowOf(item, sample, model, judged, orderErrors(judged), ms);
}

/** Both runs' answers, or why one has none to show. */
export function textsOf(answers: {
  base: Answer;
  cand: Answer;
}): { base: string; cand: string } | string {
  if ("missing" in answers.base) return `the baseline's ${answers.base.missing}`;
  if ("missing" in answers.cand) return `the candidate's ${answers.cand.missing}`;
  return { base: answers.base.text, cand: answers.cand.text };
}

const NOT_ASKED: Judged = {
  verdict: { winner: null, reason: null },
  error: null,
  cached: false,
  promptTokens: null,
  completionTokens: null,
};

function noVerdict(why: string): Judged {
  return { ...NOT_ASKED, error: why };
}

async function judgeOnce(judge: JudgeFn, prompt: string): Promise<Judged> {
  let reply: Awaited<ReturnType<JudgeFn>>;
  try {
    reply = await judge(prompt, 0);
  } catch (error) {
    if (error instanceof RunStoppedError) throw error;
    return noVerdict(
      `the judge call failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const { text, usage, cached } = typeof reply === "string" ? { text: reply } : reply;
  const found = extractWinner(text);
  const spent = {
    cached: cached === true,
    promptTokens: usage?.prompt_tokens ?? null,
    completionTokens: usage?.completion_tokens ?? null,
  };
  if (found === null) {
    const why = `judge gave no verdict (no JSON {"winner": "A", "B" or "tie"}) in its answer ${quote(text)}`;
    return { ...noVerdict(why), ...spent };
  }
  return { verdict: found, error: null, ...spent };
}

/** Why an order has no verdict, each order named; null when both have one. */
function orderErrors([baseFirst, candFirst]: readonly [Judged, Judged]): string | null {
  const errors = [
    baseFirst.error && `baseline first: ${baseFirst.error}`,
    candFirst.error && `candidate first: ${candFirst.error}`,
  ].filter((e): e is string => typeof e === "string");
  return errors.length === 0 ? null : errors.join("; ");
}

/** The row of a pair; `error` says why it has no outcome, null when both orders gave one. */
function rowOf(
  item: PairItem,
  sample: number,
  model: string,
  [baseFirst, candFirst]: readonly [Judged, Judged],
  error: string | null,
  ms: number,
): PairwiseRow {
  const judged =
    error === null
      ? judgedBoth(baseFirst.verdict, candFirst.verdict)
      : { outcome: null, reason: error };
  const { outcome } = judged;
  return {
    id: item.id,
    sample,
    score: outcome === "win" ? 1 : 0,
    status: error !== null ? "error" : outcome === "win" ? "passed" : "failed",
    marks: {},
    stratum: item.stratum,
    model,
    outcome,
    baseline_first: baseFirst.verdict,
    candidate_first: candFirst.verdict,
    ms,
    reason: oneLine(judged.reason),
    error,
    cached: baseFirst.cached && candFirst.cached,
    cost: null,
    tags: [],
    judge_prompt_tokens: sum(baseFirst.promptTokens, candFirst.promptTokens),
    judge_completion_tokens: sum(baseFirst.completionTokens, candFirst.completionTokens),
  };
}

/** The candidate's result, when both orders chose the same run's answer. */
function outcomeOf(baseFirst: PairVerdict, candFirst: PairVerdict): PairOutcome {
  const one = CHOSEN.baseline[baseFirst.winner!];
  const other = CHOSEN.candidate[candFirst.winner!];
  return one === other ? OUTCOME[one] : "inconsistent";
}

/** The outcome of a pair both orders gave a verdict on, and the row's reason: both verdicts. */
function judgedBoth(
  baseFirst: PairVerdict,
  candFirst: PairVerdict,
): { outcome: PairOutcome; reason: string } {
  const outcome = outcomeOf(baseFirst, candFirst);
  const order = (name: string, v: PairVerdict) =>
    `${name} first: ${v.winner}${v.reason ? ` (${v.reason})` : ""}`;
  return {
    outcome,
    reason: `${outcome}: ${order("baseline", baseFirst)}; ${order("candidate", candFirst)}`,
  };
}

function sum(a: number | null, b: number | null): number | null {
  return a === null && b === null ? null : (a ?? 0) + (b ?? 0);
}
