import { isObject } from "./json.js";
import { type StoredRow, statusSchema } from "./record.js";

/** What one line of a rows file holds. */
export type Line = StoredRow | { manifest: unknown };

const FIX = " — fix the line, or the program that wrote it";

/** The one fault a crash can leave on a last line: it stopped mid-write. */
export const NOT_JSON = `not valid JSON (each line is one JSON object, a row)${FIX}`;

/** A line parsed, before it is checked. */
type ParsedRow = Record<string, unknown>;

/** A field that feeds only a side statistic: when its type is wrong, the row is kept without it. */
interface SideField {
  name: "stratum" | "tags" | "marks" | "votes" | "ms" | "cached" | "model" | TokenField;
  /**
   * The field's value. One function per field, not `row[name]`: a lookup by a name that changes
   * from one field to the next is a slow one, and it runs eleven times a row.
   */
  get: (row: ParsedRow) => unknown;
  valid: (value: unknown) => boolean;
  want: string;
  /** What a row without the field is left out of. */
  feeds: string;
}

type TokenField =
  | "prompt_tokens"
  | "completion_tokens"
  | "judge_prompt_tokens"
  | "judge_completion_tokens";

const tokens = (name: TokenField, get: (row: ParsedRow) => unknown): SideField => ({
  name,
  get,
  valid: (value) => value === null || (Number.isSafeInteger(value) && Number(value) >= 0),
  want: "a whole number ≥ 0 or null",
  feeds: "the token counts and cost",
});

const SIDE_FIELDS: readonly SideField[] = [
  {
    name: "stratum",
    get: (row) => row.stratum,
    valid: isString,
    want: "a string",
    feeds: "the breakdown by stratum",
  },
  {
    name: "tags",
    get: (row) => row.tags,
    valid: (value) => Array.isArray(value) && value.every(isString),
    want: "a list of strings",
    feeds: "the breakdown by tag",
  },
  {
    name: "marks",
    get: (row) => row.marks,
    valid: isBooleanRecord,
    want: "an object of true/false",
    feeds: "the failures per grader",
  },
  {
    name: "votes",
    get: (row) => row.votes,
    valid: isVoteRecord,
    want: "an object of lists of 0 and 1",
    feeds: "the judge's self-agreement",
  },
  {
    name: "ms",
    get: (row) => row.ms,
    valid: (value) => typeof value === "number" && Number.isFinite(value) && value >= 0,
    want: "a number ≥ 0",
    feeds: "the latency",
  },
  {
    name: "cached",
    get: (row) => row.cached,
    valid: (value) => typeof value === "boolean",
    want: "true or false",
    feeds: "the cache share (counted as not cached)",
  },
  {
    name: "model",
    get: (row) => row.model,
    valid: (value) => value === null || isString(value),
    want: "a string or null",
    feeds: "the tokens by model (counted as unnamed)",
  },
  tokens("prompt_tokens", (row) => row.prompt_tokens),
  tokens("completion_tokens", (row) => row.completion_tokens),
  tokens("judge_prompt_tokens", (row) => row.judge_prompt_tokens),
  tokens("judge_completion_tokens", (row) => row.judge_completion_tokens),
];

const STATUSES = new Set<unknown>(statusSchema.options);

const SHOWN_CHARS = 60;

/**
 * What is known of an id, as a small integer (a million rows cost no object each): bit 29 is set
 * when the id was written as a number, bits 0..28 are the samples read (k is small).
 */
const NUMERIC_ID = 1 << 29;
const LOW_SAMPLES = 29;
/** Ids of the first chunk of `known` (it doubles as more come). */
const FIRST_IDS = 1024;

interface Dropped {
  field: SideField;
  first: number;
  /** The first wrong value, as shown (a reference could keep a huge value alive). */
  value: string;
  rows: number;
}

/**
 * Reads the lines of one rows file. What decides a score, an item or a pairing (id, score,
 * sample, status; one row per item and sample) must be right, or the line is refused: a report
 * built on a guess there would print a wrong pass rate with a confident interval. A side field of
 * the wrong type is dropped from its row instead and counted by name, for one warning each: the
 * pass rate and the gate do not depend on it, so refusing would block a CI gate over a latency.
 * Validated by hand, not by a schema: this runs once per row, a million times.
 */
export class RowReader {
  /** Each id's number, from 0 in the order the ids first appear. */
  private readonly slots = new Map<string, number>();
  /** What is known of each id, by its number. */
  private known = new Int32Array(FIRST_IDS);
  /** Samples past the bits of `known`, as `<id>\0<sample>`. */
  private readonly highSamples = new Set<string>();
  private readonly dropped = new Map<string, Dropped>();
  /**
   * The number of the last row's id (0 for the first id to appear, 1 for the next…): a tally
   * keeps its items by it, without looking the id up again.
   */
  slot = -1;

