import type { LimiterRecord } from "../model/limiter.js";

/**
 * What every kind of run writes, in one place: the rows of `rows.jsonl`, the manifest on its
 * first line, and which manifest fields must not change for `--resume`. Field names are fixed
 * (DESIGN.md), so other tools can read them.
 */

export type Status = "passed" | "failed" | "error";

export type RunKind = "checks" | "cases";

/** The fields every row has, whatever produced it. */
interface RowBase {
  id: string;
  sample: number;
  score: 0 | 1;
  status: Status;
  /** Pass/fail of each grader (for a check: its type). Empty for an error before grading. */
  marks: Record<string, boolean>;
  ms: number;
  model: string | null;
  /**
   * Why a failed or errored sample fell short, in one line (an assertion message, what a grader
   * expected and got, a judge's reason, an error); null when it passed.
   */
  reason: string | null;
  error: string | null;
  cached: boolean;
  cost: number | null;
  tags: string[];
}

/** One sample of one check (`eb run`). */
export type CheckRow = RowBase;

/** One sample of one case (`eb eval`), with the article's field names. */
export interface CaseRow extends RowBase {
  /** The model name the run was asked for (or the command line). */
  model: string;
  /** Why graders failed; present only when one said so. */
  reasons?: Record<string, string>;
  stratum: string;
  /** The model version string the endpoint returned, when there was a response. */
  model_version: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  /** Summed over the judge calls made while grading this sample; null when none reported. */
  judge_prompt_tokens: number | null;
  judge_completion_tokens: number | null;
  text: string | null;
}

export type Row = CheckRow | CaseRow;

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
  reasons?: Record<string, string>;
  model_version?: string | null;
  cost?: number | null;
}

/** What produced a case run's outputs: a model behind an endpoint, or a command. */
export type TargetInfo =
  | { kind: "model"; model: string; api_base: string }
  | { kind: "command"; command: string };

/** The manifest fields of every run. */
export interface ManifestBase {
  tool: "eval-banana";
  version: string;
  run_id: string;
  /** The commit checked out in the project under test; null outside git. */
  git_commit: string | null;
  project_root: string;
  /** Digest of every definition, by check id or case file. */
  definitions: Record<string, string>;
  /** Checks or cases the run set out with (what `eb report` counts as never run); absent before 0.4. */
  items_planned?: number;
  /** The command line, secrets removed; null when run through the library. */
  command: string[] | null;
  started_at: string;
  /** Set when the run ends; null means it never got there (killed). */
  ended_at: string | null;
  interrupted: boolean | null;
  /** How many times `--resume` picked the run up again; absent before the first. */
  resumes?: number;
}

/** The settings of an `eb run` that change its results. */
export interface CheckSettings {
  kind: "checks";
  samples: number;
}

/** The settings of an `eb eval` that change its results. */
export interface CaseSettings {
  kind: "cases";
  cases_file: string;
  cases_sha256: string;
  target: TargetInfo;
  judge_model: string | null;
  k: number;
  temperature: number | null;
  max_tokens: number | null;
}

/** How many calls a case run kept in flight to each model (of its last attempt). */
export interface CaseConcurrency {
  /** adaptive: from 8 up to `max` as the endpoint allows; pinned: `[eval] workers`. */
  mode: "adaptive" | "pinned";
  max: number;
  /** By model: its limit at each change, `[ms since its first call, limit]`, and its 429s. */
  models: Record<string, LimiterRecord>;
}

/** Known only as a case run ends: the model versions that answered. */
export interface CaseClosing {
  model_versions: string[];
  judge_model_versions: string[];
  /** Versions cut from the manifest line for lack of room (all are in report.json). */
  versions_not_listed?: number;
  concurrency?: CaseConcurrency;
  /** Samples left unrun by `--max-cost`. */
  budget_exceeded?: boolean;
}

export type CheckManifest = ManifestBase & CheckSettings;
export type CaseManifest = ManifestBase & CaseSettings & Partial<CaseClosing>;
export type Manifest = CheckManifest | CaseManifest;

export type SettingsOf<K extends RunKind> = K extends "checks" ? CheckSettings : CaseSettings;
export type ManifestOf<K extends RunKind> = K extends "checks" ? CheckManifest : CaseManifest;
/** What a run of each kind adds to its manifest as it ends. */
export type ClosingOf<K extends RunKind> = K extends "cases" ? CaseClosing : Record<never, never>;
export type RowOf<K extends RunKind> = K extends "checks" ? CheckRow : CaseRow;

/** What must not change for `--resume` to finish a run as if it had never stopped. */
export const RESUME_KEYS: { [K in RunKind]: readonly (keyof SettingsOf<K> | "definitions")[] } = {
  checks: ["samples", "definitions"],
  cases: ["cases_sha256", "target", "judge_model", "k", "temperature", "max_tokens"],
};

/** What `eb <command>` made a run of each kind, for messages. */
export const COMMAND_OF: Record<RunKind, string> = { checks: "eb run", cases: "eb eval" };
