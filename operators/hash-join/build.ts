/**
 * The build phase of the hash join: collect the build input under the memory pool, split it into
 * `hash.partitions` partitions by key hash (one partition in collect-left mode), and build one
 * hash table per partition over that partition's rows.
 *
 * Each partition owns a contiguous copy of its rows (one RecordBatch) so build row ids are plain
 * indices into that batch — for the table, the residual filter and the output gather alike — and
 * partitions share nothing mutable: each could be handed to a worker thread as typed arrays.
 * An empty partition has no table (`EMPTY_TABLE` never matches) and publishes `false`.
 *
 * With `payloadRows` (plan.ts decides), each partition also lays its output columns out row-wise
 * (core/arrow/row-layout.ts) on its row source, so the probe's gathers read one row per output
 * row instead of one value per column. The layout is reserved like the table; when the pool
 * cannot grant it the partition keeps the columnar gather (slower, never an error).
 *
 * With `workers` (partitioned mode at `threads` > 1) the partitions' tables are built on the
 * worker pool, all at once (build-task.ts); the split by partition stays here. With `concatOn`
 * (collect-left at `threads` > 1, a build input of several batches in shared memory) the payload
 * columns are concatenated on the workers while the table is built here (concat-task.ts).
 */
import { makeData, RecordBatch, Schema, Struct } from 'apache-arrow';
import { concatBatches, RowSource } from '../../core/arrow/gather.ts';
import { RowLayout } from '../../core/arrow/row-layout.ts';
import { batchByteSize } from '../../core/arrow/size.ts';
import { Bitset } from '../../core/bitset.ts';
import { UnsupportedJoinError } from '../../core/errors.ts';
import { buildTablePaced, type HashMapLayout, type JoinHashTable } from '../../core/hashmap.ts';
import { hashKeys } from '../../core/keys/hash.ts';
import { anyNullMask, normalizeKeys } from '../../core/keys/normalize.ts';
import { groupRowsByPartition, partitionIds, TABLE_SEED, type PartitionGroups } from '../../core/keys/partition.ts';
import { keyColumnBytes, type KeyColumn, type KeyKind } from '../../core/keys/types.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import type { OperatorMetrics } from '../../core/metrics.ts';
import { buffersOf, decodeBatch, encodeBatch, encodeSchema, shareBatch } from '../../core/parallel/wire.ts';
import type { WorkerPool } from '../../core/parallel/worker-pool.ts';
import { takeRows } from '../../core/scan/batch-shape.ts';
import { nextTurn, Pacer } from '../../core/next-turn.ts';
import { hashKeysPaced, normalizeKeysPaced } from '../../core/keys/paced.ts';
import { BUILD_TASK, type BuildTaskInit, type BuildTaskInput, type BuildTaskReply } from './build-task.ts';
import { CONCAT_TASK, type ConcatTaskInit, type ConcatTaskInput, type ConcatTaskReply } from './concat-task.ts';

export interface PartitionBuild {
  readonly index: number;
  readonly rows: number;
  /** This partition's build rows (`null` when empty). */
  readonly batch: RecordBatch | null;
  readonly source: RowSource;
  readonly keys: readonly KeyColumn[];
  /** Row has a NULL in some key column (`null`: no NULLs). */
  readonly nullKeys: Uint8Array | null;
  readonly table: JoinHashTable;
  /** The table's hashes of `keys` (`hashKeys(keys, TABLE_SEED)`; empty for an empty partition). */
  readonly hashes: Uint32Array;
  /** Build rows that found a partner (outer, semi, anti and mark joins on the build side). */
  readonly matched: Bitset;
}

export const EMPTY_TABLE: JoinHashTable = {
  layout: 'empty',
  inserted: 0,
  memoryBytes: 0,
  probe: (_input, cursor) => {
    cursor.row = -1;
    return 0;
  },
  contains: (input, out, rows) => {
    if (rows) for (let k = 0; k < rows.length; k++) out[rows[k]!] = 0;
    else out.fill(0, 0, input.rows);
  },
};

