/**
 * What every kind of run writes, in one place: the rows of `rows.jsonl`, the manifest on its
 * first line, and which manifest fields must not change for `--resume`. Field names are fixed
 * (DESIGN.md), so other tools can read them; `eb schema rows` prints these schemas.
 */
import { z } from "zod";
import { pairedRunSchema } from "./blocks.js";

/** A pairwise verdict: the answer shown first (A), second (B), or neither. */
export const WINNERS = ["A", "B", "tie"] as const;
export type Winner = (typeof WINNERS)[number];

export const statusSchema = z.enum(["passed", "failed", "error"]);
export type Status = z.output<typeof statusSchema>;

export type RunKind = "checks" | "cases" | "pairwise";

const count = z.number().int().min(0);
const tokens = count.nullable();

/** The fields every row has, whatever produced it. */
const rowBase = {
  id: z.string().describe("The item: a check's id or a case's id."),
  sample: count.describe("The sample's number, from 0."),
  score: z.union([z.literal(0), z.literal(1)]),
  status: statusSchema,
  marks: z
    .record(z.string(), z.boolean())
    .describe(
      "Pass/fail of each grader (for a check: its type). Empty for an error before grading.",
    ),
  ms: z.number().min(0).describe("How long the sample took, in milliseconds."),
  model: z.string().nullable(),
  reason: z
    .string()
    .nullable()
    .describe(
      "Why a failed or errored sample fell short, in one line (an assertion message, what a " +
        "grader expected and got, a judge's reason, an error); null when it passed.",
    ),
  error: z.string().nullable(),
  cached: z.boolean(),
  cost: z
    .number()
    .nullable()
    .describe("Null from eb: costs are in report.json (summary.tokens, priced by [pricing])."),
  tags: z.array(z.string()),
};

/** One sample of one check (`eb run`). */
export const checkRowSchema = z.strictObject(rowBase).describe("One sample of one check (eb run).");
export type CheckRow = z.output<typeof checkRowSchema>;

/** What a sample of `eb skill run` adds to its case row: the skill, and what the agent did. */
export const skillSampleSchema = z
  .strictObject({
    sha256: z
      .string()
      .nullable()
      .describe(
        "The skill installed for this sample (its files' digest); null: none (the arm without).",
      ),
    used: z
      .boolean()
      .nullable()
      .describe("The transcript shows the skill read or invoked; null: no skill was installed."),
    tool_calls: count.describe("Tool calls in the agent's transcript."),
    tokens: tokens.describe(
      "The agent's tokens, read and written, as its transcript reports them.",
    ),
    files: z
      .array(z.string())
      .describe("Files the agent created or changed, relative to its workspace."),
  })
  .describe("eb skill run: the skill this sample ran with and what its transcript shows.");
export type SkillSample = z.output<typeof skillSampleSchema>;
/** The mark of a with-skill sample: did the agent read or invoke the skill (delivery proof)? */
export const SKILL_USED_MARK = "skill used";
/** The mark of a trigger query: did the agent reach for the skill exactly when it should? */
export const TRIGGER_MARK = "trigger";

/** One sample of one case (`eb eval`), with the article's field names. */
export const caseRowSchema = z
  .strictObject({
    ...rowBase,
    model: z.string().describe("The model name the run was asked for (or the command line)."),
    reasons: z
      .record(z.string(), z.string())
      .optional()
      .describe("Why graders failed; present only when one said so."),
    stratum: z.string(),
    model_version: z
      .string()
      .nullable()
      .describe("The model version string the endpoint returned, when there was a response."),
    prompt_tokens: tokens,
    completion_tokens: tokens,
    judge_prompt_tokens: tokens.describe(
      "Summed over the judge calls made while grading this sample; null when none reported.",
    ),
    judge_completion_tokens: tokens,
    text: z.string().nullable().describe("The answer."),
    votes: z
      .record(z.string(), z.array(z.union([z.literal(0), z.literal(1)])))
      .optional()
      .describe(
        "Each judge grader's verdicts (1 pass, 0 fail) with --judge-samples above 1; its mark is their majority.",
      ),
    skill: skillSampleSchema.optional(),
  })
  .describe("One sample of one case (eb eval).");
export type CaseRow = z.output<typeof caseRowSchema>;

