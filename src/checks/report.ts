import { lastCodePoints } from "../process/tail.js";
import { coverageOf } from "../report/coverage.js";
import { applyGate } from "../report/gate.js";
import type { RunStats, RunSummary } from "../report/run-summary.js";
import type { Status } from "../run/record.js";
import type { CheckType } from "./types.js";

/** One check's result, in the seed's shape (report.json `checks[]` and `checks/<stem>.json`). */
export interface CheckResult {
  check_id: string;
  check_type: CheckType;
  description: string;
  source_path: string;
  tags: string[];
  status: Status;
  /** 0 or 1; with several samples, the pass fraction. */
  score: number;
  started_at: string;
  completed_at: string;
  duration_ms: number;
  reason: string | null;
  error_detail: string | null;
  stdout: string;
  stderr: string;
  exit_code: number | null;
  details: Record<string, unknown>;
  check_definition_sha256: string;
  /** Only with several samples: each sample's result, in sample order. */
  samples?: CheckResult[];
}

const SEVERITY: Record<Status, number> = { passed: 0, failed: 1, error: 2 };

/**
 * One result for a check run several times: its score is the pass fraction; its status and
 * details are those of its worst sample (error, then failed), so the report shows why.
 */
export function mergeSamples(samples: readonly CheckResult[]): CheckResult {
  const worst = samples.reduce((a, b) => (SEVERITY[b.status] > SEVERITY[a.status] ? b : a));
  const passed = samples.filter((sample) => sample.status === "passed").length;
  return {
    ...worst,
    score: passed / samples.length,
    started_at: samples[0]!.started_at,
    completed_at: samples.at(-1)!.completed_at,
    duration_ms: samples.reduce((sum, sample) => sum + sample.duration_ms, 0),
    samples: [...samples],
  };
}

/** `report.json` of `eb run`, in the seed's shape (schema_version 1). */
export interface CheckReport {
  schema_version: 1;
  run_id: string;
  project_root: string;
  output_dir: string;
  started_at: string;
  completed_at: string;
  duration_ms: number;
  total_checks: number;
  passed_checks: number;
  failed_checks: number;
  errored_checks: number;
  points_earned: number;
  total_points: number;
  percentage: number;
  pass_threshold: number;
  meets_threshold: boolean;
  run_passed: boolean;
  /** Present (true) only when Ctrl-C or SIGTERM stopped the run early. */
  interrupted?: true;
  /** Checks, checks never run, checks × samples: an interrupted run's stats are over what ran. */
  items_planned: number;
  items_not_run: number;
  samples_planned: number;
  /** The shared statistics of every kind of run (DESIGN.md), with an interval. */
  stats: RunStats;
  /** Flaky checks, failures per check type, breakdown by tag, latency (eb report's view). */
  summary: Omit<RunSummary, "stats">;
  checks: CheckResult[];
}

export interface ReportTiming {
  runId: string;
  projectRoot: string;
  outputDir: string;
  startedAt: string;
  completedAt: string;
  durationMs: number;
  passThreshold: number;
  interrupted: boolean;
  summary: RunSummary;
  /** The checks the run set out with, and the samples of each. */
  itemsPlanned: number;
  samples: number;
}

export function buildCheckReport(checks: CheckResult[], timing: ReportTiming): CheckReport {
  const count = (status: Status) => checks.filter((check) => check.status === status).length;
  const total = checks.length;
  const points = checks.reduce((sum, check) => sum + check.score, 0);
  const { stats } = timing.summary;
  const gate = applyGate({
    passed: stats.passed,
    samples: stats.samples,
    errors: stats.errors,
    threshold: timing.passThreshold,
    interrupted: timing.interrupted,
  });
  return {
    schema_version: 1,
    run_id: timing.runId,
    project_root: timing.projectRoot,
    output_dir: timing.outputDir,
    started_at: timing.startedAt,
    completed_at: timing.completedAt,
    duration_ms: timing.durationMs,
    total_checks: total,
    passed_checks: count("passed"),
    failed_checks: count("failed"),
    errored_checks: count("error"),
    points_earned: points,
    total_points: total,
    percentage: total === 0 ? 0 : Math.round((points / total) * 1000) / 10,
    pass_threshold: timing.passThreshold,
    meets_threshold: gate.meetsThreshold,
    run_passed: gate.passed,
    ...(timing.interrupted ? { interrupted: true as const } : {}),
    ...coverageOf(timing.itemsPlanned, timing.samples, stats),
    stats,
    summary: withoutStats(timing.summary),
    checks,
  };
}

/** Characters of a stream kept in report.json; the whole stream is in its file. */
export const REPORT_STREAM_CHARS = 2000;

/** The report's copy of a stream: all of it, or a banner naming the full file plus its tail. */
export function boundedStream(tail: string, totalChars: number, file: string): string {
  if (totalChars <= REPORT_STREAM_CHARS) return tail;
  const kept = lastCodePoints(tail, REPORT_STREAM_CHARS);
  return `[truncated: showing the last ${REPORT_STREAM_CHARS} of ${totalChars} characters; full output in ${file}]\n${kept}`;
}

function withoutStats(summary: RunSummary): Omit<RunSummary, "stats"> {
  const { stats: _, ...rest } = summary;
  return rest;
}
