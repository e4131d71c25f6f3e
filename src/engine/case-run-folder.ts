import { existsSync } from "node:fs";
import path from "node:path";
import type { CaseRow } from "../cases/run-case.js";
import { InputError } from "../errors.js";
import { redactUrl } from "../model/redact.js";
import type { CaseReport } from "../report/case-report.js";
import { readRows } from "../report/read-rows.js";
import { describeRun, type Plan } from "./case-plan.js";
import { gitCommit } from "./git.js";
import { RowWriter } from "./rows.js";
import type { RunCasesOptions } from "./run-cases.js";
import { createRunFolder } from "./run-folder.js";
import { isoUtc, newRunId } from "./time.js";
import { TOOL_VERSION } from "./version.js";

export interface OpenRun {
  runId: string;
  runDir: string;
  manifest: Record<string, unknown>;
  rows: RowWriter;
  startedAt: Date;
  /** Rows written by earlier attempts of this run (`--resume`). */
  earlier: CaseRow[];
  resumes: number;
}

export async function startRun(plan: Plan, options: RunCasesOptions): Promise<OpenRun> {
  const startedAt = new Date();
  const runId = newRunId(startedAt);
  const [commit, runDir] = await Promise.all([
    gitCommit(plan.config.projectRoot),
    createRunFolder({
      outputDir: plan.config.outputDir,
      runId,
      flat: options.flatOutput ?? false,
      outputDirFromFlag: plan.config.outputDirFromFlag,
    }),
  ]);
  const manifest = manifestOf(plan, options, { runId, commit, startedAt });
  const rows = RowWriter.create(path.join(runDir, "rows.jsonl"), manifest, MANIFEST_ROOM);
  return { runId, runDir, manifest, rows, startedAt, earlier: [], resumes: 0 };
}

/** What must not change for `--resume` to finish a run as if it had never stopped. */
const RESUME_KEYS = ["cases_sha256", "target", "judge_model", "k", "temperature", "max_tokens"];

/**
 * Reopens an interrupted run of the same cases, target and settings (else an InputError naming
 * what differs); its rows are kept and only the missing case × sample pairs run.
 */
export async function resumeRun(runDir: string, plan: Plan): Promise<OpenRun> {
  const file = path.join(runDir, "rows.jsonl");
  if (!existsSync(file))
    throw new InputError(`--resume ${runDir}: not a run folder (no rows.jsonl)`);
  const { writer: rows, manifest } = RowWriter.reopen(file);
  const now: Record<string, unknown> = describeRun(plan);
  const changed = RESUME_KEYS.filter(
    (key) => JSON.stringify(manifest[key]) !== JSON.stringify(now[key]),
  );
  if (manifest.kind !== "cases" || changed.length > 0) {
    rows.close({});
    const why =
      manifest.kind !== "cases" ? "it is not a run of eb eval" : `${changed.join(", ")} changed`;
    throw new InputError(`--resume ${runDir}: ${why}. Start a new run instead.`);
  }
  return {
    runId: String(manifest.run_id),
    runDir,
    manifest,
    rows,
    startedAt: new Date(String(manifest.started_at)),
    // Written by this program with these exact fields.
    earlier: (await readRows(file)) as unknown as CaseRow[],
    resumes: Number(manifest.resumes ?? 0) + 1,
  };
}

interface RunIdentity {
  runId: string;
  commit: string | null;
  startedAt: Date;
}

function manifestOf(
  plan: Plan,
  options: RunCasesOptions,
  identity: RunIdentity,
): Record<string, unknown> {
  const { judge_model_versions: _, ...run } = describeRun(plan);
  return {
    tool: "eval-banana",
    version: TOOL_VERSION,
    kind: "cases",
    run_id: identity.runId,
    git_commit: identity.commit,
    ...run,
    definitions: { [plan.casesFile]: `sha256:${plan.casesSha256}` },
    command: options.argv ? redactArgv(options.argv, plan.apiKey) : null,
    started_at: isoUtc(identity.startedAt),
    // Filled in when the run ends; null here means the run never got there.
    ended_at: null,
    interrupted: null,
    model_versions: [],
    judge_model_versions: [],
  };
}

/** Bytes reserved on the manifest line for what close() adds (the model version lists). */
const MANIFEST_ROOM = 2048;

/** The end-of-run manifest fields, version lists cut to what fits in the reserved room. */
export function closingFields(
  manifest: Record<string, unknown>,
  report: CaseReport,
): Record<string, unknown> {
  const target = [...report.model_versions];
  const judge = [...report.judge_model_versions];
  const total = target.length + judge.length;
  const fields = () => {
    const cut = total - target.length - judge.length;
    return {
      ended_at: report.completed_at,
      interrupted: report.interrupted,
      model_versions: target,
      judge_model_versions: judge,
      // The full lists are in report.json.
      ...(cut > 0 ? { versions_not_listed: cut } : {}),
    };
  };
  const size = (extra: object) =>
    Buffer.byteLength(JSON.stringify({ manifest: { ...manifest, ...extra } }));
  const budget = size({}) + MANIFEST_ROOM;
  while (size(fields()) > budget && target.length + judge.length > 0) {
    (judge.length > 0 ? judge : target).pop();
  }
  return fields();
}

/** The command line as recorded: the key (should it appear) and URL credentials removed. */
function redactArgv(argv: readonly string[], apiKey: string | null): string[] {
  return argv.map((arg) => {
    const scrubbed = apiKey && apiKey.length >= 4 ? arg.split(apiKey).join("[redacted]") : arg;
    return redactUrl(scrubbed);
  });
}
