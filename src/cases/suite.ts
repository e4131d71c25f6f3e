import type { Pricing } from "../config/schema.js";
import { type RunFormat, runFiles } from "../render/files.js";
import type {
  CaseClosing,
  CaseConcurrency,
  CaseRow,
  CaseSettings,
  SequentialRun,
  StoredRow,
} from "../report/record.js";
import { isoUtc } from "../run/provenance.js";
import { takeShard } from "../run/shard.js";
import type { FinishContext, Finished, Suite } from "../run/suite.js";
import { caseSuiteName } from "../run/suite-name.js";
import { redactUrl } from "../secrets/redact.js";
import { scrubStrings } from "../secrets/scrub-strings.js";
import type { Scrubber } from "../secrets/scrubber.js";
import { createRng } from "../stats/rng.js";
import { type BatchAnswers, batchedJudge, batchedTarget, batchPrepass, sampleId } from "./batch.js";
import { Estimator } from "./estimate.js";
import { countingJudge, type JudgeCacheCount } from "./judge-cache.js";
import type { RunCasesOptions } from "./options.js";
import { caseSettings, concurrencyOf, type Plan } from "./plan.js";
import { costOf } from "./price.js";
import { buildCaseReport, type CaseReport, type CaseRunRows } from "./report.js";
import { runCaseSample } from "./sample.js";
import type { Case } from "./schema.js";

/**
 * Bytes reserved on the manifest line for what is known only at the end: the model version lists
 * and the concurrency history (at most HISTORY_LIMIT changes of ~12 bytes per model).
 */
const MANIFEST_ROOM = 4096;

/**
 * `eb eval` as a suite: each sample sends a case to the target and grades the answer. A case's
 * k samples run one after another (the article's choice: they stay together, and the
 * concurrency is at the case level).
 */
export function caseSuite(
  plan: Plan,
  options: Pick<RunCasesOptions, "argv" | "seed" | "draws">,
  signal: AbortSignal,
): Suite<"cases", Case, CaseReport> {
  const { items: cases, fields } = takeShard(plan.cases, plan.config.shard);
  const shard = { ...plan, cases };
  const settings = caseSettings(plan);
  const model = plan.info.kind === "model" ? plan.info.model : plan.info.command;
  const { scrub } = plan.scrubber;
  const batch = batchRound(plan, cases, signal);
  const batched = plan.batch !== null;
  const target = batched ? batchedTarget(plan.target, batch.answers) : plan.target;
  const judging = countingJudge(
    batched && plan.judge ? batchedJudge(plan.judge, batch.answers) : plan.judge,
  );
  const { judge } = judging;
  const { judgeSamples, processes } = plan;
  const sampleOptions = { target, judge, judgeSamples, model, signal, scrub, processes };
  let estimator: Estimator | null = null;
  /** The sample's estimate once the budget admits it (0 without one), or null: refused. */
  const admitted = async (c: Case, sample: number): Promise<number | null> => {
    if (plan.budget === null || estimator === null) return 0;
    const priced = estimator;
    const estimate = async () => costOf(plan.config.pricing, await priced.sample(c, sample));
    return plan.budget.take(estimate, signal);
  };
  const { draws } = options;
  const byId = new Map(cases.map((c) => [c.id, c]));
  return {
    kind: "cases",
    projectRoot: plan.config.projectRoot,
    items: options.seed === undefined ? cases : shuffled(cases, options.seed),
    samples: plan.k,
    workers: plan.lanes,
    schedule: "item",
    settings,
    name: caseSuiteName("eb eval", plan.casesFile, plan.config.projectRoot),
    definitions: { [plan.casesFile]: `sha256:${plan.casesSha256}` },
    shard: fields,
    command: options.argv ? options.argv.map((arg) => redactUrl(plan.scrubber.scrub(arg))) : null,
    manifestRoom: MANIFEST_ROOM,
    scrubber: plan.scrubber,
    open: async () => {
      if (plan.budget !== null) estimator = await Estimator.of(plan);
    },
    restore: async (row) => {
      batch.restore(row);
      draws?.restore(row);
      plan.budget?.restore(row, plan.config.pricing, settings.judge_model);
    },
    runSample: async (c, sample, { runDir }) => {
      await batch.ready(runDir);
      // Interrupted while the batch was polled: no sample starts.
      if (signal.aborted) return null;
      const cost = await admitted(c, sample);
      // Over the budget, a sample is not run: --resume with a higher one runs it.
      if (cost === null) {
        draws?.settled(c.id, sample, null);
        return null;
      }
      try {
        const row = scrubRow(await runCaseSample(c, sample, sampleOptions), plan.scrubber);
        // A sample cut short by an interrupt is not a result: it is neither written nor counted.
        if (signal.aborted) return null;
        if (row.cached !== true && row.completion_tokens != null) {
          estimator?.observe(row.completion_tokens);
        }
        draws?.settled(c.id, sample, row.score);
        return row;
      } finally {
        plan.budget?.release(cost);
      }
    },
    ...(draws && {
      draw: async (drawSignal: AbortSignal) => {
        const next = await draws.next(drawSignal);
        return next && { item: byId.get(next.id)!, sample: next.sample };
      },
    }),
    finish: async (context) => finish(shard, context, judging.count, draws?.plan() ?? null),
    // An arm's share of a --max-cost shared with other arms goes to them.
    close: async () => plan.budget?.end(),
  };
}

