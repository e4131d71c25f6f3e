import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import { InputError, throwProblems } from "../errors.js";
import { type DiscoverOptions, discoverCheckFiles } from "./discover.js";
import { parseCheck, parseYamlMapping } from "./parse.js";
import { idMatcher, noMatch, selectByTags } from "./select.js";
import type { Check } from "./types.js";

export interface SelectOptions extends DiscoverOptions {
  /**
   * Only the checks whose id matches one of these (an id, or a glob with `*` and `?`); files
   * with other ids need not be valid.
   */
  checkIds?: readonly string[] | undefined;
  /** Keep checks having at least one of these tags. */
  tags?: readonly string[] | undefined;
}

/**
 * The largest check file read. A check is a few lines of YAML (a script inline at most); a file
 * past this is a mistake, and read whole it could exhaust memory, or past 2 GB not be read at all.
 */
export const MAX_CHECK_FILE_BYTES = 10 * 1024 * 1024;

/**
 * A check file's bytes; one over MAX_CHECK_FILE_BYTES is refused before it is read. Read in
 * place: as promises, each of a few hundred small files took four round trips through the
 * thread pool before any check could start.
 */
export function readCheckFile(file: string): Uint8Array {
  const fd = openSync(file, "r");
  try {
    const { size } = fstatSync(fd);
    if (size > MAX_CHECK_FILE_BYTES) {
      const mb = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
      throw new InputError(
        `${file}: the check file is ${mb(size)}; the limit is ${mb(MAX_CHECK_FILE_BYTES)} — a check is a few lines of YAML: put a long script in a file (script_path), or move this file out of the checks folder`,
      );
    }
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Checks loaded, and every problem found loading them (each a message naming file:line). */
export interface FoundChecks {
  checks: Check[];
  problems: string[];
}

/** Discovers, loads and selects checks; any problem stops everything (InputError). */
export async function loadChecks(options: SelectOptions): Promise<Check[]> {
  const { checks, problems } = await findChecks(options);
  throwProblems(problems);
  return checks;
}

/**
 * Discovers, loads and selects checks, finding every problem in one pass: each invalid file,
 * each duplicate id, each `--check-id` that matches nothing. The checks that did load are
 * returned too, so their own problems (a script that does not compile) can be found as well.
 */
export async function findChecks(options: SelectOptions): Promise<FoundChecks> {
  const files = await discoverCheckFiles(options);
  const patterns = options.checkIds ?? [];
  const found = patterns.length === 0 ? loadFiles(files) : loadMatching(files, patterns);
  // A broken file may be the one with the tag asked for: the tags are looked at once all load.
  if (found.problems.length > 0) return found;
  return { checks: selectByTags(found.checks, options.tags ?? []), problems: [] };
}

/**
 * Relaxed, as in the Python original: only the files whose id matches must be valid. Every file
 * is read all the same (one too big to read is a problem: it may be the one asked for).
 */
function loadMatching(files: readonly string[], patterns: readonly string[]): FoundChecks {
  const matchers = patterns.map(idMatcher);
  const read = files.map(readEntry);
  const readable = read.filter((entry): entry is CheckFile => typeof entry !== "string");
  const ids = readable.map(rawId);
  const matches = (id: string | undefined, p: number) => id !== undefined && matchers[p]!(id);
  const matching = readable.filter((_, i) => patterns.some((_, p) => matches(ids[i], p)));
  const unmatched = patterns.filter((_, p) => !ids.some((id) => matches(id, p)));
  const { checks, problems } = parseEntries(matching);
  const unread = read.filter((entry): entry is string => typeof entry === "string");
  return { checks, problems: [...unread, ...problems, ...unmatched.map(noMatch)] };
}

/** Every file read and parsed; a file that cannot be is a problem, not a stop. */
function loadFiles(files: readonly string[]): FoundChecks {
  return parseEntries(files.map(readEntry));
}

interface CheckFile {
  file: string;
  bytes: Uint8Array;
}

/** A file's bytes, or the problem reading it. */
function readEntry(file: string): CheckFile | string {
  try {
    return { file, bytes: readCheckFile(file) };
  } catch (error) {
    if (error instanceof InputError) return error.message;
    const code = error instanceof Error && "code" in error ? String(error.code) : String(error);
    return `${file}: could not read the check file (${code})`;
  }
}

function parseEntries(entries: readonly (CheckFile | string)[]): FoundChecks {
  const parsed = entries.map((entry) => (typeof entry === "string" ? entry : parseEntry(entry)));
  const checks = parsed.filter((entry): entry is Check => typeof entry !== "string");
  const broken = parsed.filter((entry): entry is string => typeof entry === "string");
  return { checks, problems: [...broken, ...duplicateIds(checks)] };
}

function parseEntry({ file, bytes }: CheckFile): Check | string {
  try {
    return parseCheck(file, bytes);
  } catch (error) {
    if (error instanceof InputError) return error.message;
    throw error;
  }
}

function duplicateIds(checks: readonly Check[]): string[] {
  const byId = new Map<string, string[]>();
  for (const check of checks) byId.set(check.id, [...(byId.get(check.id) ?? []), check.sourcePath]);
  return [...byId].flatMap(([id, paths]) => {
    if (paths.length < 2) return [];
    const listed = `${paths.slice(0, -1).join(", ")} and ${paths.at(-1)}`;
    return [
      `Duplicate check id '${id}' found in ${listed}. Check ids must be unique: rename one of them.`,
    ];
  });
}

/** The id as written, for selection; undefined for a file that does not parse. */
function rawId({ file, bytes }: CheckFile): string | undefined {
  try {
    const id = parseYamlMapping(file, bytes).data.id;
    return typeof id === "string" ? id.trim() : undefined;
  } catch {
    return undefined;
  }
}
