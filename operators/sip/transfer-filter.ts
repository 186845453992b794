/**
 * A sip transfer's filter (core/sip.ts): the dynamic filter a hash join building the *source*
 * table on these key columns would publish into the *target* table — built without the join.
 *
 * Why not run a hash join with an empty probe side: a Bloom filter needs only the keys' hashes,
 * and the largest relation (the root of predicate transfer's tree) sends filters in the backward
 * pass; a hash table over millions of its rows would cost more than the filter saves. So the
 * source's key columns are read once (`collectKeys`, every filter that reached the source in
 * force), normalised to the kinds both sides compare as (`resolveKeyKind`, as the join binds
 * them), hashed with the table seed, and handed to the pushdown policy as one build partition;
 * only a policy that reads the hash table (`exact` = `map`, or the configured policy) gets one,
 * built by the hash join's own `buildPartitions`. The composer (core/pushdown/compose.ts) then
 * makes the predicate exactly as for a join: NULL keys never pass, an empty source publishes
 * `false`, containers are pruned by what the policy offers. Rows are tested with the whole filter
 * (`pushdown.rowFilter: always`): no join probe follows at the target's scan to repeat the test.
 *
 * Memory: the source's key batches are reserved while its transfers are built (`collectKeys`'s
 * reservation, the caller frees it); each filter has a reservation of its own, held while the
 * filter lives: a table-backed filter keeps its normalised keys, hashes and table, a Bloom or
 * bounds filter only its own bytes (`retainedBytes`).
 */
import type { Field, RecordBatch } from 'apache-arrow';
import { concatBatches } from '../../core/arrow/gather.ts';
import { batchByteSize } from '../../core/arrow/size.ts';
import type { Config } from '../../core/config/schema.ts';
import type { HashMapLayout } from '../../core/hashmap.ts';
import { hashKeys } from '../../core/keys/hash.ts';
import { normalizeKeys } from '../../core/keys/normalize.ts';
import { TABLE_SEED } from '../../core/keys/partition.ts';
import { resolveKeyKind } from '../../core/keys/resolve.ts';
import { keyColumnBytes, type KeyKind } from '../../core/keys/types.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import { composeDynamicFilter } from '../../core/pushdown/compose.ts';
import type { BuildPartition, PushdownPolicy } from '../../core/pushdown/policy.ts';
import type { Scan, ScanPredicate } from '../../core/scan/scan.ts';
import { buildPartitions, EMPTY_TABLE } from '../hash-join/build.ts';
import { projectBatch } from '../../core/scan/batch-shape.ts';

/** The source's key columns, read once (several transfers from one source share them). */
export interface SourceKeys {
  readonly batches: readonly RecordBatch[];
  readonly rows: number;
  readonly ms: number;
  /** Whether the batches hold every column asked for (else only the key columns: the rest did not fit). */
  readonly complete: boolean;
}

/**
 * Reads `columns` of `source` (its filters in force), reserving what it holds in `reservation`.
 * Columns beyond `keyColumns` (a read kept for the joins) are held only while they fit in `budget`
 * bytes and the pool grants them: past that the batches are cut to the key columns and the read
 * goes on (`complete` false) —
 * the joins then read the table themselves, rather than the query failing where it need not.
 */
export async function collectKeys(source: Scan, columns: readonly string[], keyColumns: readonly string[], reservation: Reservation, budget = Infinity, signal?: AbortSignal): Promise<SourceKeys> {
  const started = performance.now();
  let batches: RecordBatch[] = [];
  let rows = 0;
  let complete = true;
  const extra = columns.some((c) => !keyColumns.includes(c));
  for await (const read of source.batches({ columns, ...(signal !== undefined ? { signal } : {}) })) {
    if (read.numRows === 0) continue;
    let b = read;
    if (extra && complete && (reservation.size + batchByteSize(b) > budget || !reservation.tryGrow(batchByteSize(b)))) {
      complete = false;
      batches = batches.map((x) => projectBatch(x, keyColumns, source.source));
      reservation.resize(batches.reduce((n, x) => n + batchByteSize(x), 0));
    }
    if (!extra || !complete) {
      if (extra) b = projectBatch(b, keyColumns, source.source);
      reservation.grow(batchByteSize(b));
    }
    batches.push(b);
    rows += b.numRows;
  }
  return { batches, rows, ms: performance.now() - started, complete: complete || !extra };
}

