/**
 * What eb's transport said went wrong, carried through a client untouched: the clients wrap what
 * their `fetch` throws (as a connection error, or a timeout when the text says "timed out"), and
 * read the status of an answer without its Retry-After. This text says neither.
 */
export class TransportFailure extends Error {
  override name = "TransportFailure";

  constructor(readonly failure: unknown) {
    super("eb's transport failed");
  }
}

/** What a client threw, as eb's transport's own error when it was one, else as it is. */
export function unwrapped(error: unknown): unknown {
  for (let at = error, depth = 0; at instanceof Error && depth < 8; depth++) {
    if (at instanceof TransportFailure) return at.failure;
    at = at.cause;
  }
  return error;
}