  /** The line's row or manifest, null for a blank line, or what is wrong with it. */
  read(text: string, line: number): Line | string | null {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return text.trim() === "" ? null : NOT_JSON;
    }
    if (!isObject(value)) return `a row must be a JSON object${FIX}`;
    if (isObject(value.manifest)) return { manifest: value.manifest };
    // Read as a row, it would pass for a manifest line downstream, and not be counted.
    if (value.manifest !== undefined) return `"manifest" must be an object${FIX}`;
    const problem = coreProblem(value) ?? this.identityProblem(value);
    if (problem !== null) return problem;
    // The parsed object becomes the row, changed in place: a copy of each of a million rows
    // would cost a third of the parse.
    if (typeof value.id === "number") value.id = String(value.id);
    for (const field of SIDE_FIELDS) {
      const found = field.get(value);
      if (found === undefined || field.valid(found)) continue;
      delete value[field.name];
      this.drop(field, line, found);
    }
    // coreProblem found id (now a string) and score as a row has them.
    return value as typeof value & Pick<StoredRow, "id" | "score">;
  }

  /** One warning per dropped field: how many rows, the first line and its value. */
  warnings(file: string): string[] {
    return [...this.dropped.values()]
      .sort((a, b) => a.first - b.first)
      .map(({ field, first, value, rows }) => {
        const count = `${rows} row${rows === 1 ? "" : "s"}`;
        return `${file}:${first}: "${field.name}" is ${value}, not ${field.want}, in ${count} (first here): left out of ${field.feeds} — fix the program that wrote the rows`;
      });
  }

  private drop(field: SideField, line: number, value: unknown): void {
    const dropped = this.dropped.get(field.name);
    if (dropped) dropped.rows++;
    else this.dropped.set(field.name, { field, first: line, value: shown(value), rows: 1 });
  }

  /** A second row of an (id, sample), or an id written both as a number and as a string. */
  private identityProblem(value: Record<string, unknown>): string | null {
    const id = String(value.id);
    const numeric = typeof value.id === "number" ? NUMERIC_ID : 0;
    const slot = this.slotOf(id, numeric);
    const known = this.known[slot]!;
    if ((known & NUMERIC_ID) !== numeric) {
      const [here, there] = numeric ? ["a number", "a string"] : ["a string", "a number"];
      return `id ${shown(value.id)} is ${here} here and ${there} on an earlier line — both would count as one item ${shown(id)}: write every id the same way`;
    }
    const sample = value.sample as number | undefined;
    this.slot = slot;
    if (!this.markRead(id, slot, sample)) return null;
    return `a second row for id ${shown(id)}, sample ${sample} — a rows file holds one row per item and sample; were two runs' rows joined? Report each run on its own`;
  }

  /** The id's number; a new id gets the next one, written as a number or not as this row has it. */
  private slotOf(id: string, numeric: number): number {
    const slot = this.slots.get(id);
    if (slot !== undefined) return slot;
    const next = this.slots.size;
    this.slots.set(id, next);
    if (next === this.known.length) {
      const grown = new Int32Array(next * 2);
      grown.set(this.known);
      this.known = grown;
    }
    this.known[next] = numeric;
    return next;
  }

  /** Records the row's sample; true if that sample of the id was read before. */
  private markRead(id: string, slot: number, sample: number | undefined): boolean {
    if (sample === undefined) return false;
    if (sample >= LOW_SAMPLES) {
      const key = `${id}\0${sample}`;
      const before = this.highSamples.has(key);
      this.highSamples.add(key);
      return before;
    }
    const bit = 1 << sample;
    const known = this.known[slot]!;
    this.known[slot] = known | bit;
    return (known & bit) !== 0;
  }
}

function coreProblem(value: Record<string, unknown>): string | null {
  const { id, score, sample, status } = value;
  if (!(typeof id === "string" || (typeof id === "number" && Number.isFinite(id)))) {
    return `a row needs an "id" (a string)${FIX}`;
  }
  if (typeof score !== "number" || score < 0 || score > 1) {
    return `a row needs a "score" between 0 and 1${FIX}`;
  }
  // Safe integers only: past 2^53 two samples can parse to the same number.
  if (sample !== undefined && !(Number.isSafeInteger(sample) && Number(sample) >= 0)) {
    return `a row's "sample" must be a whole number ≥ 0, not ${shown(sample)}${FIX}`;
  }
  if (status !== undefined && !STATUSES.has(status)) {
    return `a row's "status" must be "passed", "failed" or "error", not ${shown(status)}${FIX}`;
  }
  return null;
}

/** A value as JSON, short: messages stay one line even for a huge or hostile value. */
function shown(value: unknown): string {
  if (typeof value === "number") return String(value);
  const short = typeof value === "string" ? value.slice(0, SHOWN_CHARS) : value;
  const text = JSON.stringify(short) ?? String(value);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
}

function isString(value: unknown): value is string {
  return typeof value === "string";
}

function isVoteRecord(value: unknown): boolean {
  if (!isObject(value)) return false;
  return Object.values(value).every((v) => Array.isArray(v) && v.every((x) => x === 0 || x === 1));
}

function isBooleanRecord(value: unknown): boolean {
  if (!isObject(value)) return false;
  for (const key in value) if (typeof value[key] !== "boolean") return false;
  return true;
}
