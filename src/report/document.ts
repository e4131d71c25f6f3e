/**
 * The run document: everything any output shows of a finished run, of every kind, built once in
 * the pass over the rows that the tally makes. report.json is this document (a check run's keeps
 * the seed's fields beside it); the terminal, report.md, JUnit, GitHub and report.html are
 * renderers of it (src/render/), and never read the rows again.
 */
import { z } from "zod";
import { compareBlockSchema, leaderboardBlockSchema, pairwiseBlockSchema } from "./blocks.js";
import { coverageOf, coverageShape } from "./coverage.js";
import { applyGate, countOf, type GateInput, thresholdRule } from "./gate.js";
import { outcomeSchema } from "./outcome.js";
import { sequentialRunSchema } from "./record.js";
import type { ItemTally, RowTally } from "./row-tally.js";
import {
  type RunSummary,
  runStatsSchema,
  type SummaryOptions,
  summarize,
  summaryFieldsSchema,
} from "./run-summary.js";

const count = z.number().int().min(0);

export type { Outcome } from "./outcome.js";

/** One item: its score over its samples, why it fell short, and each sample. */
export const documentItemSchema = z.strictObject({
  id: z.string(),
  stratum: z.string(),
  tags: z.array(z.string()),
  samples: count,
  score: z.number().min(0).max(1),
  errors: count,
  cached: count,
  problem: z
    .string()
    .nullable()
    .describe("Why the first failed or errored sample fell short; null if none."),
  type: z.string().nullable().describe("A check's type; null for a case."),
  description: z.string().nullable().describe("A check's description."),
  source: z
    .string()
    .nullable()
    .describe("The file defining the item (a check's YAML, the case file), from the project root."),
  line: z.number().int().min(1).nullable().describe("The line of the item's id in `source`."),
  problem_at: z
    .strictObject({ source: z.string(), line: z.number().int().min(1) })
    .nullable()
    .describe(
      "The file (from the project root) and line `problem` names, as a script's traceback " +
        "does: the failing assertion's line; null when it names none.",
    ),
  input: z.string().nullable().describe("A case's messages, cut to EXCERPT_CHARS characters."),
  outcomes: z
    .array(outcomeSchema)
    .describe("Each sample in sample order; empty when built without them (eb report --json)."),
});
export type DocumentItem = z.output<typeof documentItemSchema>;

export const VERDICT_OUTCOMES = [
  "passed",
  "failed",
  "regression",
  "inconclusive",
  "budget_exhausted",
  "interrupted",
] as const;
export type VerdictOutcome = (typeof VERDICT_OUTCOMES)[number];

const verdictSchema = z
  .strictObject({
    outcome: z.enum(VERDICT_OUTCOMES),
    rule: z
      .string()
      .describe("What decided it: `18/20 samples passed (90.0%) < threshold 1.0, …`."),
  })
  .describe("Whether the run passed, and the rule that decided it.");
export type Verdict = z.output<typeof verdictSchema>;

const runInfoSchema = z.strictObject({
  tool_version: z.string().nullable(),
  git_commit: z.string().nullable(),
  command: z.string().nullable().describe("The command line, secrets removed."),
  suite: z
    .string()
    .nullable()
    .describe("Which suite the run is of: `eb run`, `eb eval evals/cases.jsonl`; null: unknown."),
  target: z.string().nullable().describe("What produced the outputs: a model, a command."),
  judge: z.string().nullable().describe("The judge model or agent, when one graded."),
  samples_per_item: z.number().int().min(1).nullable(),
  sequential: sequentialRunSchema.nullable().describe("null: a run of a fixed k."),
  resumes: count,
  merged: z
    .strictObject({ shards: z.array(z.string()), runs: z.array(z.string()) })
    .nullable()
    .describe("A run `eb merge` joined: its shards (I/N) and their run ids."),
  cost: z
    .number()
    .min(0)
    .nullable()
    .describe("Target and judge tokens at [pricing]; null: unknown."),
});
export type RunInfo = z.output<typeof runInfoSchema>;
/** Where a run came from, as its manifest says. */
export type RunProvenance = Pick<
  RunInfo,
  "tool_version" | "git_commit" | "command" | "suite" | "resumes" | "merged"
