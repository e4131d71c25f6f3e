import type { Coverage } from "../report/coverage.js";
import { countOf } from "../report/gate.js";
import type { JudgeNoise } from "../report/judge-noise.js";
import type {
  Breakdown,
  GroupStats,
  KStats,
  RunSummary,
  TokenCost,
} from "../report/run-summary.js";
import { passRateScope } from "./not-run.js";
import { fixed, passedOf, percent } from "./numbers.js";

/** Flaky items named; the others are counted. */
export const FLAKY_SHOWN = 10;
/** From this many items an interval says more than the counts do. */
const INFORMATIVE_ITEMS = 10;

/**
 * The block at the end of `eb run` / `eb eval`: all of summaryText where an interval informs
 * (at least 10 items, or several samples per item); for a smaller suite the counts line says it
 * all, and only what costs money or explains missing calls (tokens, cache hits) is kept.
 */
export function runSummaryText(summary: RunSummary, coverage: Coverage | null = null): string {
  const { stats } = summary;
  if (
    stats.items >= INFORMATIVE_ITEMS ||
    stats.samples > stats.items ||
    summary.judges.length > 0
  ) {
    return summaryText(summary, coverage);
  }
  const lines = [stats.cached > 0 ? cacheLine(summary) : "", ...tokenLines(summary)];
  return lines
    .filter((line) => line !== "")
    .map((line) => `${line}\n`)
    .join("");
}

/**
 * The statistics block of `eb report` (and of `eb run` / `eb eval` where it informs); with what
 * the run planned, an interrupted run's pass rate says it is over the items that ran.
 */
export function summaryText(summary: RunSummary, coverage: Coverage | null = null): string {
  const { stats } = summary;
  const scope = passRateScope(coverage, stats);
  const lines = [
    `items ${stats.items}  samples ${stats.samples}`,
    `pass rate ${fixed(stats.pass_rate)}${scope ? ` ${scope}` : ""}  ${percent(stats.ci_level)} CI [${fixed(stats.ci_low)}, ${fixed(stats.ci_high)}] (${stats.ci_method})`,
    kLine(stats.pass_at_k, stats.pass_hat_k, stats.ci_level),
    flakyLine(summary),
    `errors ${stats.errors} of ${countOf(stats.samples, "sample")} (scored 0, counted apart from failures)`,
    ...summary.graders.map(
      (g) => `  grader ${g.name.padEnd(20)} failed ${countOf(g.failures, "sample")}`,
    ),
    ...summary.judges.map((j) => `  judge ${j.grader.padEnd(21)} ${judgeNoiseText(j)}`),
    ...breakdownLines(summary),
    cacheLine(summary),
    ...tokenLines(summary),
  ];
  return `${lines.filter((line) => line !== "").join("\n")}\n`;
}

/**
 * "agrees with itself 93.3% over 60 answers × 3 verdicts; variance model 0.120, judge 0.033":
 * how far one verdict can be trusted, and whose noise the item scores carry.
 */
export function judgeNoiseText(j: JudgeNoise): string {
  const verdicts = Number.isInteger(j.verdicts) ? String(j.verdicts) : j.verdicts.toFixed(1);
  const agreement = `agrees with itself ${(j.self_agreement * 100).toFixed(1)}% over ${countOf(j.answers, "answer")} × ${verdicts} verdicts`;
  const model = j.model_variance === null ? "" : `model ${fixed(j.model_variance)}, `;
  return `${agreement}; variance ${model}judge ${fixed(j.judge_variance)}`;
}

function flakyLine(summary: RunSummary): string {
  const { flaky, stats } = summary;
  const head = `flaky ${flaky.length} of ${countOf(stats.items, "item")} scored strictly between 0 and 1`;
  if (flaky.length === 0) return head;
  const shown = flaky
    .slice(0, FLAKY_SHOWN)
    .map((item) => `${item.id} (${passedOf(item.score, item.samples)})`);
  const more = flaky.length > FLAKY_SHOWN ? `, … ${flaky.length - FLAKY_SHOWN} more` : "";
  return `${head}: ${shown.join(", ")}${more}`;
}

/** pass@k and pass^k side by side, or nothing at one sample per item. */
function kLine(atK: KStats | null, hatK: KStats | null, level: number): string {
  if (!atK || !hatK) return "";
  const one = (name: string, s: KStats) =>
    `${name}${s.k} ${fixed(s.estimate)} [${fixed(s.ci_low)}, ${fixed(s.ci_high)}]`;
  return `${one("pass@", atK)}  ${one("pass^", hatK)}  (${percent(level)} CI; any / all of ${atK.k} samples pass)`;
}

function breakdownLines(summary: RunSummary): string[] {
  if (!summary.breakdown) return [];
  const groups = summary.breakdown.groups;
  const width = groups.reduce((widest, group) => Math.max(widest, group.name.length), 6);
  const head = `by ${summary.breakdown.by} (${breakdownLevel(summary.breakdown)}):`;
  return [head, ...groups.map((group) => groupLine(group, width))];
}

/** Says whether the group intervals hold one by one or together. */
export function breakdownLevel(b: Breakdown): string {
  const each = percent(b.level);
  if (b.groups.length < 2) return each;
  if (b.adjust === "bonferroni") {
    return `Bonferroni-adjusted: ${each} each, so all ${b.groups.length} hold together`;
  }
  return `${each} per ${b.by}, unadjusted: with ${b.groups.length}, some may miss by chance; --adjust bonferroni`;
}

function groupLine(group: GroupStats, width: number): string {
  const ci = `[${fixed(group.ci_low)}, ${fixed(group.ci_high)}]`;
  return `  ${group.name.padEnd(width)}  ${fixed(group.pass_rate)} ${ci}  ${countOf(group.items, "item")}`;
}

function cacheLine(summary: RunSummary): string {
  const { cached, samples } = summary.stats;
  const latency = summary.latency;
  const share = samples > 0 ? ` (${percent(cached / samples)})` : "";
  const timing = latency
    ? `latency p50 ${Math.round(latency.p50)} ms, p95 ${Math.round(latency.p95)} ms over ${countOf(latency.uncached, "uncached sample")}`
    : "latency: no uncached samples";
  const note =
    cached > 0 ? "; a cached sample keeps its original call's latency, so it is left out" : "";
  return `cached ${cached} of ${countOf(samples, "sample")}${share}; ${timing}${note}`;
}

function tokenLines(summary: RunSummary): string[] {
  const { target, judge } = summary.tokens;
  const line = (role: string, t: TokenCost) => `${role} ${t.model || "(unnamed)"}: ${tokenText(t)}`;
  return [...target.map((t) => line("target", t)), ...(judge ? [line("judge", judge)] : [])];
}

/** `1200 in / 300 out tokens, $0.0042`. */
export function tokenText(t: TokenCost): string {
  const cost = t.cost === null ? "no price in [pricing]" : `$${t.cost.toFixed(4)}`;
  return `${t.input} in / ${t.output} out tokens, ${cost}`;
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
