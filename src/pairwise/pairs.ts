import { existsSync } from "node:fs";
import path from "node:path";
import { caseFileCandidates, loadCases } from "../cases/load.js";
import type { Case } from "../cases/schema.js";
import { InputError } from "../errors.js";
import { preview } from "../report/compare-runs.js";
import { parseManifest } from "../report/manifest.js";
import { readRows, rowsFile } from "../report/read-rows.js";
import { type CaseManifest, COMMAND_OF, type StoredRow } from "../report/record.js";
import { readManifest } from "../run/rows.js";
import type { SuiteItem } from "../run/suite.js";

/** One answer of a run to a case's sample: its text, or why it has none (an error row). */
export type Answer = { text: string } | { missing: string };

/** A case both runs answered: what the judge is shown of it, and the answers by sample. */
export interface PairItem extends SuiteItem {
  stratum: string;
  /** The case's last message. */
  request: string;
  criteria: readonly string[];
  /** The samples both runs have, with each run's answer. */
  answers: ReadonlyMap<number, { base: Answer; cand: Answer }>;
}

/** A case run as a pairwise run records it. */
export interface PairedRun {
  run_id: string | null;
  rows: string;
}

export interface PairInputs {
  items: PairItem[];
  /** One more than the highest sample number both runs have. */
  samples: number;
  baseline: PairedRun;
  candidate: PairedRun;
  casesFile: string;
  casesSha256: string;
  /** Reasons to distrust the pairing: a changed case file, cases only one run has. */
  warnings: string[];
}

/**
 * What a case has no judge grader and `--criteria` is not given: the judge still needs something
 * to decide on.
 */
export const DEFAULT_CRITERIA = [
  "The answer does what the request asks: correct, complete, and no longer than it needs to be.",
];

interface CaseRun {
  location: string;
  file: string;
  manifest: CaseManifest;
  /** Rows by id, then sample. */
  rows: Map<string, Map<number, StoredRow>>;
}

export interface PairOptions {
  cwd: string;
  /** `--cases`: the case file, instead of the baseline's own. */
  cases?: string | undefined;
  /** `--criteria`: for every case, instead of its judge graders'. */
  criteria: string | null;
}

/**
 * The pairs of two finished case runs: every case and sample both have, with the request and
 * criteria from the case file. Throws InputError for a run that is not a case run, a case file
 * that cannot be found, and runs that share no case.
 */
export async function readPairs(
  baseline: string,
  candidate: string,
  options: PairOptions,
): Promise<PairInputs> {
  const [base, cand] = await Promise.all([caseRun(baseline), caseRun(candidate)]);
  const casesFile = caseFileOf(base, options);
  const loaded = await loadCases(casesFile);
  const items = loaded.cases.flatMap((c) => pairItem(c, base, cand, options.criteria));
  if (items.length === 0) throw new InputError(noCommonCase(base, cand, casesFile));
  const highest = highestSample(items);
  return {
    items,
    samples: highest + 1,
    baseline: { run_id: base.manifest.run_id, rows: base.file },
    candidate: { run_id: cand.manifest.run_id, rows: cand.file },
    casesFile,
    casesSha256: loaded.sha256,
    warnings: pairWarnings(base, cand, loaded.cases, loaded.sha256),
  };
}

/** A loop, not Math.max(...samples): a spread of 200,000 values overflows the call stack. */
function highestSample(items: readonly PairItem[]): number {
  let highest = 0;
  for (const item of items) {
    for (const sample of item.answers.keys()) highest = Math.max(highest, sample);
  }
  return highest;
}

async function caseRun(location: string): Promise<CaseRun> {
  // Absolute: the manifest names the runs, and --resume from another folder must match them.
  const file = path.resolve(await rowsFile(location));
  const manifest = parseManifest(readManifest(file));
  if (manifest === null || manifest.kind !== "cases") {
    const what = manifest === null ? "no run eb wrote" : `a run of ${COMMAND_OF[manifest.kind]}`;
    throw new InputError(
      `${location} is ${what}, not a case run: eb pairwise judges the answers of two runs of eb eval`,
    );
  }
  const rows = new Map<string, Map<number, StoredRow>>();
  for (const row of await readRows(file)) {
    const samples = rows.get(row.id) ?? new Map<number, StoredRow>();
    samples.set(row.sample ?? 0, row);
    rows.set(row.id, samples);
  }
  return { location, file, manifest, rows };
}

