/** eval-banana's library API; the `eb` CLI is a thin layer over it. */

import { mergeCases } from "./cases/merge.js";
import { mergeChecks } from "./checks/merge.js";
import { type MergedRun, type MergeOptions, mergeShards } from "./run/merge.js";

export type { MergedRun, MergeOptions };

/** `eb merge`: one run folder from the run folders of the `--shard I/N` runs of one suite. */
export function mergeRuns(options: MergeOptions): Promise<MergedRun> {
  return mergeShards(options, { checks: mergeChecks, cases: () => mergeCases(options.cwd) });
}

export { validateCases } from "./cases/grader-python.js";
export { loadCases, needsJudge } from "./cases/load.js";
export type { RunCasesOptions } from "./cases/options.js";
export type { CaseReport } from "./cases/report.js";
export type { CaseRun } from "./cases/run-cases.js";
export { runCases } from "./cases/run-cases.js";
export type { JudgeFn } from "./cases/sample.js";
export type { Case } from "./cases/schema.js";
export { listChecks, validateChecks } from "./checks/api.js";
export { computeCheckDefinitionSha256 } from "./checks/digest.js";
export type { CheckReport, CheckResult } from "./checks/report.js";
export { type CheckRun, type RunChecksOptions, runChecks } from "./checks/run-checks.js";
export { safeStem } from "./checks/stem.js";
export type { Check, DeterministicCheck, HarnessJudgeCheck } from "./checks/types.js";
export { type Config, type LoadConfigOptions, loadConfig } from "./config/load.js";
export { EXIT, InputError } from "./errors.js";
export { registerGrader } from "./graders/registry.js";
export type {
  GraderContext,
  GraderDefinition,
  GraderOutcome,
  GraderResult,
} from "./graders/types.js";
export {
  extractVerdict,
  extractWinner,
  type Verdict,
  type Winner,
  type WinnerVerdict,
} from "./judge/verdict.js";
export type { PairwiseReport } from "./pairwise/report.js";
export { type RunPairwiseOptions, runPairwise } from "./pairwise/run-pairwise.js";
// Renderers: each a pure function of documents to one format's text.
export { calibrationText } from "./render/calibrate-text.js";
export { COMPARE_MARKER, comparisonMarkdown } from "./render/compare-markdown.js";
export { comparisonText } from "./render/compare-text.js";
export { runAnnotations, runSummaryMarkdown } from "./render/github.js";
export { compareJunit, runJunit } from "./render/junit.js";
export { leaderboardText } from "./render/leaderboard-text.js";
export { pairwiseMarkdown, pairwiseText } from "./render/pairwise-text.js";
export { runMarkdown } from "./render/run-markdown.js";
export { gateLine, runText } from "./render/run-text.js";
// The run document, and what reads and compares runs.
export type { CompareBlock, LeaderboardEntry, PairwiseBlock } from "./report/blocks.js";
export { readCalibratedRun } from "./report/calibrate.js";
export {
  type ComparedRuns,
  compareBlock,
  compareRunRows,
  compareRuns,
  comparisonGate,
  type RunComparison,
  withComparison,
} from "./report/compare-runs.js";
export {
  buildDocument,
  type DocumentItem,
  type RunDocument,
  runDocumentSchema,
} from "./report/document.js";
export { leaderboard } from "./report/leaderboard.js";
export { documentOf, type ReadDocumentOptions, readDocument } from "./report/read-document.js";
export { readRun } from "./report/read-rows.js";
export type {
  CaseRow,
  CheckRow,
  Manifest,
  PairwiseRow,
  Row,
  Status,
  StoredRow,
  TargetInfo,
} from "./report/record.js";
export { summarize } from "./report/run-summary.js";
export type { SuiteRun } from "./run/run-suite.js";
export type { RunProgress } from "./run/suite.js";
