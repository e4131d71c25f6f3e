import { EXIT } from "../errors.js";
import { calibrationText, readCalibratedRun } from "../index.js";
import { terminalSafeJson, terminalSafeStrings } from "../report/terminal.js";
import { intervalLevel } from "./options.js";
import { printWarning } from "./output.js";
import { runLocation } from "./run-location.js";

export interface CalibrateFlags {
  json?: boolean;
  level: string;
  cwd: string;
}

/** `eb calibrate RUN LABELS`: how far each labelled grader agrees with people, and its corrected rate. */
export async function calibrateCommand(
  run: string,
  labels: string,
  flags: CalibrateFlags,
): Promise<number> {
  const level = intervalLevel(flags.level);
  const location = await runLocation(run, flags.cwd);
  const { rows, calibration } = await readCalibratedRun(location, labels, level);
  const warnings = [...rows.warnings, ...calibration.warnings];
  for (const warning of warnings) printWarning(warning);
  const run_id = rows.manifest?.run_id ?? null;
  // Ids and grader names come from the rows and the labels: made safe for the terminal.
  process.stdout.write(
    flags.json
      ? `${terminalSafeJson(JSON.stringify({ run: rows.file, run_id, ...calibration, warnings }, null, 2))}\n`
      : calibrationText(terminalSafeStrings(calibration)),
  );
  return EXIT.passed;
}
