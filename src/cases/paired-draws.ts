import type { SequentialRun, StoredRow } from "../report/record.js";
import { createRng, type Rng } from "../stats/rng.js";
import {
  confidenceInterval,
  decision,
  nextCase,
  record,
  type SequentialDecision,
  type SequentialState,
  type StopReason,
  startSequential,
} from "../stats/sequential.js";

/** One arm's side of a sequential run: the samples it is to run, drawn one by one. */
export interface ArmDraws {
  /** A row an earlier attempt of the arm's run wrote (`--resume`). */
  restore(row: StoredRow): void;
  /** The next sample to run; null once the verdict is known, the cap is reached or `signal` aborts. */
  next(signal: AbortSignal): Promise<{ id: string; sample: number } | null>;
  /** A drawn sample's score; null: the budget refused it (the run then stops for "budget"). */
  settled(id: string, sample: number, score: number | null): void;
  /** What the arm's run records of its plan: the cap, and why it stopped (null: not yet). */
  plan(): SequentialRun;
}

export interface PairedDrawOptions {
  /** The suite's case ids. */
  cases: readonly string[];
  margin: number;
  /** Samples per case per arm, on average, at which the run stops undecided. */
  maxK: number;
  level?: number | undefined;
  seed: number;
  /** Paired draws sent ahead of the last one recorded: the calls in flight per arm. */
  window: number;
  /** `--max-samples`: all arms' samples together; null: no cap. */
  maxSamples: number | null;
  /**
   * `--baseline RUN`: each case's mean score in the stored run, taken as the baseline's; only
   * the candidate is sampled. Absent: two arms, the first the baseline.
   */
  baseline?: ReadonlyMap<string, number> | undefined;
}

/** What a sequential run decided, for the comparison's `sequential` block. */
export interface PairedResult {
  decision: SequentialDecision & { reason: StopReason };
  interval: [number, number];
  /** Samples each sampled arm ran (its rows), baseline first. */
  samples: number[];
}

interface Step {
  index: number;
  chance: number;
  sample: number;
}

/**
 * The draws of a sequential run (src/stats/sequential.ts) shared by its arms: step t is a case
 * picked at random, sampled once on each arm (its sample number: the times it was picked
 * before). Up to `window` steps are in flight; step t is picked once the steps up to
 * t − window are recorded, from their outcomes alone, so the picks depend on the seed and the
 * outcomes only, never on which call came back first. Outcomes are recorded in step order. A
 * resumed run replays its rows the same way, and goes on where they end.
 */
export class PairedDraws {
  readonly arms: ArmDraws[];
  private readonly state: SequentialState;
  private readonly rng: Rng;
  private readonly steps: Step[] = [];
  private readonly picked: number[];
  /** Per sampled arm: the score of each sample settled, by case and sample. */
  private readonly scores: Map<string, number>[];
  /** Per sampled arm: the next step it has not been handed yet. */
  private readonly handed: number[];
  private readonly waiting = new Set<() => void>();
  private readonly started = new Set<number>();
  private readonly watched = new WeakSet<AbortSignal>();
  private recorded = 0;
  private stopped: PairedResult["decision"] | null = null;

  constructor(private readonly options: PairedDrawOptions) {
    const cases = options.cases.length;
    this.state = startSequential({
      cases,
      margin: options.margin,
      maxK: options.maxK,
      ...(options.level === undefined ? {} : { level: options.level }),
    });
    this.rng = createRng(options.seed);
    this.picked = Array<number>(cases).fill(0);
    const sampled = options.baseline ? 1 : 2;
    this.scores = Array.from({ length: sampled }, () => new Map());
    this.handed = Array<number>(sampled).fill(0);
    this.arms = this.scores.map((_, arm) => this.armDraws(arm));
  }

  /** The cases drawn from. */
  get cases(): number {
    return this.options.cases.length;
  }

  /** The verdict, its interval and the samples each arm took; undecided runs are "budget". */
  result(): PairedResult {
    const exhausted = decision(this.state, { exhausted: true });
    return {
      decision: this.stopped ?? { ...exhausted, reason: exhausted.reason ?? "budget" },
      interval: confidenceInterval(this.state),
      samples: this.scores.map((scores) => scores.size),
    };
  }

