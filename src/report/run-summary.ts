import { z } from "zod";
import { ADJUSTMENTS, type Adjustment, adjustedLevel } from "../stats/adjust.js";
import { DEFAULT_INTERVAL_METHOD, passRateInterval } from "../stats/interval.js";
import { type KInterval, passAtK, passHatK } from "../stats/pass-at-k.js";
import { INTERVAL_METHODS, type Interval, type IntervalMethod } from "../stats/types.js";
import { judgeNoiseSchema } from "./judge-noise.js";
import type { ItemTally, RowTally, TokenCount } from "./row-tally.js";

/** Prices per million tokens by model name ([pricing] of the config). */
export type Pricing = Readonly<Record<string, { input_per_mtok: number; output_per_mtok: number }>>;

export interface SummaryOptions {
  method?: IntervalMethod;
  level?: number;
  /** How the per-stratum (per-tag) intervals allow for their number; none by default. */
  adjust?: Adjustment;
  seed?: number;
  pricing?: Pricing;
  /** The judge model's name, to price judge tokens. */
  judgeModel?: string | null;
}

const count = z.number().int().min(0);
const share = z.number().min(0).max(1);

const kStatsSchema = z.strictObject({
  k: z.number().int().min(1),
  estimate: share,
  ci_low: share,
  ci_high: share,
});
export type KStats = z.output<typeof kStatsSchema>;

/** `report.json` → `stats` (DESIGN.md); bounds are null when there are no items. */
export const runStatsSchema = z.strictObject({
  items: count,
  samples: count,
  passed: z
    .number()
    .min(0)
    .describe("Samples that passed (the sum of sample scores, each 0 or 1 in eb's own runs)."),
  pass_rate: share.nullable(),
  ci_low: share.nullable(),
  ci_high: share.nullable(),
  ci_level: share,
  ci_method: z.enum(INTERVAL_METHODS),
  flaky: count,
  errors: count,
  cached: count,
  pass_at_k: kStatsSchema
    .nullable()
    .describe(
      "Chance that at least one of k samples passes (k = fewest samples of any item); null at k = 1.",
    ),
  pass_hat_k: kStatsSchema.nullable().describe("Chance that all k samples pass; null at k = 1."),
});
export type RunStats = z.output<typeof runStatsSchema>;

const groupStatsSchema = z.strictObject({
  name: z.string(),
  items: count,
  samples: count,
  pass_rate: share.nullable(),
  ci_low: share.nullable(),
  ci_high: share.nullable(),
});
export type GroupStats = z.output<typeof groupStatsSchema>;

const breakdownSchema = z
  .strictObject({
    by: z.enum(["stratum", "tag"]),
    adjust: z.enum(ADJUSTMENTS),
    level: share.describe(
      "The level of each group's interval: the run's level, or higher when adjusted.",
    ),
    groups: z.array(groupStatsSchema),
  })
  .describe("Per-stratum (cases) or per-tag (checks) intervals, each at `level`.");
/** Per-stratum (cases) or per-tag (checks) intervals, each at `level` (adjusted or not). */
export type Breakdown = z.output<typeof breakdownSchema>;

const tokenCostSchema = z.strictObject({
  model: z.string(),
  input: count,
  output: count,
  cost: z.number().min(0).nullable().describe("Null when the model has no price in [pricing]."),
});
export type TokenCost = z.output<typeof tokenCostSchema>;

/** report.json's `summary`: everything of a run summary but its stats, which have their own field. */
export const summaryFieldsSchema = z.strictObject({
  flaky: z
    .array(z.strictObject({ id: z.string(), score: share, samples: count }))
    .describe("Items scored strictly between 0 and 1, lowest score first."),
  graders: z
    .array(z.strictObject({ name: z.string(), failures: count }))
    .describe("Failed marks per grader, most first."),
  breakdown: breakdownSchema.nullable(),
  latency: z
    .strictObject({ p50: z.number().min(0), p95: z.number().min(0), uncached: count })
    .nullable(),
  tokens: z.strictObject({ target: z.array(tokenCostSchema), judge: tokenCostSchema.nullable() }),
  judges: z
    .array(judgeNoiseSchema)
    .describe("Each judge's self-agreement and noise; empty with one verdict per answer."),
});

export type RunSummary = { stats: RunStats } & z.output<typeof summaryFieldsSchema>;

