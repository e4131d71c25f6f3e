import type { Config } from "../../config/load.js";
import type { PythonInterpreter } from "../../process/python.js";
import type { Status } from "../../report/record.js";
import type { Scrubber } from "../../secrets/scrubber.js";
import type { ScriptSnapshot } from "../script.js";
import type { Check } from "../types.js";

/** Everything an executor needs to run one sample of one check. */
export interface ExecContext {
  config: Config;
  /** `<run>/checks`, where per-check files go. */
  checksDir: string;
  /** File stem of this sample's files inside `checksDir`. */
  stem: string;
  /** Private scratch folder for this sample (removed after the run). */
  scratchDir: string;
  python: PythonInterpreter;
  signal: AbortSignal;
  /** The environment processes inherit (the caller's `env`, never read from process.env here). */
  env: NodeJS.ProcessEnv;
  /** Where a warning goes; the library never writes to the terminal itself. */
  warn: (message: string) => void;
  /** Secrets to keep out of everything the check's processes leave behind. */
  scrubber: Scrubber;
}

/** What running a check produced, before timing and identity are added. */
export interface ExecOutcome {
  status: Status;
  reason: string | null;
  errorDetail: string | null;
  /** Tail of stdout (≤ 2000 characters) and the full length; the full stream is in a file. */
  stdout: string;
  stdoutChars: number;
  stderr: string;
  stderrChars: number;
  exitCode: number | null;
  details: Record<string, unknown>;
  /** True when the run was interrupted while this check ran: its outcome is discarded. */
  aborted: boolean;
}

/** A check frozen before the run starts: the script bytes that will run and their digest. */
export interface PreparedCheck {
  check: Check;
  digest: string;
  script: ScriptSnapshot | null;
  /**
   * Why the script does not compile (`file:line: message`), or null: the run's one compile of
   * every script, which may still be under way when the run starts.
   */
  syntaxError: Promise<string | null>;
}
