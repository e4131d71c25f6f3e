import { z } from "zod";
import { byCodePoint } from "./order.js";
import type { StoredRow } from "./record.js";

/** The mark a harness_judge check's rows carry: its samples are verdicts on one repository. */
const HARNESS_JUDGE = "harness_judge";

const share = z.number().min(0).max(1);

export const judgeNoiseSchema = z
  .strictObject({
    grader: z.string().describe("A case's judge grader, or a harness_judge check's id."),
    answers: z
      .number()
      .int()
      .min(1)
      .describe("Answers judged more than once (a check: 1, the repository as it is)."),
    verdicts: z.number().min(2).describe("Verdicts per answer, on average."),
    self_agreement: share.describe(
      "The chance that two verdicts on the same answer agree (1 − 2 × judge_variance).",
    ),
    judge_variance: z
      .number()
      .min(0)
      .describe("Variance of one 0/1 verdict around its answer's mean verdict: the judge's noise."),
    model_variance: z
      .number()
      .min(0)
      .nullable()
      .describe(
        "Variance of an answer's mean verdict across an item's k answers, less the judge's " +
          "share: the model's noise; null without two answers to an item.",
      ),
  })
  .describe("How much one judge disagrees with itself (--judge-samples, or eb run --samples).");
export type JudgeNoise = z.output<typeof judgeNoiseSchema>;

/** Passes among the verdicts of one answer. */
interface Votes {
  passes: number;
  count: number;
}

interface GraderSums {
  answers: number;
  verdicts: number;
  judgeVariance: number;
  /** Per item: the number of answers and the sums of their mean verdicts and its square. */
  items: Map<string, { n: number; sum: number; squares: number }>;
}

/**
 * The judge's own noise, from rows as they stream past: a case grader's `votes` (several verdicts
 * on one answer), or a harness_judge check's samples (verdicts on the same files). Two verdicts
 * that may disagree are needed; with one per answer nothing is reported.
 */
export class JudgeNoiseTally {
  private readonly graders = new Map<string, GraderSums>();
  private readonly checks = new Map<string, Votes>();

  add(row: StoredRow): void {
    const all = row.votes;
    for (const grader in all) {
      const votes = all[grader]!;
      if (votes.length < 2) continue;
      const passes = votes.filter((v) => v === 1).length;
      this.addAnswer(grader, row.id, { passes, count: votes.length });
    }
    if (row.status === "error" || row.marks?.[HARNESS_JUDGE] === undefined) return;
    const check = this.checks.get(row.id) ?? { passes: 0, count: 0 };
    check.passes += row.score === 1 ? 1 : 0;
    check.count++;
    this.checks.set(row.id, check);
  }

  /** By grader (or check) name. */
  summary(): JudgeNoise[] {
    const checks = [...this.checks]
      .filter(([, votes]) => votes.count >= 2)
      .map(([id, votes]) => [id, addVotes(emptySums(), id, votes)] as const);
    return [...this.graders, ...checks]
      .sort(([a], [b]) => byCodePoint(a, b))
      .map(([grader, sums]) => noiseOf(grader, sums));
  }

  private addAnswer(grader: string, item: string, votes: Votes): void {
    this.graders.set(grader, addVotes(this.graders.get(grader) ?? emptySums(), item, votes));
  }
}

function emptySums(): GraderSums {
  return { answers: 0, verdicts: 0, judgeVariance: 0, items: new Map() };
}

function addVotes(sums: GraderSums, item: string, votes: Votes): GraderSums {
  sums.answers++;
  sums.verdicts += votes.count;
  sums.judgeVariance += withinVariance(votes);
  const mean = votes.passes / votes.count;
  const answers = sums.items.get(item) ?? { n: 0, sum: 0, squares: 0 };
  answers.n++;
  answers.sum += mean;
  answers.squares += mean * mean;
  sums.items.set(item, answers);
  return sums;
}

/**
 * The unbiased variance of one verdict around the answer's mean: p(J − p) / (J(J − 1)) for p
 * passes of J. Two verdicts disagree with twice that chance.
 */
function withinVariance({ passes, count }: Votes): number {
  return (passes * (count - passes)) / (count * (count - 1));
}

function noiseOf(grader: string, sums: GraderSums): JudgeNoise {
  const judgeVariance = sums.judgeVariance / sums.answers;
  const verdicts = sums.verdicts / sums.answers;
  return {
    grader,
    answers: sums.answers,
    verdicts,
    self_agreement: 1 - 2 * judgeVariance,
    judge_variance: judgeVariance,
    model_variance: modelVariance(sums, judgeVariance / verdicts),
  };
}

/**
 * The mean, over items with two answers or more, of the variance of their answers' mean
 * verdicts, less what the judge's noise alone puts there (its variance over J verdicts).
 */
function modelVariance(sums: GraderSums, judgeShare: number): number | null {
  let total = 0;
  let items = 0;
  for (const { n, sum, squares } of sums.items.values()) {
    if (n < 2) continue;
    total += (squares - (sum * sum) / n) / (n - 1);
    items++;
  }
  return items === 0 ? null : Math.max(0, total / items - judgeShare);
}
