/**
 * Which items a run evaluates: deterministic sampling, then sharding.
 *
 * Sampling (only when `samples` is set and smaller than the item count): each
 * item gets the key `fnv1a32(`${seed}:${id}`)`; items are ordered by key
 * (ties by id, code-unit order) and the first `samples` are kept. The kept
 * items are then put back in dataset order, so that results read like the
 * dataset. The same seed, ids and count always give the same subset, and a
 * larger `samples` gives a superset of a smaller one.
 *
 * Sharding (when `num_shards` > 1): round-robin over the selected list in
 * dataset order — position p goes to shard `p % num_shards`. Every selected
 * item is in exactly one shard and shard sizes differ by at most one.
 */
import { fnv1a32 } from "./fnv1a.js";

export interface SelectionOptions {
  seed: number;
  /** Keep at most this many items; undefined = all. */
  samples?: number | undefined;
  /** 0-based shard index; default 0. */
  shardIndex?: number | undefined;
  /** Number of shards; default 1. */
  numShards?: number | undefined;
}

/** The sampling key of one item id under `seed`. */
export function samplingKey(seed: number, id: string): number {
  return fnv1a32(`${seed}:${id}`);
}

/** Deterministic subset of `items` (see module note); dataset order kept. */
export function sampleItems<T extends { id: string }>(items: readonly T[], seed: number, samples?: number): T[] {
  if (samples === undefined || samples >= items.length) return [...items];
  const keyed = items.map((item, index) => ({ item, index, key: samplingKey(seed, item.id) }));
  keyed.sort((a, b) => a.key - b.key || (a.item.id < b.item.id ? -1 : a.item.id > b.item.id ? 1 : 0));
  return keyed
    .slice(0, samples)
    .sort((a, b) => a.index - b.index)
    .map((k) => k.item);
}

/** Round-robin shard `shardIndex` of `numShards` (see module note). */
export function shardItems<T>(items: readonly T[], shardIndex: number, numShards: number): T[] {
  if (numShards <= 1) return [...items];
  return items.filter((_, position) => position % numShards === shardIndex);
}

/** Sampling then sharding, as the runner applies them. */
export function selectItems<T extends { id: string }>(items: readonly T[], opts: SelectionOptions): T[] {
  return shardItems(sampleItems(items, opts.seed, opts.samples), opts.shardIndex ?? 0, opts.numShards ?? 1);
}
