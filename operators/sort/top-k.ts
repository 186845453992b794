/**
 * Top-k: the first `k` rows of a stream in sort-key order — exactly what the stable full sort
 * (sort.ts) puts first, ties in input order, NULLs where the keys' orders put them — without
 * holding or sorting every row: `ORDER BY … LIMIT n [OFFSET m]` with k = n + m (DuckDB's TopN,
 * src/execution/operator/order/physical_top_n.cpp; DataFusion's TopK,
 * physical-plan/src/topk/mod.rs, keeps a heap of k rows and drops a batch's rows that cannot
 * enter it the same way).
 *
 * Batch at a time, in bounded memory:
 *  - `held`: the best k rows seen so far, sorted (one batch), and their normalised keys;
 *  - each input batch is first cut to the rows that sort strictly before the k-th held row (once
 *    k rows are held): its key columns are normalised (core/keys/normalize.ts, the sort's own
 *    words) and each row is compared with the boundary row by the sort's comparator
 *    (core/keys/order.ts), built once per batch — a row equal to the boundary cannot enter, since
 *    every held row came before it in the input;
 *  - the surviving rows are kept (pending) until they reach max(k, batchSize) rows, then the held
 *    rows and the pending ones (held first, so the input order among equal keys is kept) are
 *    sorted by one stable `argsortKeys` and cut to the first k — each compaction sorts at most
 *    2 max(k, batchSize) rows, so the work is O(n log k)-ish and the memory O(k + batchSize).
 * Every held and pending batch is reserved in the run's pool (`top-k rows`) before it is kept, and
 * the normalised keys a compaction or a batch filter makes before it makes them (`top-k keys`,
 * sort.ts's estimates).
 *
 * Degenerate cases: k = 0 reads nothing and yields no batch; an empty input yields no batch;
 * fewer than k rows yields them all, sorted. Keys are bound before any row is read (sort.ts's
 * typed errors: no key, a missing column, a type with no order).
 */
import { Vector, type RecordBatch, type Schema } from 'apache-arrow';
import { gatherColumns, makeRecordBatch, RowSource } from '../../core/arrow/gather.ts';
import { heldBatchBytes } from '../../core/arrow/size.ts';
import { argsortKeys } from '../../core/keys/argsort.ts';
import { Pacer } from '../../core/next-turn.ts';
import { normalizeKeyColumn } from '../../core/keys/normalize.ts';
import { makeSortComparator } from '../../core/keys/order.ts';
import { keyColumnBytes, type KeyColumn } from '../../core/keys/types.ts';
import type { MemoryPool } from '../../core/memory/pool.ts';
import { takeRows } from '../../core/scan/batch-shape.ts';
import { compactDictionaries } from './dictionaries.ts';
import { bindSort, keyBytesEstimate, sortScratchPerRow, type BoundSort, type SortKey } from './keys.ts';
import { sortKeyColumns } from './runs.ts';
import { checkKeyTypes } from './sort.ts';

export interface TopKOptions {
  readonly pool: MemoryPool;
  /** Rows per output batch, and the least number of pending rows a compaction waits for. */
  readonly batchSize: number;
  readonly signal?: AbortSignal;
  /** Rows of the top k to skip (OFFSET): the output is rows [offset, k). */
  readonly offset?: number;
}

