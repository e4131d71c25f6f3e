import { describe, expect, it } from "vitest";
import { parseShard } from "../../src/config/shard-spec.js";
import { dealShard, itemSetDigest, shardsOf, takeShard } from "../../src/run/shard.js";

const itemsOf = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `item-${i}` }));

describe("parseShard", () => {
  it("reads I/N with 1 ≤ I ≤ N and nothing else", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
    expect(parseShard(" 1/1 ")).toEqual({ index: 1, count: 1 });
    for (const bad of ["0/3", "4/3", "x", "1/0", "1/", "/3", "1.5/3", "-1/3", "2/4/1", ""]) {
      expect(parseShard(bad), bad).toBeNull();
    }
  });
});

describe("dealShard", () => {
  it("deals every item to exactly one shard, sizes within one, for 1..1000 items and N in 1..16", () => {
    const counts = [
      ...Array.from({ length: 64 }, (_, i) => i + 1),
      97,
      128,
      250,
      333,
      500,
      999,
      1000,
    ];
    for (const n of counts) {
      const ids = itemsOf(n).map((item) => item.id);
      for (let count = 1; count <= 16; count++) {
        const of = shardsOf(ids, count);
        expect(of.size).toBe(n);
        const sizes = Array.from(
          { length: count },
          (_, i) => [...of.values()].filter((s) => s === i + 1).length,
        );
        expect(
          Math.max(...sizes) - Math.min(...sizes),
          `${n} items, ${count} shards`,
        ).toBeLessThanOrEqual(1);
        expect(
          sizes.reduce((a, b) => a + b),
          `${n} items, ${count} shards`,
        ).toBe(n);
      }
    }
  });

  it("gives each shard exactly the items shardsOf puts there", () => {
    const items = itemsOf(37);
    const of = shardsOf(
      items.map((item) => item.id),
      5,
    );
    for (let index = 1; index <= 5; index++) {
      const ids = dealShard(items, { index, count: 5 }).map((item) => item.id);
      expect(ids).toEqual(items.filter((item) => of.get(item.id) === index).map((item) => item.id));
    }
  });

  it("puts an item on the same shard whatever the order of the items", () => {
    const items = itemsOf(200);
    const reversed = [...items].reverse();
    for (let index = 1; index <= 4; index++) {
      const ids = (list: { id: string }[]) =>
        new Set(dealShard(list, { index, count: 4 }).map((i) => i.id));
      expect(ids(reversed)).toEqual(ids(items));
    }
  });

  it("keeps the items' own order within a shard", () => {
    const items = itemsOf(50);
    const shard = dealShard(items, { index: 1, count: 3 });
    const positions = shard.map((item) => items.indexOf(item));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });
});

describe("takeShard", () => {
  it("records I/N and the digest and size of the whole item set", () => {
    const items = itemsOf(10);
    const { items: mine, fields } = takeShard(items, { index: 3, count: 4 });
    expect(fields).toEqual({
      shard: "3/4",
      item_set: itemSetDigest(items.map((item) => item.id)),
      items_total: 10,
    });
    expect(mine.length).toBeGreaterThanOrEqual(2);
    expect(itemSetDigest(["b", "a"])).toBe(itemSetDigest(["a", "b"]));
    expect(itemSetDigest(["a", "c"])).not.toBe(itemSetDigest(["a", "b"]));
  });

  it("is everything and no fields unsharded", () => {
    expect(takeShard(itemsOf(3), null)).toEqual({ items: itemsOf(3), fields: null });
  });
});
