/** eval-banana's library API; the `eb` CLI is a thin layer over it. */

export { loadCases, needsJudge } from "./cases/load.js";
export type { CaseRow, JudgeFn } from "./cases/run-case.js";
export type { Case } from "./cases/schema.js";
export { listChecks, validateChecks } from "./checks/api.js";
export { computeCheckDefinitionSha256 } from "./checks/digest.js";
export { safeStem } from "./checks/stem.js";
export type { Check, DeterministicCheck, HarnessJudgeCheck } from "./checks/types.js";
export { type Config, type LoadConfigOptions, loadConfig } from "./config/load.js";
export {
  type CaseProgress,
  type CaseRun,
  type RunCasesOptions,
  runCases,
} from "./engine/run-cases.js";
export { type CheckRun, type RunChecksOptions, runChecks } from "./engine/run-checks.js";
export { EXIT, InputError } from "./errors.js";
export { registerGrader } from "./graders/registry.js";
export type {
  GraderContext,
  GraderDefinition,
  GraderOutcome,
  GraderResult,
} from "./graders/types.js";
export { extractVerdict, type Verdict } from "./judge/verdict.js";
export type { CaseReport, ItemSummary, TargetInfo } from "./report/case-report.js";
export type { CheckReport, CheckResult } from "./report/check-report.js";
