import { appendFile } from "node:fs/promises";
import { comparisonMarkdown } from "../render/compare-markdown.js";
import {
  type Annotation,
  annotationLines,
  brokeAnnotation,
  runAnnotations,
  runSummaryMarkdown,
} from "../render/github.js";
import { brokeReason } from "../render/junit.js";
import type { RunDocument } from "../report/document.js";
import { printWarning } from "./output.js";
import { runDefinitions } from "./run-definitions.js";

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

/** What `eb eval --baseline` decided, beside the run: both documents, the comparison in the second. */
export interface BaselineOutcome {
  baseDoc: RunDocument;
  candDoc: RunDocument;
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
    const compared = baseline ? comparisonMarkdown(baseline.baseDoc, baseline.candDoc) : [];
    await appendSummary(github.summaryFile, [...section, ...compared]);
  });
}

/**
 * After `eb compare`: the comparison in the job summary, an annotation per broke item. The
 * runs' documents are built only when GitHub Actions asks.
 */
export function compareToGithub(
  documents: () => Promise<{ baseDoc: RunDocument; candDoc: RunDocument; candFile: string }>,
  annotations: NodeJS.WritableStream,
): Promise<void> {
  return whenAsked(async (github) => {
    const { baseDoc: base, candDoc: cand, candFile } = await documents();
    if (github.annotate) await annotateBroke(github, base, cand, candFile, annotations);
    if (github.summaryFile === null) return;
    await appendSummary(github.summaryFile, comparisonMarkdown(base, cand));
  });
}

async function whenAsked(report: (github: GithubEnv) => Promise<void>): Promise<void> {
  const github = githubEnv();
  if (github.summaryFile === null && !github.annotate) return;
  // The run is over and its files are written: nothing here may change its exit code.
  await report(github).catch(warnNotReported);
}

/** An annotation on the candidate's definition of each item that broke. */
async function annotateBroke(
  github: GithubEnv,
  base: RunDocument,
  cand: RunDocument,
  candFile: string,
  stream: NodeJS.WritableStream,
): Promise<void> {
  const { places, projectRoot } = await runDefinitions(candFile);
  const root = github.workspace ?? projectRoot ?? process.cwd();
  const baseItems = new Map(base.items.map((item) => [item.id, item]));
  const candItems = new Map(cand.items.map((item) => [item.id, item]));
  const annotations = (cand.compare?.broke ?? []).map((id): Annotation => {
    const before = baseItems.get(id)!;
    const now = candItems.get(id)!;
    const reason = brokeReason(before.score, now.score, now.problem);
    return brokeAnnotation(id, reason, places.get(id) ?? null);
  });
  const lines = annotationLines(annotations, root);
  if (lines.length > 0) stream.write(`${lines.join("\n")}\n`);
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
