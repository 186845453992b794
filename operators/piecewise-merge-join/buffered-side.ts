/**
 * The buffered side of a piecewise merge join: every row held in memory (under the run's pool),
 * in one batch, with a sorted index over its key instead of a sorted copy of its rows.
 *
 * `order[p]` is the row at sorted position p; positions [0, nonNull) hold the non-NULL keys in the
 * plan's direction (descending for `<` / `<=`, ascending for `>` / `>=`), positions [nonNull,
 * rows) the NULL keys, which match nothing and are "set aside": a left / full join emits them
 * unmatched, an anti join returns them, a mark join marks them false. `keys` are the non-NULL keys
 * taken into sorted order (what the search and the prefilter compare against).
 *
 * The sort happens when a streamed batch first needs it (`sort()`), not when the side is loaded:
 * the two ends of the sorted order are found by one pass each (`extremeRow`, `firstRow`), and
 * they decide the batches that match nothing (the prefilter compares with the last key; when the
 * streamed scan prunes every container against it, nothing is ever sorted) and, for the existence
 * joins, the batches whose extreme row matches the first key and so every row (the watermark
 * drops to 0 without a sort or a search). Until the sort, `order` lists the non-NULL rows and then
 * the NULL ones, which is all the two answers possible then need.
 *
 * The sort is the sort operator's in-memory core (`argsortKeys`: LSD radix over order-preserving
 * key words, a merge sort for plain bytes), stable, so equal keys keep their input order. The
 * side must fit the pool (the binary search needs random access to it); a side over the limit is
 * a `MemoryLimitError` naming the join, before anything is emitted. An empty or all-NULL side has
 * `nonNull === 0`: nothing can match, and the join short-circuits without comparing anything.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { concatBatches, gatherColumns, makeRecordBatch, RowSource } from '../../core/arrow/gather.ts';
import { batchByteSize } from '../../core/arrow/size.ts';
import { argsortKeys } from '../../core/keys/argsort.ts';
import { normalizeKeys } from '../../core/keys/normalize.ts';
import { takeKeyRows } from '../../core/keys/take.ts';
import { keyColumnBytes, type KeyColumn } from '../../core/keys/types.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import type { Scan } from '../../core/scan/scan.ts';
import { collectScan } from '../common/collect.ts';
import { ASC_NULLS_LAST } from '../../core/keys/order.ts';
import { orderedNumbers } from '../../core/keys/ordered-numbers.ts';
import { extremeRowOf, sortedKeys, type BufferedKeys, type SortedKeys } from './match.ts';
import type { PiecewisePlan } from './plan.ts';

export class SortedBufferedSide {
  #order: Int32Array | null = null;
  #sortedBatch: RecordBatch | null = null;
  #nullsLast: Int32Array | null = null;
  #keys: SortedKeys | null = null;
  #unsorted: SortedKeys | null = null;
  #key: KeyColumn | null;

  private constructor(
    readonly source: RowSource,
    key: KeyColumn | null,
    readonly nonNull: number,
    /** The rows holding the last and the first key of the sorted order (-1 when nonNull is 0). */
    readonly extremeRow: number,
    readonly firstRow: number,
    private readonly plan: PiecewisePlan,
    private readonly reservation: Reservation,
  ) {
    this.#key = key;
  }

  get rows(): number {
    return this.source.numRows;
  }

  get sorted(): boolean {
    return this.#order !== null;
  }

  /**
   * Sorted position -> row. Before `sort()`: the non-NULL rows in row order, then the NULL rows —
   * right for the only answers that can be read then, "no row matched" (watermark `nonNull`) and
   * "every non-NULL row matched" (watermark 0, see `BufferedKeys.first`).
   */
  get order(): Int32Array {
    return this.#order ?? (this.#nullsLast ??= nullsLast(this.#key, this.rows));
  }

  /** The keys to compare streamed batches with: sorted positions once sorted, rows before. */
  target(): BufferedKeys {
    if (this.nonNull === 0) throw new RangeError('a buffered side without a non-NULL key has nothing to compare');
    if (this.#keys !== null) return { keys: this.#keys, extreme: this.nonNull - 1, first: 0 };
    let keys = this.#unsorted;
    if (keys === null) {
      keys = this.#unsorted = { key: this.#key!, nums: orderedNumbers(this.#key!, ASC_NULLS_LAST) };
      if (keys.nums !== null) this.reservation.grow(keys.nums.byteLength);
    }
    return { keys, extreme: this.extremeRow, first: this.firstRow };
  }

  /** The extreme key as (column, row): what the prefilter compares with; null when nonNull is 0. */
  extremeKey(): { readonly key: KeyColumn; readonly row: number } | null {
    if (this.nonNull === 0) return null;
    const t = this.target();
    return { key: t.keys.key, row: t.extreme };
  }

  /** The sorted keys (sorting the side first if it is not yet). */
  sortedTarget(): BufferedKeys {
    this.sort();
    return this.target();
  }

  /**
   * The rows physically in sorted order (position p is row order[p]), for output that copies
   * ranges of positions (core/arrow/runs.ts). Made once, on first use, after the sort; reserved.
   */
  sortedBatch(): RecordBatch {
    if (this.#sortedBatch === null) {
      this.sort();
      const order = this.order;
      const columns = gatherColumns(this.source, order, 0, order.length);
      const batch = makeRecordBatch(this.source.schema, columns, order.length);
      this.reservation.grow(batchByteSize(batch));
      this.#sortedBatch = batch;
    }
    return this.#sortedBatch;
  }

  /** Sorts the side (once); a side with no non-NULL key has nothing to sort. */
  sort(): void {
    if (this.#keys !== null || this.nonNull === 0) return;
    const key = this.#key!;
    const order = argsortKeys([key], [{ descending: this.plan.descending, nullsFirst: false }]);
    this.reservation.grow(order.byteLength);
    const [taken] = takeKeyRows([key], order.subarray(0, this.nonNull));
    const sorted = { ...taken!, nulls: null }; // the non-NULL positions only
    this.reservation.grow(keyColumnBytes(sorted));
    const keys = sortedKeys(sorted);
    if (keys.nums !== null) this.reservation.grow(keys.nums.byteLength);
    this.reservation.shrink(keyColumnBytes(key)); // the unsorted key words are garbage from here on
    this.#order = order;
    this.#keys = keys;
    this.#key = null;
    if (this.#unsorted?.nums) this.reservation.shrink(this.#unsorted.nums.byteLength);
    this.#unsorted = null;
    this.#nullsLast = null;
  }

  static async load(scan: Scan, schema: Schema, plan: PiecewisePlan, reservation: Reservation, signal?: AbortSignal): Promise<SortedBufferedSide> {
    const batches = await collectScan(scan, reservation, { signal });
    if (batches.length === 0) return new SortedBufferedSide(new RowSource([], schema), null, 0, -1, -1, plan, reservation);
    const batch = concatInto(batches, schema, reservation);
    const key = normalizeKeys(batch, [plan.bufferedKey], [plan.kind])[0]!;
    reservation.grow(keyColumnBytes(key));
    let nulls = 0;
    if (key.nulls !== null) for (let i = 0; i < key.length; i++) nulls += key.nulls[i]!;
    // the last in sorted order: the smallest key for a descending side, the largest otherwise
    const extremeRow = extremeRowOf(key, !plan.descending);
    const firstRow = extremeRowOf(key, plan.descending);
    return new SortedBufferedSide(new RowSource([batch], schema), key, key.length - nulls, extremeRow, firstRow, plan, reservation);
  }
}

/** Rows with a non-NULL key in row order, then the NULL ones. */
function nullsLast(key: KeyColumn | null, n: number): Int32Array {
  const a = new Int32Array(n);
  const nulls = key?.nulls ?? null;
  let p = 0;
  for (let i = 0; i < n; i++) if (nulls === null || nulls[i] === 0) a[p++] = i;
  if (nulls !== null) for (let i = 0; i < n; i++) if (nulls[i] === 1) a[p++] = i;
  return a;
}

/** One batch of all rows; the parts are released once copied (reserved while both exist). */
function concatInto(batches: RecordBatch[], schema: Schema, reservation: Reservation): RecordBatch {
  if (batches.length === 1) return batches[0]!;
  const parts = batches.reduce((s, b) => s + batchByteSize(b), 0);
  reservation.grow(parts); // the copy, about the size of its parts, before it is made
  const batch = concatBatches(batches, schema);
  const size = batchByteSize(batch);
  if (size > parts) reservation.grow(size - parts);
  else reservation.shrink(parts - size);
  reservation.shrink(parts);
  return batch;
}
