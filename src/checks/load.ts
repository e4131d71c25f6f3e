import { readFile } from "node:fs/promises";
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
    files.map(async (file) => parseCheck(file, await readFile(file))),
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
    files.map(async (file) => ({ file, bytes: await readFile(file) })),
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
