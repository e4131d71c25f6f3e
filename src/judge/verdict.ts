/**
 * The one verdict extractor shared by the agent (harness) judge and the model judge.
 *
 * Agents print their verdict in many wrappers: bare text after a preamble, Markdown fences,
 * pretty-printed JSON, and JSON event streams where the verdict exists only JSON-escaped inside
 * a string field (claude/gemini stream-json, codex/opencode JSON events). So instead of masking
 * strings over the whole text (one stray `"` in prose flips such a mask and hides every later
 * verdict), we try to read a JSON value at every `{`, and we decode string values that could hold
 * an escaped verdict and search them the same way.
 *
 * One file, though long: it is one scanner over character codes (agents print megabytes), and its
 * state constants, memo tables and scratch pools only make sense read together.
 */

export interface Verdict {
  score: 0 | 1;
  reason: string | null;
}

/** A pairwise judge's verdict: which answer is better, A (shown first), B, or neither. */
export interface WinnerVerdict {
  winner: Winner;
  reason: string | null;
}

export const WINNERS = ["A", "B", "tie"] as const;
export type Winner = (typeof WINNERS)[number];

export const NO_VERDICT_MESSAGE =
  'Harness judge output did not contain a valid JSON verdict with "score": 0 or 1.';

/**
 * Returns the last valid verdict in `text`, or null. "Last" means the greatest end offset; a
 * verdict found inside a JSON string takes the end offset of the outermost complete JSON value
 * around that string.
 */
export function extractVerdict(text: string): Verdict | null {
  const found = extractLast(text, SCORE);
  return found && { score: found.value, reason: found.reason };
}

/**
 * The last valid `{"winner": "A" | "B" | "tie", "reason": "..."}` in `text`, or null: the rules
 * of extractVerdict, with "winner" in place of "score".
 */
export function extractWinner(text: string): WinnerVerdict | null {
  const found = extractLast(text, WINNER);
  return found && { winner: found.value, reason: found.reason };
}

/**
 * What a verdict of one kind is: the key that decides it, and how its value is read at an
 * offset (null: not a valid value, so the object is no verdict).
 */
interface VerdictShape<T> {
  key: string;
  read(text: string, at: number, string: StringAt): T | null;
}

/** The string value at an offset, decoded, or null when the value there is not a string. */
type StringAt = (at: number) => string | null;

/** A verdict's deciding value and its reason. */
interface Found<T> {
  value: T;
  reason: string | null;
}

const SCORE: VerdictShape<0 | 1> = { key: "score", read: readScore };
const WINNER: VerdictShape<Winner> = { key: "winner", read: readWinner };

function extractLast<T>(text: string, shape: VerdictShape<T>): Found<T> | null {
  const scratch = acquireScratch(text.length);
  try {
    return new VerdictScanner(text, scratch, shape).run();
  } finally {
    scratchLevel--;
  }
}

const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const SLASH = 0x2f;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const COLON = 0x3a;
const UPPER_E = 0x45;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const LOWER_E = 0x65;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** What the scanner may read next. */
const KEY_OR_CLOSE = 0;
const KEY = 1;
const AFTER_KEY = 2;
const VALUE_OR_CLOSE = 3;
const VALUE = 4;
const COMMA_OR_CLOSE = 5;

const KEY_OTHER = 0;
/** The key that decides the verdict: "score", or "winner". */
const KEY_VALUE = 1;
const KEY_REASON = 2;

/** Memo cells: see Scratch.memo. */
const UNKNOWN = 0;
const FAILED = -1;

/** Keys longer than this cannot decode to a verdict's keys, however they are escaped. */
const MAX_ESCAPED_KEY = 64;

interface Embedded {
  verdict: Found<unknown>;
  /** Offset used for ordering: the end of the string, or of the closed child that held it. */
  at: number;
}

