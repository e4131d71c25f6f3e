/** What a target call rejects with once the run's signal aborts it. */
export class InterruptedError extends Error {
  override name = "InterruptedError";
  constructor(message = "interrupted") {
    super(message);
  }
}

/**
 * Callbacks per long-lived signal. A run makes thousands of calls under one signal: a listener
 * each would pile up on it (the OpenAI client never removes its own), so each signal gets one
 * listener that fans out to the calls still in flight.
 */
const inFlight = new WeakMap<AbortSignal, Set<() => void>>();

function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let callbacks = inFlight.get(signal);
  if (callbacks === undefined) {
    const set = new Set<() => void>();
    signal.addEventListener("abort", () => {
      for (const call of set) call();
      set.clear();
    });
    inFlight.set(signal, set);
    callbacks = set;
  }
  callbacks.add(callback);
  const own = callbacks;
  return () => own.delete(callback);
}

/**
 * Runs `work` under a signal of its own that follows `signal`, and rejects with an
 * InterruptedError as soon as `signal` aborts, without waiting for `work` to wind down (a client
 * sleeping before a retry only notices the abort when it wakes up).
 */
export function interruptible<T>(
  signal: AbortSignal | undefined,
  work: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (signal === undefined) return work(undefined);
  if (signal.aborted) return Promise.reject(new InterruptedError());
  const controller = new AbortController();
  return new Promise<T>((resolve, reject) => {
    const stop = onAbort(signal, () => {
      controller.abort();
      reject(new InterruptedError());
    });
    work(controller.signal).then(resolve, reject).finally(stop);
  });
}
