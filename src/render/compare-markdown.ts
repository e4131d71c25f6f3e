import type { CompareBlock } from "../report/blocks.js";
import type { RunDocument } from "../report/document.js";
import { countOf } from "../report/gate.js";
import { REASON_CHARS } from "../report/reason.js";
import {
  neededLine,
  sequentialLine,
  signed,
  strataLevel,
  verdictSentence,
} from "./compare-text.js";
import { code, ID_CHARS } from "./markdown.js";
import { fixed } from "./numbers.js";

/** The first line of `eb compare --markdown`: a workflow finds its own sticky comment by it. */
export const COMPARE_MARKER = "<!-- eval-banana:compare -->";

/** Rows per table: a comment stays far below GitHub's 65,536 characters whatever the runs hold. */
const ROWS_SHOWN = { broke: 25, fixed: 10, strata: 30, warnings: 10 } as const;

const HEADLINE = {
  pass: "✅ PASS",
  regression: "❌ REGRESSION",
  inconclusive: "⚠️ INCONCLUSIVE",
} as const;

/**
 * The comparison as Markdown (a job summary's section, and the body of `--markdown`): verdict
 * and what the gate decided, delta with its interval, margin, the runs, the items that broke
 * and were fixed with why, per-stratum deltas, and the reasons to distrust the pairing. `cand`
 * is the candidate's document with the comparison in it.
 */
export function comparisonMarkdown(base: RunDocument, cand: RunDocument): string[] {
  const c = cand.compare;
  if (c === null) return [];
  const gatePassed = cand.verdict.outcome === "passed";
  const level = `${Math.round(c.ci_level * 100)}%`;
  const needed = c.verdict === "inconclusive" ? neededLine(c).trim() : "";
  const runs = { baseline: base, candidate: cand };
  return [
    `## eval-banana compare: ${HEADLINE[c.verdict]}`,
    "",
    `**Paired delta ${signed(c.delta)}**, ${level} interval [${signed(c.ci_low)}, ${signed(c.ci_high)}] over ${countOf(c.paired, "paired item")} (${c.paired_interval}); margin ${c.margin}.`,
    "",
    ...(c.sequential ? [`${sequentialLine(c)}.`, ""] : []),
    `${verdictSentence(c)}. **Gate: ${gatePassed ? "passed (exit 0)" : "failed (exit 1)"}.**`,
    ...(needed ? ["", needed.charAt(0).toUpperCase() + needed.slice(1)] : []),
    "",
    ...runsTable(runs),
    ...itemsTable("Broke", c.broke, ROWS_SHOWN.broke, runs, "candidate"),
    ...itemsTable("Fixed", c.fixed, ROWS_SHOWN.fixed, runs, "baseline"),
    ...strataTable(c),
    ...warningsList(c.warnings),
  ];
}

type Runs = { baseline: RunDocument; candidate: RunDocument };

function runsTable({ baseline: b, candidate: k }: Runs): string[] {
  const id = (run: RunDocument) => (run.run_id ? code(run.run_id, ID_CHARS) : "unknown");
  const commit = (run: RunDocument) =>
    run.run.git_commit ? code(run.run.git_commit.slice(0, 12)) : "unknown";
  return [
    "| | Baseline | Candidate |",
    "| --- | --- | --- |",
    `| Run | ${id(b)} | ${id(k)} |`,
    `| Commit | ${commit(b)} | ${commit(k)} |`,
    `| Items / samples | ${b.stats.items} / ${b.stats.samples} | ${k.stats.items} / ${k.stats.samples} |`,
    `| Pass rate (mean item score) | ${fixed(b.stats.pass_rate)} | ${fixed(k.stats.pass_rate)} |`,
    "",
  ];
}

/** Broke items with why the candidate fell short; fixed ones with why the baseline did. */
function itemsTable(
  title: string,
  ids: readonly string[],
  limit: number,
  runs: Runs,
  why: "baseline" | "candidate",
): string[] {
  if (ids.length === 0) return [`**${title}:** none.`, ""];
  const baseItems = new Map(runs.baseline.items.map((item) => [item.id, item]));
  const candItems = new Map(runs.candidate.items.map((item) => [item.id, item]));
  const rows = ids.slice(0, limit).map((id) => {
    const base = baseItems.get(id)!;
    const cand = candItems.get(id)!;
    const problem = (why === "candidate" ? cand : base).problem;
    return `| ${code(id, ID_CHARS)} | ${fixed(base.score, 2)} | ${fixed(cand.score, 2)} | ${problem ? code(problem, REASON_CHARS) : ""} |`;
  });
  const more = ids.length - rows.length;
  return [
    `### ${title}: ${countOf(ids.length, "item")}`,
    "",
    `| Item | Baseline | Candidate | Why the ${why} fell short |`,
    "| --- | --- | --- | --- |",
    ...rows,
    "",
    ...(more > 0 ? [`… and ${more} more (\`eb compare --json\` lists every one).`, ""] : []),
  ];
}

function strataTable(c: CompareBlock): string[] {
  // One stratum is the whole run, already above.
  if (c.strata.length < 2) return [];
  const shown = c.strata.slice(0, ROWS_SHOWN.strata);
  const more = c.strata.length - shown.length;
  return [
    "### By stratum",
    "",
    `Intervals: ${strataLevel(c)}.`,
    "",
    "| Stratum | Items | Delta | Interval | Verdict |",
    "| --- | --- | --- | --- | --- |",
    ...shown.map(
      (s) =>
        `| ${code(s.stratum, ID_CHARS)} | ${s.n} | ${signed(s.delta)} | [${signed(s.low)}, ${signed(s.high)}] | ${s.verdict ?? "—"} |`,
    ),
    "",
    ...(more > 0
      ? [
          `… and ${countOf(more, "more stratum", "more strata")} (\`eb compare\` lists every one).`,
          "",
        ]
      : []),
  ];
}

function warningsList(warnings: readonly string[]): string[] {
  if (warnings.length === 0) return [];
  const shown = warnings.slice(0, ROWS_SHOWN.warnings);
  return [
    "### Warnings",
    "",
    ...shown.map((w) => `- ${code(w, REASON_CHARS)}`),
    ...(warnings.length > shown.length ? [`- … and ${warnings.length - shown.length} more`] : []),
    "",
  ];
}
