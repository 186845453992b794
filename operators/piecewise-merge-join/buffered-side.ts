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
 * The sort happens when the first streamed batch arrives that could match (`sort()`), not when
 * the side is loaded: the extreme key — the last sorted non-NULL key, the one the prefilter
 * compares with — is found by one pass (`extreme`), and when the streamed scan prunes every
 * container against it (no streamed row can match), nothing is ever sorted. Until then every
 * buffered row is unmatched, in any order, so `order` is the identity for the answers that read it
 * then (which must be "no row matched": the watermark is still at `nonNull`).
 *
 * The sort is the sort operator's in-memory core (`argsortKeys`: LSD radix over order-preserving
 * key words, a merge sort for plain bytes), stable, so equal keys keep their input order. The
 * side must fit the pool (the binary search needs random access to it); a side over the limit is
 * a `MemoryLimitError` naming the join, before anything is emitted. An empty or all-NULL side has
 * `nonNull === 0`: nothing can match, and the join short-circuits without comparing anything.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { concatBatches, RowSource } from '../../core/arrow/gather.ts';
import { batchByteSize } from '../../core/arrow/size.ts';
import { argsortKeys } from '../../core/keys/argsort.ts';
import { normalizeKeys } from '../../core/keys/normalize.ts';
import { takeKeyRows } from '../../core/keys/take.ts';
import { keyColumnBytes, type KeyColumn } from '../../core/keys/types.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import type { Scan } from '../../core/scan/scan.ts';
import { collectScan } from '../common/collect.ts';
import { extremeRowOf, sortedKeys, type SortedKeys } from './match.ts';
import type { PiecewisePlan } from './plan.ts';

export class SortedBufferedSide {
  #order: Int32Array | null = null;
  #identity: Int32Array | null = null;
  #keys: SortedKeys | null = null;
  #key: KeyColumn | null;

  private constructor(
    readonly source: RowSource,
    key: KeyColumn | null,
    readonly nonNull: number,
    /** The row holding the extreme key (the last in sorted order among the non-NULL ones), or -1. */
    readonly extremeRow: number,
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

  /** Sorted position -> row; the identity until `sort()` (see the module comment). */
  get order(): Int32Array {
    return this.#order ?? (this.#identity ??= identity(this.rows));
  }

  /** The extreme key as (column, row): what the prefilter compares with; null when nonNull is 0. */
  extremeKey(): { readonly key: KeyColumn; readonly row: number } | null {
    if (this.nonNull === 0) return null;
    return this.#keys !== null ? { key: this.#keys.key, row: this.nonNull - 1 } : { key: this.#key!, row: this.extremeRow };
  }

  /** The non-NULL keys in sorted order (sorting the side first if it is not yet). */
  get keys(): SortedKeys {
    if (this.#keys === null) this.sort();
    return this.#keys!;
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
    this.#identity = null;
  }

  static async load(scan: Scan, schema: Schema, plan: PiecewisePlan, reservation: Reservation, signal?: AbortSignal): Promise<SortedBufferedSide> {
    const batches = await collectScan(scan, reservation, { signal });
    if (batches.length === 0) return new SortedBufferedSide(new RowSource([], schema), null, 0, -1, plan, reservation);
    const batch = concatInto(batches, schema, reservation);
    const key = normalizeKeys(batch, [plan.bufferedKey], [plan.kind])[0]!;
    reservation.grow(keyColumnBytes(key));
    let nulls = 0;
    if (key.nulls !== null) for (let i = 0; i < key.length; i++) nulls += key.nulls[i]!;
    // the last in sorted order: the smallest key for a descending side, the largest otherwise
    const extremeRow = extremeRowOf(key, !plan.descending);
    return new SortedBufferedSide(new RowSource([batch], schema), key, key.length - nulls, extremeRow, plan, reservation);
  }
}

function identity(n: number): Int32Array {
  const a = new Int32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
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
