/**
 * The buffered side of a piecewise merge join: every row held in memory (under the run's pool),
 * in one batch, with a sorted index over its key instead of a sorted copy of its rows.
 *
 * `order[p]` is the row at sorted position p; positions [0, nonNull) hold the non-NULL keys in the
 * plan's direction (descending for `<` / `<=`, ascending for `>` / `>=`), positions [nonNull,
 * rows) the NULL keys, which match nothing and are "set aside": a left / full join emits them
 * unmatched, an anti join returns them, a mark join marks them false. `keys` are the non-NULL keys
 * taken into sorted order (what the search and the prefilter compare against), or null when there
 * is none — then nothing can match, and the join short-circuits without comparing anything.
 *
 * The sort is the sort operator's in-memory core (`argsortKeys`: LSD radix over order-preserving
 * key words, a merge sort for plain bytes), stable, so equal keys keep their input order. The
 * side must fit the pool (the binary search needs random access to it); a side over the limit is
 * a `MemoryLimitError` naming the join, before anything is emitted.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { concatBatches, RowSource } from '../../core/arrow/gather.ts';
import { batchByteSize } from '../../core/arrow/size.ts';
import { argsortKeys } from '../../core/keys/argsort.ts';
import { normalizeKeys } from '../../core/keys/normalize.ts';
import { takeKeyRows } from '../../core/keys/take.ts';
import { keyColumnBytes } from '../../core/keys/types.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import type { Scan } from '../../core/scan/scan.ts';
import { collectScan } from '../common/collect.ts';
import { sortedKeys, type SortedKeys } from './match.ts';
import type { PiecewisePlan } from './plan.ts';

export class SortedBufferedSide {
  private constructor(
    readonly source: RowSource,
    readonly order: Int32Array,
    readonly nonNull: number,
    readonly keys: SortedKeys | null,
  ) {}

  get rows(): number {
    return this.order.length;
  }

  static async load(scan: Scan, schema: Schema, plan: PiecewisePlan, reservation: Reservation, signal?: AbortSignal): Promise<SortedBufferedSide> {
    const batches = await collectScan(scan, reservation, { signal });
    if (batches.length === 0) return new SortedBufferedSide(new RowSource([], schema), new Int32Array(0), 0, null);
    const batch = concatInto(batches, schema, reservation);
    const [key] = normalizeKeys(batch, [plan.bufferedKey], [plan.kind]);
    reservation.grow(keyColumnBytes(key!));
    const order = argsortKeys([key!], [{ descending: plan.descending, nullsFirst: false }]);
    reservation.grow(order.byteLength);
    let nulls = 0;
    if (key!.nulls !== null) for (let i = 0; i < key!.length; i++) nulls += key!.nulls[i]!;
    const nonNull = order.length - nulls;
    let keys: SortedKeys | null = null;
    if (nonNull > 0) {
      const [taken] = takeKeyRows([key!], order.subarray(0, nonNull));
      const sorted = { ...taken!, nulls: null }; // the non-NULL positions only
      reservation.grow(keyColumnBytes(sorted));
      keys = sortedKeys(sorted);
      if (keys.nums !== null) reservation.grow(keys.nums.byteLength);
    }
    reservation.shrink(keyColumnBytes(key!)); // the unsorted key words are garbage from here on
    return new SortedBufferedSide(new RowSource([batch], schema), order, nonNull, keys);
  }
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
