import { createHash } from "node:crypto";
import { setMaxListeners } from "node:events";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { missingAgentProgram } from "../agents/preflight.js";
import { buildInvocation, resolveTemplate } from "../agents/resolve.js";
import { skillAgentOf } from "../agents/skill-agents.js";
import type { PairedDraws } from "../cases/paired-draws.js";
import { openEndpoint, type Plan } from "../cases/plan.js";
import type { CaseReport } from "../cases/report.js";
import { type Config, environmentOf } from "../config/load.js";
import { InputError, RunStoppedError } from "../errors.js";
import type { CaseRow } from "../report/record.js";
import type { RunOptions } from "../run/options.js";
import { configOf } from "../run/options.js";
import { newRunId } from "../run/provenance.js";
import { ROWS_FILE } from "../run/run-folder.js";
import { runSuite, type SuiteRun } from "../run/run-suite.js";
import type { AgentSetup } from "./agent-run.js";
import { loadEvalChecks } from "./eval-checks.js";
import { loadSkillEvals, type SkillEvalFile } from "./evals.js";
import { evalItems, needsJudge, triggerItems } from "./items.js";
import { readSkillFolder, type SkillFolder } from "./skill-dir.js";
import { AgentSpend } from "./spend.js";
import { type SkillArm, type SkillItem, type SkillPlan, skillSuite } from "./suite.js";

export interface RunSkillOptions extends RunOptions<"cases"> {
  /** The skill folder: SKILL.md and evals/*.json. */
  skill: string;
  /** Compare with this version of the skill instead of with no skill. */
  baselineSkill?: string | undefined;
  /** The agent CLI (default `[harness] agent`). */
  agent?: string | undefined;
  /** The agent's model and reasoning effort (default `[harness] model`, `reasoning_effort`). */
  model?: string | undefined;
  effort?: string | undefined;
  /** Samples per eval and arm (default 1). */
  k?: number | undefined;
  requireUse?: boolean | undefined;
  /** After each sample: the arm's configuration (without_skill, with_skill, …) and its row. */
  onArmSample?: ((arm: string, row: CaseRow) => void) | undefined;
  /** Default: EVAL_BANANA_API_KEY, else OPENAI_API_KEY (the judge's). */
  apiKey?: string | undefined;
  /** false: the judge's verdicts are neither read from nor written to the cache. */
  cache?: boolean | undefined;
  /**
   * `--sequential`: the draws both arms share, made from the evals once they are read (as eb
   * eval's arms make theirs from their plans); absent: k samples of every eval per arm.
   */
  sequential?: ((evals: Pick<Plan, "config" | "cases" | "lanes">) => PairedDraws) | undefined;
}

/** An arm's run. */
export interface ArmRun {
  configuration: string;
  skill: SkillFolder | null;
  run: SuiteRun<CaseReport>;
}

export interface SkillRun {
  config: Config;
  /** The folder holding the arms' run folders (and benchmark.json). */
  folder: string;
  skill: SkillFolder;
  /** The arm without the skill (or with --baseline-skill's), then the arm with it. */
  baseline: ArmRun | null;
  candidate: ArmRun | null;
  /** The trigger queries, run with the skill; null when the skill has none. */
  triggers: ArmRun | null;
  agent: string;
  /** The agent's model, as the runs name it; null: the CLI's own default. */
  model: string | null;
  judge: string | null;
  /** `--sequential`: what the draws decided; null: a fixed-k run. */
  draws: PairedDraws | null;
}

/** Agents at once per arm, unless [eval] workers says otherwise: each is a whole CLI session. */
const AGENT_WORKERS = 4;

/**
 * `eb skill run`: every eval through the agent CLI in a fresh workspace, k times without the skill
 * (or with --baseline-skill's version) and k times with it, both arms at once with the same
 * agent, model, effort and timeout; then the trigger queries, with it. Each arm is an ordinary
 * case run folder under `<output_dir>/<run id>/`. Bad input throws InputError before any agent
 * starts.
 */