export interface BuildOptions {
  readonly schema: Schema;
  readonly keyColumns: readonly string[];
  readonly kinds: readonly KeyKind[];
  readonly partitions: number;
  readonly layout: HashMapLayout;
  readonly nullEqualsNull: boolean;
  readonly reservation: Reservation;
  /** Called as each partition's table is complete (the pushdown barrier counts these). */
  readonly onBuilt?: (part: PartitionBuild) => void;
  /** Called instead when a partition's build fails or is cancelled (the barrier then counts it as unknown). */
  readonly onFailed?: (index: number, error: unknown) => void;
  readonly signal?: AbortSignal;
  /** Allocate the tables in shared memory (`BuildInput.shared`): worker threads will probe them. */
  readonly shared?: boolean;
  /**
   * Build the partitions' tables on these workers (build-task.ts) — partitioned mode with
   * `threads` > 1; the tables then are in shared memory, as `shared` asks.
   */
  readonly workers?: WorkerPool;
  /**
   * Collect-left with `threads` > 1: concatenate a build input of several batches in shared
   * memory on these workers, a column each, while the table is built here (concat-task.ts).
   */
  readonly concatOn?: WorkerPool;
  /** The join's metrics (`details.buildConcat` says where the build input was concatenated). */
  readonly metrics?: OperatorMetrics;
  /** The build columns the output gathers (plan.ts `payload`), and whether to lay them out as rows. */
  readonly payload?: readonly number[];
  readonly payloadRows?: boolean;
}

/**
 * Reusable scratch for `partitionOrder` (a probe computes one order per batch: fresh 64K-row
 * arrays per batch cost more in first-touch page faults than the sort itself).
 */
export class PartitionScratch {
  ids = new Int32Array(0);
  order = new Int32Array(0);
  hashes = new Uint32Array(0);
  fit(rows: number): void {
    if (this.ids.length >= rows) return;
    const n = Math.max(rows, 2 * this.ids.length);
    this.ids = new Int32Array(n);
    this.order = new Int32Array(n);
    this.hashes = new Uint32Array(n);
  }
  get bytes(): number {
    return this.ids.byteLength + this.order.byteLength + this.hashes.byteLength;
  }
}

/**
 * The rows of each key partition, in row order (partition p's rows: `rows[start[p] ..
 * start[p + 1])`). `scratch`: arrays to reuse; the returned `rows` is then a view of
 * `scratch.order`, valid until its next use.
 */
export function partitionOrder(keys: readonly KeyColumn[], rows: number, count: number, scratch?: PartitionScratch): PartitionGroups {
  scratch?.fit(rows);
  const ids = scratch ? scratch.ids.subarray(0, rows) : new Int32Array(rows);
  partitionIds(keys, count, ids, scratch?.hashes);
  return groupRowsByPartition(ids, count, null, rows, scratch?.order);
}

/** Splits one batch into `count` batches by key partition (row order kept within each). */
export function splitByPartition(batch: RecordBatch, keys: readonly KeyColumn[], count: number): (RecordBatch | null)[] {
  const { start, rows } = partitionOrder(keys, batch.numRows, count);
  const out: (RecordBatch | null)[] = [];
  for (let p = 0; p < count; p++) out.push(start[p + 1] === start[p] ? null : takeRows(batch, rows.subarray(start[p]!, start[p + 1]!)));
  return out;
}

async function buildPartition(index: number, batch: RecordBatch | null, o: BuildOptions): Promise<PartitionBuild> {
  const part = batch === null || batch.numRows === 0 ? emptyPartition(index, o) : await buildTable(index, batch, o);
  o.onBuilt?.(part);
  return part;
}

function emptyPartition(index: number, o: BuildOptions): PartitionBuild {
  return { index, rows: 0, batch: null, source: new RowSource([], o.schema), keys: [], nullKeys: null, table: EMPTY_TABLE, hashes: new Uint32Array(0), matched: new Bitset(0) };
}

async function buildTable(index: number, batch: RecordBatch, o: BuildOptions): Promise<PartitionBuild> {
  return withRows(index, batch, await indexKeys(batch, o), o);
}