/** One order of a pair as the judge judged it. */
const pairVerdictSchema = z.strictObject({
  winner: z
    .enum(WINNERS)
    .nullable()
    .describe(
      "A: the answer shown first; B: the one shown second; tie; null when the judge's call " +
        "failed or its answer held no verdict.",
    ),
  reason: z.string().nullable(),
});
export type PairVerdict = z.output<typeof pairVerdictSchema>;

export const PAIR_OUTCOMES = ["win", "loss", "tie", "inconsistent"] as const;
export type PairOutcome = (typeof PAIR_OUTCOMES)[number];

/** One pair (a case's sample in both runs) judged in both orders (`eb pairwise`). */
export const pairwiseRowSchema = z
  .strictObject({
    ...rowBase,
    score: rowBase.score.describe("1 when the candidate won in both orders, else 0."),
    status: statusSchema.describe(
      "passed: the candidate won in both orders; failed: it did not; error: an order has no verdict.",
    ),
    model: z.string().describe("The judge model."),
    stratum: z.string(),
    outcome: z
      .enum(PAIR_OUTCOMES)
      .nullable()
      .describe(
        "The candidate's result when both orders agree on the same answer (win, loss, tie), " +
          "else inconsistent; null for an error.",
      ),
    baseline_first: pairVerdictSchema.describe(
      "The baseline's answer shown as A, the candidate's as B.",
    ),
    candidate_first: pairVerdictSchema.describe(
      "The candidate's answer shown as A, the baseline's as B.",
    ),
    judge_prompt_tokens: tokens.describe(
      "Summed over both orders' calls; null when none reported.",
    ),
    judge_completion_tokens: tokens,
  })
  .describe("One pair of answers judged in both orders (eb pairwise).");
export type PairwiseRow = z.output<typeof pairwiseRowSchema>;

export type Row = CheckRow | CaseRow | PairwiseRow;

/**
 * A row as read back from any rows file. Only `id` and `score` are sure to be there: the
 * article's own script writes rows with no status, tags or sample.
 */
export interface StoredRow {
  id: string;
  score: number;
  sample?: number;
  status?: Status;
  stratum?: string;
  tags?: string[];
  marks?: Record<string, boolean>;
  ms?: number;
  cached?: boolean;
  model?: string | null;
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  judge_prompt_tokens?: number | null;
  judge_completion_tokens?: number | null;
  error?: string | null;
  reason?: string | null;
  /** A pairwise row's outcome for the candidate. */
  outcome?: string | null;
  /** A case row's answer. */
  text?: string | null;
  reasons?: Record<string, string>;
  votes?: Record<string, number[]>;
  model_version?: string | null;
  cost?: number | null;
  /** An `eb skill run` sample's skill and transcript figures. */
  skill?: SkillSample;
}

export const targetInfoSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("model"), model: z.string(), api_base: z.string() }),
  z.strictObject({ kind: z.literal("command"), command: z.string() }),
]);
/** What produced a case run's outputs: a model behind an endpoint, or a command. */
export type TargetInfo = z.output<typeof targetInfoSchema>;

/** The manifest fields of every run. */
const manifestBase = {
  tool: z.literal("eval-banana"),
  version: z.string(),
  run_id: z.string(),
  git_commit: z
    .string()
    .nullable()
    .describe("The commit checked out in the project under test; null outside git."),
  project_root: z.string(),
  definitions: z
    .record(z.string(), z.string())
    .describe("Digest of every definition, by check id or case file."),
  suite: z
    .string()
    .optional()
    .describe(
      "Which suite the run is of, as the command that runs it from the project root, less the " +
        "target and settings: `eb eval cases.jsonl`, `eb run --tag smoke`; a shard's is its own " +
        "(`eb eval cases.jsonl --shard 2/4`), the merge of the shards the whole suite's. " +
        "latest~N counts the runs of one suite; absent in runs of earlier versions.",
    ),
  items_planned: count
    .optional()
    .describe(
      "Checks or cases the run set out with (what eb report counts as never run); absent before 0.4.",
    ),
  command: z
    .array(z.string())
    .nullable()
    .describe("The command line, secrets removed; null when run through the library."),
  started_at: z.string(),
  ended_at: z
    .string()
    .nullable()
    .describe("Set when the run ends; null means it never got there (killed)."),
  interrupted: z.boolean().nullable(),
  resumes: count
    .optional()
    .describe("How many times --resume picked the run up again; absent before the first."),
  shard: z.string().optional().describe("A shard's run (--shard I/N): which shard, as I/N."),
  item_set: z
    .string()
    .optional()
    .describe("A shard's run: the digest of every item id of the suite, before sharding."),
  items_total: count.optional().describe("A shard's run: the items of the whole suite."),
  shards: z
    .array(z.string())
    .optional()
    .describe("A merged run (eb merge): the shards it joins, as I/N."),
  merged_runs: z.array(z.string()).optional().describe("A merged run: the shards' run ids."),
};
export type ManifestBase = z.output<z.ZodObject<typeof manifestBase>>;