export async function runSkill(options: RunSkillOptions): Promise<SkillRun> {
  const signal = options.signal ?? new AbortController().signal;
  const base = await configOf(options);
  const config = withAgent(base, options);
  const skill = await readSkillFolder(options.skill);
  const baselineSkill =
    options.baselineSkill === undefined ? null : await readSkillFolder(options.baselineSkill);
  const files = await loadSkillEvals(options.skill);
  const evals = evalItems(files);
  const triggers = triggerItems(files);
  const setup = await agentSetup(config, options);
  const judgeModel = needsJudge(evals) ? judgeOf(config, options.skill) : null;
  const endpoint = await openEndpoint(
    { apiKey: options.apiKey, cache: options.cache, env: options.env },
    { settings: config.eval, config },
    { model: undefined, judgeModel },
    signal,
  );
  const agentModel = config.harness.model ?? setup.template.defaultModel ?? setup.agent;
  const spend = AgentSpend.of(endpoint.budget, {
    maxCost: config.eval.maxCost,
    pricing: config.pricing,
    model: agentModel,
    judgeModel,
  });
  const plan: SkillPlan = {
    config,
    setup: { ...setup, scrubber: endpoint.scrubber },
    ...(await evalsDigest(files, config.projectRoot)),
    skillPath: options.skill,
    k: options.k ?? 1,
    workers: config.eval.workers ?? AGENT_WORKERS,
    judge: endpoint.judge,
    judgeModel,
    judgeVersions: endpoint.judgeVersions,
    requireUse: options.requireUse === true,
    spend,
    checks: await loadEvalChecks(options.skill, config, environmentOf(options)),
    command: options.argv ? options.argv.map((arg) => endpoint.scrubber.scrub(arg)) : null,
  };
  if (!Number.isInteger(plan.k) || plan.k < 1)
    throw new InputError(`-k must be a whole number ≥ 1, got ${plan.k}`);
  // Every agent process and judge call of both arms listens to the one signal.
  setMaxListeners(Math.max(10, plan.workers * 8), signal);
  const draws = options.sequential?.({ config, cases: evals, lanes: plan.workers }) ?? null;
  const folder = options.resume ?? path.join(config.outputDir, newRunId(new Date()));
  if (options.resume !== undefined) resumable(options.resume);
  const run = (arm: SkillArm, items: readonly SkillItem[], armSignal: AbortSignal) =>
    items.length === 0
      ? Promise.resolve(null)
      : runArm(plan, arm, items, { ...options, signal: armSignal, folder });
  const without: SkillArm = {
    ...(baselineSkill
      ? { configuration: "old_skill", skill: baselineSkill }
      : { configuration: "without_skill", skill: null }),
    draws: draws?.arms[0],
  };
  const arms = async () => {
    const [baseline, candidate] = await bothArms(signal, (armSignal) => [
      run(without, evals, armSignal),
      run({ configuration: "with_skill", skill, draws: draws?.arms[1] }, evals, armSignal),
    ]);
    const triggered = signal.aborted
      ? null
      : await run({ configuration: "triggers", skill }, triggers, signal);
    return { baseline, candidate, triggered };
  };
  // The runs share the judge's cache: it is closed once, after the last of them.
  const { baseline, candidate, triggered } = await arms().finally(async () => {
    for (const warning of await endpoint.cache.flush()) options.onWarning?.(warning);
  });
  return {
    config,
    folder,
    skill,
    baseline,
    candidate,
    triggers: triggered,
    agent: setup.agent,
    model: config.harness.model ?? setup.template.defaultModel,
    judge: judgeModel,
    draws,
  };
}

/**
 * The two arms at once. Should one of them fail (a full disk, a refused key), the other is
 * stopped and both settle before the error is thrown, so no agent is left running.
 */
async function bothArms<T>(
  signal: AbortSignal,
  start: (armSignal: AbortSignal) => [Promise<T>, Promise<T>],
): Promise<[T, T]> {
  const stop = new AbortController();
  const forward = () => stop.abort();
  signal.addEventListener("abort", forward, { once: true });
  if (signal.aborted) stop.abort();
  setMaxListeners(0, stop.signal);
  const arms = start(stop.signal).map((arm) =>
    arm.catch((error: unknown) => {
      stop.abort();
      throw error;
    }),
  );
  try {
    const settled = await Promise.allSettled(arms);
    const failed = settled.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    return settled.map((s) => (s as PromiseFulfilledResult<T>).value) as [T, T];
  } finally {
    signal.removeEventListener("abort", forward);
  }
}