/** A partition's keys, their hashes and its table. */
interface IndexedKeys {
  readonly keys: readonly KeyColumn[];
  readonly hashes: Uint32Array;
  readonly table: JoinHashTable;
}

/**
 * The table over the key columns of `batch` (which may hold only those), reserved. Under a signal
 * the keys, their hashes and the table are made in steps with turns of the event loop between
 * them (core/keys/paced.ts, core/hashmap.ts `buildTablePaced`): seconds for millions of rows.
 */
async function indexKeys(batch: RecordBatch, o: BuildOptions): Promise<IndexedKeys> {
  const pacer = o.signal === undefined ? null : new Pacer(o.signal);
  const keys = pacer === null ? normalizeKeys(batch, o.keyColumns, o.kinds) : await normalizeKeysPaced(batch, o.keyColumns, o.kinds, pacer);
  const hashes = pacer === null ? hashKeys(keys, TABLE_SEED) : await hashKeysPaced(keys, TABLE_SEED, pacer);
  const input = { keys, hashes, rows: batch.numRows, nullEqualsNull: o.nullEqualsNull, shared: o.shared === true };
  const reason = o.layout.unsupportedReason(input);
  if (reason) throw new UnsupportedJoinError(`hashmap '${o.layout.name}' cannot index this build side: ${reason}`);
  // a range-addressed table's size is known (and reserved) before it is allocated
  const estimate = o.layout.estimateBytes?.(input) ?? 0;
  // besides the table: the normalised keys, their hashes, a NULL byte and a match bit per row
  const keyBytes = keys.reduce((n, k) => n + keyColumnBytes(k), 0);
  o.reservation.grow(estimate + hashes.byteLength + keyBytes + batch.numRows + Math.ceil(batch.numRows / 8));
  const table = pacer === null ? o.layout.build(input) : await buildTablePaced(o.layout, input, pacer);
  o.reservation.resize(o.reservation.size - estimate + table.memoryBytes);
  return { keys, hashes, table };
}

/** The partition over its rows `batch` (every column) and its indexed keys. */
function withRows(index: number, batch: RecordBatch, { keys, hashes, table }: IndexedKeys, o: BuildOptions): PartitionBuild {
  const source = new RowSource([batch], o.schema);
  if (o.payloadRows === true && o.payload !== undefined) source.layout = payloadLayout(batch, o.payload, o);
  return { index, rows: batch.numRows, batch, source, keys, nullKeys: anyNullMask(keys), table, hashes, matched: new Bitset(batch.numRows) };
}

/** The partition's payload as rows, when it has columns a row can hold and the pool grants the bytes; else null. */
function payloadLayout(batch: RecordBatch, payload: readonly number[], o: BuildOptions): RowLayout | null {
  const bytes = RowLayout.widthOf(batch, payload) * batch.numRows;
  if (bytes === 0 || !o.reservation.tryGrow(bytes)) return null;
  return RowLayout.build(batch, payload, o.shared === true ? (n) => new Uint8Array(new SharedArrayBuffer(n)) : undefined);
}

/**
 * Builds every partition from the collected build batches (whose bytes `reservation` already
 * holds). Each copy made on the way — the concatenation, the partition split — is reserved
 * before the bytes it replaces are released, so the peak is accounted honestly.
 *
 * The partitions' builds are independent async tasks, started together and awaited together:
 * each waits for its turn on the event loop (so a cancellation, or another task, gets in between),
 * checks the signal, builds its table from its own batch and reports it. A task that fails or is
 * cancelled reports `onFailed` — the pushdown barrier then publishes "keep everything" for its
 * rows instead of waiting forever — and the first failure is rethrown once every task settled.
 * Tasks share no mutable object (each owns its batch, keys, hashes and table), which is what lets
 * them move to worker threads later.
 */