/**
 * A hand-written, iterative JSON scanner. It builds no objects: it only records, per open object,
 * where the values of "score" and "reason" start, and reads those two when the object closes.
 *
 * Work stays linear although a scan starts at every `{`. The JSON value starting at a given offset
 * is unique (the grammar is LL(1)), so each container's outcome is memoised by its start offset
 * and any later scan that reaches it jumps over it or fails at once. Two live scans that are not
 * nested in one another disagree on whether the current offset is inside a string, and stay in
 * disagreement (every unescaped quote flips both; an escaped one kills the scan that is outside
 * a string), so each character is read by at most two scans.
 */
class VerdictScanner<T> {
  private readonly text: string;
  private readonly memo: Int32Array;
  private readonly frames: FrameStack;
  private readonly shape: VerdictShape<T>;
  private best: Found<T> | null = null;
  private bestEnd = -1;
  private bestDirect = false;

  private pos = 0;
  private state = KEY_OR_CLOSE;
  private pendingKey = KEY_OTHER;
  private stringHasEscape = false;
  private stringHasBrace = false;

  constructor(text: string, scratch: Scratch, shape: VerdictShape<T>) {
    this.text = text;
    this.memo = scratch.memo;
    this.frames = scratch.frames;
    this.shape = shape;
  }

  run(): Found<T> | null {
    const text = this.text;
    for (let k = text.indexOf("{"); k !== -1; k = text.indexOf("{", k + 1)) {
      if (this.memo[k] === UNKNOWN) this.scanFrom(k);
    }
    return this.best;
  }

  private scanFrom(start: number): void {
    const text = this.text;
    this.pendingKey = KEY_OTHER;
    this.open(start, true);
    this.pos = start + 1;
    while (this.frames.depth > 0) {
      this.pos = skipWhitespace(text, this.pos);
      if (this.pos >= text.length || !this.step()) {
        this.failOpenFrames();
        return;
      }
    }
  }

  private step(): boolean {
    const c = this.text.charCodeAt(this.pos);
    switch (this.state) {
      case KEY_OR_CLOSE:
        return c === CLOSE_BRACE ? this.close() : this.readKey();
      case KEY:
        return this.readKey();
      case AFTER_KEY:
        return this.readColon(c);
      case VALUE_OR_CLOSE:
        return c === CLOSE_BRACKET ? this.close() : this.readValue();
      case VALUE:
        return this.readValue();
      default:
        return this.readSeparator(c);
    }
  }

  private open(start: number, isObject: boolean): void {
    this.frames.push(start, isObject);
    this.state = isObject ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
  }

  private readKey(): boolean {
    const start = this.pos;
    if (this.text.charCodeAt(start) !== QUOTE) return false;
    const end = this.scanString(start);
    if (end < 0) return false;
    this.pendingKey = this.keyKind(start, end);
    this.pos = end;
    this.state = AFTER_KEY;
    return true;
  }

  private keyKind(start: number, end: number): number {
    const length = end - start - 2;
    if (this.stringHasEscape) {
      return length <= MAX_ESCAPED_KEY
        ? this.kindOf(JSON.parse(this.text.slice(start, end)))
        : KEY_OTHER;
    }
    const { key } = this.shape;
    if (length === key.length && this.text.startsWith(key, start + 1)) return KEY_VALUE;
    if (length === 6 && this.text.startsWith("reason", start + 1)) return KEY_REASON;
    return KEY_OTHER;
  }

  private kindOf(key: unknown): number {
    if (key === this.shape.key) return KEY_VALUE;
    if (key === "reason") return KEY_REASON;
    return KEY_OTHER;
  }

  private readColon(c: number): boolean {
    if (c !== COLON) return false;
    this.pos++;
    this.state = VALUE;
    return true;
  }

