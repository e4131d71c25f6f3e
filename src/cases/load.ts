import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { resolve } from "node:path";
import type { z } from "zod";
import { didYouMean, InputError } from "../errors.js";
import { getGrader, knownGraderTypes } from "../graders/registry.js";
import type { GraderSpec } from "../graders/types.js";
import { parseJsonOrNull } from "../report/json.js";
import { issueText, type Problem, problemReport } from "./problems.js";
import { CASE_FIELDS, type Case, caseLineSchema, FIELD_HINTS, graderHeadSchema } from "./schema.js";

/**
 * Reads and validates a JSONL case file. Every line is checked before anything runs; all
 * problems are reported together in one InputError, each as `<file>:<line>: <what> — <todo>`.
 */
export async function loadCases(path: string): Promise<{ cases: Case[]; sha256: string }> {
  const problems: Problem[] = [];
  const cases: Case[] = [];
  const firstLineOf = new Map<string, number>();
  const compiled: CompiledGraders = new Map();
  const onLine = (line: number, text: string) => {
    const parsed = parseLine(text, line, compiled);
    // One by one: push(...problems) of a line with 200,000 problems overflows the call stack.
    for (const problem of parsed.problems) problems.push(problem);
    if (parsed.id === undefined) return;
    const first = firstLineOf.get(parsed.id);
    if (first !== undefined) problems.push(duplicateId(parsed.id, first, line));
    else firstLineOf.set(parsed.id, line);
    if (parsed.case && first === undefined) cases.push(parsed.case);
  };
  const sha256 = await readLines(path, onLine, (problem) => problems.push(problem));
  if (problems.length > 0) throw new InputError(problemReport(path, problems));
  if (cases.length === 0) {
    throw new InputError(
      `${path}: no cases — write one JSON object per line (see the case format)`,
    );
  }
  return { cases, sha256 };
}

/**
 * The case ids of a case file in file order, and its sha256, without validating the cases:
 * `eb merge` orders a merged run's items as the file does (a file of this digest was valid).
 */
/**
 * Where a run's case file may be now, as absolute paths without repeats. Its manifest keeps the
 * path as shown then (relative to the directory eb ran in), so it is looked for from the current
 * directory, from `cwd` and from the run's project root.
 */
export function caseFileCandidates(casesFile: string, projectRoot: string, cwd = "."): string[] {
  const dirs = [process.cwd(), resolve(cwd), projectRoot];
  return [...new Set(dirs.map((dir) => resolve(dir, casesFile)))];
}

export async function caseIds(path: string): Promise<{ ids: string[]; sha256: string }> {
  const ids: string[] = [];
  const onLine = (_line: number, text: string) => {
    const value = parseJsonOrNull(text);
    if (typeof value === "object" && value !== null && "id" in value) ids.push(String(value.id));
  };
  const sha256 = await readLines(path, onLine, () => {});
  return { ids, sha256 };
}

/** True when some case has a grader that calls the judge model. */
export function needsJudge(cases: readonly Case[]): boolean {
  return cases.some((c) => c.graders.some((g) => g.usesJudge));
}

/**
 * The longest line read. A case is a prompt and its graders; a line beyond this is almost
 * certainly a mistake (a data dump, a missing newline), and holding it, its string and its
 * parsed form in memory would cost several times its size before a single call is made.
 */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * An over-long line is measured up to this size, then reading stops: a file with no newline at
 * all (a binary dump, /dev/zero) would otherwise be read to its end, or forever.
 */
export const MAX_MEASURED_BYTES = 256 * 1024 * 1024;

/**
 * Streams the file line by line (a huge file is never in memory at once; an over-long line is
 * measured, not kept), passing each non-blank line on, and returns the file's sha256.
 */
async function readLines(
  path: string,
  onLine: (line: number, text: string) => void,
  onProblem: (problem: Problem) => void,
): Promise<string> {
  const hash = createHash("sha256");
  const splitter = new LineSplitter((bytes, line, size) => {
    if (size > MAX_LINE_BYTES) onProblem(tooLong(line, size));
    else emit(bytes, line, onLine, onProblem);
  });
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
      hash.update(chunk as Buffer);
      // Leaving the loop closes the file; the hash is then partial, but the load fails anyway.
      if (!splitter.push(chunk as Buffer)) break;
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new InputError(`${path}: cannot read the case file (${code}) — check the path`);
  }
  splitter.end();
  return hash.digest("hex");
}