export async function buildPartitions(batches: readonly RecordBatch[], o: BuildOptions): Promise<PartitionBuild[]> {
  const rows = batches.reduce((n, b) => n + b.numRows, 0);
  let pieces: (RecordBatch | null)[];
  if (rows === 0) pieces = new Array<null>(o.partitions).fill(null);
  else {
    if (batches.length > 1 && o.partitions === 1 && o.concatOn !== undefined && buffersOf(batches).size === 0) {
      if (o.metrics !== undefined) o.metrics.details.buildConcat = `${batches.length} batches: payload columns on ${o.concatOn.size} workers, keys and table on the calling thread`;
      const part = await buildCollectLeftOnWorkers(batches, o, o.concatOn);
      o.onBuilt?.(part);
      return [part];
    }
    let all = batches[0]!;
    if (o.signal !== undefined) {
      // the concatenation and the tables are long synchronous steps: a cancellation already
      // requested is seen before them (every partition then reports failed, as its task would)
      await nextTurn();
      if (o.signal.aborted) {
        for (let p = 0; p < o.partitions; p++) o.onFailed?.(p, o.signal.reason);
        throw o.signal.reason;
      }
    }
    if (batches.length > 1) {
      // for workers, in shared memory at once (shareBuild then copies only what is not there yet)
      all = concatBatches(batches, o.schema, { shared: o.shared === true && o.partitions === 1 });
      swapReserved(o.reservation, batchByteSize(all), batches.reduce((n, b) => n + batchByteSize(b), 0));
    }
    if (o.partitions === 1) pieces = [all];
    else {
      const keys = o.signal === undefined ? normalizeKeys(all, o.keyColumns, o.kinds) : await normalizeKeysPaced(all, o.keyColumns, o.kinds, new Pacer(o.signal));
      pieces = splitByPartition(all, keys, o.partitions);
      swapReserved(o.reservation, pieces.reduce((n, b) => n + (b ? batchByteSize(b) : 0), 0), batchByteSize(all));
    }
  }
  if (pieces.length === 1) return [await buildPartition(0, pieces[0]!, o)]; // one task: nothing to interleave
  if (o.workers !== undefined) return buildOnWorkers(pieces, o, o.workers);
  return allOrFirstError(pieces.map((b, p) => buildTask(p, b, o)));
}

/** Every task's result once all have settled, or the first failure (rethrown only then, so no task still runs for a caller that is gone). */
async function allOrFirstError<T>(tasks: readonly Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(tasks);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<T>).value);
}

async function buildTask(index: number, batch: RecordBatch | null, o: BuildOptions): Promise<PartitionBuild> {
  try {
    await nextTurn();
    if (o.signal?.aborted) throw o.signal.reason;
    return await buildPartition(index, batch, o);
  } catch (e) {
    o.onFailed?.(index, e);
    throw e;
  }
}

/**
 * Every partition's table built on the pool's workers at once (build-task.ts): each partition's
 * rows copied into shared memory (reserved before the original is released), its table restored
 * here over the worker's shared state and reported to the barrier as its reply arrives. Failures
 * and cancellation as in `buildPartitions`: each failed partition reports `onFailed`, the first
 * error is rethrown once all have settled.
 */
async function buildOnWorkers(pieces: readonly (RecordBatch | null)[], o: BuildOptions, workers: WorkerPool): Promise<PartitionBuild[]> {
  const restore = o.layout.restore;
  if (restore === undefined) throw new UnsupportedJoinError(`hashmap '${o.layout.name}' cannot be built on worker threads: it has no share()/restore()`);
  const init: BuildTaskInit = { schema: encodeSchema(o.schema), keyColumns: o.keyColumns, kinds: o.kinds, layout: o.layout.name, nullEqualsNull: o.nullEqualsNull };
  const session = await workers.open(BUILD_TASK, init);
  try {
    const remote = async (index: number, piece: RecordBatch | null): Promise<PartitionBuild> => {
      try {
        if (piece === null || piece.numRows === 0) return await buildPartition(index, null, o);
        if (o.signal?.aborted) throw o.signal.reason;
        const batch = shareBatch(piece);
        swapReserved(o.reservation, batchByteSize(batch), batchByteSize(piece));
        const r = (await session.submit({ index, batch: encodeBatch(batch, 'copy').wire } satisfies BuildTaskInput)) as BuildTaskReply;
        if (o.signal?.aborted) throw o.signal.reason;
        const keyBytes = r.keys.reduce((n, k) => n + keyColumnBytes(k), 0);
        o.reservation.grow(r.tableBytes + r.hashes.byteLength + keyBytes + batch.numRows + Math.ceil(batch.numRows / 8));
        const table = restore.call(o.layout, r.table, { keys: r.keys, rows: batch.numRows, nullEqualsNull: o.nullEqualsNull });
        const source = new RowSource([batch], o.schema);
        if (o.payloadRows === true && o.payload !== undefined) source.layout = payloadLayout(batch, o.payload, o);
        const part: PartitionBuild = { index, rows: batch.numRows, batch, source, keys: r.keys, nullKeys: r.nullKeys, table, hashes: r.hashes, matched: new Bitset(batch.numRows) };
        o.onBuilt?.(part);
        return part;
      } catch (e) {
        o.onFailed?.(index, e);
        throw e;
      }
    };
    return await allOrFirstError(pieces.map((b, p) => remote(p, b)));
  } finally {
    await session.close().catch(() => {});
  }
}

