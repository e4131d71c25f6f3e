/**
 * The one verdict extractor shared by the agent (harness) judge and the model judge.
 *
 * Agents print their verdict in many wrappers: bare text after a preamble, Markdown fences,
 * pretty-printed JSON, and JSON event streams where the verdict exists only JSON-escaped inside
 * a string field (claude/gemini stream-json, codex/opencode JSON events). So instead of masking
 * strings over the whole text (one stray `"` in prose flips such a mask and hides every later
 * verdict), we try to read a JSON object at every `{`, and we decode string values that could
 * hold an escaped verdict and search them the same way.
 *
 * The reader is our own, not JSON.parse on balanced spans: that would parse a nested object
 * once per level around it (quadratic on deep nesting), and drop a verdict that a duplicate
 * key overwrote, which is still a valid object in the text.
 */

import { WINNERS, type Winner } from "../report/record.js";

export interface Verdict {
  score: 0 | 1;
  reason: string | null;
}

export type { Winner };

/** A pairwise judge's verdict: which answer is better, A (shown first), B, or neither. */
export interface WinnerVerdict {
  winner: Winner;
  reason: string | null;
}

export const NO_VERDICT_MESSAGE =
  'Harness judge output did not contain a valid JSON verdict with "score": 0 or 1.';

/**
 * Returns the last valid verdict in `text`, or null. "Last" means the greatest end offset; a
 * verdict found inside a JSON string takes the end offset of the outermost complete JSON object
 * around that string.
 */
export function extractVerdict(text: string): Verdict | null {
  const found = new Scanner(text, SCORE).run();
  return found && { score: found.value, reason: found.reason };
}

/**
 * The last valid `{"winner": "A" | "B" | "tie", "reason": "..."}` in `text`, or null: the rules
 * of extractVerdict, with "winner" in place of "score".
 */
export function extractWinner(text: string): WinnerVerdict | null {
  const found = new Scanner(text, WINNER).run();
  return found && { winner: found.value, reason: found.reason };
}

/** A verdict's deciding key, and its value read from the parsed JSON (null: no verdict). */
interface Shape<T> {
  key: string;
  read(value: unknown): T | null;
}

/** A verdict's deciding value and its reason. */
interface Found<T> {
  value: T;
  reason: string | null;
}

/** `1.0` and `1e0` parse to 1; `true`, `"1"` and `1.5` are no scores. */
const SCORE: Shape<0 | 1> = {
  key: "score",
  read: (value) => (value === 1 ? 1 : value === 0 ? 0 : null),
};

/** `"A"`, `"B"` and `"tie"` exactly: `"a"`, `"Tie"` and `1` are no winners. */
const WINNER: Shape<Winner> = {
  key: "winner",
  read: (value) => WINNERS.find((winner) => winner === value) ?? null,
};

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

// Sticky, so each matches at lastIndex only.
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;
const SCALAR = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null/y;

/** Escaped keys longer than this (quotes included) cannot decode to "score", "winner", "reason". */
const MAX_ESCAPED_KEY = 66;

/** What the scanner may read next. */
type Expect = "key-or-close" | "key" | "colon" | "value-or-close" | "value" | "comma-or-close";

/** Which tracked key a value belongs to. */
type Tracked = "value" | "reason" | null;

/** The value of a tracked key that is an object or array: never a valid score or reason. */
const CONTAINER = Symbol("container");

/** What an open object holds that could make a verdict; most objects have none. */
interface Notes {
  /** Parsed values of the deciding key and "reason"; the last duplicate wins, as in JSON.parse. */
  value: unknown;
  reason: unknown;
  /** The latest verdict escaped in this object's strings, its children's included. */
  escaped: Found<unknown> | null;
}

/**
 * A JSON reader started at every `{` that no earlier read opened as an object (that object's
 * outcome is known: offered when it closed, or failed as a read from it would). It builds no
 * values: it keeps, per open object, the values of the deciding key and "reason".
 *
 * Work stays linear: a read starts inside a string of every earlier read still alive, and
 * stays in disagreement with them (every unescaped quote flips both; a backslash ends the read
 * that is outside a string), so at most two reads pass over any character.
 */
class Scanner<T> {
  /** 1 at each `{` some read opened as an object. */
  private readonly opened: Uint8Array;
  // Open objects, by depth: a count and a rarely made object, not an object each, because
  // agents print JSON nested a million deep. Arrays are only counted, inside their object:
  // they hold no keys, and a verdict escaped in their strings belongs to the object.
  private readonly arrays: number[] = [];
  private readonly notes: (Notes | undefined)[] = [];
  private depth = 0;
  private pos = 0;
  private expect: Expect = "key-or-close";
  private tracked: Tracked = null;
  /** Whether the string read last held an escape. */
  private escaped = false;
  private best: Found<T> | null = null;
  private bestEnd = -1;
  private bestDirect = false;

  constructor(
    private readonly text: string,
    private readonly shape: Shape<T>,
  ) {
    this.opened = new Uint8Array(text.length);
  }

  run(): Found<T> | null {
    const text = this.text;
    for (let k = text.indexOf("{"); k !== -1; k = text.indexOf("{", k + 1)) {
      if (this.opened[k] === 0) this.readFrom(k);
    }
    return this.best;
  }

  /** Reads one object; everything it closed was offered as it closed, so a failure just stops. */
  private readFrom(start: number): void {
    this.depth = 0;
    this.tracked = null;
    this.openObject(start);
    while (this.depth > 0) {
      this.pos = skipWhitespace(this.text, this.pos);
      if (this.pos >= this.text.length || !this.step()) return;
    }
  }

