import { signed } from "../render/compare-text.js";
import {
  MIN_CONSISTENCY,
  type PairStats,
  type PairwiseFigures,
  POSITION_FOLLOWER,
} from "../report/blocks.js";
import { buildDocument, type RunDocument, type Verdict } from "../report/document.js";
import type { FinishContext } from "../run/suite.js";
import type { PairwiseReport } from "./report.js";

/** What the document needs of a pairwise run beyond its report and rows. */
export interface PairwiseRunMeta {
  /** The cases both runs answered, in case file order. */
  planned: readonly string[];
  samples: number;
  /** `--inconclusive`: what an inconclusive verdict makes the gate. */
  inconclusive: "fail" | "pass";
}

/**
 * A pairwise run's document: its cases as items (a sample is a pair judged in both orders), the
 * verdict the gate gave, and the `pairwise` block with the figures of its report.json.
 */
export function pairwiseDocument(
  report: PairwiseReport,
  figures: PairwiseFigures,
  context: FinishContext,
  meta: PairwiseRunMeta,
): RunDocument {
  const document = buildDocument(context.tally, {
    kind: "pairwise",
    runId: report.run_id,
    projectRoot: report.project_root,
    location: report.output_dir,
    startedAt: report.started_at,
    completedAt: report.completed_at,
    durationMs: report.duration_ms,
    run: {
      ...context.provenance,
      target: `candidate ${report.candidate.run_id ?? report.candidate.rows} against baseline ${report.baseline.run_id ?? report.baseline.rows}`,
      judge: report.judge_model,
      samples_per_item: meta.samples,
      sequential: null,
    },
    itemsPlanned: meta.planned.length,
    planned: meta.planned.map((id) => ({ id })),
    passThreshold: 1,
    interrupted: report.interrupted,
    budget: report.budget,
    budgetExhausted: report.budget_exceeded,
    judgeCache: report.judge_cache,
  });
  return {
    ...document,
    items: worstFirst(document.items, report),
    verdict: verdictOf(report, meta.inconclusive),
    run_passed: report.run_passed,
    pairwise: { ...figures, position_note: positionNote(figures) },
  };
}

/**
 * Worst first as pairs go: a pair's row scores only a win, so a tie would rank with a loss; the
 * cases go by their net win rate instead (a case with no judged pair first), else as they were.
 */
function worstFirst(items: RunDocument["items"], report: PairwiseReport): RunDocument["items"] {
  const net = new Map(report.cases.map((c) => [c.id, c.net_win_rate ?? -2]));
  return [...items].sort((a, b) => (net.get(a.id) ?? -2) - (net.get(b.id) ?? -2));
}

/** The gate of `eb pairwise`, in the words of the run document's verdicts. */
function verdictOf(report: PairwiseReport, inconclusive: "fail" | "pass"): Verdict {
  const ci = `${Math.round(report.level * 100)}% CI [${net(report.ci_low)}, ${net(report.ci_high)}]`;
  const policy = report.verdict === "inconclusive" ? ` (--inconclusive ${inconclusive})` : "";
  const rule = `net win rate ${net(report.net_win_rate)}, ${ci} over ${report.items} cases, margin ${report.margin} → ${report.verdict}${policy}`;
  if (report.interrupted) return { outcome: "interrupted", rule };
  if (report.budget_exceeded) return { outcome: "budget_exhausted", rule };
  if (report.run_passed) return { outcome: "passed", rule };
  return { outcome: report.verdict === "regression" ? "regression" : "inconclusive", rule };
}

/** What the verdicts say of the order the answers were shown in. */
export function positionNote(r: PairStats): string | null {
  if (r.position_bias === null || r.order_effect === null) return null;
  const share = `${(r.position_bias * 100).toFixed(1)}%`;
  const lean =
    Math.abs(r.position_bias - 0.5) < 0.1
      ? "no marked preference for either position"
      : `a lean towards the answer shown ${r.position_bias > 0.5 ? "first" : "second"}`;
  const follower =
    r.consistency !== null && r.consistency < MIN_CONSISTENCY ? `${POSITION_FOLLOWER}. ` : "";
  return `${follower}Of the verdicts that named a winner, ${share} named the answer shown first (50% is none): ${lean}; order effect θ = ${r.order_effect.toFixed(2)} (1 is none). Each pair is judged in both orders, and only the pairs both orders agreed on count: a position preference leaves fewer pairs to decide on, never a win.`;
}

function net(value: number | null): string {
  return value === null ? "n/a" : signed(value);
}