/**
 * The collect-left build with its concatenation shared out (concat-task.ts): every payload
 * column concatenated on a worker (one task per column, the batches' shared buffers read where
 * they are) while this thread concatenates the key columns and builds the table over them; the
 * partition's batch is then assembled from both, all in shared memory. The whole concatenation is
 * reserved first, the input's bytes released once it exists, as `buildPartitions` does.
 */
async function buildCollectLeftOnWorkers(batches: readonly RecordBatch[], o: BuildOptions, workers: WorkerPool): Promise<PartitionBuild> {
  const fields = o.schema.fields;
  const keyIndices = [...new Set(o.keyColumns.map((name) => fields.findIndex((f) => f.name === name)))];
  const rows = batches.reduce((n, b) => n + b.numRows, 0);
  const inputBytes = batches.reduce((n, b) => n + batchByteSize(b), 0);
  o.reservation.grow(inputBytes);
  const session = await workers.open(CONCAT_TASK, { schema: encodeSchema(o.schema) } satisfies ConcatTaskInit);
  try {
    const pending = fields.map((_, c) =>
      keyIndices.includes(c) ? null : (session.submit({ column: c, batches: batches.map((b) => encodeBatch(columnsOf(b, [c]), 'copy').wire) } satisfies ConcatTaskInput) as Promise<ConcatTaskReply>),
    );
    for (const p of pending) p?.catch(() => {}); // awaited below; not unhandled while the keys are built
    const keyBatch = concatBatches(batches.map((b) => columnsOf(b, keyIndices)), columnsOf(batches[0]!, keyIndices).schema, { shared: true });
    const indexed = await indexKeys(keyBatch, o);
    const children = await Promise.all(
      pending.map(async (p, c) => {
        if (p === null) return keyBatch.data.children[keyIndices.indexOf(c)]!;
        return decodeBatch((await p).batch, columnsOf(batches[0]!, [c]).schema).data.children[0]!;
      }),
    );
    if (o.signal?.aborted) throw o.signal.reason;
    const batch = shareBatch(new RecordBatch(o.schema, makeData({ type: new Struct(fields), length: rows, nullCount: 0, children })));
    o.reservation.shrink(inputBytes); // the estimate, replaced by the concatenation's own size
    swapReserved(o.reservation, batchByteSize(batch), inputBytes);
    return withRows(0, batch, indexed, o);
  } finally {
    await session.close().catch(() => {});
  }
}

/** Columns `indices` of `batch` as a batch of their own (zero-copy). */
function columnsOf(batch: RecordBatch, indices: readonly number[]): RecordBatch {
  const fields = indices.map((c) => batch.schema.fields[c]!);
  return new RecordBatch(new Schema(fields, batch.schema.metadata), makeData({ type: new Struct(fields), length: batch.numRows, nullCount: 0, children: indices.map((c) => batch.data.children[c]!) }));
}

function swapReserved(r: Reservation, grow: number, release: number): void {
  r.grow(grow);
  r.shrink(Math.min(release, r.size));
}
