import type { Coverage } from "../report/coverage.js";
import { countOf } from "../report/gate.js";
import type { KStats, RunSummary } from "../report/run-summary.js";
import { code } from "./markdown.js";
import { passRateScope } from "./not-run.js";
import { fixed } from "./numbers.js";
import { breakdownLevel, judgeNoiseText, tokenText } from "./stats-text.js";

/** The statistics section of every report.md (the same facts `eb report` prints). */
export function summaryMarkdown(summary: RunSummary, coverage: Coverage | null = null): string[] {
  const { stats } = summary;
  const level = `${Math.round(stats.ci_level * 100)}%`;
  const scope = passRateScope(coverage, stats);
  return [
    "## Statistics",
    "",
    "| Statistic | Value |",
    "| --- | --- |",
    `| Items / samples | ${stats.items} / ${stats.samples} |`,
    `| Pass rate | ${fixed(stats.pass_rate)} (mean of item scores${scope ? `; ${scope}` : ""}) |`,
    `| ${level} interval | [${fixed(stats.ci_low)}, ${fixed(stats.ci_high)}] (${stats.ci_method}) |`,
    ...kRow("pass@", stats.pass_at_k, "at least one of k samples passes"),
    ...kRow("pass^", stats.pass_hat_k, "all k samples pass"),
    `| Flaky items | ${stats.flaky} |`,
    `| Error samples | ${stats.errors} |`,
    `| Cached samples | ${stats.cached} |`,
    ...latencyRow(summary),
    ...summary.tokens.target.map((t) => `| Target ${code(t.model)} | ${tokenText(t)} |`),
    ...(summary.tokens.judge
      ? [`| Judge ${code(summary.tokens.judge.model)} | ${tokenText(summary.tokens.judge)} |`]
      : []),
    "",
    ...listSection(
      "Flaky items",
      summary.flaky.map(
        (f) => `${code(f.id)}: ${fixed(f.score, 2)} over ${countOf(f.samples, "sample")}`,
      ),
    ),
    ...listSection(
      "Failures by grader",
      summary.graders.map((g) => `${code(g.name)}: failed ${countOf(g.failures, "sample")}`),
    ),
    ...listSection(
      "Judge noise",
      summary.judges.map((j) => `${code(j.grader)}: ${judgeNoiseText(j)}`),
    ),
    ...breakdownTable(summary),
  ];
}

function kRow(name: string, s: KStats | null, meaning: string): string[] {
  if (!s) return [];
  return [
    `| ${name}${s.k} | ${fixed(s.estimate)} [${fixed(s.ci_low)}, ${fixed(s.ci_high)}] (${meaning}) |`,
  ];
}

function latencyRow(summary: RunSummary): string[] {
  const latency = summary.latency;
  if (!latency) return ["| Latency | no uncached samples |"];
  return [
    `| Latency p50 / p95 | ${Math.round(latency.p50)} / ${Math.round(latency.p95)} ms over ${countOf(latency.uncached, "uncached sample")} |`,
  ];
}

function listSection(title: string, entries: readonly string[]): string[] {
  if (entries.length === 0) return [];
  return [`### ${title}`, "", ...entries.map((entry) => `- ${entry}`), ""];
}

function breakdownTable(summary: RunSummary): string[] {
  if (!summary.breakdown) return [];
  const by = summary.breakdown.by;
  return [
    `### By ${by}`,
    "",
    `Intervals: ${breakdownLevel(summary.breakdown)}.`,
    "",
    `| ${by === "tag" ? "Tag" : "Stratum"} | Items | Samples | Pass rate | Interval |`,
    "| --- | --- | --- | --- | --- |",
    ...summary.breakdown.groups.map(
      (g) =>
        `| ${code(g.name)} | ${g.items} | ${g.samples} | ${fixed(g.pass_rate)} | [${fixed(g.ci_low)}, ${fixed(g.ci_high)}] |`,
    ),
    "",
  ];
}
