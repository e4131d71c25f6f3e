import { open } from "node:fs/promises";
import { InputError } from "../errors.js";
import { type DiscoverOptions, discoverCheckFiles } from "./discover.js";
import { parseCheck, parseYamlMapping } from "./parse.js";
import type { Check } from "./types.js";

export interface SelectOptions extends DiscoverOptions {
  /** Run only the check with this id; other files need not be valid. */
  checkId?: string | undefined;
  /** Keep checks having at least one of these tags. */
  tags?: readonly string[] | undefined;
}

/**
 * The largest check file read. A check is a few lines of YAML (a script inline at most); a file
 * past this is a mistake, and read whole it could exhaust memory, or past 2 GB not be read at all.
 */
export const MAX_CHECK_FILE_BYTES = 10 * 1024 * 1024;

/** A check file's bytes; one over MAX_CHECK_FILE_BYTES is refused before it is read. */
export async function readCheckFile(file: string): Promise<Uint8Array> {
  const handle = await open(file, "r");
  try {
    const { size } = await handle.stat();
    if (size > MAX_CHECK_FILE_BYTES) {
      const mb = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
      throw new InputError(
        `${file}: the check file is ${mb(size)}; the limit is ${mb(MAX_CHECK_FILE_BYTES)} — a check is a few lines of YAML: put a long script in a file (script_path), or move this file out of the checks folder`,
      );
    }
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Discovers, loads and selects checks; any invalid definition stops everything (InputError). */
export async function loadChecks(options: SelectOptions): Promise<Check[]> {
  const files = await discoverCheckFiles(options);
  const checks =
    options.checkId === undefined ? await loadAll(files) : [await loadById(files, options.checkId)];
  const tags = options.tags ?? [];
  if (tags.length === 0) return checks;
  return checks.filter((check) => check.tags.some((tag) => tags.includes(tag)));
}

async function loadAll(files: readonly string[]): Promise<Check[]> {
  const checks = await Promise.all(
    files.map(async (file) => parseCheck(file, await readCheckFile(file))),
  );
  const seen = new Map<string, string>();
  for (const check of checks) {
    const first = seen.get(check.id);
    if (first !== undefined) {
      throw new InputError(
        `Duplicate check id '${check.id}' found in ${first} and ${check.sourcePath}. ` +
          "Check ids must be unique: rename one of them.",
      );
    }
    seen.set(check.id, check.sourcePath);
  }
  return checks;
}

/** Relaxed: only the file whose id matches must be valid, as in the Python original. */
async function loadById(files: readonly string[], id: string): Promise<Check> {
  const contents = await Promise.all(
    files.map(async (file) => ({ file, bytes: await readCheckFile(file) })),
  );
  const matches = contents.filter(({ file, bytes }) => rawId(file, bytes) === id);
  if (matches.length > 1) {
    const paths = matches.map((match) => match.file).join(", ");
    throw new InputError(`Duplicate check id '${id}' found in: ${paths}`);
  }
  const match = matches[0];
  if (!match)
    throw new InputError(`No check found with id '${id}'. Run \`eb list\` to see the ids.`);
  return parseCheck(match.file, match.bytes);
}

function rawId(file: string, bytes: Uint8Array): string | undefined {
  try {
    const id = parseYamlMapping(file, bytes).data.id;
    return typeof id === "string" ? id.trim() : undefined;
  } catch {
    return undefined;
  }
}
