import { mkdir } from "node:fs/promises";
import path from "node:path";
import { countingJudge } from "../cases/judge-cache.js";
import type { ArmDraws } from "../cases/paired-draws.js";
import type { CaseReport } from "../cases/report.js";
import { type JudgeFn, runCaseSample } from "../cases/sample.js";
import type { Case } from "../cases/schema.js";
import { type CaseRunMeta, finishedCases } from "../cases/suite.js";
import { safeStem } from "../checks/stem.js";
import type { Config } from "../config/load.js";
import type { GraderSpec } from "../graders/types.js";
import type { ChatResult } from "../model/types.js";
import { gradingJson } from "../render/skill-creator.js";
import {
  type CaseRow,
  type CaseSettings,
  type SequentialRun,
  SKILL_USED_MARK,
  TRIGGER_MARK,
} from "../report/record.js";
import type { FinishContext, Finished, SampleContext, Suite } from "../run/suite.js";
import { type AgentSample, type AgentSetup, runAgentSample } from "./agent-run.js";
import { type CheckVerdict, type EvalChecks, runEvalChecks } from "./eval-checks.js";
import { evidenceText } from "./evidence.js";
import type { SkillFolder } from "./skill-dir.js";
import type { AgentSpend } from "./spend.js";

/** One eval of the run: a case whose graders judge its expectations, and the eval's files. */
export interface SkillItem extends Case {
  files: string[];
  /** A trigger query's should_trigger; null for an eval. */
  shouldTrigger: boolean | null;
}

/** One arm: the skill the agent gets (null: none), named as skill-creator names it. */
export interface SkillArm {
  configuration: string;
  skill: SkillFolder | null;
  /** `--sequential`: the samples this arm runs, drawn one by one; absent: k of every eval. */
  draws?: ArmDraws | undefined;
}

/** What both arms share. */
export interface SkillPlan {
  config: Config;
  setup: AgentSetup;
  /** The eval file (relative to the project root as shown) and its digest. */
  evalsFile: string;
  evalsSha256: string;
  /** The skill folder the run is of, as given. */
  skillPath: string;
  k: number;
  workers: number;
  judge: JudgeFn | null;
  judgeModel: string | null;
  judgeVersions: Set<string>;
  /** `--require-use`: a with-skill sample that never used the skill is an error. */
  requireUse: boolean;
  /** `--max-cost`, both arms' agents and judge together. */
  spend: AgentSpend;
  /** The skill's `evals/eval_checks/`, run on each eval sample's workspace; null: none. */
  checks: EvalChecks | null;
  command: string[] | null;
}

const MANIFEST_ROOM = 4096;

/**
 * One arm of `eb skill run` as a case suite: each sample runs the agent in a fresh workspace,
 * then the case machinery grades what it did (one judge grader per expectation) and writes the
 * row; the delivery proof adds its mark. Its run folder is an ordinary case run's, plus each
 * sample's transcript, changed files and grading.json under `eval-<id>/run-<n>/`.
 */
export function skillSuite(
  plan: SkillPlan,
  arm: SkillArm,
  items: readonly SkillItem[],
): Suite<"cases", SkillItem, CaseReport> {
  const judging = countingJudge(plan.judge);
  const settings = skillSettings(plan, arm);
  const model = agentModel(plan.setup);
  const { scrub } = plan.setup.scrubber;
  const { draws } = arm;
  const byId = new Map(items.map((item) => [item.id, item]));
  const sampleRun = async (item: SkillItem, sample: number, { runDir, signal }: SampleContext) => {
    const folder = path.join(runDir, sampleFolder(item.id, sample));
    await mkdir(folder, { recursive: true });
    const { checks } = plan;
    const inspect =
      checks === null || item.shouldTrigger !== null
        ? undefined
        : (workspace: string) =>
            runEvalChecks(checks, item.id, {
              workspace,
              folder,
              signal,
              scrubber: plan.setup.scrubber,
            });
    const ran = await runAgentSample(
      plan.setup,
      { prompt: item.messages.at(-1)?.content ?? "", files: item.files, skill: arm.skill },
      { folder, signal, inspect },
    );
    if (signal.aborted) return null;
    const heard = new Map<string, string>();
    const graded = await runCaseSample(withEvidence(item, heard), sample, {
      target: { complete: async () => chatResult(ran, model) },
      judge: judging.judge,
      judgeSamples: plan.config.eval.judgeSamples,
      model,
      signal,
      scrub,
    });
    const evidenced = { ...graded, ...reasonsOf(graded, heard), skill: skillFields(ran, arm) };
    return delivered(checked(evidenced, ran.checks), ran, item, plan);
  };
  return {
    kind: "cases",
    projectRoot: plan.config.projectRoot,
    items,
    samples: plan.k,
    workers: plan.workers,
    schedule: "sample",
    settings,
    name: `eb skill run ${plan.skillPath} (${arm.configuration})`,
    definitions: {
      [plan.evalsFile]: `sha256:${plan.evalsSha256}`,
      ...(arm.skill ? { [arm.skill.dir]: arm.skill.sha256 } : {}),
      ...Object.fromEntries(
        (plan.checks?.prepared ?? []).map((p) => [p.check.sourcePath, p.digest]),
      ),
    },
    shard: null,
    command: plan.command,
    manifestRoom: MANIFEST_ROOM,
    scrubber: plan.setup.scrubber,
    open: async () => {},
    restore: async (row) => {
      draws?.restore(row);
      plan.spend.restore(row);
    },
    runSample: async (item, sample, context) => {
      const estimate = await plan.spend.admit(context.signal);
      // Over the budget, a sample is not run: --resume with a higher cap runs it.
      if (estimate === null) {
        draws?.settled(item.id, sample, null);
        return null;
      }
      try {
        const row = await sampleRun(item, sample, context);
        if (row === null) return null;
        plan.spend.spent(row);
        draws?.settled(item.id, sample, row.score);
        return row;
      } finally {
        plan.spend.release(estimate);
      }
    },
    ...(draws && {
      draw: async (signal: AbortSignal) => {
        const next = await draws.next(signal);
        return next && { item: byId.get(next.id)!, sample: next.sample };
      },
    }),
    finish: (context) =>
      finish(plan, { items, settings, sequential: draws?.plan() ?? null }, context, judging.count),
    close: async () => {},
  };
}