// ignoreBOM keeps a BOM in the text: only the one opening the file is dropped (below).
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function emit(
  bytes: Buffer,
  line: number,
  onLine: (line: number, text: string) => void,
  onProblem: (problem: Problem) => void,
): void {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    onProblem({ line, what: "the line is not valid UTF-8", todo: "save the file as UTF-8" });
    return;
  }
  if (line === 1) text = text.replace(/^\uFEFF/, "");
  text = text.replace(/\r$/, "");
  if (text.trim() !== "") onLine(line, text);
}

function tooLong(line: number, size: number): Problem {
  const mb = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
  const measured = size > MAX_MEASURED_BYTES ? `over ${mb(MAX_MEASURED_BYTES)}` : mb(size);
  return {
    line,
    what: `line is ${measured}; the limit is ${mb(MAX_LINE_BYTES)}`,
    todo: "keep each case small: put large inputs in files the target reads, not in the case",
  };
}

/**
 * Cuts a byte stream at "\n" (a byte that never occurs inside a multi-byte UTF-8 character).
 * Keeps at most MAX_LINE_BYTES of the current line; past that it only counts the bytes, and
 * past MAX_MEASURED_BYTES it ends the line and asks for no more input.
 */
class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private line = 1;

  constructor(private readonly onLine: (bytes: Buffer, line: number, size: number) => void) {}

  /** False once reading should stop (the line under way is already reported). */
  push(chunk: Buffer): boolean {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.keep(chunk.subarray(start, nl));
      this.flush();
      start = nl + 1;
    }
    if (start < chunk.length) this.keep(chunk.subarray(start));
    if (this.size <= MAX_MEASURED_BYTES) return true;
    this.flush();
    return false;
  }

  end(): void {
    if (this.size > 0) this.flush();
  }

  private keep(part: Buffer): void {
    if (this.size + part.length <= MAX_LINE_BYTES) this.parts.push(part);
    else this.parts = [];
    this.size += part.length;
  }

  private flush(): void {
    const bytes = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
    this.onLine(bytes, this.line, this.size);
    this.parts = [];
    this.size = 0;
    this.line++;
  }
}

interface ParsedLine {
  /** The id, when it is valid: duplicates are checked even if the rest of the line is not. */
  id?: string;
  case?: Case;
  problems: Problem[];
}

/**
 * The graders compiled so far, by their JSON: a suite repeats the same few graders on every
 * case, and compiling one (its schema, a regex's cost bound) took most of the loading of 2000
 * cases. A spec is never changed once compiled, so the cases share it.
 */
type CompiledGraders = Map<string, GraderSpec>;

function parseLine(text: string, line: number, compiled: CompiledGraders): ParsedLine {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { problems: [{ line, what: `invalid JSON (${why})`, todo: ONE_OBJECT_PER_LINE }] };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    const what = `the line is ${Array.isArray(raw) ? "an array" : typeof raw}, not a JSON object`;
    return { problems: [{ line, what, todo: ONE_OBJECT_PER_LINE }] };
  }
  const fields = raw as Record<string, unknown>;
  const problems: Problem[] = [];
  const id = validId(fields.id, line, problems);
  const head = caseLineSchema.safeParse(raw);
  if (!head.success) {
    // One by one: a line can hold hundreds of thousands of bad messages, too many to spread.
    for (const issue of head.error.issues) problems.push(caseIssue(issue, fields, line));
  }
  const graders = Array.isArray(fields.graders)
    ? compileGraders(fields.graders, line, problems, compiled)
    : [];
  if (!head.success || problems.length > 0) return { id, problems };
  const { stratum, messages } = head.data;
  return { id, problems, case: { id: head.data.id, stratum, messages, graders, line } };
}

const ONE_OBJECT_PER_LINE = "each non-blank line must be one complete JSON object (a case)";

