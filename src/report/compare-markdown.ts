import { z } from "zod";
import { code } from "../render/failing.js";
import { fixed } from "../render/stats-text.js";
import { readManifest } from "../run/rows.js";
import type { RunComparison } from "./compare-runs.js";
import { neededLine, signed, strataLevel, VERDICT_TEXT } from "./compare-text.js";
import type { RunRows } from "./read-rows.js";
import { REASON_CHARS } from "./reason.js";
import type { ItemTally } from "./row-tally.js";

/** The first line of `eb compare --markdown`: a workflow finds its own sticky comment by it. */
export const COMPARE_MARKER = "<!-- eval-banana:compare -->";

/** Rows per table: a comment stays far below GitHub's 65,536 characters whatever the runs hold. */
const ROWS_SHOWN = { broke: 25, fixed: 10, strata: 30, warnings: 10 } as const;

const HEADLINE = {
  pass: "✅ PASS",
  regression: "❌ REGRESSION",
  inconclusive: "⚠️ INCONCLUSIVE",
} as const;

/** One run of the comparison, as its rows and manifest tell it. */
export interface ComparedRun {
  rows: RunRows;
  runId: string | null;
  commit: string | null;
}

const provenanceSchema = z.looseObject({
  run_id: z.string().nullable().catch(null).default(null),
  git_commit: z.string().nullable().catch(null).default(null),
});

/** The run id and commit of a run's manifest (null for rows of other programs). */
export function comparedRun(rows: RunRows): ComparedRun {
  const manifest = provenanceSchema.safeParse(safeManifest(rows.file));
  const data = manifest.success ? manifest.data : { run_id: null, git_commit: null };
  return { rows, runId: data.run_id, commit: data.git_commit };
}

function safeManifest(file: string): object | null {
  try {
    return readManifest(file);
  } catch {
    return null;
  }
}

/**
 * The comparison as Markdown (a job summary's section, and the body of `--markdown`): verdict
 * and what the gate decided, delta with its interval, margin, the runs, the items that broke
 * and were fixed with why, per-stratum deltas, and the reasons to distrust the pairing.
 */
export function comparisonMarkdown(
  c: RunComparison,
  runs: { baseline: ComparedRun; candidate: ComparedRun },
  gatePassed: boolean,
): string[] {
  const level = `${Math.round(c.level * 100)}%`;
  const needed = c.verdict === "inconclusive" ? neededLine(c).trim() : "";
  return [
    `## eval-banana compare: ${HEADLINE[c.verdict]}`,
    "",
    `**Paired delta ${signed(c.delta)}**, ${level} interval [${signed(c.low)}, ${signed(c.high)}] over ${c.n} paired items (${c.method}); margin ${c.margin}.`,
    "",
    `${VERDICT_TEXT[c.verdict]}. **Gate: ${gatePassed ? "passed (exit 0)" : "failed (exit 1)"}.**`,
    ...(needed ? ["", needed.charAt(0).toUpperCase() + needed.slice(1)] : []),
    "",
    ...runsTable(runs),
    ...itemsTable("Broke", c.broke, ROWS_SHOWN.broke, runs, "candidate"),
    ...itemsTable("Fixed", c.fixed, ROWS_SHOWN.fixed, runs, "baseline"),
    ...strataTable(c),
    ...warningsList(c.warnings),
  ];
}

function runsTable(runs: { baseline: ComparedRun; candidate: ComparedRun }): string[] {
  const { baseline: b, candidate: k } = runs;
  const commit = (run: ComparedRun) => (run.commit ? code(run.commit.slice(0, 12)) : "unknown");
  return [
    "| | Baseline | Candidate |",
    "| --- | --- | --- |",
    `| Run | ${b.runId ? code(b.runId) : "unknown"} | ${k.runId ? code(k.runId) : "unknown"} |`,
    `| Commit | ${commit(b)} | ${commit(k)} |`,
    `| Items / samples | ${b.rows.tally.items.size} / ${b.rows.tally.samples} | ${k.rows.tally.items.size} / ${k.rows.tally.samples} |`,
    `| Pass rate (mean item score) | ${fixed(meanScore(b))} | ${fixed(meanScore(k))} |`,
    "",
  ];
}

function meanScore(run: ComparedRun): number | null {
  const items = [...run.rows.tally.items.values()];
  if (items.length === 0) return null;
  return items.reduce((sum, item) => sum + item.sum / item.n, 0) / items.length;
}

/** Broke items with why the candidate fell short; fixed ones with why the baseline did. */
function itemsTable(
  title: string,
  ids: readonly string[],
  limit: number,
  runs: { baseline: ComparedRun; candidate: ComparedRun },
  why: "baseline" | "candidate",
): string[] {
  if (ids.length === 0) return [`**${title}:** none.`, ""];
  const score = (item: ItemTally) => item.sum / item.n;
  const rows = ids.slice(0, limit).map((id) => {
    const base = runs.baseline.rows.tally.items.get(id)!;
    const cand = runs.candidate.rows.tally.items.get(id)!;
    const problem = (why === "candidate" ? cand : base).problem;
    return `| ${code(id)} | ${fixed(score(base), 2)} | ${fixed(score(cand), 2)} | ${problem ? code(problem, REASON_CHARS) : ""} |`;
  });
  const more = ids.length - rows.length;
  return [
    `### ${title}: ${ids.length} item${ids.length === 1 ? "" : "s"}`,
    "",
    `| Item | Baseline | Candidate | Why the ${why} fell short |`,
    "| --- | --- | --- | --- |",
    ...rows,
    "",
    ...(more > 0 ? [`… and ${more} more (\`eb compare --json\` lists every one).`, ""] : []),
  ];
}

function strataTable(c: RunComparison): string[] {
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
        `| ${code(s.stratum)} | ${s.n} | ${signed(s.delta)} | [${signed(s.low)}, ${signed(s.high)}] | ${s.verdict ?? "—"} |`,
    ),
    "",
    ...(more > 0 ? [`… and ${more} more strata (\`eb compare\` lists every one).`, ""] : []),
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
