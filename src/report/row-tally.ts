import type { ItemAgg } from "../stats/interval.js";
import { JudgeNoiseTally } from "./judge-noise.js";
import type { Outcome } from "./outcome.js";
import { head, oneLine } from "./reason.js";
import { PAIR_OUTCOMES, type Status, type StoredRow } from "./record.js";

/** Characters kept of each sample's answer or output, and of a case's messages, in a document. */
export const EXCERPT_CHARS = 1000;

export interface TallyOptions {
  /** Keep each sample's outcome (with an excerpt of its answer) for the document's items. */
  outcomes?: boolean;
  /** A sample's output and files when its row has no text (a check's, from its result). */
  output?: (row: StoredRow) => { text: string | null; files: Outcome["files"] };
}

// One empty list for every item without tags or kept outcomes (a million items, a million
// lists otherwise); frozen, as nothing writes to an item's lists.
const NO_TAGS = Object.freeze([]) as unknown as string[];
const NO_OUTCOMES = Object.freeze([]) as unknown as Outcome[];

/** What a run keeps per item: sums, not samples, so a million rows fit in memory. */
export interface ItemTally extends ItemAgg {
  stratum: string;
  tags: string[];
  errors: number;
  cached: number;
  /** Why the first failed or errored sample fell short (`sample 2: …`); null if none. */
  problem: string | null;
}

/** An item as the tally keeps it. */
interface Entry extends ItemTally {
  /** The sample whose problem `problem` is; -1 while there is none. */
  problemSample: number;
}

export interface TokenCount {
  input: number;
  output: number;
}

/**
 * Aggregates rows as they stream past: per-item sums, grader failures, errors, cache hits, tokens
 * per model, and the latencies of uncached samples (the only honest ones).
 */
export class RowTally {
  private readonly entries = new Map<string, Entry>();
  /** Items by the number a RowReader gave their id (see `add`). */
  private readonly bySlot: Entry[] = [];
  private sorted: readonly ItemTally[] = [];
  readonly graderFailures = new Map<string, number>();
  /** Target tokens by model name. */
  readonly targetTokens = new Map<string, TokenCount>();
  readonly judgeTokens: TokenCount = { input: 0, output: 0 };
  readonly judgeNoise = new JudgeNoiseTally();
  /** The model versions that answered (a case row's `model_version`). */
  readonly modelVersions = new Set<string>();
  samples = 0;
  errors = 0;
  cached = 0;
  private latencies = new Float64Array(1024);
  latencyCount = 0;
  private readonly outcomes = new Map<string, Outcome[]>();
  private lastProblem = { why: "", sample: -1, status: "failed", problem: "" };

  constructor(private readonly options: TallyOptions = {}) {}

  /** Every item, by id. */
  get items(): ReadonlyMap<string, ItemTally> {
    return this.entries;
  }

  /**
   * Every item in id order (UTF-16 code units), not the order rows arrived in: float sums and
   * the bootstrap's draws then come out the same to the last digit for the same rows (a run, or
   * its shards merged). Sorted once, until an item is added.
   */
  itemsById(): readonly ItemTally[] {
    if (this.sorted.length !== this.entries.size) {
      this.sorted = [...this.entries.values()].sort((a, b) =>
        a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
      );
    }
    return this.sorted;
  }

  /**
   * Adds one row. `slot` is the number a RowReader gave the row's id (RowReader.slot), when all
   * rows of this tally come from that one reader: the item is then found without a lookup.
   */
  add(row: StoredRow, slot?: number): void {
    const item = slot === undefined ? this.itemFor(row) : this.itemAt(slot, row);
    item.n++;
    item.sum += row.score;
    this.samples++;
    const status = statusOf(row);
    if (status === "error") {
      item.errors++;
      this.errors++;
    }
    if (status !== "passed") this.noteProblem(item, row, status);
    const marks = row.marks;
    for (const name in marks) {
      if (!marks[name]) this.graderFailures.set(name, (this.graderFailures.get(name) ?? 0) + 1);
    }
    if (row.cached) {
      item.cached++;
      this.cached++;
    } else if (typeof row.ms === "number") this.addLatency(row.ms);
    this.addTokens(row);
    if (typeof row.model_version === "string") this.modelVersions.add(row.model_version);
    this.judgeNoise.add(row);
    if (this.options.outcomes) this.addOutcome(row, status);
  }

  /** An item's samples in sample order; empty unless the tally keeps outcomes. */
  outcomesOf(id: string): Outcome[] {
    const outcomes = this.outcomes.get(id);
    return outcomes === undefined ? NO_OUTCOMES : outcomes.sort((a, b) => a.sample - b.sample);
  }

  private addOutcome(row: StoredRow, status: Status): void {
    const output = this.options.output?.(row) ?? { text: textOf(row), files: [] };
    const list = this.outcomes.get(row.id);
    const outcome = outcomeOf(row, status, output);
    if (list) list.push(outcome);
    else this.outcomes.set(row.id, [outcome]);
  }

