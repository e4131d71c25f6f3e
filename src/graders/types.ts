import type { z } from "zod";
import type { Message } from "../model/types.js";
import type { PythonInterpreter } from "../process/python.js";

export interface GraderContext {
  /** The content of the case's last message: what the output answers. */
  request: string;
  messages: readonly Message[];
  /**
   * Sends a prompt to the judge model and returns its text; null when no judge is configured.
   * `sample` (from 0) tells the verdicts asked of one prompt apart: each is its own call.
   */
  judge: ((prompt: string, sample: number) => Promise<string>) | null;
  /** How many verdicts a judge grader asks per output (`--judge-samples`); its mark is their majority. */
  judgeSamples: number;
  /** The case and sample the output answers (what a grader program is told). */
  item: { id: string; stratum: string; sample: number };
  /** What graders that run programs need from the run; null where none can run. */
  processes: GraderProcesses | null;
}

/** The Python a grader runs, checked before the run: the file exists, the source compiles. */
export interface GraderPython {
  source?: string;
  /** Relative to the case file's folder. */
  path?: string;
}

export interface GraderOutcome {
  pass: boolean;
  reason?: string;
  /** Each verdict (1 pass, 0 fail) of a grader that asked its judge more than once. */
  votes?: Vote[];
}

/** One verdict: 1 pass, 0 fail. */
export type Vote = 0 | 1;

export type GraderResult = GraderOutcome | boolean;

/**
 * One grader type. `schema` validates the grader's own fields (everything but `type` and
 * `name`) when the case file loads; it may transform them (the regex grader compiles its pattern
 * there, once), and `grade` receives the parsed value.
 */
export interface GraderDefinition<S> {
  /** The fields it takes, shown in load errors, e.g. `{"pattern": "<regular expression>"}`. */
  describe: string;
  schema: z.ZodType<S>;
  /** Set when grading calls `ctx.judge`, so a run can refuse to start without a judge model. */
  usesJudge?: boolean;
  /** A judge grader's criteria: what eb pairwise asks a judge to compare answers on. */
  criteria?(spec: S): readonly string[];
  /** The Python it runs, for the checks before a run. */
  python?(spec: S): GraderPython;
  grade(output: string, spec: S, ctx: GraderContext): GraderResult | Promise<GraderResult>;
}

/** A grader of one case, validated and ready to run. */
export interface GraderSpec {
  type: string;
  /** Unique within the case; the key of the row's marks. Defaults to the type. */
  name: string;
  usesJudge: boolean;
  /** A judge grader's criteria; absent for every other grader. */
  criteria?: readonly string[];
  /** The Python a script grader runs; absent for every other grader. */
  python?: GraderPython;
  grade(output: string, ctx: GraderContext): Promise<GraderOutcome>;
}

/**
 * What a grader that runs a program needs from the run: the run's Python (found once, as checks
 * find it), where programs run, their environment (eb's, less its API keys) and the timeout of
 * a check.
 */
export interface GraderProcesses {
  python(): Promise<PythonInterpreter>;
  /** Where commands run (the --cwd folder, as a --target command). */
  cwd: string;
  /** The case file's folder: a `script_path` is relative to it. */
  casesDir: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
}
