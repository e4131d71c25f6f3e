/**
 * The data embedded in report.html, shared by the builder (data.ts, in Node) and the page's
 * script (client/, in the browser). Plain JSON: no Map, no Date, no undefined.
 */

import type { PairwiseReport } from "../pairwise/report.js";
import type { RunKind } from "../report/record.js";
import type { Breakdown, RunStats } from "../report/run-summary.js";
import type { StratumDelta, Verdict } from "../stats/compare.js";

/** A text cut to a bound: `total` is what the full text had (characters, or bytes of a file). */
export interface Capped {
  text: string;
  total: number;
  unit: "characters" | "bytes";
  /** Which end was kept when cut: the head of an answer, the tail of a stream; null if whole. */
  kept: "head" | "tail" | null;
  /** The full file in the run folder, relative to the page; null when there is none. */
  href: string | null;
}

export interface Link {
  label: string;
  href: string;
}

export interface Mark {
  grader: string;
  passed: boolean;
  reason: string | null;
}

export interface SampleView {
  sample: number;
  status: "passed" | "failed" | "error";
  ms: number | null;
  cached: boolean;
  marks: Mark[];
  reason: string | null;
  error: string | null;
  /** A case's answer. */
  answer: Capped | null;
  /** A check's streams (tails). */
  stdout: Capped | null;
  stderr: Capped | null;
  /** A judge check's prompt. */
  prompt: Capped | null;
  links: Link[];
}

export interface Message {
  role: string;
  content: string;
}

export interface ItemView {
  id: string;
  stratum: string;
  tags: string[];
  passed: number;
  n: number;
  errors: number;
  cached: number;
  /** Why the first failed or errored sample fell short (as `eb report` says it). */
  problem: string | null;
  /** A check's description. */
  description: string | null;
  /** A check's YAML, relative to the project root. */
  source: string | null;
  /** A case's messages; null when unavailable (see RunView.messagesNote). */
  messages: Message[] | null;
  samples: SampleView[];
}

export interface ManifestView {
  version: string | null;
  runId: string | null;
  gitCommit: string | null;
  startedAt: string | null;
  endedAt: string | null;
  interrupted: boolean | null;
  command: string | null;
  target: string | null;
  /** Definition digests by check id or case file. */
  definitions: [string, string][];
}

export interface RunView {
  kind: RunKind | null;
  /** The run folder or rows file as given. */
  location: string;
  manifest: ManifestView | null;
  stats: RunStats;
  /** `Interrupted: 3 of 10 items never ran` when some planned sample never ran (as eb report says). */
  notRun: string | null;
  breakdown: Breakdown | null;
  latency: { p50: number; p95: number; uncached: number } | null;
  /** Summed over target and judge; null when no token was priced. */
  cost: number | null;
  graders: { name: string; failures: number }[];
  /** Each judge's noise, as `eb report` says it (`judge tone: agrees with itself 93.3% …`). */
  judges: string[];
  /** Why the messages are missing, when they are. */
  messagesNote: string | null;
  /** A pairwise run's figures, from its report.json; null for other runs (or none readable). */
  pairwise: PairwiseView | null;
  items: ItemView[];
}

/** What the page shows of a pairwise run: the figures `eb pairwise` prints. */
export type PairwiseView = Pick<
  PairwiseReport,
  | "wins"
  | "ties"
  | "losses"
  | "inconsistent"
  | "errors"
  | "pairs"
  | "items"
  | "net_win_rate"
  | "ci_low"
  | "ci_high"
  | "level"
  | "consistency"
  | "position_bias"
  | "margin"
  | "verdict"
  | "judge_model"
  | "strata"
>;

/** How an item moved between the baseline and the candidate. */
export type Change = "broke" | "fixed" | "changed" | "same" | "new" | "gone";

export interface CompareView {
  delta: number;
  low: number;
  high: number;
  level: number;
  method: string;
  n: number;
  margin: number;
  verdict: Verdict;
  mde: number | null;
  itemsNeeded: number | null;
  strata: StratumDelta[];
  warnings: string[];
  /** By item id, for every item of either run. */
  changes: Record<string, Change>;
}

export interface PageModel {
  title: string;
  tool: string;
  /** Characters kept of each embedded answer or stream. */
  cap: number;
  run: RunView;
  /** With a baseline: the compare page. */
  base: RunView | null;
  compare: CompareView | null;
}
