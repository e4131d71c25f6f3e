import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import {
  budgetSchema,
  buildDocument,
  type DocumentMeta,
  judgeCacheSchema,
  type RunDocument,
} from "./document.js";
import { parseJsonOrNull } from "./json.js";
import type { ManifestSummary } from "./manifest.js";
import { outcomeSchema } from "./outcome.js";
import { type RunRows, readRun } from "./read-rows.js";
import type { SummaryOptions } from "./run-summary.js";

export interface ReadDocumentOptions extends SummaryOptions {
  /** Keep each sample's outcome and excerpt (a page shows them; a figure does not need them). */
  outcomes?: boolean;
  /** The gate's threshold the verdict is judged at (the run's own, when the caller knows it). */
  passThreshold?: number;
  /**
   * Take what the rows do not hold from the run folder's report.json, when it has one (see
   * readWrittenReport): its items, threshold and verdict are then those the run wrote. Off for
   * figures alone: a big run's report.json is larger than its rows.
   */
  writtenReport?: boolean;
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
  const rows = await readRun(location, undefined, { outcomes: options.outcomes });
  const written = options.writtenReport ? await readWrittenReport(rows.file) : null;
  return { document: documentOf(rows, options, written), rows };
}

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable().catch(null).default(null);

/** A sample's output as the run showed it: a check's comes from its files, not its row. */
const writtenOutputSchema = z.object(
  outcomeSchema.pick({ sample: true, excerpt: true, chars: true, files: true }).shape,
);

/** Each field on its own: one that is missing or of another shape reads as absent. */
const writtenReportSchema = z.object({
  pass_threshold: nullable(z.number().min(0).max(1)),
  budget: budgetSchema.catch(null).default(null),
  judge_cache: judgeCacheSchema.catch(null).default(null),
  run: nullable(z.object({ target: nullable(z.string()), judge: nullable(z.string()) })),
  not_run: nullable(z.array(z.object({ id: z.string(), stratum: z.string() }))),
  items: z
    .array(
      z.object({
        id: z.string(),
        type: nullable(z.string()),
        description: nullable(z.string()),
        source: nullable(z.string()),
        line: nullable(z.number().int().min(1)),
        input: nullable(z.string()),
        outcomes: z.array(writtenOutputSchema).catch([]).default([]),
      }),
    )
    .catch([])
    .default([]),
});

/**
 * What a run wrote in its report.json that its rows do not hold: the gate's threshold, the
 * budget, how many judge verdicts came from the cache, its target and judge as the run named them (`model m (m-2025-01-01) at URL`; the
 * manifest has only `m`), the items it planned and never ran, and each item's type, description,
 * source, line and input (the case's messages). Null for a rows file outside a run folder, or a report.json
 * that is missing or not JSON: the rows alone then make the document.
 */
export type WrittenReport = NonNullable<Awaited<ReturnType<typeof readWrittenReport>>>;

export async function readWrittenReport(rowsFile: string) {
  if (path.basename(rowsFile) !== "rows.jsonl") return null;
  const file = path.join(path.dirname(rowsFile), "report.json");
  const text = await readFile(file, "utf8").catch(() => null);
  if (text === null) return null;
  const parsed = writtenReportSchema.safeParse(parseJsonOrNull(text));
  if (!parsed.success) return null;
  const { items, ...fields } = parsed.data;
  return {
    ...fields,
    texts: new Map(items.map(({ id, outcomes: _, ...texts }) => [id, texts])),
    /** Each item's samples' outputs, by item id and sample. */
    outputs: new Map(items.map(({ id, outcomes }) => [id, outcomes])),
  };
}

/** The document of rows already read (a leaderboard's runs), without reading them again. */
export function documentOf(
  rows: RunRows,
  options: ReadDocumentOptions = {},
  written: WrittenReport | null = null,
): RunDocument {
  const meta = metaOf(rows.manifest, rows.file, written);
  if (options.passThreshold !== undefined) meta.passThreshold = options.passThreshold;
  const judgeModel = options.judgeModel ?? rows.manifest?.judge_model ?? null;
  const text = written ? (id: string) => written.texts.get(id) : undefined;
  const document = buildDocument(rows.tally, meta, { ...options, judgeModel, text });
  return written ? withOutputs(document, written.outputs) : document;
}

/** A sample's output that its row does not hold (a check's) as the run wrote it. */
function withOutputs(document: RunDocument, outputs: WrittenReport["outputs"]): RunDocument {
  const items = document.items.map((item) => {
    const written = outputs.get(item.id);
    if (!written?.length) return item;
    const bySample = new Map(written.map((output) => [output.sample, output]));
    const outcomes = item.outcomes.map((o) =>
      o.excerpt === null && o.files.length === 0 ? { ...o, ...bySample.get(o.sample) } : o,
    );
    return { ...item, outcomes };
  });
  return { ...document, items };
}

/** The run a rows file is of, as a document names it: its run folder, or the file itself. */
export function locationOf(file: string): string {
  return path.basename(file) === "rows.jsonl" ? path.dirname(file) : file;
}

function metaOf(
  m: ManifestSummary | null,
  file: string,
  written: WrittenReport | null,
): DocumentMeta {
  const location = locationOf(file);
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
      suite: m?.suite ?? null,
      target: written?.run ? written.run.target : (m?.target ?? null),
      judge: written?.run ? written.run.judge : (m?.judge_model ?? null),
      samples_per_item: m?.planned?.samplesPerItem ?? null,
      sequential: m?.sequential ?? null,
      resumes: m?.resumes ?? 0,
      merged: m?.shards && m.merged_runs ? { shards: m.shards, runs: m.merged_runs } : null,
    },
    itemsPlanned: m?.planned?.items ?? null,
    planned:
      written?.not_run ??
      (m?.kind === "checks" ? Object.keys(m.definitions).map((id) => ({ id })) : undefined),
    passThreshold: written?.pass_threshold ?? 1,
    // A run that never ended (killed) is as incomplete as one interrupted.
    interrupted: m !== null && m.started_at !== null && (m.interrupted ?? true),
    budget: written?.budget ?? null,
    judgeCache: written?.judge_cache ?? null,
    budgetExhausted: m?.budget_exceeded ?? false,
  };
}