/** The cases in the order `seed` shuffles them to (Fisher-Yates): the same seed, the same order. */
function shuffled(cases: readonly Case[], seed: number): Case[] {
  const rng = createRng(seed);
  const order = [...cases];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rng.uniform() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/**
 * The batch round of a `--batch` run, sent once, when the first sample is about to run (the
 * rows of earlier attempts are restored by then, so their samples are not sent again).
 */
function batchRound(plan: Plan, cases: readonly Case[], signal: AbortSignal) {
  const done = new Set<string>();
  let round: Promise<BatchAnswers | null> | null = null;
  let answers: BatchAnswers | null = null;
  return {
    answers: () => answers,
    restore: (row: StoredRow) => done.add(sampleId(row.id, row.sample ?? 0)),
    ready: async (runDir: string) => {
      const settings = plan.batch;
      if (settings === null) return;
      round ??= batchPrepass(plan, cases, done, { runDir, signal, batch: settings });
      answers = await round;
    },
  };
}

async function finish(
  plan: Plan,
  context: FinishContext,
  judgeCache: JudgeCacheCount | null,
  sequential: SequentialRun | null,
): Promise<Finished<"cases", CaseReport>> {
  const warnings = await plan.cache.flush();
  const finished = finishedCases({ rows: context.tally, cases: plan.cases }, context, {
    settings: caseSettings(plan),
    projectRoot: plan.config.projectRoot,
    judgeModelVersions: [...plan.judgeVersions],
    passThreshold: plan.settings.passThreshold,
    pricing: plan.config.pricing,
    concurrency: concurrencyOf(plan),
    budget: plan.budget && { max_cost: plan.budget.maxCost, spent: plan.budget.spentSoFar },
    budgetExceeded: plan.budget?.exceeded ?? false,
    judgeCache,
    sequential,
    formats: plan.config.reportFormats,
    scrub: plan.scrubber.scrub,
  });
  return { ...finished, warnings: [...warnings, ...finished.warnings] };
}

/** What a case run's reports need beyond its rows. */
export interface CaseRunMeta {
  settings: CaseSettings;
  projectRoot: string;
  judgeModelVersions: readonly string[];
  passThreshold: number;
  pricing: Pricing;
  /** The run's concurrency history; null for shards merged (each shard has its own). */
  concurrency: CaseConcurrency | null;
  /** `--max-cost` and the spend; null without a cap. */
  budget: { max_cost: number; spent: number } | null;
  budgetExceeded: boolean;
  /** The judge verdicts the run asked for and those the cache answered; absent: not counted. */
  judgeCache?: JudgeCacheCount | null;
  /** A sequential arm's cap and why it stopped; absent: a fixed k. */
  sequential?: SequentialRun | null;
  /** The formats of `[report] formats`, and the scrub of the run's secrets. */
  formats: readonly RunFormat[];
  scrub: (text: string) => string;
}

/** The reports of a case run: for a run as it ends, and for shards merged (`eb merge`). */
export function finishedCases(
  run: CaseRunRows,
  context: FinishContext,
  meta: CaseRunMeta,
): Finished<"cases", CaseReport> {
  const report = buildCaseReport(
    run,
    {
      ...meta.settings,
      project_root: meta.projectRoot,
      judge_model_versions: [...meta.judgeModelVersions].sort(),
      run_id: context.runId,
      output_dir: context.runDir,
      started_at: isoUtc(context.startedAt),
      completed_at: isoUtc(context.completedAt),
      duration_ms: context.completedAt.getTime() - context.startedAt.getTime(),
      interrupted: context.interrupted,
      concurrency: meta.concurrency,
      budget: meta.budget,
      budget_exceeded: meta.budgetExceeded,
      judge_cache: meta.judgeCache ?? null,
      pass_threshold: meta.passThreshold,
      sequential: meta.sequential ?? null,
      provenance: context.provenance,
    },
    { pricing: meta.pricing },
  );
  const document = scrubStrings(report, meta.scrub);
  const { files, problems } = runFiles(document, meta.formats);
  return {
    report,
    document,
    files,
    passed: report.run_passed,
    closing: closingFields(report),
    warnings: problems,
  };
}

/**
 * The model version lists and the concurrency for the manifest, the lists cut to what fits in
 * the room reserved on its line (the full lists are in report.json): the judge's go first.
 */
function closingFields(report: CaseReport): CaseClosing {
  const target = [...report.model_versions];
  const judge = [...report.judge_model_versions];
  const total = target.length + judge.length;
  const fields = (): CaseClosing => {
    const cut = total - target.length - judge.length;
    return {
      model_versions: target,
      judge_model_versions: judge,
      ...(cut > 0 ? { versions_not_listed: cut } : {}),
      ...(report.concurrency === null ? {} : { concurrency: report.concurrency }),
      budget_exceeded: report.budget_exceeded,
      ...(report.run.sequential === null ? {} : { sequential: report.run.sequential }),
    };
  };
  // The room also holds ended_at and interrupted, which replace nulls of about their size.
  const size = () => Buffer.byteLength(JSON.stringify(fields()));
  while (size() > MANIFEST_ROOM - 256 && target.length + judge.length > 0) {
    (judge.length > 0 ? judge : target).pop();
  }
  return fields();
}

/** A row's texts without any secret the target or judge may have echoed back. */
function scrubRow(row: CaseRow, scrubber: Scrubber): CaseRow {
  const scrub = (text: string | null) => (text === null ? null : scrubber.scrub(text));
  const reasons = row.reasons
    ? Object.fromEntries(
        Object.entries(row.reasons).map(([name, why]) => [name, scrubber.scrub(why)]),
      )
    : undefined;
  return {
    ...row,
    text: scrub(row.text),
    reason: scrub(row.reason),
    error: scrub(row.error),
    ...(reasons ? { reasons } : {}),
  };
}