  private step(): boolean {
    const c = this.text.charCodeAt(this.pos);
    switch (this.expect) {
      case "key-or-close":
        return c === CLOSE_BRACE ? this.close() : this.readKey(c);
      case "key":
        return this.readKey(c);
      case "colon":
        return c === COLON && this.advance("value");
      case "value-or-close":
        return c === CLOSE_BRACKET ? this.close() : this.readValue();
      case "value":
        return this.readValue();
      default:
        return this.readSeparator(c);
    }
  }

  private advance(expect: Expect, to = this.pos + 1): true {
    this.pos = to;
    this.expect = expect;
    return true;
  }

  private topNotes(): Notes {
    const d = this.depth - 1;
    const notes = this.notes[d] ?? { value: undefined, reason: undefined, escaped: null };
    this.notes[d] = notes;
    return notes;
  }

  private openObject(at: number): true {
    this.opened[at] = 1;
    this.arrays[this.depth] = 0;
    this.notes[this.depth] = undefined;
    this.depth++;
    return this.advance("key-or-close", at + 1);
  }

  private readKey(c: number): boolean {
    if (c !== QUOTE) return false;
    const start = this.pos;
    const end = this.stringEnd(start);
    if (end < 0) return false;
    this.tracked = this.trackedKey(start, end);
    return this.advance("colon", end);
  }

  private trackedKey(start: number, end: number): Tracked {
    // Spare slicing keys too long to be "score", "winner" or "reason", escaped or not.
    if (end - start > (this.escaped ? MAX_ESCAPED_KEY : 8)) return null;
    const raw = this.text.slice(start, end);
    const key: unknown = this.escaped ? JSON.parse(raw) : raw.slice(1, -1);
    if (key === this.shape.key) return "value";
    return key === "reason" ? "reason" : null;
  }

  private readValue(): boolean {
    const at = this.pos;
    const c = this.text.charCodeAt(at);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      this.keep(CONTAINER);
      if (c === OPEN_BRACE) return this.openObject(at);
      this.arrays[this.depth - 1]!++;
      return this.advance("value-or-close");
    }
    const end = c === QUOTE ? this.readString(at) : match(SCALAR, this.text, at);
    if (end < 0) return false;
    if (this.tracked !== null) this.keep(JSON.parse(this.text.slice(at, end)));
    return this.advance("comma-or-close", end);
  }

  private keep(value: unknown): void {
    if (this.tracked !== null) this.topNotes()[this.tracked] = value;
    this.tracked = null;
  }

  /** Reads a string value, and searches it when it could hold an escaped verdict. */
  private readString(start: number): number {
    const end = this.stringEnd(start);
    // Without an escaped quote a string cannot hold a verdict.
    if (end < 0 || !this.escaped) return end;
    const raw = this.text.slice(start, end);
    if (!raw.includes("{")) return end;
    const found = new Scanner(JSON.parse(raw) as string, this.shape).run();
    if (found) this.topNotes().escaped = found;
    return end;
  }

  /** The end of the JSON string at `start`, or -1; sets `escaped`. */
  private stringEnd(start: number): number {
    const text = this.text;
    this.escaped = false;
    for (let at = start + 1; at < text.length; at++) {
      const c = text.charCodeAt(at);
      if (c === QUOTE) return at + 1;
      if (c < 0x20) return -1;
      if (c !== BACKSLASH) continue;
      // A regular expression for the whole string would overflow its stack on a long one.
      at = match(ESCAPE, text, at) - 1;
      if (at < 0) return -1;
      this.escaped = true;
    }
    return -1;
  }

  private readSeparator(c: number): boolean {
    const inArray = this.arrays[this.depth - 1]! > 0;
    if (c === COMMA) return this.advance(inArray ? "value" : "key");
    return c === (inArray ? CLOSE_BRACKET : CLOSE_BRACE) && this.close();
  }

  private close(): true {
    const d = this.depth - 1;
    const end = this.pos + 1;
    if (this.arrays[d]! > 0) {
      this.arrays[d]!--;
      return this.advance("comma-or-close", end);
    }
    this.depth--;
    const notes = this.notes[d];
    if (notes) this.offerClosed(notes, end);
    return this.advance("comma-or-close", end);
  }

  private offerClosed(notes: Notes, end: number): void {
    const verdict = this.verdictOf(notes);
    if (verdict) this.offer(verdict, end, true);
    if (!notes.escaped) return;
    this.offer(notes.escaped, end, false);
    // The enclosing object, if it closes, ends later: the escaped verdict moves out with it.
    if (this.depth > 0) this.topNotes().escaped = notes.escaped;
  }

  private verdictOf(notes: Notes): Found<T> | null {
    const value = this.shape.read(notes.value);
    if (value === null) return null;
    if (notes.reason === undefined) return { value, reason: null };
    return typeof notes.reason === "string" ? { value, reason: notes.reason } : null;
  }

  /** On equal end offsets the object itself beats a verdict escaped inside its strings. */
  private offer(verdict: Found<unknown>, end: number, direct: boolean): void {
    if (end > this.bestEnd || (end === this.bestEnd && direct && !this.bestDirect)) {
      // Every verdict offered was read with this scanner's shape, escaped ones too.
      this.best = verdict as Found<T>;
      this.bestEnd = end;
      this.bestDirect = direct;
    }
  }
}

function skipWhitespace(text: string, from: number): number {
  let at = from;
  for (let c = text.charCodeAt(at); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; ) {
    c = text.charCodeAt(++at);
  }
  return at;
}

/** The offset where a sticky pattern's match at `at` ends, or -1. */
function match(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at;
  return pattern.test(text) ? pattern.lastIndex : -1;
}
