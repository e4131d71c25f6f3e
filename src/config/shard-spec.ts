// What a shard is, apart from how items are dealt (shard.ts): the settings table parses
// `--shard` with it, and the settings are read where Node's modules are not (the HTML client).

/** One of `count` shards of a suite, 1-based as in `--shard 2/4`. */
export interface Shard {
  index: number;
  count: number;
}

const SHAPE = /^(\d+)\/(\d+)$/;

/** What to write instead of a value that is not a shard. */
export const SHARD_HELP = "must be I/N with 1 ≤ I ≤ N, e.g. 2/4 (the second of four shards)";

/** `2/4` → {index 2, count 4}; null for anything else (0/3, 4/3, x). */
export function parseShard(text: string): Shard | null {
  const match = SHAPE.exec(text.trim());
  if (!match) return null;
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (!(index >= 1 && index <= count && Number.isSafeInteger(count))) return null;
  return { index, count };
}

export function shardText({ index, count }: Shard): string {
  return `${index}/${count}`;
}
