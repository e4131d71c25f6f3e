import path from "node:path";
import { buildDocument, type DocumentMeta, type RunDocument } from "./document.js";
import type { ManifestSummary } from "./manifest.js";
import { type RunRows, readRun } from "./read-rows.js";
import { RowTally } from "./row-tally.js";
import type { SummaryOptions } from "./run-summary.js";

export interface ReadDocumentOptions extends SummaryOptions {
  /** Keep each sample's outcome and excerpt (a page shows them; a figure does not need them). */
  outcomes?: boolean;
  /** The gate's threshold the verdict is judged at (the run's own, when the caller knows it). */
  passThreshold?: number;
}

/**
 * The document of a finished run (folder or rows file), built from its rows in one pass: what
 * `eb report`, `eb compare` and a leaderboard show, for runs of any version or tool (the
 * article's rows too, which have no manifest).
 */
export async function readDocument(
  location: string,
  options: ReadDocumentOptions = {},
): Promise<{ document: RunDocument; rows: RunRows }> {
  const rows = await readRun(location, undefined, new RowTally({ outcomes: options.outcomes }));
  return { document: documentOf(rows, options), rows };
}

/** The document of rows already read (a leaderboard's runs), without reading them again. */
export function documentOf(rows: RunRows, options: ReadDocumentOptions = {}): RunDocument {
  const meta = metaOf(rows.manifest, rows.file, options.passThreshold ?? 1);
  const judgeModel = options.judgeModel ?? rows.manifest?.judge_model ?? null;
  return buildDocument(rows.tally, meta, { ...options, judgeModel });
}

function metaOf(m: ManifestSummary | null, file: string, passThreshold: number): DocumentMeta {
  const location = path.basename(file) === "rows.jsonl" ? path.dirname(file) : file;
  const started = m?.started_at ?? null;
  const ended = m?.ended_at ?? null;
  const duration = started && ended ? Date.parse(ended) - Date.parse(started) : null;
  return {
    kind: m?.kind ?? null,
    runId: m?.run_id ?? null,
    projectRoot: m?.project_root ?? null,
    location,
    startedAt: started,
    completedAt: ended,
    durationMs: duration !== null && duration >= 0 ? duration : null,
    run: {
      tool_version: m?.version ?? null,
      git_commit: m?.git_commit ?? null,
      command: m?.command ? ["eb", ...m.command].join(" ") : null,
      target: m?.target ?? null,
      judge: m?.judge_model ?? null,
      samples_per_item: m?.planned?.samplesPerItem ?? null,
      resumes: m?.resumes ?? 0,
      merged: m?.shards && m.merged_runs ? { shards: m.shards, runs: m.merged_runs } : null,
    },
    itemsPlanned: m?.planned?.items ?? null,
    planned: m?.kind === "checks" ? Object.keys(m.definitions).map((id) => ({ id })) : undefined,
    passThreshold,
    // A run that never ended (killed) is as incomplete as one interrupted.
    interrupted: m !== null && m.started_at !== null && (m.interrupted ?? true),
    budget: null,
    budgetExhausted: m?.budget_exceeded ?? false,
  };
}
