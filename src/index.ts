/** eval-banana's library API; the `eb` CLI is a thin layer over it. */

export { listChecks, validateChecks } from "./checks/api.js";
export { computeCheckDefinitionSha256 } from "./checks/digest.js";
export { safeStem } from "./checks/stem.js";
export type { Check, DeterministicCheck, HarnessJudgeCheck } from "./checks/types.js";
export { type Config, type LoadConfigOptions, loadConfig } from "./config/load.js";
export { type CheckRun, type RunChecksOptions, runChecks } from "./engine/run-checks.js";
export { EXIT, InputError } from "./errors.js";
export { extractVerdict, type Verdict } from "./judge/verdict.js";
export type { CheckReport, CheckResult } from "./report/check-report.js";
