import type { EvalConfig } from "../config/load.js";
import { RunStoppedError } from "../errors.js";
import { gradeOutput } from "../graders/grade.js";
import type { GraderProcesses } from "../graders/types.js";
import type { ChatTarget } from "../model/chat.js";
import type { CaseTarget, ChatResult, Usage } from "../model/types.js";
import { oneLine } from "../report/reason.js";
import type { CaseRow } from "../report/record.js";
import { judgeRequest } from "./judge-calls.js";
import type { Case } from "./schema.js";

/** The judge's answer; usage lets a row split cost between target and judge. */
export interface JudgeReply {
  text: string;
  usage?: Usage;
  /** The cache answered (no call was made). */
  cached?: boolean;
}

/**
 * Sends a prompt to the judge model, for its verdict number `sample` (each its own call and
 * cache entry). A plain string answer counts as having no usage.
 */
export type JudgeFn = (prompt: string, sample: number) => Promise<JudgeReply | string>;

export interface RunCaseOptions {
  target: CaseTarget;
  judge: JudgeFn | null;
  /** Verdicts asked of each judge grader per output. */
  judgeSamples: number;
  /** The model name written on every row. */
  model: string;
  /**
   * Once aborted, the target call in flight is cancelled: it ends as an error row saying it was
   * interrupted, which a caller that aborted should drop.
   */
  signal?: AbortSignal;
  /**
   * Applied to the output before it is graded. Graders quote the output in their reasons, cut
   * to a few dozen characters: cut first, a secret in it could be left in pieces no scrubber
   * recognizes. A judge never sees a secret either, and what is graded is what the row keeps.
   */
  scrub?: (text: string) => string;
  /** What script and command graders run with; without it they are error samples. */
  processes?: GraderProcesses;
}

const MAX_ERROR_CHARS = 500;

/**
 * A judge that asks the judge model through a chat target, at `[eval] judge_temperature`, cached
 * per verdict number. Once `signal` aborts, a judge call in flight is cancelled too.
 */
export function makeJudge(
  target: ChatTarget,
  settings: Pick<EvalConfig, "judgeTemperature">,
  judgeModel: string,
  signal?: AbortSignal,
): JudgeFn {
  return async (prompt, sample) => {
    const request = judgeRequest(settings, judgeModel, prompt);
    const result = await target.complete(request, sample, signal);
    return { text: result.text, usage: result.usage, cached: result.cached };
  };
}

/**
 * One sample of one case: the target's output graded by every grader of the case. A target that
 * throws yields an error row (score 0); so does a grader that could not grade.
 */
export async function runCaseSample(
  c: Case,
  sample: number,
  opts: RunCaseOptions,
): Promise<CaseRow> {
  const started = performance.now();
  let result: ChatResult;
  try {
    const input = { id: c.id, stratum: c.stratum, messages: c.messages };
    result = await opts.target.complete(input, sample, opts.signal);
  } catch (error) {
    // A failure that stops the whole run (a refused key) is no sample's result.
    if (error instanceof RunStoppedError) throw error;
    return errorRow(c, sample, opts.model, error, Math.round(performance.now() - started));
  }
  const tally = new UsageTally();
  const judge = opts.judge === null ? null : tally.wrap(opts.judge);
  const request = c.messages.at(-1)?.content ?? "";
  const text = opts.scrub ? opts.scrub(result.text) : result.text;
  const { marks, reasons, errors, votes } = await gradeOutput(text, c.graders, {
    request,
    messages: c.messages,
    judge,
    judgeSamples: opts.judgeSamples,
    item: { id: c.id, stratum: c.stratum, sample },
    processes: opts.processes ?? null,
  });
  const pass = Object.values(marks).every(Boolean);
  // A grader that could not grade (a judge call that failed) is an error, not a failure.
  const broken = Object.entries(errors).map(([name, message]) => `${name}: ${message}`);
  const error = broken.length > 0 ? broken.join("; ").slice(0, MAX_ERROR_CHARS) : null;
  return {
    ...baseRow(c, sample, opts.model),
    score: pass ? 1 : 0,
    status: error !== null ? "error" : pass ? "passed" : "failed",
    reason: error !== null ? oneLine(error) : failedReason(marks, reasons),
    error,
    marks,
    ...(Object.keys(reasons).length > 0 ? { reasons } : {}),
    ...(Object.keys(votes).length > 0 ? { votes } : {}),
    model_version: result.model,
    ms: result.ms,
    prompt_tokens: result.usage.prompt_tokens ?? null,
    completion_tokens: result.usage.completion_tokens ?? null,
    judge_prompt_tokens: tally.prompt,
    judge_completion_tokens: tally.completion,
    text,
    cached: result.cached,
  };
}

/** Each failing grader and why, `equals: expected "42", got "43"; tone: …`; null when all passed. */
function failedReason(
  marks: Record<string, boolean>,
  reasons: Record<string, string>,
): string | null {
  const failed = Object.entries(marks).filter(([, pass]) => !pass);
  if (failed.length === 0) return null;
  return oneLine(failed.map(([name]) => `${name}: ${reasons[name] ?? "failed"}`).join("; "));
}

function baseRow(c: Case, sample: number, model: string): CaseRow {
  return {
    id: c.id,
    sample,
    score: 0,
    status: "error",
    marks: {},
    stratum: c.stratum,
    model,
    model_version: null,
    ms: 0,
    prompt_tokens: null,
    completion_tokens: null,
    judge_prompt_tokens: null,
    judge_completion_tokens: null,
    text: null,
    reason: null,
    error: null,
    cached: false,
    cost: null,
    tags: [],
  };
}

function errorRow(c: Case, sample: number, model: string, error: unknown, ms: number): CaseRow {
  const message = error instanceof Error ? error.message : String(error);
  const short =
    message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS)}…` : message;
  const why = short || "unknown error";
  return { ...baseRow(c, sample, model), ms, reason: oneLine(why), error: why };
}

/** Sums the token usage of the judge calls made while grading one sample. */
class UsageTally {
  prompt: number | null = null;
  completion: number | null = null;

  wrap(judge: JudgeFn): (prompt: string, sample: number) => Promise<string> {
    return async (prompt, sample) => {
      const reply = await judge(prompt, sample);
      if (typeof reply === "string") return reply;
      this.add(reply.usage);
      return reply.text;
    };
  }

  private add(usage: Usage | undefined): void {
    if (usage?.prompt_tokens !== undefined) this.prompt = (this.prompt ?? 0) + usage.prompt_tokens;
    if (usage?.completion_tokens !== undefined) {
      this.completion = (this.completion ?? 0) + usage.completion_tokens;
    }
  }
}
