import { copyFile, mkdir, readdir } from "node:fs/promises";
import path from "node:path";
import { byCodePoint } from "../report/order.js";
import type { MergeKind, ShardRun } from "../run/merge.js";
import type { CheckResult } from "./report.js";
import { finishedChecks, judgeOf } from "./suite.js";

/** `eb merge` of `eb run` shards: the check run's reports, and each shard's `checks/` files. */
export function mergeChecks(): MergeKind {
  return {
    finish: async (shards, context, config, scrub) => {
      const first = shards[0]!;
      if (first.manifest.kind !== "checks") throw new TypeError("not a check run");
      return finishedChecks(checkResults(shards), context, {
        projectRoot: first.manifest.project_root,
        passThreshold: first.report.pass_threshold,
        pricing: config.pricing,
        itemsPlanned: first.manifest.items_total ?? context.tally.items.size,
        planned: Object.keys(first.manifest.definitions).map((id) => ({ id })),
        samples: first.manifest.samples,
        judge: judgeOf(first.manifest),
        formats: config.reportFormats,
        scrub,
      });
    },
    copy: copyCheckFiles,
  };
}

/** Each check's result as its shard reported it, in discovery order (by file, as eb run finds them). */
function checkResults(shards: readonly ShardRun[]): CheckResult[] {
  // Written by eb run as CheckResult; only what the order needs is checked here.
  const results = shards.flatMap((run) => (run.report.checks ?? []) as unknown as CheckResult[]);
  return results.sort((a, b) => byCodePoint(a.source_path, b.source_path));
}

/**
 * Each check's files (`checks/<stem>.*`), as the shards wrote them: regular files only. A link
 * (or anything else) in a shard's folder is left behind, with a warning: a merge copies what
 * the shard wrote, never what a link points to outside it.
 */
async function copyCheckFiles(shards: readonly ShardRun[], runDir: string): Promise<string[]> {
  const skipped: string[] = [];
  for (const run of shards) {
    await copyRegular(path.join(run.dir, "checks"), path.join(runDir, "checks"), skipped);
  }
  return skipped;
}

/** The regular files under `from`, folders walked (never through a link), into `to`. */
async function copyRegular(from: string, to: string, skipped: string[]): Promise<void> {
  const entries = await readdir(from, { withFileTypes: true }).catch(() => []);
  await mkdir(to, { recursive: true });
  for (const entry of entries) {
    const [source, target] = [path.join(from, entry.name), path.join(to, entry.name)];
    if (entry.isFile()) await copyFile(source, target);
    else if (entry.isDirectory()) await copyRegular(source, target, skipped);
    else skipped.push(`${source}: not a regular file (${kindOf(entry)}), left out of the merge`);
  }
}

function kindOf(entry: { isSymbolicLink(): boolean }): string {
  return entry.isSymbolicLink() ? "a symlink" : "a special file";
}
