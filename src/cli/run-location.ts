import { existsSync, statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { loadConfig } from "../config/load.js";
import { InputError } from "../errors.js";
import { summarizeManifest } from "../report/manifest.js";
import type { RunKind } from "../report/record.js";
import { readManifest } from "../run/rows.js";
import { caseSuiteName, suiteOfManifest } from "../run/suite-name.js";

const LATEST = /^latest(?:~(\d+))?$/;
/** `<output_dir>/<run_id>/` folders: `YYYYMMDD_HHMMSS_<random>`. */
const RUN_ID = /^\d{8}_\d{6}_[0-9a-f]{8}$/;
const ROWS = "rows.jsonl";

/**
 * Which runs `latest` and `latest~N` count: those of one suite (suite-name.ts), the one named
 * here, else that of the first run named by its folder beside them, else that of the newest run
 * (of these kinds, when given).
 */
export interface LatestScope {
  /** The suite of a case file (`eb eval CASES --baseline latest`, `eb pairwise --cases FILE`). */
  casesFile?: string | undefined;
  /** The suite, as a manifest names it (`eb eval --resume RUN --baseline latest`). */
  suite?: string | undefined;
  /** Only runs of these kinds (`eb pairwise` reads case runs). */
  kinds?: readonly RunKind[];
  /** Only runs that ended, neither interrupted nor stopped by --max-cost (a baseline). */
  finished?: boolean;
}

/** A run folder under output_dir, newest first by when it started. */
interface FoundRun {
  name: string;
  /** The manifest's started_at in ms: the name holds only the second. */
  started: number;
  kind: RunKind | null;
  suite: string | null;
  finished: boolean;
}

/**
 * The runs as given on one command line: run folders and rows files as they are, and `latest`,
 * `latest~1`, …: the newest run of the suite, the one before it, … (see LatestScope).
 */
export async function runLocations(
  args: readonly string[],
  cwd: string,
  scope: LatestScope = {},
): Promise<string[]> {
  const latest = (arg: string) => LATEST.exec(arg) !== null && !existsSync(arg);
  if (!args.some(latest)) return [...args];
  const { outputDir, projectRoot } = await loadConfig({ cwd });
  const all = await runsUnder(outputDir);
  const eligible = all.filter(
    (run) =>
      (scope.kinds === undefined || (run.kind !== null && scope.kinds.includes(run.kind))) &&
      (!scope.finished || run.finished),
  );
  const suite = suiteOf(
    scope,
    projectRoot,
    args.filter((arg) => !latest(arg)),
    eligible,
  );
  const runs = eligible.filter((run) => run.suite === suite).map((run) => run.name);
  return args.map((arg) => {
    if (!latest(arg)) return arg;
    const run = runs[Number(LATEST.exec(arg)![1] ?? 0)];
    if (run !== undefined) return path.join(outputDir, run);
    throw new InputError(notFound(arg, { outputDir, suite, runs, all, scope }));
  });
}

/** One run as given (see runLocations). */
export async function runLocation(arg: string, cwd: string, scope?: LatestScope): Promise<string> {
  const [location] = await runLocations([arg], cwd, scope);
  return location!;
}

/** The suite the scope names, else the first named run's, else the newest run's. */
function suiteOf(
  scope: LatestScope,
  projectRoot: string,
  named: readonly string[],
  newestFirst: readonly FoundRun[],
): string | null {
  if (scope.suite !== undefined) return scope.suite;
  if (scope.casesFile !== undefined) return caseSuiteName("eb eval", scope.casesFile, projectRoot);
  const hint = named.map(suiteAt).find((suite) => suite !== null);
  return hint ?? newestFirst[0]?.suite ?? null;
}

/** The suite of the run at a folder or rows file, or null when it names none. */
export function suiteAt(location: string): string | null {
  const file = statSync(location, { throwIfNoEntry: false })?.isDirectory()
    ? path.join(location, ROWS)
    : location;
  const manifest = manifestAt(file);
  return manifest === null ? null : suiteOfManifest(manifest);
}

async function runsUnder(outputDir: string): Promise<FoundRun[]> {
  const names = await readdir(outputDir).catch(() => []);
  return names
    .filter((name) => RUN_ID.test(name) && existsSync(path.join(outputDir, name, ROWS)))
    .map((name) => {
      const manifest = manifestAt(path.join(outputDir, name, ROWS)) ?? {};
      const { kind, started_at, ended_at, interrupted, budget_exceeded } =
        summarizeManifest(manifest);
      return {
        name,
        started: Date.parse(started_at ?? "") || 0,
        kind,
        suite: suiteOfManifest(manifest),
        finished: ended_at !== null && interrupted !== true && budget_exceeded !== true,
      };
    })
    .sort(newestFirst);
}

/** The manifest of a rows file, or null when it has none or cannot be read. */
export function manifestAt(file: string): object | null {
  try {
    return readManifest(file);
  } catch {
    return null;
  }
}

/** Newest first by start time, then by name (whose stamp is the start second). */
function newestFirst(a: FoundRun, b: FoundRun): number {
  return b.started - a.started || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0);
}

/** Why `arg` names no run, what there is instead, and how to name a run. */
function notFound(
  arg: string,
  found: {
    outputDir: string;
    suite: string | null;
    runs: readonly string[];
    all: readonly FoundRun[];
    scope: LatestScope;
  },
): string {
  const { outputDir, suite, runs, all, scope } = found;
  const how =
    `Name the run by its folder (${path.join(outputDir, "<run_id>")}, run ids start with the ` +
    "date and time) or its rows file, or pass --cwd of the project.";
  if (all.length === 0) return `${arg}: no run folders under ${outputDir}. ${how}`;
  const which = `${scope.finished ? "finished " : ""}run${runs.length === 1 ? "" : "s"}`;
  const ofSuite = suite === null ? "of eb" : `of the suite '${suite}'`;
  const have = runs.length === 0 ? `no ${which}` : `only ${runs.length} ${which}`;
  const others = otherSuites(all, suite);
  return `${arg}: ${have} ${ofSuite} under ${outputDir}${others}. ${how}`;
}

/** `; other suites there: 'eb run' (3 runs), 'eb eval b.jsonl' (1 run)`, newest first. */
function otherSuites(all: readonly FoundRun[], suite: string | null): string {
  const counts = new Map<string, number>();
  for (const run of all) {
    if (run.suite !== null && run.suite !== suite) {
      counts.set(run.suite, (counts.get(run.suite) ?? 0) + 1);
    }
  }
  if (counts.size === 0) return "";
  const listed = [...counts].map(([name, n]) => `'${name}' (${n} run${n === 1 ? "" : "s"})`);
  return `; other suites there: ${listed.join(", ")}`;
}
