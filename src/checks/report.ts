import path from "node:path";
import { z } from "zod";
import { lastCodePoints } from "../process/tail.js";
import {
  buildDocument,
  type DocumentMeta,
  documentShape,
  type ItemText,
} from "../report/document.js";
import { applyGate, gateOf } from "../report/gate.js";
import { type Status, statusSchema } from "../report/record.js";
import type { RowTally } from "../report/row-tally.js";
import type { SummaryOptions } from "../report/run-summary.js";
import type { CheckType } from "./types.js";

const count = z.number().int().min(0);

/** One sample's result, in the seed's shape. */
export const checkSampleSchema = z.strictObject({
  check_id: z.string(),
  check_type: z.enum(["deterministic", "harness_judge"] satisfies CheckType[]),
  description: z.string(),
  source_path: z.string(),
  tags: z.array(z.string()),
  status: statusSchema,
  score: z.number().min(0).max(1).describe("0 or 1; with several samples, the pass fraction."),
  started_at: z.string(),
  completed_at: z.string(),
  duration_ms: z.number().min(0),
  reason: z.string().nullable(),
  error_detail: z.string().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  exit_code: z.number().int().nullable(),
  details: z.record(z.string(), z.unknown()),
  check_definition_sha256: z.string(),
});

/** One check's result, in the seed's shape (report.json `checks[]` and `checks/<stem>.json`). */
export const checkResultSchema = checkSampleSchema.extend({
  samples: z
    .array(checkSampleSchema)
    .optional()
    .describe("Only with several samples: each sample's result, in sample order."),
});
export type CheckResult = z.output<typeof checkResultSchema>;

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
export const checkReportSchema = z
  .strictObject({
    schema_version: z.literal(1),
    ...documentShape,
    kind: z.literal("checks"),
    run_id: z.string(),
    project_root: z.string(),
    started_at: z.string(),
    completed_at: z.string(),
    duration_ms: z.number().min(0),
    total_checks: count,
    passed_checks: count,
    failed_checks: count,
    errored_checks: count,
    points_earned: z.number().min(0),
    total_points: count,
    percentage: z.number().min(0).max(100),
    meets_threshold: z.boolean(),
    interrupted: z
      .literal(true)
      .optional()
      .describe("Present (true) only when Ctrl-C or SIGTERM stopped the run early."),
    checks: z.array(checkResultSchema),
  })
  .describe("report.json of eb run (checks).");
export type CheckReport = z.output<typeof checkReportSchema>;

/** What a check run's report needs beyond its results and rows: a document's meta, all known. */
export interface CheckReportMeta extends DocumentMeta {
  runId: string;
  projectRoot: string;
  startedAt: string;
  completedAt: string;
  durationMs: number;
  /** The line of each check's id in its YAML, when known. */
  lines?: ReadonlyMap<string, number>;
}

/** report.json of `eb run`: the seed's fields, and beside them the run document's. */
export function buildCheckReport(
  checks: CheckResult[],
  tally: RowTally,
  meta: CheckReportMeta,
  options: SummaryOptions = {},
): CheckReport {
  const count = (status: Status) => checks.filter((check) => check.status === status).length;
  const total = checks.length;
  const points = checks.reduce((sum, check) => sum + check.score, 0);
  const byId = new Map(checks.map((check) => [check.check_id, check]));
  const document = buildDocument(tally, meta, {
    ...options,
    text: (id) => checkText(byId.get(id), meta.projectRoot, meta.lines?.get(id)),
  });
  const { kind: _, ...fields } = document;
  return {
    schema_version: 1,
    ...fields,
    kind: "checks",
    run_id: meta.runId,
    project_root: meta.projectRoot,
    started_at: meta.startedAt,
    completed_at: meta.completedAt,
    duration_ms: meta.durationMs,
    total_checks: total,
    passed_checks: count("passed"),
    failed_checks: count("failed"),
    errored_checks: count("error"),
    points_earned: points,
    total_points: total,
    percentage: total === 0 ? 0 : Math.round((points / total) * 1000) / 10,
    meets_threshold: applyGate(gateOf(document)).meetsThreshold,
    ...(meta.interrupted ? { interrupted: true as const } : {}),
    checks,
  };
}

function checkText(
  check: CheckResult | undefined,
  projectRoot: string,
  line: number | undefined,
): ItemText | undefined {
  if (!check) return undefined;
  const source = path.relative(projectRoot, check.source_path).split(path.sep).join("/");
  return { type: check.check_type, description: check.description || null, source, line };
}

/** Characters of a stream kept in report.json; the whole stream is in its file. */
export const REPORT_STREAM_CHARS = 2000;

/** The report's copy of a stream: all of it, or a banner naming the full file plus its tail. */
export function boundedStream(tail: string, totalChars: number, file: string): string {
  if (totalChars <= REPORT_STREAM_CHARS) return tail;
  const kept = lastCodePoints(tail, REPORT_STREAM_CHARS);
  return `[truncated: showing the last ${REPORT_STREAM_CHARS} of ${totalChars} characters; full output in ${file}]\n${kept}`;
}