/** `--cases`, else the baseline's case file wherever caseFileCandidates finds it. */
function caseFileOf(base: CaseRun, options: PairOptions): string {
  if (options.cases !== undefined) return path.resolve(options.cwd, options.cases);
  const { cases_file, project_root } = base.manifest;
  const candidates = caseFileCandidates(cases_file, project_root, options.cwd);
  const found = candidates.find((file) => existsSync(file));
  if (found !== undefined) return found;
  const dirs = candidates.map((file) => path.dirname(file));
  throw new InputError(
    `the baseline's case file ${cases_file} is in none of ${dirs.join(", ")}: the judge needs ` +
      "each case's request; pass the file with --cases FILE",
  );
}

function pairItem(c: Case, base: CaseRun, cand: CaseRun, criteria: string | null): PairItem[] {
  const baseRows = base.rows.get(c.id);
  const candRows = cand.rows.get(c.id);
  if (baseRows === undefined || candRows === undefined) return [];
  const answers = new Map<number, { base: Answer; cand: Answer }>();
  const samples = [...baseRows.keys()].filter((s) => candRows.has(s)).sort((a, b) => a - b);
  for (const s of samples) {
    answers.set(s, { base: answerOf(baseRows.get(s)!), cand: answerOf(candRows.get(s)!) });
  }
  if (answers.size === 0) return [];
  return [
    {
      id: c.id,
      stratum: c.stratum,
      request: c.messages.at(-1)?.content ?? "",
      criteria: criteria === null ? criteriaOf(c) : [criteria],
      answers,
    },
  ];
}

/** The criteria of the case's judge graders, or DEFAULT_CRITERIA when it has none. */
function criteriaOf(c: Case): readonly string[] {
  const criteria = c.graders.flatMap((g) => g.criteria ?? []);
  return criteria.length > 0 ? criteria : DEFAULT_CRITERIA;
}

function answerOf(row: StoredRow): Answer {
  if (typeof row.text === "string") return { text: row.text };
  const why = row.error ?? row.reason ?? "no answer";
  return { missing: `sample ${row.sample ?? 0} is an error row (${why})` };
}

function pairWarnings(
  base: CaseRun,
  cand: CaseRun,
  cases: readonly Case[],
  sha256: string,
): string[] {
  const warnings: string[] = [];
  for (const [run, name] of [
    [base, "baseline"],
    [cand, "candidate"],
  ] as const) {
    if (run.manifest.cases_sha256 !== sha256) {
      warnings.push(
        `the case file differs from the one the ${name} ran (${run.manifest.cases_file}): the judge sees today's requests and criteria`,
      );
    }
  }
  const known = new Set(cases.map((c) => c.id));
  const onlyOne = [...new Set([...base.rows.keys(), ...cand.rows.keys()])]
    .filter((id) => !(base.rows.has(id) && cand.rows.has(id) && known.has(id)))
    .sort();
  if (onlyOne.length > 0) {
    warnings.push(
      `${onlyOne.length} case(s) not judged (not in both runs and the case file): ${preview(onlyOne)}`,
    );
  }
  return warnings;
}

function noCommonCase(base: CaseRun, cand: CaseRun, casesFile: string): string {
  const ids = (run: CaseRun) => {
    const list = [...run.rows.keys()].sort();
    return list.length === 0 ? "no rows" : `${list.length} case(s): ${preview(list)}`;
  };
  return (
    `the runs share no case of ${casesFile}, so there is nothing to judge: the baseline ` +
    `${base.location} has ${ids(base)}; the candidate ${cand.location} has ${ids(cand)}. ` +
    "Judge two runs of the same case file."
  );
}
