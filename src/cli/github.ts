import { appendFile, stat } from "node:fs/promises";
import { comparisonMarkdown } from "../render/compare-markdown.js";
import {
  type Annotation,
  annotationLines,
  brokeAnnotation,
  placeOf,
  runAnnotations,
  runSummaryMarkdown,
  STEP_SUMMARY_BYTES,
  SUMMARY_MARGIN_BYTES,
  summaryWithin,
} from "../render/github.js";
import { brokeReason } from "../render/junit.js";
import type { ComparedRuns } from "../report/compare-runs.js";
import type { RunDocument } from "../report/document.js";
import { type GithubEnv, githubAsked, githubEnv } from "./github-env.js";
import { printWarning, writeCommands } from "./output.js";
import { runDefinitions } from "./run-definitions.js";

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
export type BaselineOutcome = Pick<ComparedRuns, "baseDoc" | "candDoc">;

/** After `eb run` or `eb eval`: the job summary and annotations, when GitHub Actions asks. */
export function runToGithub(run: FinishedRun): Promise<void> {
  return whenAsked(async (github) => {
    const doc = run.report;
    if (github.annotate) {
      const base = github.workspace ?? doc.project_root ?? process.cwd();
      writeCommands(run.annotations, runAnnotations(doc, base));
    }
    if (github.summaryFile === null) return;
    const section = runSummaryMarkdown(doc, run.command, run.gate);
    const { baseline } = run;
    const compared = baseline ? comparisonMarkdown(baseline.baseDoc, baseline.candDoc) : [];
    const seeAlso = `${run.runDir}/report.json`;
    await appendSummary(github.summaryFile, { body: section, tail: compared, seeAlso });
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
    const body = comparisonMarkdown(base, cand);
    await appendSummary(github.summaryFile, { body, tail: [], seeAlso: "`eb compare --json`" });
  });
}

async function whenAsked(report: (github: GithubEnv) => Promise<void>): Promise<void> {
  if (!githubAsked()) return;
  const github = githubEnv();
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
    // At the line the reason names (a script's failing line), else the item's definition.
    const failedAt = now.problem_at ? placeOf(now, cand.project_root ?? projectRoot) : null;
    return brokeAnnotation(id, reason, failedAt ?? places.get(id) ?? null);
  });
  writeCommands(stream, annotationLines(annotations, root));
}

function warnNotReported(error: unknown): void {
  const why = error instanceof Error ? error.message : String(error);
  printWarning(`GitHub Actions: could not write the job summary or annotations: ${why}`);
}

/** A section of the job summary: `body` is cut to fit, then `tail` (see summaryWithin). */
interface SummarySection {
  body: readonly string[];
  tail: readonly string[];
  seeAlso: string;
}

/**
 * Appends to the summary file what fits below GitHub's limit with what the step's file holds
 * already; a file that cannot be written is a warning, never a failed run.
 */
async function appendSummary(file: string, section: SummarySection): Promise<void> {
  try {
    const held = await stat(file).then(
      (info) => info.size,
      () => 0,
    );
    const budget = STEP_SUMMARY_BYTES - SUMMARY_MARGIN_BYTES - held;
    const lines = summaryWithin(section.body, section.tail, budget, section.seeAlso);
    if (lines === null) {
      printWarning(
        `GITHUB_STEP_SUMMARY ${file}: the job summary is left out: the step's summary holds ${held} bytes already, and GitHub drops one over 1 MiB`,
      );
      return;
    }
    await appendFile(file, `${lines.join("\n")}\n`);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    printWarning(`GITHUB_STEP_SUMMARY ${file}: could not append the job summary: ${why}`);
  }
}
