import { missingAgentProgram } from "../../agents/preflight.js";
import { HarnessError } from "../../agents/resolve.js";
import type { Config } from "../../config/load.js";
import { InputError } from "../../errors.js";
import type { PythonInterpreter } from "../../process/python.js";
import { syntaxErrors } from "../compile.js";
import { requireHarness } from "../harness-gate.js";
import { readScriptSnapshot } from "../script.js";
import type { Check, DeterministicCheck, HarnessJudgeCheck } from "../types.js";
import { runDeterministic } from "./deterministic.js";
import { runHarnessJudge } from "./harness-judge.js";
import type { ExecContext, ExecOutcome, PreparedCheck } from "./types.js";

/** Why the checks of a run are looked at before any runs. */
export type Purpose = "validate" | "run";

interface PreflightContext {
  config: Config;
  env: NodeJS.ProcessEnv;
  purpose: Purpose;
  /** The run's interpreter, asked once (it never rejects). */
  python: Promise<PythonInterpreter>;
}

/** What a pre-flight found: errors stop the command before anything runs, warnings do not. */
interface Findings {
  errors: string[];
  warnings: string[];
  /** A HarnessError was among the errors (the run stops as `harness_error`). */
  harness?: boolean;
}

/** How one type of check is pre-flighted and run; adding a check type is one entry. */
interface Executor<C> {
  /** Looks at every selected check of this type at once; may throw an InputError. */
  preflight(checks: readonly C[], context: PreflightContext): Promise<Findings>;
  run(check: C, prepared: PreparedCheck, context: ExecContext): Promise<ExecOutcome>;
}

interface CheckByType {
  deterministic: DeterministicCheck;
  harness_judge: HarnessJudgeCheck;
}

const NONE: Findings = { errors: [], warnings: [] };

const EXECUTORS: { [T in keyof CheckByType]: Executor<CheckByType[T]> } = {
  deterministic: {
    preflight: async (checks, { config, env, purpose, python }) => {
      const interpreter = await python;
      const cannotStart = interpreter.error === null ? [] : [interpreter.error];
      // eb run reports a missing script or a syntax error as that check's error row and runs
      // the others; eb validate stops on them.
      if (purpose === "run") return { errors: cannotStart, warnings: [] };
      const items = checks.map((check) => ({ check, script: readScriptSnapshot(check) }));
      const missing = items.flatMap(({ check, script }) =>
        script?.state === "unavailable"
          ? [`${check.sourcePath}:${check.scriptPlace.firstLine}: ${script.reason}`]
          : [],
      );
      // Compiling needs the interpreter; a missing script does not, so it is reported either way.
      if (interpreter.error !== null) return { errors: [...cannotStart, ...missing], warnings: [] };
      const syntax = await syntaxErrors(items, interpreter.executable, {
        cwd: config.projectRoot,
        env,
      });
      const failure = syntax.failure === null ? [] : [syntax.failure];
      return { errors: [...missing, ...syntax.byId.values(), ...failure], warnings: [] };
    },
    run: (check, prepared, context) => runDeterministic(check, context, prepared),
  },
  harness_judge: {
    preflight: async (checks, { config, env, purpose }) => {
      const agent = requireHarness(checks, config.harness.agent);
      if (agent === null) return NONE;
      const missing = await missingAgentProgram(agent, config.agents, env, config.projectRoot);
      if (missing === null) return NONE;
      // Validating definitions on a machine without the agent (a lint step in CI) is fine.
      if (purpose === "validate") return { errors: [], warnings: [missing] };
      return { errors: [missing], warnings: [] };
    },
    run: (check, _prepared, context) => runHarnessJudge(check, context),
  },
};

/** Every selected check pre-flighted by the executor of its type. */
export async function preflightChecks(
  checks: readonly Check[],
  context: PreflightContext,
): Promise<Findings> {
  const types = [...new Set(checks.map((check) => check.type))];
  const found = await Promise.all(types.map((type) => preflightType(type, checks, context)));
  return {
    errors: found.flatMap((findings) => findings.errors),
    warnings: found.flatMap((findings) => findings.warnings),
    harness: found.some((findings) => findings.harness === true),
  };
}

function preflightType<T extends keyof CheckByType>(
  type: T,
  checks: readonly Check[],
  context: PreflightContext,
): Promise<Findings> {
  const ofType = checks.filter((check): check is CheckByType[T] => check.type === type);
  // One type's stop (no agent configured) must not hide what the others found.
  return EXECUTORS[type].preflight(ofType, context).catch((error: unknown) => {
    if (error instanceof InputError) {
      return { errors: [error.message], warnings: [], harness: error instanceof HarnessError };
    }
    throw error;
  });
}

/** Runs one check with the executor of its type. */
export function execute<T extends keyof CheckByType>(
  type: T,
  check: CheckByType[T],
  prepared: PreparedCheck,
  context: ExecContext,
): Promise<ExecOutcome> {
  return EXECUTORS[type].run(check, prepared, context);
}
