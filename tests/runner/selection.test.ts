import { describe, expect, it } from "vitest";
import { fnv1a32 } from "../../src/runner/fnv1a.js";
import { sampleItems, selectItems, shardItems } from "../../src/runner/selection.js";

const items = Array.from({ length: 164 }, (_, i) => ({ id: `HumanEval/${i}` }));

describe("fnv1a32", () => {
  it("matches the published FNV-1a 32-bit test vectors", () => {
    expect(fnv1a32("")).toBe(0x811c9dc5);
    expect(fnv1a32("a")).toBe(0xe40c292c);
    expect(fnv1a32("foobar")).toBe(0xbf9cf968);
  });
  it("hashes UTF-8 bytes, not UTF-16 code units", () => {
    // "é" is 2 bytes in UTF-8; a code-unit hash would equal the hash of one byte 0xe9.
    expect(fnv1a32("é")).not.toBe(fnv1a32("\u00e9".normalize("NFD")));
    expect(fnv1a32("é")).toBe(Math.imul((Math.imul(0x811c9dc5 ^ 0xc3, 0x01000193) >>> 0) ^ 0xa9, 0x01000193) >>> 0);
  });
});

describe("deterministic sampling", () => {
  it("gives the same subset for the same seed and a different one for another seed", () => {
    const a = sampleItems(items, 7, 20).map((i) => i.id);
    const b = sampleItems(items, 7, 20).map((i) => i.id);
    const c = sampleItems(items, 8, 20).map((i) => i.id);
    expect(a).toEqual(b);
    expect(a).toHaveLength(20);
    expect(c).not.toEqual(a);
  });
  it("keeps dataset order and is nested: a larger sample contains a smaller one", () => {
    const small = sampleItems(items, 3, 10).map((i) => i.id);
    const large = sampleItems(items, 3, 40).map((i) => i.id);
    for (const id of small) expect(large).toContain(id);
    const idx = small.map((id) => Number(id.split("/")[1]));
    expect([...idx].sort((x, y) => x - y)).toEqual(idx);
  });
  it("does not depend on the input order", () => {
    const reversed = [...items].reverse();
    const a = new Set(sampleItems(items, 11, 15).map((i) => i.id));
    const b = new Set(sampleItems(reversed, 11, 15).map((i) => i.id));
    expect(b).toEqual(a);
  });
  it("orders by fnv1a(seed:id)", () => {
    const picked = sampleItems(items, 5, 1)[0]?.id;
    const best = [...items].sort((x, y) => fnv1a32(`5:${x.id}`) - fnv1a32(`5:${y.id}`))[0]?.id;
    expect(picked).toBe(best);
  });
  it("returns everything when samples is absent or too large", () => {
    expect(sampleItems(items, 0)).toHaveLength(164);
    expect(sampleItems(items, 0, 1000)).toHaveLength(164);
  });
});

describe("sharding", () => {
  it("puts every item in exactly one shard, sizes within one", () => {
    for (const numShards of [1, 2, 3, 7, 20]) {
      const seen = new Map<string, number>();
      const sizes: number[] = [];
      for (let s = 0; s < numShards; s++) {
        const shard = shardItems(items, s, numShards);
        sizes.push(shard.length);
        for (const it of shard) seen.set(it.id, (seen.get(it.id) ?? 0) + 1);
      }
      expect(seen.size).toBe(items.length);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    }
  });
  it("shards the sampled list (sampling first, then sharding)", () => {
    const sampled = sampleItems(items, 9, 30);
    const union = [0, 1, 2].flatMap((s) => selectItems(items, { seed: 9, samples: 30, shardIndex: s, numShards: 3 }));
    expect(new Set(union.map((i) => i.id))).toEqual(new Set(sampled.map((i) => i.id)));
  });
});
