/**
 * The pushdown-policy contract: once a hash join's build side is complete, a policy turns each
 * build partition into a `KeyFilter` over the probe side's key columns; the hash join composes
 * the partitions' filters into the one `ScanPredicate` the probe scan executes
 * (core/pushdown/compose.ts: partition routing, empty/failed partitions, NULL keeping).
 *
 * A filter may only ever answer "maybe" for a row or container that could match — a dropped row
 * is the worst bug a policy can have. It sees normalised key columns (`KeyKind` per key pair, the
 * same representation as the build's), so widened and mixed-width keys compare correctly.
 * NULL keys are handled by the composer, never by a KeyFilter: rows with a NULL key are dropped
 * (or kept, under null-equals-null / null-aware anti) before `test` sees them.
 */
import type { Config } from '../config/schema.ts';
import type { JoinHashTable } from '../hashmap.ts';
import type { KeyColumn, KeyKind } from '../keys/types.ts';
import type { Strategy } from '../registry/registry.ts';
import type { KeyValue } from '../scan/key-stats.ts';
import type { ColumnStats } from '../scan/scan.ts';
import type { DataType } from 'apache-arrow';

/** What one build partition saw. */
export interface BuildPartition {
  readonly index: number;
  /** Build rows in this partition (0: the partition is empty and can match nothing). */
  readonly rows: number;
  /** Normalised build keys, contiguous over the partition's rows. */
  readonly keys: readonly KeyColumn[];
  /** The partition's hash table, and the seed its hashes were computed with. */
  readonly table: JoinHashTable;
  readonly seed: number;
  /** `hashKeys(keys, seed)`, when the build kept them (saves a filter hashing the keys again). */
  readonly hashes?: Uint32Array;
  /**
   * Arrow bytes the partition's build rows hold, all columns (core/arrow/size.ts), when the join
   * reports it — what a policy sizing by the creation side (Spark's runtime filter) needs.
   */
  readonly bytes?: number;
}

export interface PushdownContext {
  readonly config: Config;
  /** Common kind per key pair (probe keys are normalised to these). */
  readonly keyKinds: readonly KeyKind[];
  /** The probe side's Arrow type per key column (container stats come in this type). */
  readonly probeTypes: readonly DataType[];
  readonly probeColumns: readonly string[];
}

/** A test over the probe key columns for one build partition. */
export interface KeyFilter {
  /** e.g. `k BETWEEN 0 AND 99`, `k IN (3 values)`, `k IN MAP(1000) + BITMAP(1024 buckets)`. */
  readonly description: string;
  /** Whether `test` needs the probe rows' hashes (computed with the partition's seed). */
  readonly needsHashes: boolean;
  /**
   * Container level: `stats[c]` are the stats of probe key column c in the container (in the
   * probe column's own type, `undefined` when unknown). false only if no row can pass `test`.
   */
  mayContain(stats: readonly (ColumnStats | undefined)[]): boolean;
  /**
   * Row level: for each row r listed in `rows` (all rows if null), clear `keep[r]` to 0 if row r
   * cannot match; never set a 0 to 1. Rows tested have no NULL in any key column.
   */
  test(keys: readonly KeyColumn[], hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void;
  /**
   * Row level over ONE key column given as raw int32 values whose normalised words are their sign
   * extension (core/keys/normalize.ts `rawInt32Keys`): the same answers as `test` on that column,
   * without the normalised copy. `hashes`, when `needsHashes`, are the rows' key hashes with the
   * partition's seed. Absent when the filter has no such path (the composer then normalises).
   */
  testInt32?(values: Int32Array, hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void;
  /**
   * What of this filter is worth running per row under `pushdown.rowFilter: auto` — the probe
   * scan feeds the join directly, so a row test only pays when it is much cheaper than the join's
   * own probe of the row: itself (omit the method), a cheaper part of it (a map filter keeps its
   * KeyRangeBitmap), or null (the join's probe does this test anyway; containers still use it).
   */
  perRow?(): KeyFilter | null;
  /**
   * A short form of `description` for tables and charts (e.g. `bounds`, `in(3)`,
   * `map(992, swiss) + bitmap`, `bloom(64 KiB)`); `description` when absent.
   */
  readonly label?: string;
  /**
   * When the filter passes exactly the rows whose key is one of a known, finite set of values
   * (an IN list over ONE key column), those values in the key kind's domain; otherwise absent or
   * null. A scan may then prune a container whose own membership summary (a Parquet column
   * chunk's Bloom filter) rules out every value — the one way to prune unsorted data.
   */
  exactValues?(): readonly KeyValue[] | null;
  /**
   * The filter as plain data (typed arrays, the large ones in shared memory) for a worker thread to
   * rebuild there (core/pushdown/shared-filters.ts: `registerKeyFilterKind`, `restoreKeyFilter`);
   * absent or null when it cannot — the composed predicate then shares no row test, and workers
   * keep every row (sound: a filter only says "maybe"). The restored filter must answer `test` and
   * `needsHashes` exactly as this one; it is never asked about containers (the thread that hands
   * out the containers prunes them), so it may answer `mayContain` with "maybe" and describe
   * itself more briefly. A wrapper whose `test` is its inner filter's shares the inner filter.
   */
  share?(): SharedKeyFilter | null;
}

/** A key filter as plain data: `kind` names the restorer registered for it. */
export interface SharedKeyFilter {
  readonly kind: string;
  readonly state: unknown;
}

export interface PushdownPolicy extends Strategy {
  /**
   * `true` for a baseline that publishes no dynamic filter at all — not even what the composer
   * derives without the policy (an empty partition's `false`, dropping NULL-key probe rows), so
   * the probe scan runs exactly as without a join filter. Default `false`.
   */
  readonly publishesNothing?: boolean;
  /** The filter for one non-empty build partition, or `null` for "keep everything". */
  planPartition(build: BuildPartition, ctx: PushdownContext): KeyFilter | null;
}

/** The part of `f` to run per row under `pushdown.rowFilter: auto` (see `KeyFilter.perRow`). */
export function rowPartOf(f: KeyFilter): KeyFilter | null {
  return f.perRow === undefined ? f : f.perRow();
}
