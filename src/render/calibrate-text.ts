import type { Calibration, GraderCalibration } from "../report/calibrate.js";
import { countOf } from "../report/gate.js";
import { fixed } from "./numbers.js";

/** The block `eb calibrate` prints, and `eb report --labels` after its summary. */
export function calibrationText(calibration: Calibration): string {
  const level = `${Math.round(calibration.ci_level * 1000) / 10}%`;
  const head = `calibrated against people (${calibration.labels_file}; ${level} intervals):`;
  const lines = calibration.graders.flatMap((g) => graderLines(g, calibration.rate_over));
  return `${[head, ...lines].join("\n")}\n`;
}

function graderLines(g: GraderCalibration, over: Calibration["rate_over"]): string[] {
  const interval = (estimate: number | null, low: number | null, high: number | null) =>
    estimate === null ? "n/a" : `${fixed(estimate)} [${fixed(low)}, ${fixed(high)}]`;
  const corrected =
    g.corrected_pass_rate === null
      ? `corrected n/a: ${g.problem}`
      : `corrected ${interval(g.corrected_pass_rate, g.corrected_ci_low, g.corrected_ci_high)}`;
  return [
    `  grader ${g.grader}: ${countOf(g.labels, "label")} (${g.labelled_pass} passed by people, ${g.labelled_fail} failed)`,
    `    TPR ${interval(g.tpr, g.tpr_ci_low, g.tpr_ci_high)}  TNR ${interval(g.tnr, g.tnr_ci_low, g.tnr_ci_high)}  κ ${interval(g.kappa, g.kappa_ci_low, g.kappa_ci_high)}`,
    `    pass rate over ${g.units} ${over}: raw ${interval(g.raw_pass_rate, g.raw_ci_low, g.raw_ci_high)} → ${corrected}`,
  ];
}
