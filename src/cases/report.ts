import path from "node:path";
import { z } from "zod";
import { buildDocument, documentShape, type RunProvenance } from "../report/document.js";
import { applyGate, gateOf } from "../report/gate.js";
import { head } from "../report/reason.js";
import {
  caseConcurrencySchema,
  judgeSamplesSchema,
  judgeTemperatureSchema,
  type SequentialRun,
  targetInfoSchema,
} from "../report/record.js";
import { EXCERPT_CHARS, type RowTally } from "../report/row-tally.js";
import type { SummaryOptions } from "../report/run-summary.js";
import type { Case } from "./schema.js";

/** `report.json` of `eb eval`. */
export const caseReportSchema = z
  .strictObject({
    schema_version: z.literal(1),
    ...documentShape,
    kind: z.literal("cases"),
    run_id: z.string(),
    project_root: z.string(),
    started_at: z.string(),
    completed_at: z.string(),
    duration_ms: z.number().min(0),
    cases_file: z.string(),
    cases_sha256: z.string(),
    target: targetInfoSchema,
    judge_model: z.string().nullable(),
    judge_samples: judgeSamplesSchema,
    judge_temperature: judgeTemperatureSchema,
    model_versions: z
      .array(z.string())
      .describe("Distinct model version strings the endpoint returned for the target."),
    judge_model_versions: z.array(z.string()),
    k: z.number().int().min(1),
    temperature: z.number().nullable(),
    max_tokens: z.number().int().nullable(),
    interrupted: z.boolean(),
    concurrency: caseConcurrencySchema
      .nullable()
      .describe(
        "Calls in flight to each model over the run's last attempt; null for a merged run.",
      ),
    budget_exceeded: z
      .boolean()
      .describe(
        "Samples were left unrun because they would have passed the cap (--resume finishes them).",
      ),
    meets_threshold: z.boolean(),
  })
  .describe("report.json of eb eval (cases).");
export type CaseReport = z.output<typeof caseReportSchema>;

/** What the report needs beyond the tally. */
export type CaseReportMeta = Pick<
  CaseReport,
  | "run_id"
  | "project_root"
  | "output_dir"
  | "cases_file"
  | "cases_sha256"
  | "target"
  | "judge_model"
  | "judge_samples"
  | "judge_temperature"
  | "judge_model_versions"
  | "k"
  | "temperature"
  | "max_tokens"
  | "started_at"
  | "completed_at"
  | "duration_ms"
  | "interrupted"
  | "concurrency"
  | "budget"
  | "budget_exceeded"
  | "judge_cache"
  | "pass_threshold"
> & {
  provenance: RunProvenance;
  /** A sequential arm's cap and why it stopped; null: a fixed k. */
  sequential: SequentialRun | null;
};

/** The rows of a case run: their aggregates (why items fell short too), the cases in file order. */
export interface CaseRunRows {
  rows: RowTally;
  cases: readonly (Pick<Case, "id"> & Partial<Pick<Case, "messages" | "stratum" | "line">>)[];
}

export function buildCaseReport(
  run: CaseRunRows,
  { provenance, sequential, ...meta }: CaseReportMeta,
  options: SummaryOptions = {},
): CaseReport {
  const modelVersions = meta.target.kind === "model" ? [...run.rows.modelVersions].sort() : [];
  const inputs = new Map(run.cases.map((c) => [c.id, c]));
  const source = caseSource(meta.cases_file, meta.project_root);
  const document = buildDocument(
    run.rows,
    {
      kind: "cases",
      runId: meta.run_id,
      projectRoot: meta.project_root,
      location: meta.output_dir,
      startedAt: meta.started_at,
      completedAt: meta.completed_at,
      durationMs: meta.duration_ms,
      run: {
        ...provenance,
        target: targetText(meta.target, modelVersions),
        judge: meta.judge_model,
        samples_per_item: meta.k,
        sequential,
      },
      itemsPlanned: run.cases.length,
      planned: run.cases,
      passThreshold: meta.pass_threshold,
      interrupted: meta.interrupted,
      budget: meta.budget,
      budgetExhausted: meta.budget_exceeded,
      judgeCache: meta.judge_cache,
    },
    {
      ...options,
      judgeModel: meta.judge_model,
      text: (id) => {
        const c = inputs.get(id);
        if (!c) return undefined;
        return {
          input: c.messages ? messagesText(c.messages) : null,
          source,
          line: c.line ?? null,
        };
      },
    },
  );
  return {
    schema_version: 1,
    ...document,
    ...meta,
    kind: "cases",
    model_versions: modelVersions,
    meets_threshold: applyGate(gateOf(document)).meetsThreshold,
  };
}

/** `model gpt-4.1 (gpt-4.1-2025-04-14) at https://…`, or `command node app.mjs`. */
export function targetText(target: CaseReport["target"], versions: readonly string[]): string {
  if (target.kind === "command") return `command ${target.command}`;
  const named = versions.length > 0 ? ` (${versions.join(", ")})` : "";
  return `model ${target.model}${named} at ${target.api_base}`;
}

/** The case file as the project names it (as given when it lies outside the project). */
function caseSource(file: string, projectRoot: string): string {
  const relative = path.relative(projectRoot, path.resolve(projectRoot, file));
  return relative.startsWith("..") ? file : relative.split(path.sep).join("/");
}

/** The messages as a reader scans them: `role: content`, cut to the excerpt's length. */
function messagesText(messages: readonly { role: string; content: unknown }[]): string {
  const text = messages
    .map(
      (m) => `${m.role}: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`,
    )
    .join("\n\n");
  return text.length > EXCERPT_CHARS ? `${head(text, EXCERPT_CHARS - 1)}…` : text;
}
