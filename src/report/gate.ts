import pc from "picocolors";

/**
 * The one gate of `eb run` and `eb eval`: a run passes when it finished, at least one sample ran,
 * no sample is an error, and the share of samples that passed is at least the threshold.
 * Samples, not items: an item run k times counts k times, as `eb run` has always scored.
 */
export interface GateInput {
  /** Samples that passed (score 1). */
  passed: number;
  samples: number;
  errors: number;
  threshold: number;
  interrupted: boolean;
}

/** What a report of either kind holds of its gate. */
export interface GatedReport {
  stats: { passed: number; samples: number; errors: number };
  pass_threshold: number;
  interrupted?: boolean;
}

export function gateOf(report: GatedReport): GateInput {
  const { passed, samples, errors } = report.stats;
  const { pass_threshold: threshold, interrupted } = report;
  return { passed, samples, errors, threshold, interrupted: interrupted === true };
}

export interface GateResult {
  meetsThreshold: boolean;
  passed: boolean;
}

export function applyGate(input: GateInput): GateResult {
  const meetsThreshold = input.samples > 0 && input.passed / input.samples >= input.threshold;
  const passed = meetsThreshold && input.errors === 0 && !input.interrupted;
  return { meetsThreshold, passed };
}

/** `Gate: 18/20 samples passed (90.0%) < threshold 1.0 → failed`: what was gated, and how. */
export function gateLine(input: GateInput): string {
  const { meetsThreshold, passed } = applyGate(input);
  const verdict = passed ? pc.green("passed") : pc.red("failed");
  if (input.interrupted) {
    return `Gate: interrupted after ${countOf(input.samples, "sample")} → ${verdict}`;
  }
  if (input.samples === 0) return `Gate: no sample ran → ${verdict}`;
  const share = `${input.passed}/${input.samples} samples passed (${percent(input.passed / input.samples)})`;
  const against = `${meetsThreshold ? "≥" : "<"} threshold ${thresholdText(input.threshold)}`;
  return `Gate: ${share} ${against}${errorsClause(input.errors, meetsThreshold)} → ${verdict}`;
}

function errorsClause(errors: number, meetsThreshold: boolean): string {
  if (errors === 0) return meetsThreshold ? ", no error samples" : "";
  return `${meetsThreshold ? ", but" : ", and"} ${countOf(errors, "error sample")}`;
}

/** `1.0`, `0.9`, `0.95`: as a setting is written. */
function thresholdText(threshold: number): string {
  return Number.isInteger(threshold) ? threshold.toFixed(1) : String(threshold);
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

export function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

export interface StatusCounts {
  passed: number;
  failed: number;
  errors: number;
  durationMs: number;
}

/** The pytest-like closing line: `2 passed, 1 failed, 0 errors in 1.20 s` (items, not samples). */
export function countsLine(counts: StatusCounts): string {
  const passed = `${counts.passed} passed`;
  const failed = `${counts.failed} failed`;
  const errors = countOf(counts.errors, "error");
  const parts = [
    counts.passed > 0 ? pc.green(passed) : passed,
    counts.failed > 0 ? pc.red(failed) : failed,
    counts.errors > 0 ? pc.yellow(errors) : errors,
  ];
  return `${parts.join(", ")} in ${seconds(counts.durationMs)}`;
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