async function runArm(
  plan: SkillPlan,
  arm: SkillArm,
  items: readonly SkillItem[],
  options: RunSkillOptions & { signal: AbortSignal; folder: string },
): Promise<ArmRun> {
  const outputDir = path.join(options.folder, arm.configuration);
  // --resume: each arm finishes its own run folder; one never started starts there now.
  const started = options.resume !== undefined && existsSync(path.join(outputDir, ROWS_FILE));
  const run = await runSuite(skillSuite(plan, arm, items), {
    ...options,
    resume: started ? outputDir : undefined,
    onSample: (row) => options.onArmSample?.(arm.configuration, row),
    config: { ...plan.config, outputDir, outputDirFromFlag: true },
    flatOutput: true,
  }).catch((error: unknown) => {
    throw wholeRun(error, outputDir, options.folder);
  });
  return { configuration: arm.configuration, skill: arm.skill, run };
}

/** An arm that cannot go on says how to finish the whole skill run, not the arm alone. */
function wholeRun(error: unknown, armDir: string, folder: string): unknown {
  if (!(error instanceof RunStoppedError)) return error;
  const message = error.message.replaceAll(`--resume ${armDir}`, `--resume ${folder}`);
  return new RunStoppedError(message, error.exitCode);
}

/** A skill run's folder holds its arms' run folders: one without any is no skill run. */
function resumable(folder: string): void {
  const arms = ["without_skill", "old_skill", "with_skill"];
  if (arms.some((arm) => existsSync(path.join(folder, arm, ROWS_FILE)))) return;
  throw new InputError(
    `--resume ${folder}: not a skill run's folder (no ${arms.join(", ")} run folder in it); pass the folder eb skill run printed as "Skill run folder"`,
  );
}

/** --agent, --model and --effort over `[harness]`. */
function withAgent(config: Config, options: RunSkillOptions): Config {
  const harness = config.harness;
  return {
    ...config,
    harness: {
      ...harness,
      agent: options.agent ?? harness.agent,
      model: options.model ?? harness.model,
      reasoningEffort: options.effort ?? harness.reasoningEffort,
    },
  };
}

/** The agent, checked before anything runs: known, installed, able to carry the settings. */
async function agentSetup(
  config: Config,
  options: RunSkillOptions,
): Promise<Omit<AgentSetup, "scrubber">> {
  const agent = config.harness.agent;
  if (agent === null) {
    throw new InputError("no agent: pass --agent NAME (claude, codex, gemini, opencode, pi, …)");
  }
  const template = resolveTemplate(agent, config.agents);
  const parentEnv = environmentOf(options);
  const missing = await missingAgentProgram(agent, config.agents, parentEnv, config.projectRoot);
  if (missing !== null) throw new InputError(`${missing} Nothing was run.`);
  const skillAgent = skillAgentOf(agent);
  const streaming = {
    ...template,
    sharedFlags: [...template.sharedFlags, ...skillAgent.streamFlags],
  };
  const warn = (message: string) => options.onWarning?.(message);
  const trial = buildInvocation({
    agent,
    template: streaming,
    prompt: "",
    model: config.harness.model,
    reasoningEffort: config.harness.reasoningEffort,
    harnessEnv: {},
    envAllowlist: null,
    projectRoot: config.projectRoot,
    parentEnv: {},
    isRoot: false,
    warn,
  });
  if ("error" in trial) throw new InputError(trial.error);
  return { agent, template: streaming, skillAgent, harness: config.harness, parentEnv, warn };
}

function judgeOf(config: Config, skill: string): string {
  if (config.eval.judge !== null) return config.eval.judge;
  throw new InputError(
    `${skill}: its evals have expectations, which a judge grades — pass --judge MODEL (or set [eval] judge / EVAL_BANANA_JUDGE); nothing was run`,
  );
}

/** The eval file the runs name (the first with evals) and the digest of every eval file. */
async function evalsDigest(files: readonly SkillEvalFile[], projectRoot: string) {
  const hash = createHash("sha256");
  for (const file of files) hash.update(await readFile(file.file));
  const first = files.find((file) => file.evals.length > 0) ?? files[0]!;
  const relative = path.relative(projectRoot, first.file);
  const evalsFile = relative.startsWith("..") ? first.file : relative;
  return { evalsFile, evalsSha256: hash.digest("hex") };
}
