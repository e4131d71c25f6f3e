import type { CompareFigures } from "./blocks.js";

/**
 * Which question a paired verdict answers, in words: `on these 50 cases` (the cases scope) or
 * `on cases like these 50` (the population scope). No imports but types: the HTML page's script
 * shows it too.
 */
export function question(c: Pick<CompareFigures, "scope" | "paired" | "sequential">): string {
  // A sequential verdict is of every case it drew from, sampled or not.
  const cases = c.sequential?.cases ?? c.paired;
  if (c.scope === "population") return `on cases like these ${cases}`;
  return cases === 1 ? "on this case" : `on these ${cases} cases`;
}