  /**
   * The problem of the item's lowest failed sample, whatever order samples finished in (those
   * of a check run side by side), so the same rows give the same report.
   */
  private noteProblem(item: Entry, row: StoredRow, status: Exclude<Status, "passed">): void {
    const sample = row.sample ?? 0;
    if (item.problemSample !== -1 && item.problemSample <= sample) return;
    item.problemSample = sample;
    item.problem = this.problemOf(row, sample, status);
  }

  /**
   * `sample <n>: <reason>`, or `sample <n>: error: <reason>`. Items often fall short alike (a
   * grader's one message): the last problem is reused when it would come out the same.
   */
  private problemOf(row: StoredRow, sample: number, status: Exclude<Status, "passed">): string {
    const why = whyOf(row, status);
    const last = this.lastProblem;
    if (why === last.why && sample === last.sample && status === last.status) return last.problem;
    const problem = `sample ${sample}: ${status === "error" ? "error: " : ""}${oneLine(why)}`;
    this.lastProblem = { why, sample, status, problem };
    return problem;
  }

  /** The latencies of uncached samples, in no particular order (a summary reorders them). */
  latencyValues(): Float64Array {
    return this.latencies.subarray(0, this.latencyCount);
  }

  private itemAt(slot: number, row: StoredRow): Entry {
    const known = this.bySlot[slot];
    if (known !== undefined) return known;
    const item = this.itemFor(row);
    this.bySlot[slot] = item;
    return item;
  }

  private itemFor(row: StoredRow): Entry {
    const existing = this.entries.get(row.id);
    if (existing) return existing;
    const item: Entry = {
      id: row.id,
      sum: 0,
      n: 0,
      stratum: row.stratum ?? "",
      tags: row.tags?.length ? row.tags : NO_TAGS,
      errors: 0,
      cached: 0,
      problem: null,
      problemSample: -1,
    };
    this.entries.set(row.id, item);
    return item;
  }

  private addLatency(ms: number): void {
    if (this.latencyCount === this.latencies.length) {
      const grown = new Float64Array(this.latencies.length * 2);
      grown.set(this.latencies);
      this.latencies = grown;
    }
    this.latencies[this.latencyCount++] = ms;
  }

  private addTokens(row: StoredRow): void {
    const input = row.prompt_tokens ?? 0;
    const output = row.completion_tokens ?? 0;
    if (input > 0 || output > 0) {
      const model = row.model ?? "";
      let count = this.targetTokens.get(model);
      if (count === undefined) {
        count = { input: 0, output: 0 };
        this.targetTokens.set(model, count);
      }
      count.input += input;
      count.output += output;
    }
    this.judgeTokens.input += row.judge_prompt_tokens ?? 0;
    this.judgeTokens.output += row.judge_completion_tokens ?? 0;
  }
}

/**
 * Why a sample fell short, before it is made one line: its reason. Rows of runs before reasons
 * were written (and the article's) have none: it is pieced together from their error or marks.
 */
function whyOf(row: StoredRow, status: Exclude<Status, "passed">): string {
  if (typeof row.reason === "string" && row.reason) return row.reason;
  // Another program's rows may hold anything in `error`.
  if (status === "error")
    return typeof row.error === "string" && row.error ? row.error : "unknown error";
  const failed = Object.entries(row.marks ?? {}).filter(([, pass]) => !pass);
  const why = failed.map(([name]) => {
    const reason = row.reasons?.[name];
    return typeof reason === "string" ? `${name}: ${reason}` : `${name} failed`;
  });
  return why.join("; ") || `scored ${row.score}`;
}

function outcomeOf(
  row: StoredRow,
  status: Status,
  output: { text: string | null; files: Outcome["files"] },
): Outcome {
  const reasons = row.reasons ?? {};
  const reason = typeof row.reason === "string" ? row.reason : null;
  const entries = Object.entries(row.marks ?? {});
  // A check has one grader (its type) and says why in the row's reason.
  const only = entries.length === 1 ? reason : null;
  const { text } = output;
  const pair = PAIR_OUTCOMES.find((o) => o === row.outcome);
  return {
    sample: row.sample ?? 0,
    status,
    ms: typeof row.ms === "number" ? row.ms : null,
    cached: row.cached === true,
    marks: entries.map(([grader, passed]) => ({
      grader,
      passed,
      reason: typeof reasons[grader] === "string" ? reasons[grader] : passed ? null : only,
    })),
    reason,
    error: typeof row.error === "string" ? row.error : null,
    excerpt: text === null ? null : text.length > EXCERPT_CHARS ? head(text, EXCERPT_CHARS) : text,
    chars: text === null ? null : text.length,
    files: output.files,
    ...(pair && { pair }),
    ...(row.skill && { skill: row.skill }),
  };
}

/** A case row's answer; rows of other programs may hold anything there. */
function textOf(row: StoredRow): string | null {
  const { text } = row as { text?: unknown };
  return typeof text === "string" ? text : null;
}

/** Rows without a status (the article's) are errors when they carry one, else by score. */
function statusOf(row: StoredRow): Status {
  if (row.status) return row.status;
  if (row.error) return "error";
  return row.score >= 1 ? "passed" : "failed";
}
