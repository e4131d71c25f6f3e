import { cp, stat } from "node:fs/promises";
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

/** Each check's files (`checks/<stem>.*`), as the shards wrote them. */
async function copyCheckFiles(shards: readonly ShardRun[], runDir: string): Promise<void> {
  for (const run of shards) {
    const from = path.join(run.dir, "checks");
    if (await stat(from).catch(() => null)) {
      await cp(from, path.join(runDir, "checks"), { recursive: true });
    }
  }
}
