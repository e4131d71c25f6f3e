import { InputError } from "../errors.js";
import type { Check } from "./types.js";

/**
 * Whether an id matches a `--check-id` pattern: the id itself, or a glob where `*` stands for
 * any characters and `?` for one (ids are letters, digits, `_` and `-`, so nothing else needs a
 * meaning).
 */
export function idMatcher(pattern: string): (id: string) => boolean {
  if (!isGlob(pattern)) return (id) => id === pattern;
  const source = [...pattern]
    .map((ch) => (ch === "*" ? ".*" : ch === "?" ? "." : ch.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
    .join("");
  const regex = new RegExp(`^${source}$`, "s");
  return (id) => regex.test(id);
}

function isGlob(pattern: string): boolean {
  return pattern.includes("*") || pattern.includes("?");
}

/** What to tell the user about a `--check-id` pattern that selected nothing. */
export function noMatch(pattern: string): string {
  return isGlob(pattern)
    ? `No check id matches '${pattern}'. Run \`eb list\` to see the ids.`
    : `No check found with id '${pattern}'. Run \`eb list\` to see the ids.`;
}

/**
 * The checks having at least one of `tags` (all of them when none is given). A tag that no
 * check has is an error listing the tags in use: a typo must not quietly run fewer checks.
 */
export function selectByTags(checks: readonly Check[], tags: readonly string[]): Check[] {
  if (tags.length === 0) return [...checks];
  const inUse = new Set(checks.flatMap((check) => check.tags));
  const unknown = tags.filter((tag) => !inUse.has(tag));
  if (unknown.length > 0) {
    const names = unknown.map((tag) => `'${tag}'`).join(", ");
    const known = [...inUse].sort();
    const listed = known.length === 0 ? "no check has a tag" : `tags in use: ${known.join(", ")}`;
    const noun = unknown.length === 1 ? "the tag" : "the tags";
    throw new InputError(`No check has ${noun} ${names} (${listed}).`);
  }
  return checks.filter((check) => check.tags.some((tag) => tags.includes(tag)));
}
