/**
 * The run document's optional blocks: what `eb compare`, `eb pairwise` and a leaderboard add to
 * the documents they show. Each is a field of the document, so every renderer shows it the same.
 */
import { z } from "zod";
import { INTERVAL_METHODS, SCOPES } from "../stats/types.js";

/** The paired intervals the gate computes, by name (see docs/statistics.md). */
export const PAIRED_INTERVALS = ["miettinen-nurminen", "tango", "bootstrap"] as const;

const count = z.number().int().min(0);
const share = z.number().min(0).max(1).nullable();
const net = z.number().min(-1).max(1).nullable();
const GATE_VERDICTS = ["pass", "regression", "inconclusive"] as const;

export const CHANGES = ["broke", "fixed", "changed", "same", "new", "gone"] as const;
/** How an item moved between the baseline and the candidate. */
export type Change = (typeof CHANGES)[number];

/** What `eb eval --sequential` decided on, and what it took (src/stats/sequential.ts). */
const sequentialSchema = z
  .strictObject({
    reason: z
      .enum(["decided", "max-k", "budget"])
      .describe("Why it stopped: the verdict was known, --max-k, or --max-samples / --max-cost."),
    estimate: z
      .number()
      .nullable()
      .describe("The weighted estimate of the mean paired difference."),
    ci_low: z.number(),
    ci_high: z.number().describe("The confidence sequence at the stop: valid whenever it stops."),
    draws: count.describe("Paired draws the verdict rests on: one sample of a case on each arm."),
    samples: z
      .array(count)
      .describe(
        "Samples each sampled arm took (its rows), the baseline first; a stored baseline is not sampled.",
      ),
    max_k: z.number().describe("--max-k: samples per case per arm, on average, at the cap."),
    fixed_k_samples: count.describe("Samples per arm a fixed run at -k max_k takes."),
    seed: z.number().int(),
    cases: count.describe(
      "The cases it drew from, sampled or not: its verdict is on these (`paired` counts the items both arms sampled).",
    ),
  })
  .describe("The sequential gate: its verdict is the block's.");

/** The candidate's document, paired by item with its baseline's (`eb compare`, `--baseline`). */
export const compareBlockSchema = z
  .strictObject({
    baseline: z.strictObject({ run_id: z.string().nullable(), location: z.string() }),
    delta: z.number(),
    ci_low: z.number(),
    ci_high: z.number(),
    ci_level: z.number(),
    ci_method: z.enum(INTERVAL_METHODS),
    paired_interval: z
      .enum(PAIRED_INTERVALS)
      .describe(
        "The paired interval computed: Miettinen–Nurminen score intervals on these cases, each sampled twice or more on both sides (the union of one per case, combined by Newcombe, and one that keeps the spread of the cases), Tango's score interval, continuity-corrected (cases like these, or one sample per case), or the bootstrap (--interval bootstrap).",
      ),
    paired: count.describe("Items in both runs."),
    margin: z.number(),
    verdict: z.enum(GATE_VERDICTS),
    scope: z
      .enum(SCOPES)
      .describe("The question answered: worse on these cases, or on cases like these."),
    mde: z.number().nullable().describe("The smallest drop this gate catches 80% of the time."),
    items_needed: count.nullable().describe("Population scope: items that would tell."),
    samples_needed: count
      .nullable()
      .describe("Cases scope: samples per case on each side that would tell."),
    broke: z.array(z.string()).describe("Items whose score dropped, largest drop first."),
    fixed: z.array(z.string()).describe("Items whose score rose, largest gain first."),
    missing_from_candidate: z.array(z.string()),
    missing_from_baseline: z.array(z.string()),
    strata: z.array(
      z.strictObject({
        stratum: z.string(),
        n: count,
        delta: z.number(),
        low: z.number(),
        high: z.number(),
        level: z.number(),
        verdict: z.enum(GATE_VERDICTS).nullable(),
      }),
    ),
    changes: z
      .record(z.string(), z.enum(CHANGES))
      .describe("By item id, for every item of either run."),
    warnings: z.array(z.string()),
    sequential: sequentialSchema.optional(),
  })
  .describe("The paired comparison with a baseline run.");
export type CompareBlock = z.output<typeof compareBlockSchema>;
/** The comparison without how each item moved: what the terminal and `eb compare --json` show. */
export type CompareFigures = Omit<CompareBlock, "changes">;

const countsShape = {
  wins: count.describe("Pairs where both orders chose the candidate's answer."),
  ties: count.describe("Pairs both orders called a tie."),
  losses: count.describe("Pairs where both orders chose the baseline's answer."),
  inconsistent: count.describe(
    "Pairs the two orders disagree on: the judge's order effect decided them, so they are left out of the net win rate.",
  ),
  errors: count.describe(
    "Pairs with no verdict in some order (a failed call, no verdict, a missing answer): left out.",
  ),
  pairs: count.describe("Pairs judged in both orders: wins + ties + losses + inconsistent."),
};

