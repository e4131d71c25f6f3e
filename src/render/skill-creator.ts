/**
 * The files skill-creator's viewer reads, rendered from eb's run documents of `eb skill run`:
 * `grading.json` for each sample and `benchmark.json` for both arms. Field names are
 * skill-creator's; what eb adds (the skill's digest, the delivery proof, the paired
 * comparison) sits beside them under names of its own.
 */
import type { DocumentItem, Outcome, RunDocument } from "../report/document.js";
import { SKILL_USED_MARK, TRIGGER_MARK } from "../report/record.js";
import { wilsonBounds } from "../stats/interval.js";

/** What the documents do not say of a skill run. */
export interface BenchmarkMeta {
  skillName: string;
  skillPath: string;
  /** The agent and its model, as the run names them. */
  executor: string;
  judge: string | null;
  timestamp: string;
  samples: number;
}

/** One arm's document, named as skill-creator names configurations. */
export interface Arm {
  configuration: string;
  document: RunDocument;
}

const OWN_MARKS = new Set([SKILL_USED_MARK, TRIGGER_MARK]);

/** One sample's expectations and figures: skill-creator's grading.json. */
export function gradingJson(outcome: Outcome): string {
  return json(grading(outcome));
}

function grading(outcome: Outcome) {
  const expectations = expectationsOf(outcome);
  const passed = expectations.filter((e) => e.passed).length;
  return {
    expectations,
    summary: {
      passed,
      failed: expectations.length - passed,
      total: expectations.length,
      pass_rate: expectations.length === 0 ? 0 : round(passed / expectations.length),
    },
    execution_metrics: {
      total_tool_calls: outcome.skill?.tool_calls ?? 0,
      errors_encountered: outcome.status === "error" ? 1 : 0,
      output_chars: outcome.chars ?? 0,
      files_created: outcome.skill?.files ?? [],
    },
    timing: { total_duration_seconds: seconds(outcome.ms) },
    status: outcome.status,
    error: outcome.error,
    skill_sha256: outcome.skill?.sha256 ?? null,
    skill_used: outcome.skill?.used ?? null,
  };
}

function expectationsOf(outcome: Outcome) {
  return outcome.marks
    .filter((mark) => !OWN_MARKS.has(mark.grader))
    .map((mark) => ({ text: mark.grader, passed: mark.passed, evidence: mark.reason ?? "" }));
}

/** Both arms of a skill run: skill-creator's benchmark.json, with eb's paired comparison. */
export function benchmarkJson(baseline: Arm, candidate: Arm, meta: BenchmarkMeta): string {
  const arms = [candidate, baseline];
  const runs = arms.flatMap(runsOf);
  const summaries = arms.map((arm) => [arm.configuration, armSummary(arm)] as const);
  const [cand, base] = summaries.map(([, summary]) => summary);
  const compare = candidate.document.compare;
  return json({
    metadata: {
      skill_name: meta.skillName,
      skill_path: meta.skillPath,
      executor_model: meta.executor,
      analyzer_model: meta.judge,
      timestamp: meta.timestamp,
      evals_run: candidate.document.items.map((item) => evalId(item.id)),
      runs_per_configuration: meta.samples,
    },
    runs,
    run_summary: {
      ...Object.fromEntries(summaries),
      delta: cand && base ? deltaOf(cand, base) : {},
    },
    comparison: compare && {
      baseline: baseline.configuration,
      candidate: candidate.configuration,
      delta: compare.delta,
      ci_low: compare.ci_low,
      ci_high: compare.ci_high,
      ci_level: compare.ci_level,
      verdict: compare.verdict,
      does_not_make_worse: compare.verdict === "pass",
      helps: (compare.sequential?.ci_low ?? compare.ci_low) > 0,
      sequential: compare.sequential ?? null,
      margin: compare.margin,
      scope: compare.scope,
    },
    skill_not_used: notUsed(candidate.document),
    notes: [],
  });
}

