import { createHash } from "node:crypto";
import { type Shard, shardText } from "../config/shard-spec.js";
import { byCodePoint } from "../report/order.js";

/** What a shard's manifest records, so `eb merge` can tell shards of one run from others. */
export interface ShardFields {
  /** `I/N`. */
  shard: string;
  /** Digest of every item id of the suite before sharding (sorted, one per line). */
  item_set: string;
  /** Items of the suite before sharding. */
  items_total: number;
}

/**
 * The shard (1-based) of each item id among `count` shards. Items are dealt by a stable hash of
 * their id: sorted by hash, then dealt round-robin, so an item lands on the same shard whatever
 * the order of files, and shard sizes differ by at most one.
 */
export function shardsOf(ids: readonly string[], count: number): Map<string, number> {
  const sorted = ids
    .map((id) => ({ id, key: createHash("sha256").update(id).digest("hex") }))
    // Hex digests: code-unit order is code-point order.
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : byCodePoint(a.id, b.id)));
  return new Map(sorted.map(({ id }, position) => [id, (position % count) + 1]));
}

/** The items of one shard, in their own order. */
export function dealShard<T extends { id: string }>(items: readonly T[], shard: Shard): T[] {
  const of = shardsOf(
    items.map((item) => item.id),
    shard.count,
  );
  return items.filter((item) => of.get(item.id) === shard.index);
}

/** A shard's items and its manifest fields; all items and no fields when unsharded. */
export function takeShard<T extends { id: string }>(
  items: readonly T[],
  shard: Shard | null,
): { items: T[]; fields: ShardFields | null } {
  if (shard === null) return { items: [...items], fields: null };
  const fields = {
    shard: shardText(shard),
    item_set: itemSetDigest(items.map((item) => item.id)),
    items_total: items.length,
  };
  return { items: dealShard(items, shard), fields };
}

export function itemSetDigest(ids: readonly string[]): string {
  const lines = [...ids].sort(byCodePoint).join("\n");
  return `sha256:${createHash("sha256").update(lines).digest("hex")}`;
}