  private readValue(): boolean {
    const at = this.pos;
    this.noteKeyedValue(at);
    const c = this.text.charCodeAt(at);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) return this.enter(at, c === OPEN_BRACE);
    const end = c === QUOTE ? this.readStringValue(at) : scanScalar(this.text, at);
    if (end < 0) return false;
    this.pos = end;
    this.state = COMMA_OR_CLOSE;
    return true;
  }

  private noteKeyedValue(at: number): void {
    // Later duplicates overwrite earlier ones, matching JSON.parse.
    if (this.pendingKey !== KEY_OTHER) this.frames.noteKey(this.pendingKey, at);
    this.pendingKey = KEY_OTHER;
  }

  private enter(at: number, isObject: boolean): boolean {
    const known = this.memo[at] ?? FAILED;
    if (known === FAILED) return false;
    if (known > 0) {
      this.pos = known;
      this.state = COMMA_OR_CLOSE;
      return true;
    }
    this.open(at, isObject);
    this.pos = at + 1;
    return true;
  }

  private readSeparator(c: number): boolean {
    const isObject = this.frames.topIsObject();
    if (c === COMMA) {
      this.pos++;
      this.state = isObject ? KEY : VALUE;
      return true;
    }
    return c === (isObject ? CLOSE_BRACE : CLOSE_BRACKET) && this.close();
  }

  private close(): boolean {
    const frames = this.frames;
    const end = this.pos + 1;
    this.memo[frames.topStart()] = end;
    if (frames.topIsObject()) this.offerDirect(end);
    const embedded = frames.pop();
    if (embedded) this.passEmbedded(embedded.verdict, end);
    this.pos = end;
    this.state = COMMA_OR_CLOSE;
    return true;
  }

  /** An escaped verdict is placed at the end of the outermost complete value around it. */
  private passEmbedded(verdict: Found<unknown>, end: number): void {
    if (this.frames.depth === 0) this.offer(verdict, end, false);
    else this.frames.setChildEmbedded({ verdict, at: end });
  }

  private failOpenFrames(): void {
    // Children that closed before the failure are complete values; their strings still count.
    for (const child of this.frames.failAll(this.memo)) this.offer(child.verdict, child.at, false);
  }

  private readStringValue(start: number): number {
    const end = this.scanString(start);
    // An escaped verdict needs both a `{` and an escaped quote.
    if (end > 0 && this.stringHasEscape && this.stringHasBrace) this.searchLeaf(start, end);
    return end;
  }

  private searchLeaf(start: number, end: number): void {
    const decoded: unknown = JSON.parse(this.text.slice(start, end));
    if (typeof decoded !== "string") return;
    const verdict = extractLast(decoded, this.shape);
    if (verdict) this.frames.setOwnEmbedded({ verdict, at: end });
  }

  /** Returns the offset after the closing quote, or -1; sets the escape/brace flags. */
  private scanString(start: number): number {
    const text = this.text;
    let hasEscape = false;
    let hasBrace = false;
    for (let i = start + 1; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        this.stringHasEscape = hasEscape;
        this.stringHasBrace = hasBrace;
        return i + 1;
      }
      if (c === BACKSLASH) {
        const length = escapeLength(text, i);
        if (length === 0) return -1;
        hasEscape = true;
        i += length - 1;
      } else if (c < SPACE) {
        return -1;
      } else if (c === OPEN_BRACE) {
        hasBrace = true;
      }
    }
    return -1;
  }

  private offerDirect(end: number): void {
    const verdict = this.topVerdict();
    if (verdict) this.offer(verdict, end, true);
  }

  private topVerdict(): Found<T> | null {
    const valueAt = this.frames.topKeyAt(KEY_VALUE);
    if (valueAt < 0) return null;
    const value = this.shape.read(this.text, valueAt, this.stringAt);
    if (value === null) return null;
    const reasonAt = this.frames.topKeyAt(KEY_REASON);
    if (reasonAt < 0) return { value, reason: null };
    const reason = this.stringAt(reasonAt);
    return reason === null ? null : { value, reason };
  }

  /** The string value at `at` (already scanned as valid JSON), or null for another value. */
  private readonly stringAt: StringAt = (at) => {
    if (this.text.charCodeAt(at) !== QUOTE) return null;
    const value: unknown = JSON.parse(this.text.slice(at, this.scanString(at)));
    return typeof value === "string" ? value : null;
  };

  /** On equal end offsets the object itself beats a verdict escaped inside its strings. */
  private offer(verdict: Found<unknown>, end: number, direct: boolean): void {
    if (end > this.bestEnd || (end === this.bestEnd && direct && !this.bestDirect)) {
      // Every verdict offered was read with this scanner's shape, embedded ones too.
      this.best = verdict as Found<T>;
      this.bestEnd = end;
      this.bestDirect = direct;
    }
  }
}

