import { fillProviderEnv, resolveTemplate } from "../agents/resolve.js";
import type { Config } from "../config/load.js";
import { secretValues } from "../secrets/collect.js";
import { createScrubber, type Scrubber } from "../secrets/scrubber.js";
import type { Check } from "./types.js";

/**
 * What an `eb run` must never write: the key-like variables its scripts and agents inherit, the
 * key-like `[harness.env]` entries, and every `provider_env` value of the agent it runs.
 */
export function checkScrubber(
  config: Config,
  checks: readonly Check[],
  env: NodeJS.ProcessEnv,
): Scrubber {
  const agent = config.harness.agent;
  const judged = agent !== null && checks.some((check) => check.type === "harness_judge");
  const provider = judged
    ? Object.values(
        fillProviderEnv(resolveTemplate(agent, config.agents).providerEnv, env, () => {}),
      )
    : [];
  return createScrubber([...secretValues(env), ...secretValues(config.harness.env), ...provider]);
}
