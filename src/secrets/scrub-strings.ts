import { mapStrings } from "../report/json.js";
import { secretValues } from "./collect.js";
import { createScrubber } from "./scrubber.js";

export type Scrub = (text: string) => string;

/**
 * Every string of a value (keys too) through a scrubber, one by one: a secret must not survive
 * in any field, nor hide from the scrubber behind the escapes of the format it is written in.
 * What no secret was found in is returned as it is, not copied: a run's report is large, and
 * mostly clean.
 */
export function scrubStrings<T>(value: T, scrub: Scrub): T {
  return mapStrings(value, scrub, true);
}

/**
 * For a page built outside a run (`eb report --html`, `eb compare --html`): the run folder was
 * scrubbed of the run's secrets when written; this environment's keys and tokens go too.
 */
export function environmentScrub(): Scrub {
  return createScrubber(secretValues(process.env)).scrub;
}
