import { EXIT, RunStoppedError } from "../errors.js";
import { AccessRefusedError } from "./refused.js";
import type { ChatResult } from "./types.js";

/**
 * Calls in a row that fail alike, with none answered yet, before a run stops. Enough that it is
 * no case's own problem nor a passing blip; few enough that a target that cannot answer costs
 * seconds, not a suite's worth of error rows. A run of fewer samples ends about as soon.
 */
export const SAME_FAILURE_STRETCH = 20;

/**
 * The one rule for calls that cannot succeed: a refused key stops the run at its first refusal
 * (every call with it would be refused alike); any other failure once SAME_FAILURE_STRETCH calls
 * in a row have failed with the same message (connection refused, the same HTTP status and
 * message, the same exit code and stderr of a `--target`) and not one call has been answered.
 * Once one is, failures are the cases' own: they are error rows, and the run goes on. A stopped
 * run exits 2 with its rows kept, and `--resume` goes on once the cause is fixed.
 */
export class FailureStop {
  private answered = false;
  private failed = 0;
  private streak = 0;
  private last: string | null = null;

  /**
   * `who` names the calls ("the target", "the judge"); `refusal` says what to do about a refused
   * key (null when the run calls no endpoint).
   */
  constructor(
    private readonly who: string,
    private readonly signal: AbortSignal,
    private readonly refusal: string | null,
  ) {}

  async observe(call: Promise<ChatResult>): Promise<ChatResult> {
    let result: ChatResult;
    try {
      result = await call;
    } catch (error) {
      throw this.verdict(error);
    }
    // An answer from the cache says nothing of whether the endpoint answers now.
    if (!result.cached) this.answered = true;
    return result;
  }

  /** The error to throw: the failure itself, or the stop it completes. */
  private verdict(error: unknown): unknown {
    // An interrupted call failed because the run is ending, not because of the endpoint.
    if (this.signal.aborted || error instanceof RunStoppedError) return error;
    const advice = error instanceof AccessRefusedError ? (error.advice ?? this.refusal) : null;
    if (error instanceof Error && advice !== null) {
      return new RunStoppedError(`${error.message}. Stopped: ${advice}.`, EXIT.couldNotRun);
    }
    if (this.answered) return error;
    const message = error instanceof Error ? error.message : String(error);
    this.failed++;
    this.streak = message === this.last ? this.streak + 1 : 1;
    this.last = message;
    return this.streak < SAME_FAILURE_STRETCH ? error : this.stop(message);
  }

  private stop(message: string): RunStoppedError {
    const calls =
      this.failed === this.streak
        ? `all ${this.failed} calls to ${this.who} failed`
        : `none of ${this.failed} calls to ${this.who} succeeded, and the last ${this.streak} failed`;
    return new RunStoppedError(
      `${calls} the same way: ${message}. Stopped: more calls would fail alike; fix the cause.`,
      EXIT.couldNotRun,
    );
  }
}
