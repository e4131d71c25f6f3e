/**
 * A static upper bound on the work V8's backtracking engine (irregexp) can do to run a regular
 * expression over n characters, so that a match whose worst case is provably small can skip the
 * vm watchdog. Anything the analysis does not fully understand is unbounded.
 *
 * The bound follows the spec's continuation semantics, which irregexp implements (its
 * optimisations only skip work). For a piece e of the pattern followed by the rest r:
 *
 *   work(e r) <= ways(e) × (cost(e) + work(r))
 *
 * where ways(e) bounds how many times e hands over to r (one per path through e's choices) and
 * cost(e) bounds e's own steps per way, failed attempts included. Then
 *   - a sequence multiplies ways and adds costs;
 *   - an alternation adds its branches' ways (one extra step per way to try the next branch);
 *   - `x*`, `x+`, `x{m,}` over an x with a single way that consumes at least one character stop
 *     at one of at most n+1 distinct end positions: n+1 ways. Over anything else (`(a+)+`,
 *     `(a|aa)*`) the ways can be exponential;
 *   - `x{m,k}` and `x?` take j in m..k iterations of x: at most (k-m+1) × ways(x)^k ways;
 *   - a lookaround is atomic: one way, costing its whole search (bounded only without
 *     unbounded quantifiers inside);
 *   - backreferences make the ways depend on the text matched: unbounded.
 * Finally the search tries every start position 0..n.
 */

/**
 * At most `factor × (n+1)^degree` elementary steps (one character, class or assertion test) for
 * an input of n characters. `degree` is Infinity when the pattern may backtrack exponentially or
 * the analysis does not understand it.
 */
export interface CostModel {
  readonly degree: number;
  readonly factor: number;
}

export const UNBOUNDED: CostModel = { degree: Number.POSITIVE_INFINITY, factor: 1 };

/** The worst-case cost of `re.test(text)` for any text, as a function of its length. */
export function regexCost(re: RegExp): CostModel {
  // The u and v flags change the syntax (\u{...}, \p{...}, class set operations).
  if (/[uv]/.test(re.flags)) return UNBOUNDED;
  try {
    const whole = pattern(new Reader(re.source));
    // n+1 start positions, each: the pattern's ways, each ending in the final accept, plus the
    // step that moves on to the next start.
    return { degree: whole.ways.degree + 1, factor: whole.ways.factor * (whole.cost + 2) };
  } catch (error) {
    // A RangeError: groups nested deeper than this recursive parser can follow.
    if (error instanceof GiveUp || error instanceof RangeError) return UNBOUNDED;
    throw error;
  }
}

export function worstSteps(model: CostModel, length: number): number {
  if (!Number.isFinite(model.degree)) return Number.POSITIVE_INFINITY;
  return model.factor * (length + 1) ** model.degree;
}

/** The longest input whose worst case stays within `budget` steps; -1 when there is none. */
export function longestInputWithin(model: CostModel, budget: number): number {
  if (worstSteps(model, 0) > budget) return -1;
  if (model.degree === 0) return Number.POSITIVE_INFINITY;
  let length = Math.floor((budget / model.factor) ** (1 / model.degree)) - 1;
  // The root is computed in floating point: step back if it rounded up.
  while (length >= 0 && worstSteps(model, length) > budget) length--;
  return length;
}

/** A polynomial bound `factor × (n+1)^degree`, used for a piece's ways. */
type Bound = CostModel;

/** Part of a pattern: how often it can hand over to what follows, at what cost per way. */
interface Piece {
  readonly ways: Bound;
  /** Steps per way, independent of n. */
  readonly cost: number;
  /** The fewest characters it consumes. */
  readonly width: number;
}

/** The analysis meets something it cannot bound. */
class GiveUp extends Error {}

