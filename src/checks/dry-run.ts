import { missingAgentProgram } from "../agents/preflight.js";
import type { Config } from "../config/load.js";
import { shardText } from "../config/shard-spec.js";
import { takeShard } from "../run/shard.js";
import { type JudgeRun, judgeRunOf, unpricedReason } from "./judge-price.js";
import { type Selection, selectChecks } from "./preflight.js";

/** The runs of one judge agent and model, over the checks it judges. */
export interface JudgeRuns {
  agent: string | null;
  model: string | null;
  checks: number;
  /** Agent runs: checks × samples, each one judge call. */
  runs: number;
  /** `[pricing."MODEL"] per_run`; null when unknown. */
  price: number | null;
  /** Why eb run would stop before this judge runs (no agent set, its program not found). */
  stop: string | null;
}

/** What `eb run --dry-run` prints: the work of a run, and what its judges would cost. */
export interface CheckDryRun {
  checks: number;
  /** The checks to run, in discovery order: id and type. */
  listed: { id: string; type: string }[];
  samples: number;
  /** Deterministic checks: each sample runs its Python script. */
  scripts: number;
  judges: JudgeRuns[];
  /** Dollars of the judge runs; null when a judge has no price (0 without judges). */
  cost: number | null;
  shard: string | null;
  maxCost: number | null;
}

/** Finds and loads the checks as `eb run` would (its shard included); runs nothing. */
export async function dryRunChecks(
  config: Config,
  selection: Selection,
  samples: number,
  env: NodeJS.ProcessEnv,
): Promise<{ plan: CheckDryRun; warnings: string[] }> {
  const { checks: found, warnings } = await selectChecks(config, selection);
  const { items: checks } = takeShard(found, config.shard);
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
    line.runs += samples;
    judges.set(key, line);
  }
  const lines = [...judges.values()];
  const costs = lines.map((line) => (line.price === null ? null : line.price * line.runs));
  const plan = {
    checks: checks.length,
    listed: checks.map(({ id, type }) => ({ id, type })),
    samples,
    scripts: checks.filter((check) => check.type === "deterministic").length,
    judges: lines,
    cost: costs.includes(null) ? null : costs.reduce<number>((sum, x) => sum + (x ?? 0), 0),
    shard: config.shard === null ? null : shardText(config.shard),
    maxCost: config.maxCost,
  };
  return { plan, warnings };
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
  const lines = [
    "Dry run of eb run: nothing was run.",
    `Checks: ${count(d.checks, "check")}${d.shard === null ? "" : ` (shard ${d.shard})`} × ` +
      `${count(d.samples, "sample")}: ${count(d.checks * d.samples, "sample")} to run`,
    ...d.listed.slice(0, LISTED).map(({ id, type }) => `  ${id} (${type})`),
    ...(d.listed.length > LISTED
      ? [`  and ${d.listed.length - LISTED} more (eb list shows them)`]
      : []),
    `Deterministic: ${count(d.scripts, "check")}, ${count(d.scripts * d.samples, "script run")}`,
    `Harness judges: ${count(judgeChecks, "check")}, ${count(judgeChecks * d.samples, "agent run")} (one judge call each)`,
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
