import { JUDGE_OUTPUT_TOKENS } from "../cases/estimate.js";
import { countingJudge, type JudgeCacheCount } from "../cases/judge-cache.js";
import type { Endpoint } from "../cases/plan.js";
import { costOf, tokensOf } from "../cases/price.js";
import type { Config, EvalConfig } from "../config/load.js";
import { InputError } from "../errors.js";
import { baseOf } from "../model/providers/route.js";
import { runFiles } from "../render/files.js";
import type { PairwiseFigures } from "../report/blocks.js";
import { type PairwiseRow, type PairwiseSettings, pairwiseRowSchema } from "../report/record.js";
import { isoUtc } from "../run/provenance.js";
import type { FinishContext, Finished, Suite } from "../run/suite.js";
import { caseSuiteName } from "../run/suite-name.js";
import { redactUrl } from "../secrets/redact.js";
import { scrubStrings } from "../secrets/scrub-strings.js";
import { pairwiseDocument } from "./document.js";
import { judgePair, pairPrompts, textsOf } from "./judge-pair.js";
import type { PairInputs, PairItem } from "./pairs.js";
import type { PairwiseReport } from "./report.js";
import { itemStats, type JudgedPair, pairStats, pairVerdict, strataStats } from "./stats.js";

/** Room on the manifest line for the judge model versions known at the end. */
const MANIFEST_ROOM = 2048;
/** The intervals' level. */
const LEVEL = 0.95;

/** Everything a pairwise run needs, checked before the first call. */
export interface PairwisePlan {
  config: Config;
  settings: EvalConfig;
  inputs: PairInputs;
  endpoint: Endpoint;
  judgeModel: string;
  /** `--criteria`, or null for each case's judge graders'. */
  criteria: string | null;
  margin: number;
  /** What an inconclusive verdict makes the gate (--inconclusive). */
  inconclusive: "fail" | "pass";
  /** The command line as recorded (secrets removed), or null. */
  command: string[] | null;
}

/**
 * `eb pairwise` as a suite: an item is a case both runs answered, a sample one of its samples,
 * and a row the pair judged in both orders. The engine gives it the run folder, resume,
 * interrupts and scrubbing as it gives every run.
 */
export function pairwiseSuite(
  plan: PairwisePlan,
  signal: AbortSignal,
): Suite<"pairwise", PairItem, PairwiseReport> {
  const { inputs, endpoint } = plan;
  const { judge, count } = countingJudge(endpoint.judge);
  if (judge === null || count === null) {
    throw new InputError("eb pairwise needs a judge: pass --judge MODEL");
  }
  const pairs: JudgedPair[] = [];
  const settings = pairwiseSettings(plan);
  const { budget } = endpoint;
  return {
    kind: "pairwise",
    projectRoot: plan.config.projectRoot,
    items: inputs.items,
    samples: inputs.samples,
    workers: plan.settings.workers ?? plan.settings.maxWorkers,
    schedule: "item",
    settings,
    name: caseSuiteName("eb pairwise", inputs.casesFile, plan.config.projectRoot),
    definitions: { [inputs.casesFile]: `sha256:${inputs.casesSha256}` },
    command: plan.command,
    manifestRoom: MANIFEST_ROOM,
    scrubber: endpoint.scrubber,
    open: async () => {},
    restore: async (row) => {
      pairs.push(judgedOf(restoredRow(row)));
      budget?.restore(row, plan.config.pricing, plan.judgeModel);
    },
    runSample: async (item, sample) => {
      // A sample only one run has is no pair.
      if (!item.answers.has(sample)) return null;
      const cost =
        budget === null ? 0 : await budget.take(() => pairCost(plan, item, sample), signal);
      // Over the budget, a pair is not judged: --resume with a higher one judges it.
      if (cost === null) return null;
      try {
        const row = scrubRow(await judgePair(item, sample, judge, plan.judgeModel), plan);
        // A pair cut short by an interrupt is not a result.
        if (signal.aborted) return null;
        pairs.push(judgedOf(row));
        return row;
      } finally {
        budget?.release(cost);
      }
    },
    finish: async (context) => finish(plan, pairs, context, count),
    close: async () => {},
  };
}

function pairwiseSettings(plan: PairwisePlan): PairwiseSettings {
  return {
    kind: "pairwise",
    baseline: plan.inputs.baseline,
    candidate: plan.inputs.candidate,
    cases_file: plan.inputs.casesFile,
    cases_sha256: plan.inputs.casesSha256,
    judge_model: plan.judgeModel,
    api_base: redactUrl(baseOf(plan.judgeModel, plan.settings.apiBase)),
    criteria: plan.criteria,
    samples: plan.inputs.samples,
  };
}

/** A row of an earlier attempt (`--resume`), as this program wrote it. */
function restoredRow(row: unknown): PairwiseRow {
  const parsed = pairwiseRowSchema.safeParse(row);
  if (parsed.success) return parsed.data;
  const id = typeof row === "object" && row !== null && "id" in row ? String(row.id) : "?";
  throw new InputError(
    `--resume: the row of ${id} is not a row of eb pairwise; start a new run instead`,
  );
}