/** Everything `eb report` says about a run, from its per-item aggregates. */
export function summarize(tally: RowTally, options: SummaryOptions = {}): RunSummary {
  const items = tally.itemsById();
  const interval = intervalOf(items, options);
  // A stable sort of items in id order: ties stay by id.
  const flaky = items
    .filter((item) => item.sum > 0 && item.sum < item.n)
    .map((item) => ({ id: item.id, score: item.sum / item.n, samples: item.n }))
    .sort((a, b) => a.score - b.score);
  return {
    stats: {
      items: items.length,
      samples: tally.samples,
      passed: items.reduce((sum, item) => sum + item.sum, 0),
      pass_rate: finite(interval.estimate),
      ci_low: finite(interval.low),
      ci_high: finite(interval.high),
      ci_level: interval.level,
      ci_method: interval.method,
      flaky: flaky.length,
      errors: tally.errors,
      cached: tally.cached,
      pass_at_k: kStats(passAtK(items, options.level)),
      pass_hat_k: kStats(passHatK(items, options.level)),
    },
    flaky,
    graders: [...tally.graderFailures]
      .map(([name, failures]) => ({ name, failures }))
      .sort((a, b) => b.failures - a.failures || compareText(a.name, b.name)),
    breakdown: breakdownOf(items, options),
    latency: latencyOf(tally.latencyValues()),
    tokens: tokensOf(tally, options),
    judges: tally.judgeNoise.summary(),
  };
}

function intervalOf(items: readonly ItemTally[], options: SummaryOptions): Interval {
  return passRateInterval(items, options.method ?? DEFAULT_INTERVAL_METHOD, {
    level: options.level ?? 0.95,
    seed: options.seed ?? 0,
  });
}

/** Strata for cases (when there is more than one), tags for checks. */
function breakdownOf(items: readonly ItemTally[], options: SummaryOptions): Breakdown | null {
  const byStratum = groupItems(items, (item) => (item.stratum ? [item.stratum] : []));
  if (byStratum.size > 1) return breakdown("stratum", byStratum, options);
  const byTag = groupItems(items, (item) => item.tags);
  if (byTag.size > 0) return breakdown("tag", byTag, options);
  return null;
}

function breakdown(
  by: Breakdown["by"],
  groups: Map<string, ItemTally[]>,
  options: SummaryOptions,
): Breakdown {
  const adjust = options.adjust ?? "none";
  const level = adjustedLevel(options.level ?? 0.95, groups.size, adjust);
  return { by, adjust, level, groups: groupStats(groups, { ...options, level }) };
}

function kStats(interval: KInterval | null): KStats | null {
  if (!interval) return null;
  const { k, estimate, low, high } = interval;
  return { k, estimate, ci_low: low, ci_high: high };
}

function groupItems(
  items: readonly ItemTally[],
  keys: (item: ItemTally) => readonly string[],
): Map<string, ItemTally[]> {
  const groups = new Map<string, ItemTally[]>();
  for (const item of items) {
    for (const key of keys(item)) {
      const group = groups.get(key);
      if (group) group.push(item);
      else groups.set(key, [item]);
    }
  }
  return groups;
}

function groupStats(groups: Map<string, ItemTally[]>, options: SummaryOptions): GroupStats[] {
  return [...groups]
    .map(([name, members]) => {
      const interval = intervalOf(members, options);
      return {
        name,
        items: members.length,
        samples: members.reduce((sum, item) => sum + item.n, 0),
        pass_rate: finite(interval.estimate),
        ci_low: finite(interval.low),
        ci_high: finite(interval.high),
      };
    })
    .sort((a, b) => compareText(a.name, b.name));
}

/** Selected in place: the latencies' order means nothing, and a copy of a million costs 8 MB. */
function latencyOf(values: Float64Array): RunSummary["latency"] {
  if (values.length === 0) return null;
  const rank = (p: number) =>
    nthSmallest(values, Math.min(values.length - 1, Math.ceil(p * values.length) - 1));
  return { p50: rank(0.5), p95: rank(0.95), uncached: values.length };
}

/**
 * The value a sort would put at index `n` (Hoare's selection, in place): a run's latencies are
 * one per sample, and sorting a million of them to read two costs more than the rest of the
 * summary.
 */
function nthSmallest(values: Float64Array, n: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const pivot = values[(low + high) >>> 1]!;
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i++] = values[j]!;
        values[j--] = swap;
      }
    }
    if (n <= j) high = j;
    else if (n >= i) low = i;
    else return values[n]!;
  }
  return values[n]!;
}

function tokensOf(tally: RowTally, options: SummaryOptions): RunSummary["tokens"] {
  const price = (model: string, count: TokenCount): TokenCost => {
    const rate = options.pricing?.[model];
    const cost = rate
      ? (count.input * rate.input_per_mtok + count.output * rate.output_per_mtok) / 1e6
      : null;
    return { model, ...count, cost };
  };
  const judgeUsed = tally.judgeTokens.input + tally.judgeTokens.output > 0;
  return {
    target: [...tally.targetTokens]
      .sort(([a], [b]) => compareText(a, b))
      .map(([model, count]) => price(model, count)),
    judge: judgeUsed ? price(options.judgeModel ?? "", tally.judgeTokens) : null,
  };
}

function finite(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
