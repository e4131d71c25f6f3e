import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { caseFileCandidates, loadCases } from "../cases/load.js";
import { parseYamlMapping } from "../checks/parse.js";
import type { Manifest } from "../index.js";
import type { ItemPlace } from "../render/github.js";
import { parseJsonOrNull } from "../report/json.js";
import { parseManifest } from "../report/manifest.js";
import { manifestAt } from "./run-location.js";

/** What a run folder says about its items' definitions, beyond the rows. */
export interface RunDefinitions {
  projectRoot: string | null;
  /** Where each item is defined, by id (only the items whose place is known). */
  places: Map<string, ItemPlace>;
}

const checkSourcesSchema = z.looseObject({
  checks: z.array(z.looseObject({ check_id: z.string(), source_path: z.string() })),
});

const NONE: RunDefinitions = { projectRoot: null, places: new Map() };

/**
 * Reads what the run wrote (its manifest, report.json) and, for a case run, its case file when
 * that file is still the one the run read (same sha256): a changed file's lines would point at
 * other cases. Nothing here fails: a place that cannot be known is left out.
 */
export async function runDefinitions(rowsFile: string): Promise<RunDefinitions> {
  const manifest = parseManifest(manifestAt(rowsFile));
  if (manifest === null) return NONE;
  const projectRoot = manifest.project_root;
  if (manifest.kind === "cases") return { projectRoot, places: await casePlaces(manifest) };
  // A pairwise run's items are cases of a file it did not run: no place to name.
  if (manifest.kind === "pairwise") return { projectRoot, places: new Map() };
  const places = await checkPlaces(path.join(path.dirname(rowsFile), "report.json"));
  return { projectRoot, places };
}

/** Each ran check's YAML file (from report.json) and the line of its `id:` key. */
async function checkPlaces(reportFile: string): Promise<Map<string, ItemPlace>> {
  const parsed = checkSourcesSchema.safeParse(await readJson(reportFile));
  if (!parsed.success) return new Map();
  const entries = await Promise.all(
    parsed.data.checks.map(async (check) => {
      const place = { file: check.source_path, line: await idLine(check.source_path) };
      return [check.check_id, place] as const;
    }),
  );
  return new Map(entries);
}

async function idLine(file: string): Promise<number | null> {
  try {
    return parseYamlMapping(file, await readFile(file)).place("id")?.start ?? null;
  } catch {
    return null;
  }
}

type CaseManifest = Extract<Manifest, { kind: "cases" }>;

/** The cases of the file the run read, if it is found unchanged: from the cwd or the root. */
async function casePlaces(manifest: CaseManifest): Promise<Map<string, ItemPlace>> {
  for (const file of caseFileCandidates(manifest.cases_file, manifest.project_root)) {
    const loaded = await loadCases(file).catch(() => null);
    if (loaded === null || loaded.sha256 !== manifest.cases_sha256) continue;
    return new Map(loaded.cases.map((c) => [c.id, { file, line: c.line }]));
  }
  return new Map();
}

/** A JSON file's value; null when it cannot be read or is not JSON. */
async function readJson(file: string): Promise<unknown> {
  return parseJsonOrNull(await readFile(file, "utf8").catch(() => ""));
}