const ONE: Bound = { degree: 0, factor: 1 };
const LINEAR: Bound = { degree: 1, factor: 1 };
const EMPTY: Piece = { ways: ONE, cost: 0, width: 0 };
const CHARACTER: Piece = { ways: ONE, cost: 1, width: 1 };
const ASSERTION: Piece = { ways: ONE, cost: 1, width: 0 };

class Reader {
  private at = 0;

  constructor(private readonly source: string) {}

  get done(): boolean {
    return this.at >= this.source.length;
  }

  peek(): string {
    return this.source[this.at] ?? "";
  }

  next(): string {
    if (this.done) throw new GiveUp("unexpected end");
    return this.source[this.at++] as string;
  }

  /** Consumes `text` if it comes next. */
  eat(text: string): boolean {
    if (!this.source.startsWith(text, this.at)) return false;
    this.at += text.length;
    return true;
  }

  /** Consumes a match of `re` (sticky) if one comes next. */
  match(re: RegExp): RegExpExecArray | null {
    re.lastIndex = this.at;
    const found = re.exec(this.source);
    if (found) this.at += found[0].length;
    return found;
  }
}

function pattern(r: Reader): Piece {
  const whole = disjunction(r);
  if (!r.done) throw new GiveUp("unbalanced )");
  return whole;
}

function disjunction(r: Reader): Piece {
  const branches = [alternative(r)];
  while (r.eat("|")) branches.push(alternative(r));
  if (branches.length === 1) return branches[0] as Piece;
  return {
    ways: branches.map((b) => b.ways).reduce(plus),
    cost: branches.reduce((most, b) => Math.max(most, b.cost), 0) + 1,
    width: branches.reduce((least, b) => Math.min(least, b.width), Number.POSITIVE_INFINITY),
  };
}

function alternative(r: Reader): Piece {
  let sequence = EMPTY;
  while (!r.done && r.peek() !== "|" && r.peek() !== ")") {
    const next = term(r);
    sequence = {
      ways: times(sequence.ways, next.ways),
      cost: sequence.cost + next.cost,
      width: sequence.width + next.width,
    };
  }
  return sequence;
}

function term(r: Reader): Piece {
  const { piece, repeatable } = atom(r);
  const quantity = quantifier(r);
  if (!quantity) return piece;
  // Also a lookahead, which Annex B lets one quantify: not worth modelling.
  if (!repeatable) throw new GiveUp("quantified assertion");
  return repeat(piece, quantity);
}

interface Quantity {
  min: number;
  max: number;
}

const STAR: Quantity = { min: 0, max: Number.POSITIVE_INFINITY };
const PLUS: Quantity = { min: 1, max: Number.POSITIVE_INFINITY };
const OPTIONAL: Quantity = { min: 0, max: 1 };

/** `{` that does not read as a quantifier is a literal brace (Annex B), left to `atom`. */
const BRACES = /\{(\d+)(?:(,)(\d*))?\}/y;

function quantifier(r: Reader): Quantity | null {
  const quantity = r.eat("*") ? STAR : r.eat("+") ? PLUS : r.eat("?") ? OPTIONAL : braces(r);
  if (quantity) r.eat("?"); // lazy: the same paths in another order
  return quantity;
}

function braces(r: Reader): Quantity | null {
  const found = r.match(BRACES);
  if (!found) return null;
  const min = count(found[1] as string);
  if (!found[2]) return { min, max: min };
  return { min, max: found[3] ? count(found[3]) : Number.POSITIVE_INFINITY };
}

/** A repetition count; one too large to count exactly is not worth running directly. */
function count(digits: string): number {
  const value = Number(digits);
  if (!Number.isSafeInteger(value)) throw new GiveUp("huge repetition count");
  return value;
}