/** `[harness]` as a run of judge checks used it (a check's own `model` wins over `model`). */
const harnessSettingsSchema = z.strictObject({
  agent: z.string().nullable(),
  model: z.string().nullable(),
  reasoning_effort: z.string().nullable(),
});
export type HarnessSettings = z.output<typeof harnessSettingsSchema>;

/** The settings of an `eb run` that change its results. */
const checkSettings = {
  kind: z.literal("checks"),
  samples: z.number().int().min(1),
  harness: harnessSettingsSchema
    .optional()
    .describe("The judge agent of harness_judge checks ([harness]); absent when the run has none."),
};
export type CheckSettings = z.output<z.ZodObject<typeof checkSettings>>;

export const judgeSamplesSchema = z
  .number()
  .int()
  .min(1)
  .describe("Verdicts asked of each judge grader per answer (--judge-samples).");
export const judgeTemperatureSchema = z
  .number()
  .min(0)
  .describe("The judge's sampling temperature (--judge-temperature).");

/** The settings of an `eb eval` that change its results. */
const caseSettings = {
  kind: z.literal("cases"),
  cases_file: z.string(),
  cases_sha256: z.string(),
  target: targetInfoSchema,
  judge_model: z.string().nullable(),
  // Manifests written before these settings existed asked one verdict at temperature 0.
  judge_samples: judgeSamplesSchema.default(1),
  judge_temperature: judgeTemperatureSchema.default(0),
  k: z.number().int().min(1),
  temperature: z.number().nullable(),
  max_tokens: z.number().int().nullable(),
};
export type CaseSettings = z.output<z.ZodObject<typeof caseSettings>>;

/** The settings of an `eb pairwise` that change its results. */
const pairwiseSettings = {
  kind: z.literal("pairwise"),
  baseline: pairedRunSchema,
  candidate: pairedRunSchema,
  cases_file: z.string().describe("The case file the requests and judge criteria come from."),
  cases_sha256: z.string(),
  judge_model: z.string(),
  api_base: z.string(),
  criteria: z
    .string()
    .nullable()
    .describe("--criteria, for every case; null: each case's judge graders' criteria."),
  samples: z.number().int().min(1).describe("The most samples a case has in both runs."),
};
export type PairwiseSettings = z.output<z.ZodObject<typeof pairwiseSettings>>;

/** One model's limit over a run: `[ms since its first call, limit]` at each change, its 429s. */
const limiterRecordSchema = z.strictObject({
  history: z
    // Pairs as arrays of two, not tuples: editors still read JSON Schema draft-07, which has no
    // prefixItems.
    .array(z.array(z.number()).length(2))
    .describe(
      "[ms since the model's first call, limit] at each change, oldest first; cut to 60 (the first kept).",
    ),
  changes_not_listed: count.optional().describe("Changes not in history for lack of room."),
  rate_limited: count.describe("Calls answered with a rate limit (each retry counts)."),
});

/** How many calls a case run kept in flight to each model (of its last attempt). */
export const caseConcurrencySchema = z.strictObject({
  mode: z
    .enum(["adaptive", "pinned"])
    .describe("adaptive: from 8 up to max as the endpoint allows; pinned: [eval] workers."),
  max: z.number().int().min(1),
  models: z.record(z.string(), limiterRecordSchema),
});
export type CaseConcurrency = z.output<typeof caseConcurrencySchema>;

/**
 * A sequential arm (`eb eval --sequential`): it plans no fixed number of samples, it draws them
 * until it stops.
 */
export const sequentialRunSchema = z
  .strictObject({
    max_k: z
      .number()
      .int()
      .min(1)
      .describe("--max-k: samples per case per arm, on average, at the cap."),
    stopped: z
      .enum(["decided", "max-k", "budget"])
      .nullable()
      .describe(
        "Why it stopped: the verdict was known, --max-k, or --max-samples / --max-cost; null: interrupted first.",
      ),
  })
  .describe("A sequential run: the samples it planned are those it drew.");
