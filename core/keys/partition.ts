/**
 * Hash partitioning of join keys, shared by the partitioned hash join (which routes build and
 * probe rows) and the pushdown composer (which must route each probe row to *its* partition's
 * filter — a row tested against another partition's filter would be dropped wrongly).
 *
 * Routing uses its own seed, different from the hash tables' seed: with one seed, every row of a
 * partition would share the hash bits that picked the partition, crowding the table's buckets.
 */
import { hashKeys } from './hash.ts';
import type { KeyColumn } from './types.ts';

/** Seed of the hash that picks a row's partition. */
export const PARTITION_SEED = 0x2545f491;
/** Seed of the hashes the join's hash tables (and the `map` pushdown) use. */
export const TABLE_SEED = 0x9e3779b1;

/** Partition in [0, count) of a 32-bit hash: the high bits, scaled (no modulo bias). */
export function partitionOfHash(hash: number, count: number): number {
  return Math.floor((hash >>> 0) * count / 4294967296);
}

/** `out[r]` = partition of row r. Uses `scratch` for the routing hashes when given. */
export function partitionIds(keys: readonly KeyColumn[], count: number, out: Uint16Array | Int32Array, scratch?: Uint32Array): void {
  if (count === 1) {
    out.fill(0);
    return;
  }
  const h = hashKeys(keys, PARTITION_SEED, scratch);
  const n = keys[0]!.length;
  for (let r = 0; r < n; r++) out[r] = Math.floor(h[r]! * count / 4294967296);
}
