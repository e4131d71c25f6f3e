import path from "node:path";

/**
 * Which suite a run is of, written to its manifest as `suite`: the command that runs it from the
 * project root, less what is compared (the model, the target, the settings). `latest~N` counts
 * the runs of one suite. Runs of a case file: `eb eval evals/support.jsonl` (`eb pairwise …`
 * for a pairwise run), the path relative to the project root. Checks: `eb run` and the
 * selection, each flag's values sorted: `eb run --tag smoke`, `eb run --check-dir a --check-id x`.
 */
export function caseSuiteName(
  command: "eb eval" | "eb pairwise",
  casesFile: string,
  projectRoot: string,
): string {
  return `${command} ${projectPath(path.resolve(casesFile), projectRoot)}`;
}

export interface CheckSelection {
  checkDir?: string | undefined;
  checkIds?: readonly string[] | undefined;
  tags?: readonly string[] | undefined;
}

export function checkSuiteName(selection: CheckSelection, projectRoot: string): string {
  const dir = selection.checkDir;
  const flags = [
    [
      "--check-dir",
      dir === undefined ? [] : [projectPath(path.resolve(projectRoot, dir), projectRoot)],
    ],
    ["--check-id", selection.checkIds ?? []],
    ["--tag", selection.tags ?? []],
  ] as const;
  const given = flags.flatMap(([flag, values]) =>
    [...new Set(values)].sort().map((v) => `${flag} ${v}`),
  );
  return ["eb run", ...given].join(" ");
}

/**
 * A shard is a suite of its own (`eb eval cases.jsonl --shard 1/4`): `latest` of the whole suite
 * is never a quarter of it. The merge of the shards is a run of the whole suite again.
 */
export function shardSuiteName(name: string, shard: string | null): string {
  return shard === null ? name : `${name} --shard ${shard}`;
}

/** The suite a shard run is a part of (see shardSuiteName). */
export function wholeSuiteName(name: string): string {
  return name.replace(/ --shard \d+\/\d+$/, "");
}

const CASE_COMMANDS = new Map<unknown, string>([
  ["cases", "eb eval"],
  ["pairwise", "eb pairwise"],
]);

/** What a run's manifest says of its suite; earlier versions wrote no `suite`. */
export interface SuiteFields {
  kind?: unknown;
  suite?: unknown;
  cases_file?: unknown;
  project_root?: unknown;
}

/**
 * The suite of a run eb wrote, or null for a rows file of another tool. A manifest without
 * `suite` (an earlier version's) is taken for a run of every check, or of its case file as
 * recorded (relative to the project root unless absolute).
 */
export function suiteOfManifest(manifest: SuiteFields): string | null {
  if (typeof manifest.suite === "string") return manifest.suite;
  if (manifest.kind === "checks") return "eb run";
  const command = CASE_COMMANDS.get(manifest.kind);
  if (command === undefined || typeof manifest.cases_file !== "string") return null;
  const root = typeof manifest.project_root === "string" ? manifest.project_root : "/";
  const file = path.resolve(root, manifest.cases_file);
  return `${command} ${projectPath(file, root)}`;
}

/** Relative to the project root with / between folders, or absolute when outside it. */
function projectPath(file: string, projectRoot: string): string {
  const relative = path.relative(projectRoot, file);
  const outside = relative === "" || relative.startsWith("..") || path.isAbsolute(relative);
  return (outside ? file : relative).split(path.sep).join("/");
}
