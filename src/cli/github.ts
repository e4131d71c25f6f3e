import { appendFile } from "node:fs/promises";
import { type ComparedRun, comparedRun, comparisonMarkdown } from "../report/compare-markdown.js";
import type { RunComparison } from "../report/compare-runs.js";
import type { Coverage } from "../report/coverage.js";
import { failingItems } from "../report/failing-items.js";
import {
  type Annotation,
  annotationLines,
  brokeAnnotation,
  failingAnnotations,
  runSummaryMarkdown,
} from "../report/github.js";
import { brokeReason } from "../report/junit-items.js";
import { type RunRows, readRun } from "../report/read-rows.js";
import { runDefinitions } from "../report/run-definitions.js";
import type { RunSummary } from "../report/run-summary.js";
import { printWarning } from "./output.js";

/**
 * What GitHub Actions asks of a step, read from its environment: a file to append the job
 * summary to (GITHUB_STEP_SUMMARY), and whether the log is read for annotations (GITHUB_ACTIONS).
 */
interface GithubEnv {
  summaryFile: string | null;
  annotate: boolean;
  /** Annotation paths are relative to it (the repository's checkout), else to the project root. */
  workspace: string | null;
}

function githubEnv(): GithubEnv {
  const env = process.env;
  return {
    summaryFile: env.GITHUB_STEP_SUMMARY || null,
    annotate: env.GITHUB_ACTIONS === "true",
    workspace: env.GITHUB_WORKSPACE || null,
  };
}

/** The fields of report.json (either kind) a job summary reads. */
export interface RunReportFields extends Coverage {
  run_id: string;
  stats: RunSummary["stats"];
  summary: Omit<RunSummary, "stats">;
}

/** A finished `eb run` or `eb eval`, and the comparison of `eb eval --baseline`. */
export interface FinishedRun {
  command: "eb run" | "eb eval";
  runDir: string;
  report: RunReportFields;
  /** The gate's line as the console printed it. */
  gate: string;
  baseline?: BaselineOutcome;
  /** Where annotations go: stdout, unless stdout carries JSON. */
  annotations: NodeJS.WritableStream;
}

/** What `eb eval --baseline` decided, beside the run. */
export interface BaselineOutcome {
  baseline: RunRows;
  comparison: RunComparison;
  passed: boolean;
}

/** After `eb run` or `eb eval`: the job summary and annotations, when GitHub Actions asks. */
export async function runToGithub(run: FinishedRun): Promise<void> {
  const github = githubEnv();
  if (github.summaryFile === null && !github.annotate) return;
  // The run is over and its files are written: nothing here may change its exit code.
  await runToGithubOrWarn(run, github).catch(warnNotReported);
}

async function runToGithubOrWarn(run: FinishedRun, github: GithubEnv): Promise<void> {
  const rows = await readRun(run.runDir);
  const failing = failingItems(rows.tally);
  if (github.annotate) {
    const { places, projectRoot } = await runDefinitions(rows.file);
    const base = github.workspace ?? projectRoot ?? process.cwd();
    writeLines(run.annotations, annotationLines(failingAnnotations(failing, places), base));
  }
  if (github.summaryFile === null) return;
  const { report } = run;
  const section = runSummaryMarkdown({
    command: run.command,
    runId: report.run_id,
    summary: { stats: report.stats, ...report.summary },
    coverage: report,
    gate: run.gate,
    failing,
  });
  const compared = run.baseline
    ? comparisonMarkdown(
        run.baseline.comparison,
        runsOf(run.baseline.baseline, rows),
        run.baseline.passed,
      )
    : [];
  await appendSummary(github.summaryFile, [...section, ...compared]);
}

/** A finished `eb compare`: the comparison in the job summary, an annotation per broke item. */
export async function compareToGithub(
  comparison: RunComparison,
  baseline: RunRows,
  candidate: RunRows,
  passed: boolean,
  annotations: NodeJS.WritableStream,
): Promise<void> {
  const github = githubEnv();
  if (github.annotate) {
    const { places, projectRoot } = await runDefinitions(candidate.file).catch(() => ({
      places: new Map(),
      projectRoot: null,
    }));
    const base = github.workspace ?? projectRoot ?? process.cwd();
    const broke = comparison.broke.map((id) => brokeItem(id, baseline, candidate, places.get(id)));
    writeLines(annotations, annotationLines(broke, base));
  }
  if (github.summaryFile === null) return;
  await appendSummary(
    github.summaryFile,
    comparisonMarkdown(comparison, runsOf(baseline, candidate), passed),
  );
}

export function runsOf(
  baseline: RunRows,
  candidate: RunRows,
): { baseline: ComparedRun; candidate: ComparedRun } {
  return { baseline: comparedRun(baseline), candidate: comparedRun(candidate) };
}

function brokeItem(
  id: string,
  baseline: RunRows,
  candidate: RunRows,
  place: Annotation["place"] | undefined,
): Annotation {
  const base = baseline.tally.items.get(id)!;
  const cand = candidate.tally.items.get(id)!;
  const reason = brokeReason(base.sum / base.n, cand.sum / cand.n, cand.problem);
  return brokeAnnotation(id, reason, place ?? null);
}

function warnNotReported(error: unknown): void {
  const why = error instanceof Error ? error.message : String(error);
  printWarning(`GitHub Actions: could not write the job summary or annotations: ${why}`);
}

function writeLines(stream: NodeJS.WritableStream, lines: readonly string[]): void {
  if (lines.length > 0) stream.write(`${lines.join("\n")}\n`);
}

/** Appends to the summary file; a file that cannot be written is a warning, never a failed run. */
async function appendSummary(file: string, lines: readonly string[]): Promise<void> {
  try {
    await appendFile(file, `${lines.join("\n")}\n`);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    printWarning(`GITHUB_STEP_SUMMARY ${file}: could not append the job summary: ${why}`);
  }
}
