import { missingAgentProgram } from "../agents/preflight.js";
import type { Config } from "../config/load.js";
import { shardText } from "../config/shard-spec.js";
import { readRows } from "../report/read-rows.js";
import { configOf, resumedConfig } from "../run/options.js";
import { manifestOfRun, rowsFileOf } from "../run/run-folder.js";
import { takeShard } from "../run/shard.js";
import { type JudgeRun, judgeRunOf, unpricedReason } from "./judge-price.js";
import { selectChecks } from "./preflight.js";
import { type RunChecksOptions, resumedChecks, resumedSamples } from "./run-checks.js";

/** The runs of one judge agent and model, over the checks it judges. */
export interface JudgeRuns extends JudgeRun {
  checks: number;
  /** Agent runs: checks × samples, each one judge call. */
  runs: number;
  /** Why eb run would stop before this judge runs (no agent set, its program not found). */
  stop: string | null;
}

/** What `eb run --dry-run` prints: the work of a run, and what its judges would cost. */
export type CheckDryRun = Awaited<ReturnType<typeof dryRunChecks>>["plan"];

/**
 * Finds and loads the checks as `eb run` would (its shard, and with `--resume` the run's own
 * checks, samples and shard, less the samples it has); runs nothing, not even Python.
 */
export async function dryRunChecks(options: RunChecksOptions, env: NodeJS.ProcessEnv) {
  const resumed = options.resume === undefined ? null : manifestOfRun(options.resume, "checks");
  const config = resumedConfig(await configOf(options), options, resumed);
  const { checks: found, warnings } = await selectChecks(config, options);
  const selected = resumed === null ? found : resumedChecks(found, options, resumed);
  const { items: checks } = takeShard(selected, config.shard);
  const samples = options.samples ?? resumedSamples(config, options, resumed);
  const done = await doneSamples(options.resume);
  const toRun = (id: string) => samples - (done.get(id) ?? 0);
  const judges = new Map<string, JudgeRuns>();
  for (const check of checks) {
    if (check.type !== "harness_judge") continue;
    const run = judgeRunOf(check, config);
    const key = `${run.agent}\u0000${run.model}`;
    const line = judges.get(key) ?? {
      ...run,
      checks: 0,
      runs: 0,
      stop: await stopOf(run, config, env),
    };
    line.checks++;
    line.runs += toRun(check.id);
    judges.set(key, line);
  }
  const lines = [...judges.values()];
  const costs = lines.map((line) => (line.price === null ? null : line.price * line.runs));
  const plan = {
    checks: checks.length,
    /** The checks to run, in discovery order: id and type. */
    listed: checks.map(({ id, type }) => ({ id, type })),
    samples,
    /** Samples still to run: all of them, or with --resume those the run does not have. */
    toRun: checks.reduce((sum, check) => sum + toRun(check.id), 0),
    /** Script runs of the deterministic checks still to run. */
    scripts: checks
      .filter((check) => check.type === "deterministic")
      .reduce((sum, check) => sum + toRun(check.id), 0),
    judges: lines,
    /** Dollars of the judge runs; null when a judge has no price (0 without judges). */
    cost: costs.includes(null) ? null : costs.reduce<number>((sum, x) => sum + (x ?? 0), 0),
    shard: config.shard === null ? null : shardText(config.shard),
    maxCost: config.maxCost,
    /** The run folder --resume finishes, or null. */
    resumed: options.resume ?? null,
  };
  return { plan, warnings };
}

/** The samples an interrupted run has, by check id (--resume runs only the others). */
async function doneSamples(resume: string | undefined): Promise<Map<string, number>> {
  const done = new Map<string, number>();
  if (resume === undefined) return done;
  for (const row of await readRows(rowsFileOf(resume)))
    done.set(row.id, (done.get(row.id) ?? 0) + 1);
  return done;
}

/** Checks named one per line; the rest are counted. */
const LISTED = 20;

/** Looked up, never run: the agent's program on PATH, as eb run's pre-flight looks for it. */
async function stopOf(
  run: JudgeRun,
  config: Config,
  env: NodeJS.ProcessEnv,
): Promise<string | null> {
  if (run.agent === null) return "no judge agent: set [harness] agent (or --harness-agent)";
  return missingAgentProgram(run.agent, config.agents, env, config.projectRoot);
}

export function checkDryRunText(d: CheckDryRun): string {
  const count = (n: number, what: string) =>
    `${n.toLocaleString("en-US")} ${what}${n === 1 ? "" : "s"}`;
  const judgeChecks = d.judges.reduce((sum, line) => sum + line.checks, 0);
  const judgeRuns = d.judges.reduce((sum, line) => sum + line.runs, 0);
  const scriptChecks = d.listed.filter(({ type }) => type === "deterministic").length;
  const lines = [
    "Dry run of eb run: nothing was run.",
    ...(d.resumed === null ? [] : [`Finishing ${d.resumed}: only the samples it does not have`]),
    `Checks: ${count(d.checks, "check")}${d.shard === null ? "" : ` (shard ${d.shard})`} × ` +
      `${count(d.samples, "sample")}: ${count(d.toRun, "sample")} to run`,
    ...d.listed.slice(0, LISTED).map(({ id, type }) => `  ${id} (${type})`),
    ...(d.listed.length > LISTED
      ? [`  and ${d.listed.length - LISTED} more (eb list shows them)`]
      : []),
    `Deterministic: ${count(scriptChecks, "check")}, ${count(d.scripts, "script run")}`,
    `Harness judges: ${count(judgeChecks, "check")}, ${count(judgeRuns, "agent run")} (one judge call each)`,
    ...d.judges.flatMap((line) => [
      `  ${judgeLine(line)}`,
      ...(line.stop === null ? [] : [`    eb run would stop here (exit 2): ${line.stop}`]),
    ]),
    `Estimated cost: ${costText(d)}`,
  ];
  return `${lines.join("\n")}\n`;
}

function judgeLine(line: JudgeRuns): string {
  const who = `${line.agent ?? "(no [harness] agent)"}, model ${line.model ?? "(the agent's default)"}`;
  const runs = `${line.runs.toLocaleString("en-US")} run${line.runs === 1 ? "" : "s"} of ${line.checks} check${line.checks === 1 ? "" : "s"}`;
  const price =
    line.price === null
      ? `cost unknown: ${unpricedReason(line)}`
      : `est. $${(line.price * line.runs).toFixed(4)} at $${line.price} per run`;
  return `${who}: ${runs}; ${price}`;
}

function costText(d: CheckDryRun): string {
  const cap = d.maxCost === null ? "" : `; --max-cost $${d.maxCost}`;
  if (d.judges.length === 0) return `$0 (deterministic checks only)${cap}`;
  if (d.cost === null) {
    const refused =
      d.maxCost === null ? "" : ": eb run refuses --max-cost until every judge has one (exit 2)";
    return `unknown (a judge has no [pricing] per_run)${cap}${refused}`;
  }
  return `$${d.cost.toFixed(4)} (judge runs at [pricing] per_run)${cap}`;
}