function repeat(body: Piece, { min, max }: Quantity): Piece {
  const width = min * body.width;
  if (max === Number.POSITIVE_INFINITY) {
    // Distinct iteration counts end at distinct positions only when one iteration has a single
    // path and moves forward; otherwise the paths multiply (catastrophic backtracking).
    if (body.ways.degree !== 0 || body.ways.factor !== 1 || body.width === 0) {
      throw new GiveUp("unbounded repetition of a piece with choices");
    }
    // Up to n+1 iterations plus the min mandatory ones and one failed attempt, spread over n+1 ways.
    return { ways: LINEAR, cost: (min + 2) * (body.cost + 1), width };
  }
  return {
    ways: times(power(body.ways, max), { degree: 0, factor: max - min + 1 }),
    cost: (max + 1) * (body.cost + 1),
    width,
  };
}

interface Atom {
  piece: Piece;
  /** False for assertions: V8 rejects a quantifier after them, except after a lookahead. */
  repeatable: boolean;
}

function atom(r: Reader): Atom {
  const ch = r.next();
  switch (ch) {
    case "(":
      return group(r);
    case "[":
      skipClass(r);
      return { piece: CHARACTER, repeatable: true };
    case "\\":
      return escaped(r);
    case "^":
    case "$":
      return { piece: ASSERTION, repeatable: false };
    case "*":
    case "+":
    case "?":
      throw new GiveUp("nothing to repeat");
    default:
      // Any other character, "." and the literal "{", "}" and "]" of Annex B.
      return { piece: CHARACTER, repeatable: true };
  }
}

/** A class tests one character, whatever it lists: V8 compiles it to a range search. */
function skipClass(r: Reader): void {
  for (let ch = r.next(); ch !== "]"; ch = r.next()) {
    if (ch === "\\") r.next();
  }
}

const CONTROL_LETTER = /[a-z]/iy;

function escaped(r: Reader): Atom {
  const ch = r.next();
  if (ch === "b" || ch === "B") return { piece: ASSERTION, repeatable: false };
  // \1-\9 may be a backreference (or a legacy octal escape), \k<name> one.
  if (/[1-9k]/.test(ch)) throw new GiveUp("backreference");
  // Without a letter after it, Annex B reads "\c" as two literal characters.
  if (ch === "c" && !r.match(CONTROL_LETTER)) throw new GiveUp("\\c without a control letter");
  // The digits of \x41, \u0041 or \012 are read as literal characters of their own: that
  // overcounts the cost, and the last one takes a quantifier just like the whole escape would.
  return { piece: CHARACTER, repeatable: true };
}

/** V8 has checked the name; `(?<=` and `(?<!` are tried first. */
const GROUP_NAME = /\?<[^>]*>/y;

function group(r: Reader): Atom {
  if (r.eat("?=") || r.eat("?!") || r.eat("?<=") || r.eat("?<!")) {
    return { piece: lookaround(closed(r)), repeatable: false };
  }
  // A capturing group, named or not, or a non-capturing one.
  if (r.eat("?:") || r.match(GROUP_NAME) || !r.eat("?")) {
    const body = closed(r);
    // One more step per way to record the capture.
    return { piece: { ...body, cost: body.cost + 1 }, repeatable: true };
  }
  throw new GiveUp("unknown group");
}

/** The disjunction of a group up to its closing parenthesis. */
function closed(r: Reader): Piece {
  const body = disjunction(r);
  if (!r.eat(")")) throw new GiveUp("unclosed group");
  return body;
}

function lookaround(body: Piece): Piece {
  if (body.ways.degree !== 0) throw new GiveUp("unbounded repetition in a lookaround");
  // Searched to its first success and never re-entered: one way costing the whole search.
  return { ways: ONE, cost: body.ways.factor * (body.cost + 1), width: 0 };
}

function times(a: Bound, b: Bound): Bound {
  return { degree: a.degree + b.degree, factor: a.factor * b.factor };
}

/** a + b <= (a.factor + b.factor) × (n+1)^max(degrees), since n+1 >= 1. */
function plus(a: Bound, b: Bound): Bound {
  return { degree: Math.max(a.degree, b.degree), factor: a.factor + b.factor };
}

function power(a: Bound, k: number): Bound {
  return { degree: a.degree * k, factor: a.factor ** k };
}