/**
 * The item with each grader's reason noted in `heard`, a pass's too: the case machinery keeps
 * only a failure's, and grading.json shows every expectation's evidence.
 */
function withEvidence(item: SkillItem, heard: Map<string, string>): SkillItem {
  const graders = item.graders.map(
    (grader): GraderSpec => ({
      ...grader,
      grade: async (output, context) => {
        const outcome = await grader.grade(output, context);
        if (outcome.reason !== undefined) heard.set(grader.name, outcome.reason);
        return outcome;
      },
    }),
  );
  return { ...item, graders };
}

/** The row's reasons with the passing graders' added (a failure's stays as graded). */
function reasonsOf(row: CaseRow, heard: ReadonlyMap<string, string>): Pick<CaseRow, "reasons"> {
  const passed = [...heard].filter(([name]) => row.marks[name] === true);
  if (passed.length === 0) return {};
  return { reasons: Object.fromEntries([...passed, ...Object.entries(row.reasons ?? {})]) };
}

/**
 * The eval_checks' verdicts as the sample's marks beside the expectations', each with its
 * evidence: a failing check fails the sample, one that could not run makes it an error.
 */
function checked(row: CaseRow, verdicts: readonly CheckVerdict[]): CaseRow {
  if (verdicts.length === 0) return row;
  const marks = { ...row.marks };
  const reasons = { ...row.reasons };
  for (const v of verdicts) {
    marks[v.name] = v.status === "passed";
    reasons[v.name] = v.reason;
  }
  const marked = { ...row, marks, reasons };
  if (row.status === "error") return marked;
  const broken = verdicts.filter((v) => v.status === "error");
  if (broken.length > 0) {
    const error = broken.map((v) => `${v.name}: ${v.reason}`).join("; ");
    return { ...marked, score: 0, status: "error", reason: error, error };
  }
  const failed = verdicts.filter((v) => v.status === "failed");
  if (failed.length === 0) return marked;
  const why = failed.map((v) => `${v.name}: ${v.reason}`).join("; ");
  const reason = row.reason === null ? why : `${row.reason}; ${why}`;
  return { ...marked, score: 0, status: "failed", reason };
}

/** The agent's model as rows name it (so [pricing] prices it), else the agent's name. */
function agentModel(setup: AgentSetup): string {
  return setup.harness.model ?? setup.template.defaultModel ?? setup.agent;
}

/** Where a sample's files go in the run folder (skill-creator's `eval-<id>/run-<n>`). */
export function sampleFolder(id: string, sample: number): string {
  const name = /^[\w.-]+$/.test(id) && !id.startsWith(".") ? id : safeStem(id);
  return `eval-${name}/run-${sample + 1}`;
}

/** The agent's work as the case machinery grades it; a failed run is an error row. */
function chatResult(ran: AgentSample, model: string): ChatResult {
  if (ran.error !== null) throw new Error(ran.error);
  return {
    text: evidenceText(ran),
    model: ran.model ?? model,
    usage: {
      ...(ran.transcript.promptTokens === null
        ? {}
        : { prompt_tokens: ran.transcript.promptTokens }),
      ...(ran.transcript.completionTokens === null
        ? {}
        : { completion_tokens: ran.transcript.completionTokens }),
    },
    ms: ran.ms,
    cached: false,
  };
}

