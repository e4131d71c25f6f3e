import { existsSync, statSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { issueText } from "../cases/problems.js";
import { InputError } from "../errors.js";

/** One eval of a skill: a prompt for the agent, the files it starts with, what to grade. */
export interface SkillEval {
  id: string;
  prompt: string;
  expectedOutput: string | null;
  /** Absolute paths of the files the eval's workspace starts with. */
  files: string[];
  expectations: string[];
}

/** One query of a trigger set: should the agent reach for the skill on it? */
export interface TriggerEval {
  id: string;
  query: string;
  shouldTrigger: boolean;
}

/** What one file holds: evals, or a trigger set. */
export interface SkillEvalFile {
  file: string;
  skillName: string | null;
  evals: SkillEval[];
  triggers: TriggerEval[];
}

const id = z.union([z.string().min(1), z.number().int().min(0)]);
/** An expectation as real files write it: a string, `{text}`, `{id, text}`, `{name, description}`. */
const expectation = z.union([
  z.string().min(1),
  z.looseObject({ text: z.string().min(1) }).transform((e) => e.text),
  z
    .looseObject({ name: z.string().min(1), description: z.string().min(1) })
    .transform((e) => `${e.name}: ${e.description}`),
]);
const evalSchema = z.looseObject({
  id: id.optional(),
  prompt: z.string().min(1),
  expected_output: z.string().optional(),
  files: z
    .array(z.union([z.string().min(1), z.looseObject({ path: z.string().min(1) })]))
    .optional(),
  expectations: z.union([expectation, z.array(expectation)]).optional(),
  assertions: z.union([expectation, z.array(expectation)]).optional(),
});
const triggerSchema = z.looseObject({
  id: id.optional(),
  query: z.string().min(1),
  should_trigger: z.boolean(),
});
const LIST_KEYS = ["evals", "cases", "test_cases"] as const;

/**
 * Reads the eval files of a skill folder (every `evals/*.json`), or one eval file, in
 * skill-creator's layout and the variants real files use. What cannot be read is an InputError
 * naming the file and the field.
 */
export async function loadSkillEvals(location: string): Promise<SkillEvalFile[]> {
  const at = path.resolve(location);
  if (!statSync(at, { throwIfNoEntry: false })?.isDirectory()) return [await loadEvalFile(at)];
  const dir = path.join(at, "evals");
  const names = (await readdir(dir).catch(() => [])).filter((name) => name.endsWith(".json"));
  if (names.length === 0) {
    throw new InputError(
      `${location}: no evals/*.json in this skill folder — write evals/evals.json ({"skill_name", "evals": [{"id", "prompt", "expectations"}]})`,
    );
  }
  return Promise.all(names.sort().map((name) => loadEvalFile(path.join(dir, name), at)));
}

/** One eval file; `skillRoot` defaults to the folder above its `evals/` folder. */
export async function loadEvalFile(file: string, skillRoot?: string): Promise<SkillEvalFile> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new InputError(`${file}: cannot read it (${error.code ?? error.message})`);
  });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${file}: not JSON (${(error as Error).message})`);
  }
  const root = skillRoot ?? path.dirname(path.dirname(file));
  const { list, key, skillName } = listOf(data, file);
  const where = (i: number) => (key === null ? `[${i}]` : `${key}[${i}]`);
  if (list.length === 0) throw new InputError(`${file}: ${key ?? "the list"}: no evals in it`);
  if (list.every((entry) => isObject(entry) && "query" in entry && !("prompt" in entry))) {
    return {
      file,
      skillName,
      evals: [],
      triggers: list.map((e, i) => trigger(e, i, file, where(i))),
    };
  }
  const evals = list.map((entry, i) => skillEval(entry, i, { file, root, where: where(i) }));
  refuseDuplicates(evals, file);
  return { file, skillName, evals, triggers: [] };
}

function listOf(data: unknown, file: string) {
  if (Array.isArray(data)) return { list: data as unknown[], key: null, skillName: null };
  if (!isObject(data)) throw new InputError(`${file}: expected an object or a list of evals`);
  const skillName = typeof data.skill_name === "string" ? data.skill_name : null;
  for (const key of [...LIST_KEYS, "queries"]) {
    const list = data[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new InputError(`${file}: ${key}: expected a list`);
    return { list: list as unknown[], key, skillName };
  }
  throw new InputError(
    `${file}: no list of evals — expected "evals" (or "cases", "test_cases"; "queries" for a trigger set)`,
  );
}

function skillEval(
  entry: unknown,
  index: number,
  at: { file: string; root: string; where: string },
): SkillEval {
  const parsed = evalSchema.safeParse(entry);
  if (!parsed.success) throw fieldError(at.file, at.where, parsed.error, entry);
  const e = parsed.data;
  const listed = e.expectations ?? e.assertions ?? [];
  return {
    id: String(e.id ?? index),
    prompt: e.prompt,
    expectedOutput: e.expected_output ?? null,
    files: (e.files ?? []).map((f, i) =>
      evalFile(typeof f === "string" ? f : f.path, at, `${at.where}.files[${i}]`),
    ),
    expectations: Array.isArray(listed) ? listed : [listed],
  };
}

/** Relative to the skill root, else to its evals/ folder (both layouts are common). */
function evalFile(given: string, at: { file: string; root: string }, where: string): string {
  const candidates = [path.resolve(at.root, given), path.resolve(at.root, "evals", given)];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (found !== undefined) return found;
  throw new InputError(
    `${at.file}: ${where}: ${given} not found (looked in ${candidates.join(" and ")})`,
  );
}

function trigger(entry: unknown, index: number, file: string, where: string): TriggerEval {
  const parsed = triggerSchema.safeParse(entry);
  if (!parsed.success) throw fieldError(file, where, parsed.error, entry);
  const t = parsed.data;
  return { id: String(t.id ?? index), query: t.query, shouldTrigger: t.should_trigger };
}

function fieldError(file: string, where: string, error: z.ZodError, entry: unknown): InputError {
  const first = error.issues[0]!;
  return new InputError(`${file}: ${where}: ${issueText(first, entry)}`);
}

function refuseDuplicates(evals: readonly SkillEval[], file: string): void {
  const seen = new Set<string>();
  for (const e of evals) {
    if (seen.has(e.id)) throw new InputError(`${file}: two evals have the id ${e.id}`);
    seen.add(e.id);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
