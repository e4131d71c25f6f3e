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
  return scrubbed(value, scrub) as T;
}

function scrubbed(value: unknown, scrub: Scrub): unknown {
  if (typeof value === "string") return scrub(value);
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    value.forEach((entry, i) => {
      const clean = scrubbed(entry, scrub);
      if (clean === entry) return;
      copy ??= value.slice();
      copy[i] = clean;
    });
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // Entries, not assignments: a "__proto__" key stays a key.
  let changed: [string, unknown][] | null = null;
  keys.forEach((key, i) => {
    const cleanKey = scrub(key);
    const clean = scrubbed(record[key], scrub);
    if (changed === null && cleanKey === key && clean === record[key]) return;
    changed ??= keys.slice(0, i).map((k): [string, unknown] => [k, record[k]]);
    changed.push([cleanKey, clean]);
  });
  return changed === null ? value : Object.fromEntries(changed);
}

/**
 * For a page built outside a run (`eb report --html`, `eb compare --html`): the run folder was
 * scrubbed of the run's secrets when written; this environment's keys and tokens go too.
 */
export function environmentScrub(): Scrub {
  return createScrubber(secretValues(process.env)).scrub;
}
