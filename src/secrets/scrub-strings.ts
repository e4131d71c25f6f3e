import { secretValues } from "./collect.js";
import { createScrubber } from "./scrubber.js";

export type Scrub = (text: string) => string;

/**
 * Every string of a value (keys too) through a scrubber, one by one: a secret must not survive
 * in any field, nor hide from the scrubber behind the escapes of the format it is written in.
 */
export function scrubStrings<T>(value: T, scrub: Scrub): T {
  if (typeof value === "string") return scrub(value) as T;
  if (Array.isArray(value)) return value.map((entry) => scrubStrings(entry, scrub)) as T;
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value).map(([key, entry]) => [
    scrub(key),
    scrubStrings(entry, scrub),
  ]);
  return Object.fromEntries(entries) as T;
}

/**
 * For a page built outside a run (`eb report --html`, `eb compare --html`): the run folder was
 * scrubbed of the run's secrets when written; this environment's keys and tokens go too.
 */
export function environmentScrub(): Scrub {
  return createScrubber(secretValues(process.env)).scrub;
}