/**
 * The with-skill samples whose transcript shows no read or call of the skill, of those where
 * the agent ran to the end (an agent that failed is an error sample, whatever it read).
 */
export function notUsed(document: RunDocument): { samples: number; of: number } {
  // The delivery mark is on every with-skill sample whose agent finished, and on no other.
  const marks = document.items.flatMap((item) =>
    item.outcomes.flatMap((o) => o.marks.filter((m) => m.grader === SKILL_USED_MARK)),
  );
  return { samples: marks.filter((m) => !m.passed).length, of: marks.length };
}

type Run = ReturnType<typeof runOf>;

function runsOf(arm: Arm): Run[] {
  return [...arm.document.items]
    .sort((a, b) => compareIds(a.id, b.id))
    .flatMap((item) => item.outcomes.map((outcome) => runOf(arm.configuration, item, outcome)));
}

function runOf(configuration: string, item: DocumentItem, outcome: Outcome) {
  const { expectations, summary, execution_metrics } = grading(outcome);
  return {
    eval_id: evalId(item.id),
    eval_name: item.id,
    configuration,
    run_number: outcome.sample + 1,
    result: {
      pass_rate: summary.pass_rate,
      passed: summary.passed,
      failed: summary.failed,
      total: summary.total,
      time_seconds: seconds(outcome.ms),
      tokens: outcome.skill?.tokens ?? 0,
      tool_calls: execution_metrics.total_tool_calls,
      errors: execution_metrics.errors_encountered,
    },
    expectations,
    sample_passed: outcome.status === "passed",
    skill_used: outcome.skill?.used ?? null,
    skill_sha256: outcome.skill?.sha256 ?? null,
    notes: outcome.reason === null ? [] : [outcome.reason],
  };
}

interface Stat {
  mean: number;
  stddev: number;
  min: number;
  max: number;
}

/**
 * An arm's figures over its samples, as skill-creator's run_summary has them, and what the arm
 * cost (its agent's and judge's tokens at [pricing]; null: a model without a price).
 */
export function armSummary(arm: Arm) {
  const runs = runsOf(arm);
  return {
    pass_rate: stat(runs.map((r) => r.result.pass_rate)),
    time_seconds: stat(runs.map((r) => r.result.time_seconds)),
    tokens: stat(runs.map((r) => r.result.tokens)),
    cost_usd: arm.document.run.cost,
  };
}

function deltaOf(cand: ReturnType<typeof armSummary>, base: ReturnType<typeof armSummary>) {
  const signed = (value: number, digits: number) =>
    `${value >= 0 ? "+" : ""}${value.toFixed(digits)}`;
  return {
    pass_rate: signed(cand.pass_rate.mean - base.pass_rate.mean, 2),
    time_seconds: signed(cand.time_seconds.mean - base.time_seconds.mean, 1),
    tokens: signed(cand.tokens.mean - base.tokens.mean, 0),
  };
}

