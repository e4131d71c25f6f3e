import { HarnessError } from "../agents/resolve.js";
import { byCodePoint } from "../report/order.js";
import type { Check } from "./types.js";

/**
 * harness_judge checks need an agent: say so before anything runs, naming the first file.
 * Returns the agent, or null when no judge check needs one.
 */
export function requireHarness(checks: readonly Check[], agent: string | null): string | null {
  if (agent !== null) return agent;
  const offenders = checks
    .filter((check) => check.type === "harness_judge")
    .map((check) => check.sourcePath)
    .sort(byCodePoint);
  if (offenders.length === 0) return null;
  throw new HarnessError([
    `harness_judge check requires a harness but none is configured (first offender: ${offenders[0]}). ` +
      "Fix: set [harness] agent in .eval-banana/config.toml or pass --harness-agent on the command line.",
  ]);
}