export const pairStatsShape = {
  ...countsShape,
  items: count.describe("Cases with a consistent pair: the units of the net win rate."),
  net_win_rate: net.describe(
    "The candidate's (wins − losses) / consistent pairs per case, averaged over cases; null with none.",
  ),
  ci_low: net,
  ci_high: net,
  consistency: share.describe("Swap consistency: consistent pairs / pairs."),
  position_bias: share.describe(
    "Of the verdicts that name a winner, the share naming the answer shown first (0.5: none).",
  ),
  order_effect: z
    .number()
    .nullable()
    .describe(
      "Davidson–Beaver order effect θ: how many times the judge's odds for an answer rise when it is shown first (1: none).",
    ),
};

/** Below this swap consistency a pairwise judge says more about positions than answers. */
export const MIN_CONSISTENCY = 0.5;
/** Why a judge whose verdicts mostly follow the answers' positions left the gate undecided. */
export const POSITION_FOLLOWER =
  "Fewer than half the pairs got the same verdict in both orders: the judge follows the answers' positions more than their content, and the net win rate rests on the pairs both orders agreed on, too few to decide";

/** A run an `eb pairwise` run judged: its id (when its manifest has one) and rows file. */
export const pairedRunSchema = z.strictObject({
  run_id: z.string().nullable(),
  rows: z.string().describe("The run's rows file, as found."),
});

const pairCaseSchema = z.strictObject({
  id: z.string(),
  stratum: z.string(),
  ...countsShape,
  net_win_rate: net,
});
export type PairCase = z.output<typeof pairCaseSchema>;

/** The figures of `eb pairwise` that its report.json also has at the top level. */
export const pairwiseFiguresShape = {
  baseline: pairedRunSchema,
  candidate: pairedRunSchema,
  cases_file: z.string(),
  criteria: z.string().nullable().describe("--criteria; null: each case's judge graders'."),
  judge_model: z.string(),
  ...pairStatsShape,
  level: z.number().describe("The level of the intervals."),
  margin: z.number().describe("--margin: the largest net loss still accepted."),
  verdict: z
    .enum(GATE_VERDICTS)
    .describe(
      "pass: ci_low > −margin; regression: ci_high < −margin; else inconclusive — and not " +
        "pass while a pair is an error or unjudged (interrupted, budget exceeded).",
    ),
  strata: z.array(z.strictObject({ stratum: z.string(), ...pairStatsShape })),
  cases: z.array(pairCaseSchema).describe("Each case's counts, in case file order."),
  warnings: z.array(z.string()),
};

/** What `eb pairwise` found: wins, ties, losses, the net win rate and the judge's order effect. */
export const pairwiseBlockSchema = z
  .strictObject({
    ...pairwiseFiguresShape,
    position_note: z
      .string()
      .nullable()
      .describe("What the judge's verdicts say of the order the answers were shown in."),
  })
  .describe("The order-swapped judging of two runs' answers.");
export type PairwiseBlock = z.output<typeof pairwiseBlockSchema>;
export type PairwiseFigures = z.output<z.ZodObject<typeof pairwiseFiguresShape>>;
export type PairStats = z.output<z.ZodObject<typeof pairStatsShape>>;
export type PairCounts = Pick<PairCase, keyof typeof countsShape>;
export type PairVerdictName = PairwiseBlock["verdict"];

const nullableNumber = z.number().nullable();

/** The cost note of a run no cost applies to (deterministic checks, a command target). */
export const NO_TOKENS = "no tokens recorded";

/** One row of a leaderboard (`eb report RUN RUN…`), best first. */
export const leaderboardEntrySchema = z.strictObject({
  rank: z.number().int().min(1),
  run_id: z.string(),
  location: z.string(),
  kind: z.enum(["checks", "cases", "pairwise"]).nullable(),
  model: z.string().nullable(),
  items: count,
  samples: count,
  pass_rate: nullableNumber,
  ci_low: nullableNumber,
  ci_high: nullableNumber,
  ci_level: z.number(),
  ci_method: z.enum(INTERVAL_METHODS),
  cost: nullableNumber,
  cost_note: z.string().nullable(),
  latency_p50_ms: nullableNumber,
  latency_p95_ms: nullableNumber,
  errors: count,
  best: z.boolean(),
  indistinguishable_from_best: z.boolean(),
  delta_vs_best: nullableNumber,
  delta_ci_low: nullableNumber,
  delta_ci_high: nullableNumber,
  delta_ci_level: nullableNumber,
  paired_items: count.nullable(),
  pareto_front: z.boolean().nullable(),
  pareto_axis: z.enum(["cost", "latency_p50_ms"]).nullable(),
});
export type LeaderboardEntry = z.output<typeof leaderboardEntrySchema>;

/** A leaderboard in a run's document: eb eval's arms (three or more), in the last arm's. */
export const leaderboardBlockSchema = z
  .strictObject({
    entries: z.array(leaderboardEntrySchema).describe("Best first."),
    level: z.number().describe("The level of each run's own interval."),
    paired_level: z.number().describe("The level of each paired interval with the best."),
    comparisons: count.describe("Comparisons with the best: runs − 1 (Bonferroni over them)."),
  })
  .describe("The runs ranked, each paired with the best by item (as eb report A B C).");
export type LeaderboardBlock = z.output<typeof leaderboardBlockSchema>;