/** Ids name files in the run folder, so they must be usable as one path component. */
function validId(id: unknown, line: number, problems: Problem[]): string | undefined {
  if (typeof id !== "string" || id === "") return undefined;
  const bad =
    id === "." || id === ".."
      ? `id "${id}" is a directory name`
      : /[/\\\0]/.test(id)
        ? `id ${JSON.stringify(id)} contains "/", "\\" or a NUL character`
        : null;
  if (bad === null) return id;
  const todo = "rename the case: ids become file names in the run folder";
  problems.push({ line, what: bad, todo });
  return undefined;
}

function duplicateId(id: string, first: number, line: number): Problem {
  return {
    line,
    what: `duplicate id "${id}" (first used on line ${first})`,
    todo: "give each case a unique id",
  };
}

function caseIssue(issue: z.core.$ZodIssue, raw: Record<string, unknown>, line: number): Problem {
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => `"${k}"`).join(", ");
    const allowed = CASE_FIELDS.map((f) => `"${f}"`).join(", ");
    const near = issue.keys.flatMap((k) => didYouMean(k, CASE_FIELDS, '"') ?? []);
    return {
      line,
      what: `unknown field ${keys}`,
      todo: [...near, `a case has only ${allowed}`].join(" "),
    };
  }
  const top = String(issue.path[0] ?? "");
  return { line, what: issueText(issue, raw), todo: FIELD_HINTS[top] ?? ONE_OBJECT_PER_LINE };
}

function compileGraders(
  list: unknown[],
  line: number,
  problems: Problem[],
  compiled: CompiledGraders,
): GraderSpec[] {
  const specs: GraderSpec[] = [];
  const indexOf = new Map<string, number>();
  list.forEach((raw, i) => {
    const json = JSON.stringify(raw);
    const spec = compiled.get(json) ?? compileGrader(raw, `graders[${i}]`, line, problems);
    if (!spec) return;
    compiled.set(json, spec);
    const first = indexOf.get(spec.name);
    if (first === undefined) {
      indexOf.set(spec.name, i);
      specs.push(spec);
      return;
    }
    problems.push({
      line,
      what: `graders[${first}] and graders[${i}] are both named "${spec.name}"`,
      todo: 'give each grader of a case a distinct "name" (the name defaults to the type)',
    });
  });
  return specs;
}

function compileGrader(
  raw: unknown,
  label: string,
  line: number,
  problems: Problem[],
): GraderSpec | undefined {
  const head = graderHeadSchema.safeParse(raw);
  if (!head.success) {
    const todo = FIELD_HINTS.graders as string;
    for (const issue of head.error.issues) {
      problems.push({ line, what: `${label}: ${issueText(issue, raw)}`, todo });
    }
    return undefined;
  }
  const { type, name, ...fields } = head.data;
  const grader = getGrader(type);
  if (!grader) {
    const known = knownGraderTypes();
    const near = didYouMean(type, known, '"');
    const list = known.join(", ");
    const todo =
      near === null ? `use one of the known types: ${list}` : `${near} Known types: ${list}`;
    problems.push({ line, what: `${label}: unknown grader type "${type}"`, todo });
    return undefined;
  }
  const compiled = grader.compile(fields);
  if (!compiled.ok) {
    const takes = `${type} takes ${grader.describe}`;
    for (const issue of compiled.issues) {
      const near = nearFields(issue, grader.schema);
      const todo = near.length > 0 ? `${near.join(" ")} ${takes}` : takes;
      problems.push({ line, what: `${label} (${type}): ${graderIssueText(issue, fields)}`, todo });
    }
    return undefined;
  }
  const { grade, criteria, python } = compiled;
  return {
    type,
    name: name ?? type,
    usesJudge: grader.usesJudge,
    grade,
    ...(criteria ? { criteria } : {}),
    ...(python ? { python } : {}),
  };
}

/** "did you mean" for each unknown field of a grader, from the fields its schema takes. */
function nearFields(issue: z.core.$ZodIssue, schema: z.ZodType): string[] {
  if (issue.code !== "unrecognized_keys" || !("shape" in schema)) return [];
  const known = Object.keys(schema.shape as object);
  return issue.keys.flatMap((key) => didYouMean(key, known, '"') ?? []);
}

function graderIssueText(issue: z.core.$ZodIssue, fields: unknown): string {
  if (issue.code !== "unrecognized_keys") return issueText(issue, fields);
  return `unknown field ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
}
