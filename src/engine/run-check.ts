import { mkdir } from "node:fs/promises";
import { errorOutcome, runDeterministic } from "../executors/deterministic.js";
import { runHarnessJudge } from "../executors/harness-judge.js";
import type { ExecContext, ExecOutcome, PreparedCheck } from "../executors/types.js";
import { boundedStream, type CheckResult } from "../report/check-report.js";
import type { StoredRow as Row } from "../run/record.js";
import { isoUtc } from "./time.js";

export async function runOne(
  item: PreparedCheck,
  context: ExecContext,
): Promise<CheckResult | null> {
  const startedAt = new Date();
  const started = performance.now();
  await mkdir(context.scratchDir, { recursive: true });
  const outcome = await execute(item, context).catch((error: unknown) =>
    errorOutcome(`Internal error while running the check: ${String(error)}`),
  );
  if (outcome.aborted) return null;
  const check = item.check;
  const streamFile = (name: string) => `checks/${context.stem}.${name}.txt`;
  return {
    check_id: check.id,
    check_type: check.type,
    description: check.description,
    source_path: check.sourcePath,
    tags: check.tags,
    status: outcome.status,
    score: outcome.status === "passed" ? 1 : 0,
    started_at: isoUtc(startedAt),
    completed_at: isoUtc(new Date()),
    duration_ms: Math.floor(performance.now() - started),
    reason: outcome.reason,
    error_detail: outcome.errorDetail,
    stdout: boundedStream(outcome.stdout, outcome.stdoutChars, streamFile("stdout")),
    stderr: boundedStream(outcome.stderr, outcome.stderrChars, streamFile("stderr")),
    exit_code: outcome.exitCode,
    details: outcome.details,
    check_definition_sha256: item.digest,
  };
}

function execute(item: PreparedCheck, context: ExecContext): Promise<ExecOutcome> {
  const check = item.check;
  return check.type === "deterministic"
    ? runDeterministic(check, context, item)
    : runHarnessJudge(check, context);
}

/** The row of one check sample in `rows.jsonl` (DESIGN.md field names). */
export function rowOf(result: CheckResult, sample: number): Row {
  return {
    id: result.check_id,
    sample,
    score: result.score,
    status: result.status,
    tags: result.tags,
    marks: result.status === "error" ? {} : { [result.check_type]: result.score === 1 },
    ms: result.duration_ms,
    reason: result.reason,
    error: result.error_detail,
    cached: false,
    cost: null,
    model: typeof result.details.model === "string" ? result.details.model : null,
  };
}
