import { appendFile } from "node:fs/promises";
import {
  type Annotation,
  annotationLines,
  brokeAnnotation,
  type ItemPlace,
  runAnnotations,
  runSummaryMarkdown,
} from "../render/github.js";
import { brokeReason } from "../render/junit.js";
import { type ComparedRun, comparedRun, comparisonMarkdown } from "../report/compare-markdown.js";
import type { RunComparison } from "../report/compare-runs.js";
import type { RunDocument } from "../report/document.js";
import { type RunRows, readRun } from "../report/read-rows.js";
import { runDefinitions } from "../report/run-definitions.js";
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

/** A finished `eb run` or `eb eval`, and the comparison of `eb eval --baseline`. */
export interface FinishedRun {
  command: "eb run" | "eb eval";
  runDir: string;
  report: RunDocument;
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
export function runToGithub(run: FinishedRun): Promise<void> {
  return whenAsked(async (github) => {
    const doc = run.report;
    if (github.annotate) {
      const lines = runAnnotations(doc, github.workspace ?? doc.project_root ?? process.cwd());
      if (lines.length > 0) run.annotations.write(`${lines.join("\n")}\n`);
    }
    if (github.summaryFile === null) return;
    const section = runSummaryMarkdown(doc, run.command, run.gate);
    const { baseline } = run;
    const compared = baseline
      ? comparisonMarkdown(
          baseline.comparison,
          runsOf(baseline.baseline, await readRun(run.runDir)),
          baseline.passed,
        )
      : [];
    await appendSummary(github.summaryFile, [...section, ...compared]);
  });
}

/** After `eb compare`: the comparison in the job summary, an annotation per broke item. */
export function compareToGithub(
  comparison: RunComparison,
  baseline: RunRows,
  candidate: RunRows,
  passed: boolean,
  annotations: NodeJS.WritableStream,
): Promise<void> {
  return whenAsked(async (github) => {
    if (github.annotate) {
      await annotate(github, candidate, annotations, (places) =>
        comparison.broke.map((id) => brokeItem(id, baseline, candidate, places.get(id))),
      );
    }
    if (github.summaryFile === null) return;
    const markdown = comparisonMarkdown(comparison, runsOf(baseline, candidate), passed);
    await appendSummary(github.summaryFile, markdown);
  });
}

async function whenAsked(report: (github: GithubEnv) => Promise<void>): Promise<void> {
  const github = githubEnv();
  if (github.summaryFile === null && !github.annotate) return;
  // The run is over and its files are written: nothing here may change its exit code.
  await report(github).catch(warnNotReported);
}

/** Annotations on the definitions of `run`'s items, paths relative to the checkout. */
async function annotate(
  github: GithubEnv,
  run: RunRows,
  stream: NodeJS.WritableStream,
  build: (places: ReadonlyMap<string, ItemPlace>) => Annotation[],
): Promise<void> {
  const { places, projectRoot } = await runDefinitions(run.file);
  const base = github.workspace ?? projectRoot ?? process.cwd();
  const lines = annotationLines(build(places), base);
  if (lines.length > 0) stream.write(`${lines.join("\n")}\n`);
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
  place: ItemPlace | undefined,
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

/** Appends to the summary file; a file that cannot be written is a warning, never a failed run. */
async function appendSummary(file: string, lines: readonly string[]): Promise<void> {
  try {
    await appendFile(file, `${lines.join("\n")}\n`);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    printWarning(`GITHUB_STEP_SUMMARY ${file}: could not append the job summary: ${why}`);
  }
}