export interface TransferFilterArgs {
  readonly keys: SourceKeys;
  /** The source's key columns (in `keys`' batches) and the target's, pairwise equated. */
  readonly sourceColumns: readonly string[];
  readonly targetFields: readonly Field[];
  readonly policy: PushdownPolicy;
  /** Whether the policy reads the source's hash table (else it gets an empty one it never asks). */
  readonly needsTable: boolean;
  /** Bytes the filter keeps once built, for a policy without a table (else everything stays reserved). */
  readonly retainedBytes?: (rows: number) => number;
  readonly layout: HashMapLayout;
  readonly config: Config;
  /** This filter's memory in the query's pool, held while the filter lives (the caller frees it with the query). */
  readonly reservation: Reservation;
}

export interface TransferFilter {
  /** null: the policy publishes nothing (keep every row). */
  readonly predicate: ScanPredicate | null;
  readonly buildMs: number;
  /** Bytes held for the filter (reserved in the query's pool). */
  readonly bytes: number;
}

/** The target-side predicate of one transfer (see the module comment). */
export async function buildTransferFilter(a: TransferFilterArgs): Promise<TransferFilter> {
  const started = performance.now();
  const { keys, sourceColumns, targetFields } = a;
  if (sourceColumns.length === 0 || sourceColumns.length !== targetFields.length) throw new RangeError(`a transfer needs as many source as target key columns (${sourceColumns.length} and ${targetFields.length})`);
  const before = a.reservation.size;
  let partition: BuildPartition;
  let kinds: KeyKind[] = [];
  if (keys.rows === 0) {
    // an empty source: no target row can match (the composer publishes `false`)
    kinds = targetFields.map((f) => resolveKeyKind(f.type, f.type, f.name, f.name));
    partition = { index: 0, rows: 0, keys: [], table: EMPTY_TABLE, seed: TABLE_SEED };
  } else {
    const schema = keys.batches[0]!.schema;
    kinds = sourceColumns.map((c, k) => {
      const f = schema.fields.find((x) => x.name === c);
      if (f === undefined) throw new RangeError(`transfer source column '${c}' was not read`);
      return resolveKeyKind(targetFields[k]!.type, f.type, targetFields[k]!.name, c);
    });
    const all = keys.batches.length === 1 ? keys.batches[0]! : concatBatches(keys.batches, schema);
    if (a.needsTable) {
      const [part] = await buildPartitions([all], { schema, keyColumns: sourceColumns, kinds, partitions: 1, layout: a.layout, nullEqualsNull: false, reservation: a.reservation });
      partition = { index: 0, rows: part!.rows, keys: part!.keys, table: part!.table, seed: TABLE_SEED, hashes: part!.hashes };
    } else {
      const normalized = normalizeKeys(all, sourceColumns, kinds);
      const hashes = hashKeys(normalized, TABLE_SEED);
      a.reservation.grow(hashes.byteLength + normalized.reduce((n, k) => n + keyColumnBytes(k), 0));
      partition = { index: 0, rows: all.numRows, keys: normalized, table: EMPTY_TABLE, seed: TABLE_SEED, hashes };
    }
  }
  const predicate = composeDynamicFilter({
    policy: a.policy,
    partitions: [partition],
    ctx: {
      config: { ...a.config, 'pushdown.rowFilter': 'always' },
      keyKinds: kinds,
      probeTypes: targetFields.map((f) => f.type),
      probeColumns: targetFields.map((f) => f.name),
    },
    routed: false,
    keepNullKeys: false,
  });
  // a filter without a table keeps only itself: release the keys and hashes it was built from
  if (!a.needsTable && a.retainedBytes !== undefined) a.reservation.resize(before + a.retainedBytes(keys.rows));
  return { predicate, buildMs: performance.now() - started, bytes: a.reservation.size - before };
}