export type SequentialRun = z.output<typeof sequentialRunSchema>;

/** Known only as a case run ends: the model versions that answered. */
const caseClosing = {
  model_versions: z.array(z.string()),
  judge_model_versions: z.array(z.string()),
  versions_not_listed: count
    .optional()
    .describe("Versions cut from the manifest line for lack of room (all are in report.json)."),
  concurrency: caseConcurrencySchema.optional(),
  budget_exceeded: z
    .boolean()
    .optional()
    .describe("Samples were left unrun by --max-cost (--resume with a higher cap finishes them)."),
  sequential: sequentialRunSchema.optional(),
};
export type CaseClosing = z.output<z.ZodObject<typeof caseClosing>>;

/**
 * The manifest's fields by kind, as this version writes them; manifest.ts reads them back more
 * leniently (earlier versions wrote less).
 */
export const MANIFEST_SHAPES = {
  checks: { ...manifestBase, ...checkSettings, budget_exceeded: caseClosing.budget_exceeded },
  pairwise: {
    ...manifestBase,
    ...pairwiseSettings,
    judge_model_versions: caseClosing.judge_model_versions.optional(),
  },
  cases: { ...manifestBase, ...caseSettings, ...z.object(caseClosing).partial().shape },
};

export const manifestSchema = z.discriminatedUnion("kind", [
  z.strictObject(MANIFEST_SHAPES.checks),
  z.strictObject(MANIFEST_SHAPES.cases),
  z.strictObject(MANIFEST_SHAPES.pairwise),
]);
export type CheckManifest = z.output<z.ZodObject<typeof MANIFEST_SHAPES.checks>>;
export type CaseManifest = z.output<z.ZodObject<typeof MANIFEST_SHAPES.cases>>;
export type PairwiseManifest = z.output<z.ZodObject<typeof MANIFEST_SHAPES.pairwise>>;
export type Manifest = CheckManifest | CaseManifest | PairwiseManifest;

/** One line of rows.jsonl: the manifest (the first line) or a row. */
export const rowsLineSchema = z.union([
  z.strictObject({ manifest: manifestSchema }).describe("The first line: the run's manifest."),
  checkRowSchema,
  caseRowSchema,
  pairwiseRowSchema,
]);

/** What a pairwise run adds to its manifest as it ends. */
export type PairwiseClosing = Pick<CaseClosing, "judge_model_versions">;

/** Each kind's settings, manifest, closing manifest fields and row. */
interface KindTypes {
  checks: {
    settings: CheckSettings;
    manifest: CheckManifest;
    closing: { budget_exceeded?: boolean };
    row: CheckRow;
  };
  cases: { settings: CaseSettings; manifest: CaseManifest; closing: CaseClosing; row: CaseRow };
  pairwise: {
    settings: PairwiseSettings;
    manifest: PairwiseManifest;
    closing: PairwiseClosing;
    row: PairwiseRow;
  };
}

export type SettingsOf<K extends RunKind> = KindTypes[K]["settings"];
export type ManifestOf<K extends RunKind> = KindTypes[K]["manifest"];
/** What a run of each kind adds to its manifest as it ends. */
export type ClosingOf<K extends RunKind> = KindTypes[K]["closing"];
export type RowOf<K extends RunKind> = KindTypes[K]["row"];

/** What must not change for `--resume` to finish a run as if it had never stopped. */
export const RESUME_KEYS: {
  [K in RunKind]: readonly (keyof SettingsOf<K> | "definitions" | SuiteKey)[];
} = {
  checks: ["samples", "definitions", "shard", "item_set"],
  cases: [
    "cases_sha256",
    "target",
    "judge_model",
    "judge_samples",
    "judge_temperature",
    "k",
    "temperature",
    "max_tokens",
    "shard",
    "item_set",
  ],
  pairwise: ["baseline", "candidate", "cases_sha256", "judge_model", "api_base", "criteria"],
};

/** The manifest fields that say which part of which suite a run covers. */
type SuiteKey = "shard" | "item_set";

/** What `eb <command>` made a run of each kind, for messages. */
export const COMMAND_OF: Record<RunKind, string> = {
  checks: "eb run",
  cases: "eb eval",
  pairwise: "eb pairwise",
};