/** Mean, sample standard deviation (n − 1; 0 for one value), min and max, as skill-creator. */
function stat(values: readonly number[]): Stat {
  if (values.length === 0) return { mean: 0, stddev: 0, min: 0, max: 0 };
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const squares = values.reduce((a, v) => a + (v - mean) ** 2, 0);
  const stddev = values.length > 1 ? Math.sqrt(squares / (values.length - 1)) : 0;
  return {
    mean: round(mean),
    stddev: round(stddev),
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

/** skill-creator's ids are integers; an eval file's string id stays a string. */
function evalId(id: string): number | string {
  return /^\d+$/.test(id) ? Number(id) : id;
}

function compareIds(a: string, b: string): number {
  const [x, y] = [evalId(a), evalId(b)];
  if (typeof x === "number" && typeof y === "number") return x - y;
  return a < b ? -1 : a > b ? 1 : 0;
}

function seconds(ms: number | null): number {
  return ms === null ? 0 : round(ms / 1000);
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** One trigger query over its samples: how often the agent reached for the skill. */
export interface TriggerRate {
  id: string;
  query: string;
  should_trigger: boolean;
  triggers: number;
  runs: number;
  trigger_rate: number;
  /** Wilson score interval of the trigger rate at `level`. */
  ci_low: number;
  ci_high: number;
  /** skill-creator's rule: triggered in at least half the runs exactly when it should. */
  pass: boolean;
}

/** At or above this trigger rate a query counts as triggering (skill-creator's threshold). */
const TRIGGER_THRESHOLD = 0.5;

/** Each trigger query of a run's document: its samples that used the skill, with an interval. */
export function triggerRates(document: RunDocument, level: number): TriggerRate[] {
  return [...document.items]
    .sort((a, b) => compareIds(a.id, b.id))
    .flatMap((item) => {
      // Error samples (the agent failed) carry no trigger mark and say nothing of triggering.
      const runs = item.outcomes.filter((o) => o.marks.some((m) => m.grader === TRIGGER_MARK));
      const first = runs[0];
      const mark = first?.marks.find((m) => m.grader === TRIGGER_MARK);
      if (first === undefined || mark === undefined) return [];
      // The mark passes when use matched should_trigger, so the two agree or differ together.
      const shouldTrigger = first.skill?.used === mark.passed;
      const triggers = runs.filter((o) => o.skill?.used === true).length;
      const rate = triggers / runs.length;
      const [low, high] = wilsonBounds(rate, runs.length, level);
      return [
        {
          id: item.id,
          query: queryOf(item),
          should_trigger: shouldTrigger,
          triggers,
          runs: runs.length,
          trigger_rate: round(rate),
          ci_low: round(low),
          ci_high: round(high),
          pass: shouldTrigger ? rate >= TRIGGER_THRESHOLD : rate < TRIGGER_THRESHOLD,
        },
      ];
    });
}

/** skill-creator's trigger eval output (`results`, `summary`), with eb's intervals. */
export function triggersJson(
  rates: readonly TriggerRate[],
  skillName: string,
  level: number,
): string {
  const passed = rates.filter((r) => r.pass).length;
  const falseTriggers = rates.filter((r) => !r.should_trigger).reduce((n, r) => n + r.triggers, 0);
  const shouldNot = rates.filter((r) => !r.should_trigger).reduce((n, r) => n + r.runs, 0);
  return json({
    skill_name: skillName,
    ci_level: level,
    results: rates,
    summary: {
      total: rates.length,
      passed,
      failed: rates.length - passed,
      false_triggers: falseTriggers,
      should_not_trigger_runs: shouldNot,
    },
  });
}

/** The trigger queries as lines for the terminal. */
export function triggerLines(rates: readonly TriggerRate[], level: number): string[] {
  if (rates.length === 0) return [];
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  const lines = rates.map((r) => {
    const want = r.should_trigger ? "should trigger    " : "should not trigger";
    const mark = r.pass ? "ok  " : "FAIL";
    return `  ${mark} ${want} ${r.triggers}/${r.runs} (${pct(r.trigger_rate)}, ${pct(level)} CI ${pct(r.ci_low)}–${pct(r.ci_high)})  ${r.id}: ${oneLineOf(r.query)}`;
  });
  const wrong = rates.filter((r) => !r.should_trigger);
  const falseTriggers = wrong.reduce((n, r) => n + r.triggers, 0);
  const runs = wrong.reduce((n, r) => n + r.runs, 0);
  return [
    `Trigger queries: ${rates.filter((r) => r.pass).length}/${rates.length} as expected; false triggers ${falseTriggers}/${runs} runs of should-not-trigger queries`,
    ...lines,
  ];
}

function queryOf(item: DocumentItem): string {
  return (item.input ?? "").replace(/^user:\s*/, "");
}

function oneLineOf(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 60 ? `${line.slice(0, 60)}…` : line;
}
