/** A check definition as loaded from one YAML file. */
interface CheckBase {
  id: string;
  description: string;
  tags: string[];
  /** Absolute real path of the YAML file. */
  sourcePath: string;
  /** The line of the `id` field in that file. */
  line: number;
  /** The exact bytes that were parsed (they feed the digest). */
  yamlBytes: Uint8Array;
  /**
   * Eval Banana 0.2's deprecated `target_paths`, as written (relative to the project root), or
   * null when the file does not have the field.
   */
  targetPaths: string[] | null;
  /** Problems that do not stop the check loading (a deprecated field), each naming file:line. */
  warnings: string[];
}

export interface DeterministicCheck extends CheckBase {
  type: "deterministic";
  /** Inline Python source, or null when `script_path` is used. */
  script: string | null;
  /** The YAML line of the inline script's first line, or null when lines do not map one to one. */
  scriptLine: number | null;
  /** `script_path` as written (relative to the YAML file's folder), or null. */
  scriptPath: string | null;
  /** Where the inline script (or the `script_path` value) is in the YAML file. */
  scriptPlace: ScriptPlace;
}

export interface ScriptPlace {
  /** The file line holding the script's first line (or the `script_path` value). */
  firstLine: number;
  /** Written without `|` over several lines, so YAML joined them into one. */
  folded: boolean;
}

export interface HarnessJudgeCheck extends CheckBase {
  type: "harness_judge";
  instructions: string;
  model: string | null;
}

export type Check = DeterministicCheck | HarnessJudgeCheck;
export type CheckType = Check["type"];
