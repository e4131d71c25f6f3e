import { lstat, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { type Config, environmentOf, type LoadConfigOptions, loadConfig } from "../config/load.js";
import { parseShard, type Shard } from "../config/shard-spec.js";
import { EXIT, InputError } from "../errors.js";
import type { RunDocument } from "../report/document.js";
import { parseJsonOrNull } from "../report/json.js";
import { parseManifest } from "../report/manifest.js";
import { forEachRowOf, rowsFile } from "../report/read-rows.js";
import {
  type CaseManifest,
  type CheckManifest,
  type Manifest,
  RESUME_KEYS,
} from "../report/record.js";
import { RowTally } from "../report/row-tally.js";
import { secretValues } from "../secrets/collect.js";
import { createScrubber, type Scrubber } from "../secrets/scrubber.js";
import { TOOL_VERSION } from "../version.js";
import { isoUtc, newRunId } from "./provenance.js";
import { writeReports } from "./reports.js";
import { readManifest } from "./rows.js";
import { createRunFolder, ROWS_FILE } from "./run-folder.js";
import { commandText } from "./run-suite.js";
import type { FinishContext, Finished } from "./suite.js";
import { wholeSuiteName } from "./suite-name.js";

export interface MergeOptions extends LoadConfigOptions {
  /** Shard run folders, or their rows files. */
  runs: readonly string[];
  /** Where the merged run folder goes (as `--out` of eb eval); the config's output_dir if absent. */
  out?: string | undefined;
  flatOutput?: boolean | undefined;
  /** Refuse, rather than warn, when shards are missing. */
  requireAll?: boolean | undefined;
  argv?: string[] | undefined;
  onWarning?: (message: string) => void;
}

/** What a front door adds to a merge of its runs: the reports an unsharded run of it writes. */
export interface MergeKind {
  finish(
    shards: readonly ShardRun[],
    context: FinishContext,
    config: Config,
    scrub: (text: string) => string,
  ): Promise<MergedReports>;
  /** Copies the kind's own files of each shard into the merged run folder; says what it left out. */
  copy?(shards: readonly ShardRun[], runDir: string): Promise<string[]>;
}

/** The reports of a merged run, as its kind's front door builds them. */
export type MergedReports = Finished<"checks" | "cases", RunDocument>;

/** A fresh MergeKind for a merge of runs of each kind that has shards. */
export interface MergeKinds {
  checks: () => MergeKind;
  cases: () => MergeKind;
}

export interface MergedRun {
  runDir: string;
  report: RunDocument;
  /** 0 passed, 1 fell short: the gate of an unsharded run. */
  exitCode: number;
}

/** One shard as given: where, its manifest, and what its report.json adds. */
export interface ShardRun {
  location: string;
  file: string;
  dir: string;
  /** Only runs of eb run and eb eval have shards. */
  manifest: CheckManifest | CaseManifest;
  written: Manifest;
  shard: Shard;
  report: ShardReport;
}

/** What a merge takes from a shard's report.json: the gate's threshold, what rows lack. */
const shardReportSchema = z.looseObject({
  pass_threshold: z.number(),
  checks: z.array(z.looseObject({ check_id: z.string(), source_path: z.string() })).optional(),
  judge_model_versions: z.array(z.string()).optional(),
});
export type ShardReport = z.infer<typeof shardReportSchema>;

/** What must be the same in every shard of one run, besides the settings of its kind. */
const SUITE_KEYS = ["kind", "item_set", "items_total", "git_commit", "harness"] as const;

/**
 * `eb merge`: one run folder from the shard run folders of one suite (`--shard I/N`): its rows,
 * a manifest saying which shards it joins, and the reports an unsharded run of the same rows
 * writes, with the same numbers and the same gate. Refuses (InputError) shards of different
 * suites or settings, an item in two shards and a shard given twice.
 */
export async function mergeShards(options: MergeOptions, kinds: MergeKinds): Promise<MergedRun> {
  const warn = options.onWarning ?? (() => {});
  if (options.runs.length === 0) throw new InputError("eb merge needs the shards' run folders");
  const shards = (await Promise.all(options.runs.map(readShard))).sort(
    (a, b) => a.shard.index - b.shard.index,
  );
  refuseDisagreement(shards);
  checkMissing(shards, options.requireAll ?? false, warn);
  const kind = kinds[shards[0]!.manifest.kind]();
  const rows = await readShardRows(shards, warn);
  const config = await loadConfig(options);
  const scrubber = createScrubber(secretValues(environmentOf(options)));
  const { runId, runDir } = await mergedFolder(config, options);
  const context = finishContext(shards, { runId, runDir }, rows.tally, options.argv ?? null);
  const finished = await kind.finish(shards, context, config, scrubber.scrub);
  await writeRows(runDir, mergedManifest(shards, context, finished, options), rows.lines, scrubber);
  for (const warning of (await kind.copy?.(shards, runDir)) ?? []) warn(warning);
  const unwritten = await writeReports(runDir, finished, scrubber.scrub);
  for (const warning of [...finished.warnings, ...unwritten]) warn(warning);
  return {
    runDir,
    report: finished.report,
    exitCode: finished.passed ? EXIT.passed : EXIT.fellShort,
  };
}

async function readShard(location: string): Promise<ShardRun> {
  const file = await rowsFile(location);
  await refuseLink(file);
  const dir = path.dirname(file);
  const raw = readManifest(file);
  const manifest = parseManifest(raw);
  if (manifest === null) {
    throw new InputError(`${location}: not a run eb wrote (its first line is no manifest)`);
  }
  const shard = manifest.shard === undefined ? null : parseShard(manifest.shard);
  if (shard === null || manifest.kind === "pairwise") {
    throw new InputError(
      `${location} is not a shard: its run had no --shard I/N (eb merge joins the shards of one run)`,
    );
  }
  const report = await readShardReport(location, dir);
  // As written (parsing puts known fields first): the merged manifest keeps their order.
  return { location, file, dir, manifest, written: raw as Manifest, shard, report };
}

async function readShardReport(location: string, dir: string): Promise<ShardReport> {
  const file = path.join(dir, "report.json");
  await refuseLink(file);
  const text = await readFile(file, "utf8").catch(() => null);
  const value = text === null ? null : parseJsonOrNull(text);
  // Checked, then kept as written: the checks' fields stay in the order eb run wrote them.
  if (shardReportSchema.safeParse(value).success) return value as ShardReport;
  throw new InputError(
    `${location}: ${text === null ? "no" : "an unreadable"} ${file}: the shard did not finish; ` +
      `finish it with --resume ${dir} and merge again`,
  );
}

/** A shard's own file read through a link could be anything outside it: refused. */
async function refuseLink(file: string): Promise<void> {
  const info = await lstat(file).catch(() => null);
  if (info?.isSymbolicLink()) {
    throw new InputError(
      `${file} is a symlink: eb merge reads only regular files inside the shard folders; nothing was written.`,
    );
  }
}

/** Every setting, and the shard count, the same in all shards; each shard once. */
function refuseDisagreement(shards: readonly ShardRun[]): void {
  const first = shards[0]!;
  const keys: readonly string[] = [...SUITE_KEYS, ...settingKeys(first.manifest)];
  const problems = [
    ...keys.flatMap((key) => differs(shards, key, (run) => field(run.manifest, key))),
    ...differs(shards, "pass_threshold", (run) => run.report.pass_threshold),
    ...differs(shards, "shard count", (run) => run.shard.count),
    ...twice(shards),
  ];
  if (problems.length === 0) return;
  throw new InputError(
    `cannot merge: ${problems.join("; ")}. eb merge joins the shards of one run (same suite, ` +
      "same settings, each shard once); nothing was written.",
  );
}

/** The settings a resumed run of this kind must keep, but the shard itself. */
function settingKeys(manifest: Manifest): readonly string[] {
  return RESUME_KEYS[manifest.kind].filter((key) => key !== "shard");
}

function field(manifest: Manifest, key: string): unknown {
  return new Map<string, unknown>(Object.entries(manifest)).get(key);
}

/** `target differs: shard 1/4 (a) has …, shard 2/4 (b) has …`, when it does. */
function differs(shards: readonly ShardRun[], name: string, of: (run: ShardRun) => unknown) {
  const seen = new Map<string, ShardRun>();
  for (const run of shards) {
    const value = JSON.stringify(of(run)) ?? "nothing";
    if (!seen.has(value)) seen.set(value, run);
  }
  if (seen.size < 2) return [];
  const which = [...seen].map(([value, run]) => `${label(run)} has ${shortened(value)}`);
  return [`${name} differs: ${which.join(", ")}`];
}

function shortened(value: string): string {
  return value.length > 80 ? `${value.slice(0, 77)}...` : value;
}

function label(run: ShardRun): string {
  return `shard ${run.manifest.shard} (${run.location})`;
}

/** The same shard given twice, by its manifest: the same I/N, from any folder. */
function twice(shards: readonly ShardRun[]): string[] {
  const byShard = new Map<number, ShardRun[]>();
  for (const run of shards)
    byShard.set(run.shard.index, [...(byShard.get(run.shard.index) ?? []), run]);
  return [...byShard.values()]
    .filter((runs) => runs.length > 1)
    .map(
      (runs) =>
        `shard ${runs[0]!.manifest.shard} given ${runs.length} times (${runs.map((run) => `${run.location}, run ${run.manifest.run_id}`).join("; ")})`,
    );
}

/** Missing shards: a warning naming them, or with --require-all a refusal. */
function checkMissing(
  shards: readonly ShardRun[],
  requireAll: boolean,
  warn: (message: string) => void,
): void {
  const missing = missingShards(shards);
  if (missing.length === 0) return;
  const one = missing.length === 1;
  const what = `${one ? "shard" : "shards"} ${missing.join(", ")} ${one ? "is" : "are"} missing`;
  if (requireAll) {
    throw new InputError(
      `${what}: --require-all refuses to merge without them; nothing was written.`,
    );
  }
  warn(`${what}: their items count as not run (pass --require-all to refuse)`);
}

function missingShards(shards: readonly ShardRun[]): string[] {
  const count = shards[0]!.shard.count;
  const present = new Set(shards.map((run) => run.shard.index));
  return Array.from({ length: count }, (_, i) => i + 1)
    .filter((index) => !present.has(index))
    .map((index) => `${index}/${count}`);
}

interface ShardRows {
  /** Every row's line as written, shard by shard. */
  lines: string[];
  tally: RowTally;
}

/** The rows of every shard; an item with rows in two shards is refused. */
async function readShardRows(
  shards: readonly ShardRun[],
  warn: (message: string) => void,
): Promise<ShardRows> {
  const lines: string[] = [];
  const tally = new RowTally({ outcomes: true });
  const owner = new Map<string, ShardRun>();
  const twice = new Map<string, [ShardRun, ShardRun]>();
  for (const run of shards) {
    const warnings = await forEachRowOf(run.file, (row, text) => {
      const first = owner.get(row.id) ?? run;
      owner.set(row.id, first);
      if (first !== run) twice.set(row.id, [first, run]);
      lines.push(text);
      tally.add(row);
    });
    for (const warning of warnings) warn(warning);
  }
  if (twice.size > 0) throw inTwoShards(twice);
  return { lines, tally };
}

function inTwoShards(twice: ReadonlyMap<string, [ShardRun, ShardRun]>): InputError {
  const shown = [...twice]
    .slice(0, 5)
    .map(([id, [a, b]]) => `'${id}' in ${label(a)} and ${label(b)}`);
  const more = twice.size > shown.length ? ` and ${twice.size - shown.length} more` : "";
  return new InputError(
    `cannot merge: ${twice.size === 1 ? "an item is" : "items are"} in two shards: ${shown.join("; ")}${more}. ` +
      "Each item belongs to one shard of a run; nothing was written.",
  );
}

async function mergedFolder(
  config: Config,
  options: MergeOptions,
): Promise<{ runId: string; runDir: string }> {
  const runId = newRunId(new Date());
  const cwd = path.resolve(options.cwd ?? ".");
  const given = options.out !== undefined;
  const runDir = await createRunFolder({
    outputDir: given ? path.resolve(cwd, options.out!) : config.outputDir,
    runId,
    flat: options.flatOutput ?? false,
    outputDirFromFlag: given || config.outputDirFromFlag,
  });
  return { runId, runDir };
}

/**
 * The merged run spans its shards: from the first start to the last end. It is interrupted when
 * any shard was (or never ended), as an unsharded run cut short is.
 */
function finishContext(
  shards: readonly ShardRun[],
  where: { runId: string; runDir: string },
  tally: RowTally,
  argv: readonly string[] | null,
): FinishContext {
  // Loops, not Math.min(...starts): a spread of as many shards as given could overflow the stack.
  const start = shards.reduce(
    (first, run) => Math.min(first, Date.parse(run.manifest.started_at)),
    Number.POSITIVE_INFINITY,
  );
  const end = shards.reduce(
    (last, run) => Math.max(last, Date.parse(run.manifest.ended_at ?? run.manifest.started_at)),
    Number.NEGATIVE_INFINITY,
  );
  return {
    ...where,
    startedAt: new Date(start),
    completedAt: new Date(end),
    interrupted: shards.some((run) => run.manifest.interrupted !== false),
    tally,
    provenance: {
      tool_version: TOOL_VERSION,
      git_commit: shards[0]!.manifest.git_commit,
      command: commandText(argv),
      suite: shards[0]!.manifest.suite ?? null,
      resumes: 0,
      merged: {
        shards: shards.map((run) => run.manifest.shard ?? "?"),
        runs: shards.map((run) => run.manifest.run_id),
      },
    },
  };
}

/** What a shard's manifest says of that shard alone (the versions come back from the rows). */
const SHARD_OWN = new Set([
  "shard",
  "resumes",
  "model_versions",
  "judge_model_versions",
  "versions_not_listed",
]);

/** The first shard's manifest, less what was its own, plus which shards the run joins. */
function mergedManifest(
  shards: readonly ShardRun[],
  context: FinishContext,
  finished: MergedReports,
  options: MergeOptions,
): Manifest {
  const common = Object.fromEntries(
    Object.entries(shards[0]!.written).filter(([key]) => !SHARD_OWN.has(key)),
  ) as Manifest;
  return {
    ...common,
    version: TOOL_VERSION,
    run_id: context.runId,
    ...(typeof common.suite === "string" ? { suite: wholeSuiteName(common.suite) } : {}),
    items_planned: shards[0]!.manifest.items_total ?? context.tally.items.size,
    command: options.argv ?? null,
    started_at: isoUtc(context.startedAt),
    ended_at: isoUtc(context.completedAt),
    interrupted: context.interrupted,
    shards: shards.map((run) => `${run.shard.index}/${run.shard.count}`),
    merged_runs: shards.map((run) => run.manifest.run_id),
    ...finished.closing,
  };
}

async function writeRows(
  runDir: string,
  manifest: Manifest,
  lines: readonly string[],
  scrubber: Scrubber,
): Promise<void> {
  const text = [JSON.stringify({ manifest }), ...lines].join("\n");
  await writeFile(path.join(runDir, ROWS_FILE), `${scrubber.scrub(text)}\n`);
}