/** The first `k` rows of `input` by `keys` (after skipping `options.offset`), in `batchSize` batches. */
export async function* topK(input: { readonly schema: Schema; readonly batches: AsyncIterable<RecordBatch> }, keys: readonly SortKey[], k: number, options: TopKOptions): AsyncGenerator<RecordBatch> {
  if (!Number.isSafeInteger(k) || k < 0) throw new RangeError(`top-k needs a non-negative integer k, got ${k}`);
  const { schema } = input;
  const bound = bindSort(schema, keys, 'top-k input');
  const { pool, signal, batchSize } = options;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`top-k batchSize must be a positive integer, got ${batchSize}`);
  if (k === 0) return;
  const state = new TopKState(schema, bound, k, pool);
  try {
    let index = 0;
    const pacer = new Pacer(signal);
    for await (const b of input.batches) {
      index++;
      if (pacer.due()) await pacer.turn();
      signal?.throwIfAborted();
      if (b.numRows === 0) continue;
      checkKeyTypes(b, bound, schema, 'top-k input', index);
      state.add(b);
      if (state.pendingRows >= Math.max(k, batchSize)) state.compact();
    }
    signal?.throwIfAborted();
    state.compact();
    const held = state.held;
    if (held === null) return;
    const from = Math.min(options.offset ?? 0, held.numRows);
    for (let start = from; start < held.numRows; start += batchSize) yield held.slice(start, Math.min(start + batchSize, held.numRows));
  } finally {
    state.free();
  }
}

/** The held best rows and the pending candidates (see the module comment). */
class TopKState {
  held: RecordBatch | null = null;
  #heldKeys: KeyColumn[] = [];
  #pending: RecordBatch[] = [];
  pendingRows = 0;
  readonly #rows;
  /** The held rows' normalised keys, and while it runs a compaction's or a batch filter's. */
  readonly #keys;
  constructor(
    readonly schema: Schema,
    readonly bound: BoundSort,
    readonly k: number,
    pool: MemoryPool,
  ) {
    this.#rows = pool.reservation('top-k rows');
    this.#keys = pool.reservation('top-k keys');
  }

  /** Keeps the rows of `b` that may still enter the top k. */
  add(b: RecordBatch): void {
    const kept = this.#candidates(b);
    if (kept === null) return;
    this.#rows.grow(heldBatchBytes(kept));
    this.#pending.push(kept);
    this.pendingRows += kept.numRows;
  }

  /** `b`'s rows that sort strictly before the k-th held row (all while fewer are held); null: none. */
  #candidates(b: RecordBatch): RecordBatch | null {
    const held = this.held;
    if (held === null || held.numRows < this.k) return b;
    const { bound } = this;
    const keyBytes = keyBytesEstimate(b, bound);
    this.#keys.grow(keyBytes);
    const cols = bound.indices.map((i, c) => normalizeKeyColumn(new Vector([b.data.children[i]!]), bound.kinds[c]!, bound.columns[c]));
    const before = makeSortComparator(cols, this.#heldKeys, bound.orders).compare;
    const last = this.k - 1;
    const n = b.numRows;
    const rows = new Int32Array(n);
    let m = 0;
    for (let i = 0; i < n; i++) if (before(i, last) < 0) rows[m++] = i;
    this.#keys.shrink(keyBytes);
    if (m === 0) return null;
    return m === n ? b : takeRows(b, rows.subarray(0, m));
  }

  /** Sorts the held and pending rows (held first: stable) and keeps the first k as the new held batch. */
  compact(): void {
    if (this.#pending.length === 0) return;
    const batches = this.held === null ? this.#pending : [this.held, ...this.#pending];
    const rows = batches.reduce((n, b) => n + b.numRows, 0);
    this.#keys.resize(batches.reduce((n, b) => n + keyBytesEstimate(b, this.bound), 0) + rows * sortScratchPerRow(this.bound));
    const order = argsortKeys(sortKeyColumns(batches, this.bound), this.bound.orders);
    const count = Math.min(this.k, order.length);
    const columns = gatherColumns(new RowSource(batches, this.schema), order, 0, count);
    const held = compactDictionaries(makeRecordBatch(this.schema, columns, count));
    this.#rows.resize(heldBatchBytes(held));
    this.held = held;
    this.#heldKeys = sortKeyColumns([held], this.bound);
    this.#keys.resize(this.#heldKeys.reduce((n, c) => n + keyColumnBytes(c), 0));
    this.#pending = [];
    this.pendingRows = 0;
  }

  free(): void {
    this.#rows.free();
    this.#keys.free();
    this.held = null;
    this.#pending = [];
  }
}
