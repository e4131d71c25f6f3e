import { InputError } from "../errors.js";
import type { Adjustment } from "../stats/adjust.js";
import type { CompareOptions } from "../stats/compare.js";
import type { IntervalMethod, Scope } from "../stats/types.js";
import { intervalLevel } from "./options.js";

/**
 * The gate's options, shared by `eb compare`, `eb eval --baseline` and arms. Apart from the
 * comparison: a run checks them before any call, and eb eval's start must not load it.
 */
export interface GateFlags {
  margin: string;
  inconclusive: "fail" | "pass";
  /** `[report] scope` as loaded (flag, environment, file, default). */
  scope?: Scope;
}

export interface CompareFlags extends GateFlags {
  interval: IntervalMethod;
  level: string;
  adjust: Adjustment;
  seed: string;
  json?: boolean;
  markdown?: boolean;
  junit?: string;
  /** Also write the comparison as one self-contained HTML page to this file. */
  html?: string;
  cwd: string;
}

/** Validates --margin (and the bootstrap's --seed) before anything is read or run. */
export function compareOptions(flags: GateFlags & Partial<CompareFlags>): CompareOptions {
  const margin = flags.margin.trim() === "" ? Number.NaN : Number(flags.margin);
  if (!(margin >= 0 && margin <= 1)) {
    throw new InputError(`--margin ${flags.margin}: expected a number between 0 and 1`);
  }
  const seed = Number(flags.seed ?? 0);
  if (!Number.isInteger(seed))
    throw new InputError(`--seed ${flags.seed}: expected a whole number`);
  const level = flags.level === undefined ? undefined : intervalLevel(flags.level);
  return { margin, method: flags.interval, seed, level, adjust: flags.adjust, scope: flags.scope };
}
