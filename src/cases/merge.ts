import { byCodePoint } from "../report/order.js";
import type { CaseManifest } from "../report/record.js";
import type { RowTally } from "../report/row-tally.js";
import type { MergeKind } from "../run/merge.js";
import { caseFileCandidates, caseIds } from "./load.js";
import { finishedCases } from "./suite.js";

/** `eb merge` of `eb eval` shards: the case run's reports, its cases in case-file order. */
export function mergeCases(cwd?: string): MergeKind {
  return {
    finish: async (shards, context, config, scrub) => {
      const manifest = shards[0]!.manifest;
      if (manifest.kind !== "cases") throw new TypeError("not a case run");
      const cases = await caseOrder(manifest, context.tally, cwd);
      return finishedCases({ rows: context.tally, cases }, context, {
        settings: {
          kind: "cases",
          cases_file: manifest.cases_file,
          cases_sha256: manifest.cases_sha256,
          target: manifest.target,
          judge_model: manifest.judge_model,
          judge_samples: manifest.judge_samples,
          judge_temperature: manifest.judge_temperature,
          k: manifest.k,
          temperature: manifest.temperature,
          max_tokens: manifest.max_tokens,
        },
        projectRoot: manifest.project_root,
        judgeModelVersions: [
          ...new Set(shards.flatMap((run) => run.report.judge_model_versions ?? [])),
        ],
        passThreshold: shards[0]!.report.pass_threshold,
        pricing: config.pricing,
        concurrency: null,
        budget: null,
        budgetExceeded: shards.some(
          (run) => run.manifest.kind === "cases" && run.manifest.budget_exceeded === true,
        ),
        formats: config.reportFormats,
        scrub,
      });
    },
  };
}

/**
 * The cases in case-file order, as an unsharded run lists them, when the case file is here and
 * unchanged; else every case that ran, by id.
 */
async function caseOrder(
  manifest: CaseManifest,
  tally: RowTally,
  cwd: string | undefined,
): Promise<{ id: string }[]> {
  for (const file of caseFileCandidates(manifest.cases_file, manifest.project_root, cwd)) {
    const found = await caseIds(file).catch(() => null);
    if (found?.sha256 === manifest.cases_sha256) return found.ids.map((id) => ({ id }));
  }
  return [...tally.items.keys()].sort(byCodePoint).map((id) => ({ id }));
}
