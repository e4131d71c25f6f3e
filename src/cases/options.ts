import type { RunOptions } from "../run/options.js";
import type { RoundStatus } from "./batch-settings.js";
import type { SharedBudget } from "./budget.js";
import type { ArmDraws } from "./paired-draws.js";

/**
 * Options of one `eb eval` run. Settings of the settings table ([eval] api_base, judge, workers,
 * timeout_seconds, max_retries, cache_dir, pass_threshold; [core] output_dir) come from `flags`
 * (keyed like `"eval.workers"`), EVAL_BANANA_* variables and the config file, as for `eb run`.
 */
export interface RunCasesOptions extends RunOptions<"cases"> {
  /**
   * The JSONL case file; a relative path is taken from `cwd`. With `resume`, the run's own case
   * file when left out.
   */
  cases?: string | undefined;
  /** The model to send the cases to. Exactly one of `model` and `command`. */
  model?: string | undefined;
  /** A command line that reads a case as JSON on stdin and prints its output; runs in `cwd`. */
  command?: string | undefined;
  /** eb's own API key variables the command still gets (it gets none of them by default). */
  targetEnv?: readonly string[] | undefined;
  /** Samples per case (default 1). */
  k?: number | undefined;
  /** Default 0. */
  temperature?: number | undefined;
  maxTokens?: number | undefined;
  /** Default: EVAL_BANANA_API_KEY, else OPENAI_API_KEY, from `env`. Never written anywhere. */
  apiKey?: string | undefined;
  /** Default: on for a model, off for a command (the judge is cached unless this is false). */
  cache?: boolean | undefined;
  /** Send the target calls the cache misses through the provider's Batch API first. */
  batch?: boolean | undefined;
  /** How often a batch is polled (default 30000). */
  batchPollMs?: number | undefined;
  /** Each poll of a batch: where it stands. */
  onBatchStatus?: ((status: RoundStatus) => void) | undefined;
  /** Send the cases in the order this seed shuffles them to (default: the file's order). */
  seed?: number | undefined;
  /**
   * `--sequential`: the samples this arm runs are drawn one by one (paired-draws.ts) instead of
   * k of each case; k is then the cap per case on average.
   */
  draws?: ArmDraws | undefined;
  /** eb eval's arms: one --max-cost for all of them (default: the run's own). */
  sharedBudget?: SharedBudget | undefined;
}