interface Scratch {
  /** Per offset: 0 = not scanned yet, -1 = no JSON value starts here, n > 0 = its end offset. */
  memo: Int32Array;
  frames: FrameStack;
}

/**
 * Scratch buffers per recursion level (decoding a string leaf re-enters extractVerdict). Event
 * streams hold thousands of small leaves, and allocating typed arrays for each one dominated the
 * run time.
 */
const scratchPool: Scratch[] = [];
let scratchLevel = 0;

/** Larger memos are not pooled, so one huge output does not keep its memory alive. */
const MAX_POOLED_MEMO = 1 << 20;
const MAX_POOLED_FRAMES = 1 << 12;

function acquireScratch(length: number): Scratch {
  const pooled = scratchPool[scratchLevel] ?? {
    memo: new Int32Array(256),
    frames: new FrameStack(),
  };
  scratchPool[scratchLevel++] = pooled;
  pooled.frames.reset();
  if (length > MAX_POOLED_MEMO) return { memo: new Int32Array(length), frames: pooled.frames };
  if (pooled.memo.length >= length) {
    pooled.memo.fill(UNKNOWN, 0, length);
  } else {
    pooled.memo = new Int32Array(Math.max(length, pooled.memo.length * 2));
  }
  return pooled;
}

/**
 * Open containers. Typed columns rather than objects because agents can print JSON nested
 * millions of levels deep, and an explicit stack because that would overflow the call stack.
 */
class FrameStack {
  depth = 0;
  private starts = new Int32Array(64);
  private objects = new Uint8Array(64);
  /** Where the deciding key's value ("score", "winner") starts, per open object. */
  private values = new Int32Array(64);
  private reasons = new Int32Array(64);
  // Escaped verdicts are rare, so they live in maps keyed by depth rather than in columns.
  private readonly own = new Map<number, Embedded>();
  private readonly child = new Map<number, Embedded>();

  reset(): void {
    this.depth = 0;
    this.own.clear();
    this.child.clear();
    // Do not keep a stack grown by one pathological input.
    if (this.starts.length > MAX_POOLED_FRAMES) this.allocate(64);
  }

  push(start: number, isObject: boolean): void {
    if (this.depth === this.starts.length) this.grow();
    const d = this.depth++;
    this.starts[d] = start;
    this.objects[d] = isObject ? 1 : 0;
    this.values[d] = -1;
    this.reasons[d] = -1;
  }

  /** Pops the top frame and returns the latest escaped verdict it held. */
  pop(): Embedded | null {
    const d = --this.depth;
    if (this.own.size === 0 && this.child.size === 0) return null;
    const embedded = later(this.own.get(d) ?? null, this.child.get(d) ?? null);
    if (embedded) {
      this.own.delete(d);
      this.child.delete(d);
    }
    return embedded;
  }

  /** Marks every open container as failed and returns what their closed children held. */
  failAll(memo: Int32Array): readonly Embedded[] {
    for (let d = 0; d < this.depth; d++) memo[this.starts[d]!] = FAILED;
    this.depth = 0;
    if (this.own.size === 0 && this.child.size === 0) return NONE;
    const children = [...this.child.values()];
    this.own.clear();
    this.child.clear();
    return children;
  }

  topStart(): number {
    return this.starts[this.depth - 1]!;
  }

  topIsObject(): boolean {
    return this.objects[this.depth - 1] === 1;
  }

  noteKey(kind: number, at: number): void {
    (kind === KEY_VALUE ? this.values : this.reasons)[this.depth - 1] = at;
  }

  topKeyAt(kind: number): number {
    return (kind === KEY_VALUE ? this.values : this.reasons)[this.depth - 1]!;
  }

