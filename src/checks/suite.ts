import { writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Config } from "../config/load.js";
import type { Pricing } from "../config/schema.js";
import { InputError } from "../errors.js";
import type { PythonInterpreter } from "../process/python.js";
import { type RunFormat, runFiles } from "../render/files.js";
import type { Outcome } from "../report/document.js";
import type { HarnessSettings, StoredRow } from "../report/record.js";
import { isoUtc } from "../run/provenance.js";
import { takeShard } from "../run/shard.js";
import type { FinishContext, Finished, Suite } from "../run/suite.js";
import { scrubStrings } from "../secrets/scrub-strings.js";
import type { Scrubber } from "../secrets/scrubber.js";
import type { ExecContext, PreparedCheck } from "./executors/types.js";
import type { JudgeBudget } from "./judge-price.js";
import { buildCheckReport, type CheckReport, type CheckResult, mergeSamples } from "./report.js";
import { rowOf, runCheckSample } from "./result.js";
import { safeStem, sampleStem } from "./stem.js";
import { readSampleResult } from "./stored-result.js";
import type { Check } from "./types.js";

export interface CheckItem {
  id: string;
  prepared: PreparedCheck;
  /** Each finished sample's result, by sample index. */
  results: CheckResult[];
}

export interface CheckSuiteOptions {
  /** Which suite this is: `eb run` and the selection (suite-name.ts). */
  name: string;
  /** Runs of each check. */
  samples: number;
  python: Promise<PythonInterpreter>;
  command: string[] | null;
  env: NodeJS.ProcessEnv;
  warn: (message: string) => void;
  scrubber: Scrubber;
  /** `--max-cost`: the judge runs' budget and each check's price; null without a cap. */
  budget: { budget: JudgeBudget; priceOf: (check: Check) => number } | null;
}

/**
 * `eb run` as a suite: each sample runs one check with the executor of its type and writes the
 * seed's `checks/<stem>.*` files. Every sample is scheduled on its own, so the samples of a slow
 * judge run side by side.
 */
export function checkSuite(
  config: Config,
  prepared: readonly PreparedCheck[],
  options: CheckSuiteOptions,
): Suite<"checks", CheckItem, CheckReport> {
  const { samples, budget } = options;
  const priceOf = (item: CheckItem) => budget?.priceOf(item.prepared.check) ?? 0;
  const all: CheckItem[] = prepared.map((p) => ({ id: p.check.id, prepared: p, results: [] }));
  const { items, fields } = takeShard(all, config.shard);
  const byId = new Map(items.map((item) => [item.id, item]));
  let scratchRoot: string | null = null;
  const checksDir = (runDir: string) => path.join(runDir, "checks");

  return {
    kind: "checks",
    projectRoot: config.projectRoot,
    items,
    samples,
    workers: config.maxParallelChecks,
    schedule: "sample",
    settings: { kind: "checks", samples, ...harnessSettings(config, prepared) },
    name: options.name,
    definitions: Object.fromEntries(prepared.map((p) => [p.check.id, p.digest])),
    shard: fields,
    command: options.command,
    manifestRoom: 160,
    scrubber: options.scrubber,
    open: async (runDir) => {
      await mkdir(checksDir(runDir), { recursive: true });
      scratchRoot = await mkdtemp(path.join(os.tmpdir(), "eval-banana-"));
    },
    restore: async (row, runDir) => {
      const sample = row.sample ?? 0;
      const file = path.join(
        checksDir(runDir),
        `${sampleStem(safeStem(row.id), sample, samples)}.json`,
      );
      const result = await readSampleResult(file);
      const item = byId.get(row.id);
      if (!item || result.check_id !== row.id || !(sample >= 0 && sample < samples)) {
        throw new InputError(
          `--resume: rows.jsonl lists sample ${sample} of check '${row.id}', which this run does not have (${file}). Start a new run instead.`,
        );
      }
      item.results[sample] = result;
      budget?.budget.restore(priceOf(item));
    },
    runSample: async (item, sample, { runDir, signal, index }) => {
      // Over the budget, a judge run does not start: --resume with a higher one runs it.
      const price = priceOf(item);
      if (budget && !budget.budget.book(price)) return null;
      const stem = sampleStem(safeStem(item.id), sample, samples);
      const context: ExecContext = {
        config,
        checksDir: checksDir(runDir),
        stem,
        scratchDir: path.join(scratchRoot!, String(index)),
        python: await options.python,
        signal,
        env: options.env,
        warn: options.warn,
        scrubber: options.scrubber,
      };
      const result = await runCheckSample(item.prepared, context);
      if (!result) {
        budget?.budget.unbook(price);
        return null;
      }
      writeJson(path.join(context.checksDir, `${stem}.json`), result, options.scrubber);
      item.results[sample] = result;
      return rowOf(result, sample);
    },
    output: (row) => sampleOutput(byId.get(row.id)?.results[row.sample ?? 0], row, samples),
    finish: async (context) =>
      finish(config, items, { samples, scrubber: options.scrubber, budget }, context),
    close: async () => {
      if (scratchRoot !== null) await rm(scratchRoot, { recursive: true, force: true });
    },
  };
}