function skillFields(ran: AgentSample, arm: SkillArm): NonNullable<CaseRow["skill"]> {
  const { promptTokens, completionTokens } = ran.transcript;
  const tokens =
    promptTokens === null && completionTokens === null
      ? null
      : (promptTokens ?? 0) + (completionTokens ?? 0);
  return {
    sha256: arm.skill?.sha256 ?? null,
    used: ran.used,
    tool_calls: ran.transcript.calls.length,
    tokens,
    files: ran.changes.map((change) => change.path),
  };
}

/**
 * The delivery proof's mark. A trigger query passes when the agent reached for the skill exactly
 * when it should have. An eval's sample with the skill installed that never read or invoked it
 * is no success of the skill: it fails ("skill not used"), or with --require-use is an error.
 */
function delivered(row: CaseRow, ran: AgentSample, item: SkillItem, plan: SkillPlan): CaseRow {
  if (ran.used === null || row.status === "error") return row;
  if (item.shouldTrigger !== null) {
    const right = ran.used === item.shouldTrigger;
    const why = ran.used ? "the skill was used; it should not have been" : "the skill was not used";
    return {
      ...row,
      marks: { [TRIGGER_MARK]: right },
      score: right ? 1 : 0,
      status: right ? "passed" : "failed",
      reason: right ? null : why,
      ...(right ? {} : { reasons: { [TRIGGER_MARK]: why } }),
    };
  }
  const marks = { [SKILL_USED_MARK]: ran.used, ...row.marks };
  if (ran.used) return { ...row, marks };
  const why = "skill not used: the transcript shows no read or call of it";
  const reasons = { [SKILL_USED_MARK]: why, ...row.reasons };
  if (plan.requireUse) {
    const error = `${why} (--require-use)`;
    return { ...row, marks, reasons, score: 0, status: "error", reason: error, error };
  }
  const reason = row.reason === null ? why : `${why}; ${row.reason}`;
  return { ...row, marks, reasons, score: 0, status: "failed", reason };
}

/** The settings that change an arm's results: the agent and the skill are its target. */
function skillSettings(plan: SkillPlan, arm: SkillArm): CaseSettings {
  const { agent, harness } = plan.setup;
  const model = harness.model ?? plan.setup.template.defaultModel;
  const parts = [
    agent,
    ...(model === null ? [] : [`--model ${model}`]),
    ...(harness.reasoningEffort === null ? [] : [`--effort ${harness.reasoningEffort}`]),
    arm.skill === null ? "without skill" : `with skill ${arm.skill.name} (${arm.skill.sha256})`,
  ];
  return {
    kind: "cases",
    cases_file: plan.evalsFile,
    cases_sha256: plan.evalsSha256,
    target: { kind: "command", command: parts.join(" ") },
    judge_model: plan.judgeModel,
    judge_samples: plan.config.eval.judgeSamples,
    judge_temperature: plan.config.eval.judgeTemperature,
    k: plan.k,
    temperature: null,
    max_tokens: null,
  };
}

async function finish(
  plan: SkillPlan,
  run: {
    items: readonly SkillItem[];
    settings: CaseSettings;
    sequential: SequentialRun | null;
  },
  context: FinishContext,
  judgeCache: CaseRunMeta["judgeCache"],
): Promise<Finished<"cases", CaseReport>> {
  const finished = finishedCases(
    { rows: context.tally, cases: run.items.map(withoutLine) },
    context,
    {
      settings: run.settings,
      projectRoot: plan.config.projectRoot,
      judgeModelVersions: [...plan.judgeVersions],
      passThreshold: plan.config.eval.passThreshold,
      pricing: plan.config.pricing,
      concurrency: null,
      budget: plan.spend.budgetBlock,
      budgetExceeded: plan.spend.exceeded,
      judgeCache,
      // A sequential arm planned the samples it drew (its grading files are added after).
      sequential: run.sequential,
      formats: plan.config.reportFormats,
      scrub: plan.setup.scrubber.scrub,
    },
  );
  const gradings = finished.document.items.flatMap((item) =>
    item.outcomes.map((outcome) => ({
      name: `${sampleFolder(item.id, outcome.sample)}/grading.json`,
      text: gradingJson(outcome),
    })),
  );
  return {
    ...finished,
    files: [...finished.files, ...gradings],
    warnings: finished.warnings,
  };
}

/** An eval's place in its JSON file is not known: the report names the file, not a line. */
function withoutLine({ id, stratum, messages }: SkillItem) {
  return { id, stratum, messages };
}
