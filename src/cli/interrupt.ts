import { printWarning } from "./output.js";

/**
 * First Ctrl-C or SIGTERM: stop launching, kill what runs, write what finished.
 * A second one exits at once.
 */
export function abortOnSignals(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(130);
    printWarning("interrupted: stopping, writing the rows and report of what finished…");
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}
