import { mkdirSync, rmSync } from "node:fs";
import { oneLine } from "../report/reason.js";
import type { CheckRow } from "../report/record.js";
import { isoUtc } from "../run/provenance.js";
import { errorOutcome } from "./executors/deterministic.js";
import { execute } from "./executors/registry.js";
import type { ExecContext, ExecOutcome, PreparedCheck } from "./executors/types.js";
import { boundedStream, type CheckResult } from "./report.js";

/** One sample of one check as the seed's result; null when an interrupt cut it short. */
export async function runCheckSample(
  prepared: PreparedCheck,
  context: ExecContext,
): Promise<CheckResult | null> {
  // The check's time starts once the compile of every script has judged its own.
  await prepared.syntaxError;
  const startedAt = new Date();
  const started = performance.now();
  mkdirSync(context.scratchDir, { recursive: true });
  const check = prepared.check;
  const outcome = await execute(check.type, check, prepared, context)
    .catch((error: unknown) =>
      errorOutcome(`Internal error while running the check: ${String(error)}`),
    )
    .finally(() => rmSync(context.scratchDir, { recursive: true, force: true }));
  if (outcome.aborted) return null;
  const { scrub } = context.scrubber;
  const scrubOrNull = (text: string | null) => (text === null ? null : scrub(text));
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
    reason: reasonOf(outcome, scrub),
    error_detail: scrubOrNull(outcome.errorDetail),
    stdout: scrub(boundedStream(outcome.stdout, outcome.stdoutChars, streamFile("stdout"))),
    stderr: scrub(boundedStream(outcome.stderr, outcome.stderrChars, streamFile("stderr"))),
    exit_code: outcome.exitCode,
    details: outcome.details,
    check_definition_sha256: prepared.digest,
  };
}

/**
 * The one-line reason: the executor's (a script's message, a judge's verdict), else for an error
 * its detail. Scrubbed before it is cut, so no part of a secret survives the cut.
 */
function reasonOf(outcome: ExecOutcome, scrub: (text: string) => string): string | null {
  const why = outcome.reason ?? (outcome.status === "error" ? outcome.errorDetail : null);
  return why === null ? null : oneLine(scrub(why));
}

/** The row of one check sample in `rows.jsonl` (DESIGN.md field names). */
export function rowOf(result: CheckResult, sample: number): CheckRow {
  return {
    id: result.check_id,
    sample,
    score: result.status === "passed" ? 1 : 0,
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