>;

/** `--max-cost` and the spend, in the document of every run that calls models. */
export const budgetSchema = z
  .strictObject({ max_cost: z.number(), spent: z.number() })
  .nullable()
  .describe("--max-cost and what the run spent (estimated from [pricing]); null: no cap.");

/** The judge verdicts a run asked for, and how many the cache answered: not asked again. */
export const judgeCacheSchema = z
  .strictObject({ verdicts: count, cached: count })
  .nullable()
  .describe(
    "Judge verdicts this run (this attempt, when resumed) asked for, and how many came from " +
      "the cache; null when nothing was judged or it was not counted.",
  );

/** The fields of the run document; report.json of each kind has them all. */
export const documentShape = {
  kind: z.enum(["checks", "cases", "pairwise"]).nullable(),
  run_id: z.string().nullable(),
  project_root: z.string().nullable(),
  output_dir: z.string().describe("The run folder (or the rows file a document was built from)."),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  duration_ms: z.number().min(0).nullable(),
  run: runInfoSchema,
  verdict: verdictSchema,
  ...coverageShape,
  stats: runStatsSchema,
  summary: summaryFieldsSchema.describe(
    "Flaky items, failures per grader, strata or tags, latency, tokens and cost.",
  ),
  budget: budgetSchema,
  judge_cache: judgeCacheSchema,
  pass_threshold: z
    .number()
    .min(0)
    .max(1)
    .describe("Minimum share of samples that must pass (1 unless set)."),
  run_passed: z
    .boolean()
    .describe("Completed, no error sample, and the threshold met (the gate of eb's runs)."),
  items: z.array(documentItemSchema).describe("Every item that ran, worst first."),
  not_run: z
    .array(z.strictObject({ id: z.string(), stratum: z.string() }))
    .describe("Items the run planned and never ran, when the run names them."),
  compare: compareBlockSchema.nullable(),
  pairwise: pairwiseBlockSchema.nullable(),
  leaderboard: leaderboardBlockSchema.nullable(),
};
export const runDocumentSchema = z
  .strictObject(documentShape)
  .describe("The run document: what every output of a run shows.");
export type RunDocument = z.output<typeof runDocumentSchema>;

/** What a document says of a run beyond its rows. */
export interface DocumentMeta {
  kind: RunDocument["kind"];
  runId: string | null;
  projectRoot: string | null;
  location: string;
  startedAt: string | null;
  completedAt: string | null;
  durationMs: number | null;
  run: Omit<RunInfo, "cost">;
  itemsPlanned: number | null;
  /** Every item the run set out with, when known: those with no row are `not_run`. */
  planned?: readonly { id: string; stratum?: string }[];
  passThreshold: number;
  interrupted: boolean;
  budget: RunDocument["budget"];
  /** `--max-cost` left samples unrun. */
  budgetExhausted: boolean;
  judgeCache?: RunDocument["judge_cache"];
}

/** A check's or a case's words that are not in its rows. */
export type ItemText = Partial<
  Pick<DocumentItem, "type" | "description" | "source" | "line" | "input">
>;

