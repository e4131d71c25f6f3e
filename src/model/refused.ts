/**
 * The endpoint refused the call's credentials (HTTP 401 or 403): every other call with the same
 * key would be refused alike. Its own module, so that code which only recognizes it does not
 * load the OpenAI client.
 */
export class AccessRefusedError extends Error {
  override name = "AccessRefusedError";

  constructor(
    message: string,
    readonly status: number,
    /** What to do about it (which variable to set), when the caller knows better than the run. */
    readonly advice: string | null = null,
  ) {
    super(message);
  }
}

/** The statuses that say the credentials, not the request, are wrong. */
export const REFUSED_STATUSES: readonly number[] = [401, 403];