  setOwnEmbedded(embedded: Embedded): void {
    this.own.set(this.depth - 1, embedded);
  }

  setChildEmbedded(embedded: Embedded): void {
    this.child.set(this.depth - 1, embedded);
  }

  private allocate(size: number): void {
    this.starts = new Int32Array(size);
    this.objects = new Uint8Array(size);
    this.values = new Int32Array(size);
    this.reasons = new Int32Array(size);
  }

  private grow(): void {
    const size = this.starts.length * 2;
    this.starts = resized(this.starts, new Int32Array(size));
    this.objects = resized(this.objects, new Uint8Array(size));
    this.values = resized(this.values, new Int32Array(size));
    this.reasons = resized(this.reasons, new Int32Array(size));
  }
}

const NONE: readonly Embedded[] = [];

function resized<T extends Int32Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

function later(a: Embedded | null, b: Embedded | null): Embedded | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.at >= b.at ? a : b;
}

/** `true`, `"1"`, `2` and `1.5` are not scores; `1.0` and `1e0` are the number 1. */
function readScore(text: string, at: number): 0 | 1 | null {
  const c = text.charCodeAt(at);
  if (c !== MINUS && !isDigit(c)) return null;
  const value = Number(text.slice(at, scanNumber(text, at)));
  if (value === 1) return 1;
  return value === 0 ? 0 : null;
}

/** `"A"`, `"B"` and `"tie"` exactly: `"a"`, `"Tie"` and `1` are not winners. */
function readWinner(_text: string, at: number, string: StringAt): Winner | null {
  const value = string(at);
  return WINNERS.find((winner) => winner === value) ?? null;
}

function skipWhitespace(text: string, start: number): number {
  let i = start;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== SPACE && c !== LINE_FEED && c !== CARRIAGE_RETURN && c !== TAB) return i;
    i++;
  }
}

/** Length of the escape sequence at `at` (a backslash), or 0 when it is not valid JSON. */
function escapeLength(text: string, at: number): number {
  const c = text.charCodeAt(at + 1);
  if (c === 0x75) return isHex4(text, at + 2) ? 6 : 0;
  const simple = c === QUOTE || c === BACKSLASH || c === SLASH;
  // b f n r t
  return simple || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74 ? 2 : 0;
}

function isHex4(text: string, start: number): boolean {
  for (let i = start; i < start + 4; i++) {
    const c = text.charCodeAt(i);
    const letter = c | 0x20; // folds A-F onto a-f
    if (!isDigit(c) && !(letter >= 0x61 && letter <= 0x66)) return false;
  }
  return true;
}

function isDigit(c: number): boolean {
  return c >= DIGIT_0 && c <= DIGIT_9;
}

const LITERALS = ["true", "false", "null"] as const;

function scanScalar(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === MINUS || isDigit(c)) return scanNumber(text, at);
  for (const literal of LITERALS) {
    if (text.startsWith(literal, at)) return at + literal.length;
  }
  return -1;
}

function scanNumber(text: string, start: number): number {
  const sign = text.charCodeAt(start) === MINUS ? start + 1 : start;
  // A leading zero stands alone: "01" is a 0 followed by junk.
  const integer = text.charCodeAt(sign) === DIGIT_0 ? sign + 1 : requireDigits(text, sign);
  if (integer < 0) return -1;
  const fraction = text.charCodeAt(integer) === DOT ? requireDigits(text, integer + 1) : integer;
  if (fraction < 0) return -1;
  const c = text.charCodeAt(fraction);
  if (c !== LOWER_E && c !== UPPER_E) return fraction;
  const exponentSign = text.charCodeAt(fraction + 1);
  const digits = exponentSign === PLUS || exponentSign === MINUS ? fraction + 2 : fraction + 1;
  return requireDigits(text, digits);
}

/** Offset after a run of one or more digits starting at `start`, or -1 if there is none. */
function requireDigits(text: string, start: number): number {
  let i = start;
  while (isDigit(text.charCodeAt(i))) i++;
  return i > start ? i : -1;
}
