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

/** `1 item`, `3 items`, `2 losses`: the one way every output counts a thing. */
export function countOf(
  count: number,
  noun: string,
  many = `${noun}s`,
  format: (n: number) => string = String,
): string {
  return `${format(count)} ${count === 1 ? noun : many}`;
}

/** `18/20 samples passed (90.0%) < threshold 1.0, and 1 error sample`. */
export function thresholdRule(gate: GateInput): string {
  if (gate.samples === 0) return "no sample ran";
  const { meetsThreshold } = applyGate(gate);
  const share = `${gate.passed}/${gate.samples} samples passed (${percent(gate.passed / gate.samples)})`;
  const against = `${meetsThreshold ? "≥" : "<"} threshold ${thresholdText(gate.threshold)}`;
  return `${share} ${against}${errorsClause(gate.errors, meetsThreshold)}`;
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
