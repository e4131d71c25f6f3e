import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runDeterministic } from "../checks/executors/deterministic.js";
import type { PreparedCheck } from "../checks/executors/types.js";
import { preflight } from "../checks/preflight.js";
import { prepareChecks } from "../checks/run-checks.js";
import type { DeterministicCheck } from "../checks/types.js";
import type { Config } from "../config/load.js";
import { InputError } from "../errors.js";
import type { PythonInterpreter } from "../process/python.js";
import type { Scrubber } from "../secrets/scrubber.js";

/** The skill's deterministic checks (`evals/eval_checks/`), ready to run on any workspace. */
export interface EvalChecks {
  prepared: readonly PreparedCheck[];
  python: PythonInterpreter;
  config: Config;
  env: NodeJS.ProcessEnv;
}

/** One check's verdict on a sample's workspace, named as the sample's mark. */
export interface CheckVerdict {
  name: string;
  status: "passed" | "failed" | "error";
  /** Why it failed or could not run; for a pass, that its script exited 0. */
  reason: string;
}

/** A check tagged `eval-<id>` runs on that eval's samples only; one without such a tag on all. */
const EVAL_TAG = /^eval-(.+)$/;

/**
 * Loads and pre-flights `<skill>/evals/eval_checks/` as `eb run` does its checks (every problem
 * an InputError before any agent starts); null when the folder is absent. Only deterministic
 * checks: a check of the agent's work by another agent is an expectation for the judge.
 */
export async function loadEvalChecks(
  skillDir: string,
  config: Config,
  env: NodeJS.ProcessEnv,
): Promise<EvalChecks | null> {
  const dir = path.join(skillDir, "evals", "eval_checks");
  if (!existsSync(dir)) return null;
  const own = { ...config, projectRoot: skillDir, excludeDirs: [] };
  const found = await preflight(own, { checkDir: path.join("evals", "eval_checks") }, "run", env);
  const judged = found.checks.find((check) => check.type !== "deterministic");
  if (judged) {
    throw new InputError(
      `${judged.sourcePath}: a skill's eval_checks/ are deterministic checks (type: deterministic); grade with an agent through the evals' expectations instead`,
    );
  }
  const warn = () => {};
  const prepared = prepareChecks(found.checks, found.python, { cwd: skillDir, env }, warn);
  return { prepared, python: found.python, config: own, env };
}

/**
 * Runs the checks that apply to eval `evalId` on a sample's workspace (their project root),
 * their streams kept under `folder`/checks/, one after another.
 */
export async function runEvalChecks(
  checks: EvalChecks,
  evalId: string,
  where: { workspace: string; folder: string; signal: AbortSignal; scrubber: Scrubber },
): Promise<CheckVerdict[]> {
  const verdicts: CheckVerdict[] = [];
  for (const prepared of checks.prepared) {
    const check = prepared.check as DeterministicCheck;
    if (!appliesTo(check, evalId)) continue;
    const scratchDir = await mkdtemp(path.join(os.tmpdir(), "eb-skill-check-"));
    try {
      const outcome = await runDeterministic(
        check,
        {
          config: { ...checks.config, projectRoot: where.workspace },
          checksDir: path.join(where.folder, "checks"),
          stem: check.id.replaceAll(/[^\w.-]/g, "_"),
          scratchDir,
          python: checks.python,
          signal: where.signal,
          env: checks.env,
          warn: () => {},
          scrubber: where.scrubber,
        },
        prepared,
      );
      const reason =
        outcome.status === "passed"
          ? "the check's script exited 0"
          : (outcome.reason ?? outcome.errorDetail ?? outcome.status);
      verdicts.push({ name: `check ${check.id}`, status: outcome.status, reason });
    } finally {
      await rm(scratchDir, { recursive: true, force: true });
    }
  }
  return verdicts;
}

function appliesTo(check: DeterministicCheck, evalId: string): boolean {
  const evals = check.tags.flatMap((tag) => EVAL_TAG.exec(tag)?.[1] ?? []);
  return evals.length === 0 || evals.includes(evalId);
}
