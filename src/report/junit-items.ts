import path from "node:path";
import { z } from "zod";
import { fixed } from "../render/stats-text.js";
import type { StoredRow } from "../run/record.js";
import type { RunComparison } from "./compare-runs.js";
import { countOf } from "./gate.js";
import type { JunitItem } from "./junit.js";
import { readRows, rowsFile } from "./read-rows.js";
import { type ItemTally, RowTally } from "./row-tally.js";
import { type RunDefinitions, readJson, runDefinitions } from "./run-definitions.js";

/** What report.json of `eb run` adds for a check: its output. */
const checkReportSchema = z.looseObject({
  checks: z.array(z.looseObject({ check_id: z.string(), stdout: z.string(), stderr: z.string() })),
});

type CheckOutput = { stdout: string; stderr: string };

/** For the items with no stratum and no check YAML (the article's rows). */
const NO_CLASS = "eval-banana";

const NOT_RUN = "not run: the run was interrupted";

/**
 * A run's items as testcases, from what its run folder (or rows file) holds: only what the run
 * wrote, so nothing the run's scrubber removed can come back. Items it planned and never ran
 * follow as skipped testcases.
 */
export async function runItems(location: string): Promise<JunitItem[]> {
  const file = await rowsFile(location);
  const rows = await readRows(file);
  const tally = new RowTally();
  const extras = new Map<string, { ms: number | null; answer: string | null; failed: boolean }>();
  for (const row of rows) {
    tally.add(row);
    const extra = extras.get(row.id) ?? { ms: null, answer: null, failed: false };
    if (typeof row.ms === "number") extra.ms = (extra.ms ?? 0) + row.ms;
    // The answer of the first sample that fell short (the one the reason is about), else the first.
    if (!extra.failed && (extra.answer === null || row.score < 1)) {
      extra.answer = answerOf(row);
      extra.failed = row.score < 1;
    }
    extras.set(row.id, extra);
  }
  const [checks, definitions] = await Promise.all([
    checkOutputs(path.join(path.dirname(file), "report.json")),
    runDefinitions(file),
  ]);
  const classnames = new Map(definitions.planned?.map((p) => [p.id, p.classname]));
  const ran = [...tally.items.values()].map((item): JunitItem => {
    const extra = extras.get(item.id)!;
    const check = checks.get(item.id);
    return {
      ...itemOf(item, classnames.get(item.id) ?? (item.stratum || NO_CLASS)),
      ms: extra.ms,
      stdout: check ? check.stdout : extra.answer,
      stderr: check ? check.stderr : null,
    };
  });
  return [...ran, ...notRunItems(definitions, tally)];
}

/**
 * One skipped testcase per item planned and never run, when the run folder names them (a check
 * run's manifest does; a case run's case file does while it is unchanged); else one testcase
 * that counts them, rather than ids made up or read from a file that may have changed.
 */
function notRunItems(definitions: RunDefinitions, tally: RowTally): JunitItem[] {
  if (definitions.planned !== null) {
    return definitions.planned
      .filter((item) => !tally.items.has(item.id))
      .map((item) => skipped(item.classname ?? NO_CLASS, item.id));
  }
  const missing = (definitions.itemsPlanned ?? 0) - tally.items.size;
  return missing > 0 ? [skipped(NO_CLASS, `${countOf(missing, "item")} not run`)] : [];
}

function skipped(classname: string, name: string): JunitItem {
  return {
    classname,
    name,
    ms: null,
    outcome: "skipped",
    reason: NOT_RUN,
    stdout: null,
    stderr: null,
    flaky: false,
    samples: null,
  };
}

function itemOf(item: ItemTally, classname: string): Omit<JunitItem, "ms" | "stdout" | "stderr"> {
  const outcome = item.errors > 0 ? "error" : item.problem !== null ? "failure" : "passed";
  return {
    classname,
    name: item.id,
    outcome,
    reason: item.problem,
    flaky: item.sum > 0 && item.sum < item.n,
    samples: { passed: item.sum, run: item.n },
  };
}

/** A case row's answer; rows of other programs may hold anything there. */
function answerOf(row: StoredRow): string | null {
  const { text } = row as { text?: unknown };
  return typeof text === "string" ? text : null;
}

/** Each check's output, if report.json has them. */
async function checkOutputs(file: string): Promise<Map<string, CheckOutput>> {
  const parsed = checkReportSchema.safeParse(await readJson(file));
  if (!parsed.success) return new Map();
  return new Map(
    parsed.data.checks.map((check) => [
      check.check_id,
      { stdout: check.stdout, stderr: check.stderr },
    ]),
  );
}

/**
 * `eb compare` as testcases: one per paired item, the candidate's, a failure when it broke
 * (its score dropped); then one for the gate, a failure when the gate failed (its exit code 1).
 */
export function comparisonItems(
  comparison: RunComparison,
  baseline: RowTally,
  candidate: readonly JunitItem[],
  gatePassed: boolean,
): JunitItem[] {
  const broke = new Set(comparison.broke);
  const paired = candidate.filter((item) => baseline.items.has(item.name));
  const items = paired.map((item): JunitItem => {
    // Not run in the candidate: neither broke nor held.
    if (item.outcome === "skipped") return item;
    if (!broke.has(item.name)) return { ...item, outcome: "passed", reason: null };
    const base = baseline.items.get(item.name)!;
    const cand = item.samples && item.samples.passed / item.samples.run;
    return {
      ...item,
      outcome: "failure",
      reason: brokeReason(base.sum / base.n, cand, item.reason),
    };
  });
  return [...items, gateItem(comparison, gatePassed)];
}

/** Why an item broke: its scores in both runs, then why the candidate fell short. */
export function brokeReason(base: number, cand: number | null, reason: string | null): string {
  const drop = `baseline ${fixed(base, 2)} → candidate ${fixed(cand, 2)}`;
  return reason ? `${drop}; ${reason}` : drop;
}

function gateItem(comparison: RunComparison, passed: boolean): JunitItem {
  const { delta, low, high, margin, verdict, n } = comparison;
  const verdictLine = `${verdict}: delta ${fixed(delta, 3)} [${fixed(low, 3)}, ${fixed(high, 3)}] over ${n} paired items, margin ${margin}`;
  return {
    classname: "eval-banana.compare",
    name: "gate",
    ms: null,
    outcome: passed ? "passed" : "failure",
    reason: passed ? null : verdictLine,
    stdout: verdictLine,
    stderr: null,
    flaky: false,
    samples: null,
  };
}