/** Builds the document from a finished pass over the rows. */
export function buildDocument(
  tally: RowTally,
  meta: DocumentMeta,
  options: SummaryOptions & { text?: (id: string) => ItemText | undefined } = {},
): RunDocument {
  const summary = summarize(tally, options);
  const { stats, ...fields } = summary;
  const perItem = meta.run.samples_per_item ?? 1;
  const planned = coverageOf(meta.itemsPlanned ?? stats.items, perItem, stats);
  // A sequential run that stopped planned the samples it drew, not its cap's.
  const coverage = meta.run.sequential?.stopped
    ? { ...planned, samples_planned: stats.samples }
    : planned;
  const gate: GateInput = {
    passed: stats.passed,
    samples: stats.samples,
    errors: stats.errors,
    threshold: meta.passThreshold,
    interrupted: meta.interrupted,
  };
  const { passed } = applyGate(gate);
  const verdict = verdictOf(gate, meta);
  return {
    kind: meta.kind,
    run_id: meta.runId,
    project_root: meta.projectRoot,
    output_dir: meta.location,
    started_at: meta.startedAt,
    completed_at: meta.completedAt,
    duration_ms: meta.durationMs,
    run: { ...meta.run, cost: costOf(summary) },
    verdict,
    ...coverage,
    stats,
    summary: fields,
    budget: meta.budget,
    judge_cache: meta.judgeCache ?? null,
    pass_threshold: meta.passThreshold,
    run_passed: passed && !meta.budgetExhausted,
    items: itemsOf(tally, options.text),
    not_run: (meta.planned ?? [])
      .filter(({ id }) => !tally.items.has(id))
      .map(({ id, stratum }) => ({ id, stratum: stratum ?? "" })),
    compare: null,
    pairwise: null,
    leaderboard: null,
  };
}

function verdictOf(gate: GateInput, meta: DocumentMeta): Verdict {
  const after = countOf(gate.samples, "sample");
  if (meta.interrupted) return { outcome: "interrupted", rule: `interrupted after ${after}` };
  if (meta.budgetExhausted) {
    return { outcome: "budget_exhausted", rule: `budget exceeded after ${after}` };
  }
  return { outcome: applyGate(gate).passed ? "passed" : "failed", rule: thresholdRule(gate) };
}

function costOf(summary: RunSummary): number | null {
  const { target, judge } = summary.tokens;
  const priced = [...target, ...(judge ? [judge] : [])];
  if (priced.length === 0 || priced.some((t) => t.cost === null)) return null;
  return priced.reduce((sum, t) => sum + (t.cost ?? 0), 0);
}

/**
 * Worst first: lowest score, then most errors, then by id (the same rows, the same order): a
 * stable sort of the items in id order keeps ties by id.
 */
function itemsOf(tally: RowTally, text?: (id: string) => ItemText | undefined): DocumentItem[] {
  return [...tally.itemsById()]
    .sort(worstFirst)
    .map((item) => itemOf(item, tally, text?.(item.id)));
}

function worstFirst(a: ItemTally, b: ItemTally): number {
  return a.sum / a.n - b.sum / b.n || b.errors - a.errors;
}

function itemOf(item: ItemTally, tally: RowTally, text: ItemText | undefined): DocumentItem {
  return {
    id: item.id,
    stratum: item.stratum,
    tags: item.tags,
    samples: item.n,
    score: item.sum / item.n,
    errors: item.errors,
    cached: item.cached,
    problem: item.problem,
    type: text?.type ?? null,
    description: text?.description ?? null,
    source: text?.source ?? null,
    line: text?.line ?? null,
    problem_at: problemAt(item.problem),
    input: text?.input ?? null,
    outcomes: tally.outcomesOf(item.id),
  };
}

/**
 * Where a script's reason says it failed, in the two forms a check's reason takes (see
 * scriptReason): `AssertionError: x (evals/a.yaml:7)` and `AssertionError at evals/a.yaml:7: …`.
 * Only a path within the project is taken: a line elsewhere is no place in the repository.
 */
const REASON_PLACES = [/ \(([^\s()][^()]*):(\d+)\)$/, / at ([^\s:]+):(\d+): /];

function problemAt(problem: string | null): DocumentItem["problem_at"] {
  if (problem === null) return null;
  for (const pattern of REASON_PLACES) {
    const [, source, line] = pattern.exec(problem) ?? [];
    if (source === undefined || source.startsWith("/") || source.startsWith("..")) continue;
    return { source, line: Number(line) };
  }
  return null;
}
