/**
 * Hash partitioning of join keys, shared by the partitioned hash join (which routes build and
 * probe rows) and the pushdown composer (which must route each probe row to *its* partition's
 * filter — a row tested against another partition's filter would be dropped wrongly), and the one
 * counting sort both use to group rows by partition (`groupRowsByPartition`).
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

/**
 * Rows grouped by partition, in row order within each: partition p's rows are
 * `rows[start[p] .. start[p + 1])`; `start` has `partitions + 1` entries and `start[partitions]`
 * is the number of rows grouped.
 */
export interface PartitionGroups {
  readonly start: Int32Array;
  readonly rows: Int32Array;
}

/**
 * The one counting sort of rows by partition id (`pid[r]` in [0, partitions), as `partitionIds`
 * gives), shared by the hash join (build split, probe pieces) and the pushdown composer (routing).
 * Stable: each partition's rows stay ascending, so anything gathered per partition keeps the
 * input's row order.
 *
 * `skip` (0/1 per row, e.g. a NULL-key mask): rows with a 1 are left out of every group (the
 * composer's NULL keys, which no partition filter sees); `null` groups all `n` rows. `out`, when
 * given (length >= n), receives the rows — `rows` is then a view of it, valid until its next use
 * (a probe sorts every batch: fresh 64K-row arrays per batch cost more in first-touch page faults
 * than the sort). The two loops are written out per case so the common one (`skip` null) has no
 * per-row test.
 */
export function groupRowsByPartition(pid: Int32Array, partitions: number, skip: Uint8Array | null, n: number, out?: Int32Array): PartitionGroups {
  const start = new Int32Array(partitions + 1);
  if (skip === null) for (let r = 0; r < n; r++) start[pid[r]! + 1]!++;
  else for (let r = 0; r < n; r++) if (skip[r] === 0) start[pid[r]! + 1]!++;
  for (let p = 0; p < partitions; p++) start[p + 1]! += start[p]!;
  const total = start[partitions]!;
  const rows = out !== undefined ? out.subarray(0, total) : new Int32Array(total);
  const fill = start.slice(0, partitions);
  if (skip === null) for (let r = 0; r < n; r++) rows[fill[pid[r]!]!++] = r;
  else for (let r = 0; r < n; r++) if (skip[r] === 0) rows[fill[pid[r]!]!++] = r;
  return { start, rows };
}