function judgedOf(row: PairwiseRow): JudgedPair {
  return {
    id: row.id,
    stratum: row.stratum,
    outcome: row.outcome,
    winners: [row.baseline_first.winner, row.candidate_first.winner],
  };
}

/**
 * What judging a pair may cost, for `--max-cost`: each prompt's characters / 4 in and a verdict's
 * tokens out, nothing for a call the cache answers.
 */
async function pairCost(plan: PairwisePlan, item: PairItem, sample: number): Promise<number> {
  const texts = textsOf(item.answers.get(sample)!);
  // No answer to show: nothing is called.
  if (typeof texts === "string") return 0;
  const { routedCachedAnswer } = await import("../model/providers/target.js");
  const { cached } = plan.endpoint;
  const calls = await Promise.all(
    pairPrompts(item, texts.base, texts.cand).map(async (prompt) => {
      const request = {
        model: plan.judgeModel,
        messages: [{ role: "user" as const, content: prompt }],
        temperature: 0,
      };
      const hit = cached && (await routedCachedAnswer(cached, plan.settings.apiBase, request, 0));
      return {
        model: plan.judgeModel,
        cached: Boolean(hit),
        input: tokensOf(prompt),
        output: JUDGE_OUTPUT_TOKENS,
      };
    }),
  );
  return costOf(plan.config.pricing, calls);
}

/** A row's texts without any secret the judge may have echoed back. */
function scrubRow(row: PairwiseRow, plan: PairwisePlan): PairwiseRow {
  const scrub = (text: string | null) =>
    text === null ? null : plan.endpoint.scrubber.scrub(text);
  return {
    ...row,
    reason: scrub(row.reason),
    error: scrub(row.error),
    baseline_first: { ...row.baseline_first, reason: scrub(row.baseline_first.reason) },
    candidate_first: { ...row.candidate_first, reason: scrub(row.candidate_first.reason) },
  };
}

async function finish(
  plan: PairwisePlan,
  pairs: readonly JudgedPair[],
  context: FinishContext,
  judgeCache: JudgeCacheCount,
): Promise<Finished<"pairwise", PairwiseReport>> {
  const warnings = await plan.endpoint.cache.flush();
  const figures = pairwiseFigures(plan, pairs, context);
  const report = pairwiseReport(plan, figures, context, judgeCache);
  const meta = {
    planned: plan.inputs.items.map((item) => item.id),
    samples: plan.inputs.samples,
    inconclusive: plan.inconclusive,
  };
  const document = scrubStrings(
    pairwiseDocument(report, figures, context, meta),
    plan.endpoint.scrubber.scrub,
  );
  const { files, problems } = runFiles(document, plan.config.reportFormats);
  return {
    report,
    document,
    files,
    passed: report.run_passed,
    closing: { judge_model_versions: report.judge_model_versions },
    warnings: [...warnings, ...problems],
  };
}

/** Whether the candidate's answers are worse than the baseline's: counts, interval, verdict. */
function pairwiseFigures(
  plan: PairwisePlan,
  pairs: readonly JudgedPair[],
  context: FinishContext,
): PairwiseFigures {
  const { inputs } = plan;
  const stats = pairStats(pairs, LEVEL);
  const complete = !context.interrupted && !(plan.endpoint.budget?.exceeded ?? false);
  const order = new Map(inputs.items.map((item, i) => [item.id, i]));
  return {
    baseline: inputs.baseline,
    candidate: inputs.candidate,
    cases_file: inputs.casesFile,
    criteria: plan.criteria,
    judge_model: plan.judgeModel,
    ...stats,
    level: LEVEL,
    margin: plan.margin,
    verdict: pairVerdict(stats, plan.margin, complete),
    strata: strataStats(pairs, LEVEL),
    cases: itemStats(pairs).sort((a, b) => order.get(a.id)! - order.get(b.id)!),
    warnings: inputs.warnings,
  };
}

function pairwiseReport(
  plan: PairwisePlan,
  figures: PairwiseFigures,
  context: FinishContext,
  judgeCache: JudgeCacheCount,
): PairwiseReport {
  const { budget } = plan.endpoint;
  const { verdict } = figures;
  return {
    schema_version: 1,
    kind: "pairwise",
    run_id: context.runId,
    project_root: plan.config.projectRoot,
    output_dir: context.runDir,
    cases_sha256: plan.inputs.casesSha256,
    judge_model_versions: [...plan.endpoint.judgeVersions].sort(),
    started_at: isoUtc(context.startedAt),
    completed_at: isoUtc(context.completedAt),
    duration_ms: context.completedAt.getTime() - context.startedAt.getTime(),
    interrupted: context.interrupted,
    budget: budget && { max_cost: budget.maxCost, spent: budget.spentSoFar },
    budget_exceeded: budget?.exceeded ?? false,
    judge_cache: { ...judgeCache },
    ...figures,
    run_passed: verdict === "pass" || (verdict === "inconclusive" && plan.inconclusive === "pass"),
  };
}