  private armDraws(arm: number): ArmDraws {
    return {
      restore: (row) => {
        if (row.sample !== undefined && row.sample !== null) {
          this.scores[arm]!.set(key(row.id, row.sample), row.score);
        }
      },
      next: (signal) => this.next(arm, signal),
      plan: () => ({ max_k: this.options.maxK, stopped: this.stopped?.reason ?? null }),
      settled: (id, sample, score) => {
        if (score === null) this.stop(this.budgetStop());
        else {
          this.scores[arm]!.set(key(id, sample), score);
          this.advance();
        }
      },
    };
  }

  private async next(
    arm: number,
    signal: AbortSignal,
  ): Promise<{ id: string; sample: number } | null> {
    if (!this.started.has(arm)) {
      this.started.add(arm);
      // Every arm's earlier rows are restored before it draws: then the steps are replayed.
      if (this.started.size === this.scores.length) this.replay();
    }
    for (;;) {
      if (this.stopped !== null || signal.aborted) return null;
      const step = this.handOut(arm);
      if (step !== null) return step;
      // One listener per signal, however many lanes wait on it.
      if (!this.watched.has(signal)) {
        this.watched.add(signal);
        signal.addEventListener("abort", () => this.wakeAll(), { once: true });
      }
      await new Promise<void>((resolve) => this.waiting.add(resolve));
    }
  }

  /** The arm's next issued step it has no score for, or null while there is none. */
  private handOut(arm: number): { id: string; sample: number } | null {
    if (this.started.size < this.scores.length) return null;
    const scores = this.scores[arm]!;
    while (this.handed[arm]! < this.steps.length) {
      const step = this.steps[this.handed[arm]!++]!;
      const id = this.options.cases[step.index]!;
      if (!scores.has(key(id, step.sample))) return { id, sample: step.sample };
    }
    return null;
  }

  private replay(): void {
    this.issue();
    this.advance();
  }

  /** Picks the steps the window allows: each from the outcomes recorded when its turn came. */
  private issue(): void {
    const { cases, maxK, window, maxSamples } = this.options;
    const cap = maxK * cases.length;
    const perStep = this.scores.length;
    while (
      this.stopped === null &&
      this.steps.length < this.recorded + window &&
      this.steps.length < cap &&
      (maxSamples === null || (this.steps.length + 1) * perStep <= maxSamples)
    ) {
      const { index, chance } = nextCase(this.state, this.rng);
      this.steps.push({ index, chance, sample: this.picked[index]!++ });
    }
    this.wakeAll();
  }

  /** Records the steps whose samples are all in, in step order; stops once decided. */
  private advance(): void {
    while (this.stopped === null && this.recorded < this.steps.length) {
      const step = this.steps[this.recorded]!;
      const id = this.options.cases[step.index]!;
      const got = this.scores.map((scores) => scores.get(key(id, step.sample)));
      if (got.some((score) => score === undefined)) break;
      const { baseline } = this.options;
      const base = baseline ? baseline.get(id)! : got[0]!;
      record(this.state, { index: step.index, chance: step.chance, base, cand: got.at(-1)! });
      this.recorded++;
      const now = decision(this.state);
      if (now.verdict !== null) {
        this.stop({ ...now, reason: now.reason ?? "decided" });
        return;
      }
      this.issue();
    }
    // Every step issued is recorded and no more may be: the sample cap is spent.
    if (
      this.stopped === null &&
      this.recorded === this.steps.length &&
      this.started.size === this.scores.length
    ) {
      this.stop(this.budgetStop());
    }
  }

  private budgetStop(): PairedResult["decision"] {
    const now = decision(this.state, { exhausted: true });
    return { ...now, reason: now.reason ?? "budget" };
  }

  private stop(outcome: PairedResult["decision"]): void {
    this.stopped ??= outcome;
    this.wakeAll();
  }

  private wakeAll(): void {
    const woken = [...this.waiting];
    this.waiting.clear();
    for (const wake of woken) wake();
  }
}

function key(id: string, sample: number): string {
  return `${id}\u0000${sample}`;
}