function finish(
  config: Config,
  items: readonly CheckItem[],
  { samples, scrubber, budget }: Pick<CheckSuiteOptions, "samples" | "scrubber" | "budget">,
  context: FinishContext,
): Finished<"checks", CheckReport> {
  const results: CheckResult[] = [];
  for (const { id, results: list } of items) {
    const finished = list.filter((result) => result !== undefined);
    if (finished.length === 0) continue;
    if (samples === 1) {
      results.push(finished[0]!);
      continue;
    }
    const merged = mergeSamples(finished);
    writeJson(path.join(context.runDir, "checks", `${safeStem(id)}.json`), merged, scrubber);
    results.push(merged);
  }
  return finishedChecks(results, context, {
    projectRoot: config.projectRoot,
    passThreshold: config.passThreshold,
    pricing: config.pricing,
    itemsPlanned: items.length,
    planned: items,
    lines: new Map(items.map((item) => [item.id, item.prepared.check.line])),
    samples,
    judge: judgeOf(
      harnessSettings(
        config,
        items.map((item) => item.prepared),
      ),
    ),
    formats: config.reportFormats,
    scrub: scrubber.scrub,
    budget: budget && { max_cost: budget.budget.maxCost, spent: budget.budget.spent },
    budgetExhausted: budget?.budget.exceeded ?? false,
  });
}

/** A check sample's output for the report: its stdout, and its files in the run folder. */
function sampleOutput(
  result: CheckResult | undefined,
  row: StoredRow,
  samples: number,
): { text: string | null; files: Outcome["files"] } {
  const stem = `checks/${sampleStem(safeStem(row.id), row.sample ?? 0, samples)}`;
  // A stream's file is written only when the stream has something in it.
  const files = [
    { label: "result (JSON)", path: `${stem}.json` },
    ...(result?.stdout ? [{ label: "stdout", path: `${stem}.stdout.txt` }] : []),
    ...(result?.stderr ? [{ label: "stderr", path: `${stem}.stderr.txt` }] : []),
    ...(result?.check_type === "harness_judge"
      ? [{ label: "prompt", path: `${stem}.prompt.txt` }]
      : []),
  ];
  return { text: result ? result.stdout || result.stderr || null : null, files };
}

/** `claude (model sonnet)`: the agent that judged, when a check is judged. */
export function judgeOf(settings: { harness?: HarnessSettings }): string | null {
  const harness = settings.harness;
  if (!harness) return null;
  const model = harness.model === null ? "" : ` (model ${harness.model})`;
  return `${harness.agent ?? "(no agent)"}${model}`;
}

/** What a check run's reports need beyond its results and rows. */
export interface CheckRunMeta {
  projectRoot: string;
  passThreshold: number;
  pricing: Pricing;
  itemsPlanned: number;
  planned?: readonly { id: string }[];
  lines?: ReadonlyMap<string, number>;
  samples: number;
  judge: string | null;
  /** The formats of `[report] formats`, and the scrub of the run's secrets. */
  formats: readonly RunFormat[];
  scrub: (text: string) => string;
  /** `--max-cost` and the judge runs' spend; absent or null without a cap. */
  budget?: { max_cost: number; spent: number } | null;
  budgetExhausted?: boolean;
}

/**
 * The reports of a check run from each check's result (in discovery order) and the rows: for a
 * run as it ends, and for shards merged (`eb merge`).
 */
export function finishedChecks(
  results: CheckResult[],
  context: FinishContext,
  meta: CheckRunMeta,
): Finished<"checks", CheckReport> {
  const report = buildCheckReport(
    results,
    context.tally,
    {
      kind: "checks",
      runId: context.runId,
      projectRoot: meta.projectRoot,
      location: context.runDir,
      startedAt: isoUtc(context.startedAt),
      completedAt: isoUtc(context.completedAt),
      durationMs: context.completedAt.getTime() - context.startedAt.getTime(),
      run: {
        ...context.provenance,
        target: null,
        judge: meta.judge,
        samples_per_item: meta.samples,
        sequential: null,
      },
      itemsPlanned: meta.itemsPlanned,
      planned: meta.planned,
      lines: meta.lines,
      passThreshold: meta.passThreshold,
      interrupted: context.interrupted,
      budget: meta.budget ?? null,
      budgetExhausted: meta.budgetExhausted ?? false,
    },
    { pricing: meta.pricing },
  );
  const document = scrubStrings(report, meta.scrub);
  const { files, problems } = runFiles(document, meta.formats);
  return {
    report,
    document,
    files,
    passed: report.run_passed,
    // Only with a cap, as eb eval's: eb report reads the verdict of the run back from it.
    closing: report.budget === null ? {} : { budget_exceeded: meta.budgetExhausted ?? false },
    warnings: problems,
  };
}

/** The judge agent's settings, for the manifest, when some check is judged by an agent. */
function harnessSettings(
  config: Config,
  prepared: readonly PreparedCheck[],
): { harness: HarnessSettings } | Record<never, never> {
  if (!prepared.some((p) => p.check.type === "harness_judge")) return {};
  const { agent, model, reasoningEffort } = config.harness;
  return { harness: { agent, model, reasoning_effort: reasoningEffort } };
}

/** In place: one small file a sample, where a promise would be three thread-pool round trips. */
function writeJson(file: string, value: unknown, scrubber: Scrubber): void {
  writeFileSync(file, scrubber.scrub(`${JSON.stringify(value, null, 2)}\n`));
}
