/**
 * The buffered side of a piecewise merge join: every row held in memory (under the run's pool),
 * in the batches it came in, with a sorted index over its key instead of a sorted copy of its rows
 * (`sortedBatch()` makes that copy for the output that wants it).
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
 * key words, a merge sort for plain bytes), stable, so equal keys keep their input order; under a
 * signal the join sorts in steps (`sortPaced`) before the first streamed batch that needs it. The
 * side must fit the pool (the binary search needs random access to it); a side over the limit is
 * a `MemoryLimitError` naming the join, before anything is emitted. An empty or all-NULL side has
 * `nonNull === 0`: nothing can match, and the join short-circuits without comparing anything.
 *
 * Across worker threads (parallel.ts): `share` sorts the side, copies its rows, order, sorted keys
 * (and the physically sorted copy the classic joins' run output reads) into `SharedArrayBuffer`s
 * once, and returns the side over that memory and its wire; `restore` rebuilds the same sorted side
 * over the wire in a worker without copying anything. A shared side is always sorted, so nothing
 * in it is ever written again: every thread reads it, none locks it.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { concatBatches, gatherColumns, makeRecordBatch, RowSource } from '../../core/arrow/gather.ts';
import { projectBatch } from '../../core/scan/batch-shape.ts';
import { batchByteSize } from '../../core/arrow/size.ts';
import { argsortKeys, argsortKeysPaced } from '../../core/keys/argsort.ts';
import { Pacer } from '../../core/next-turn.ts';
import { normalizeKeysPaced } from '../../core/keys/paced.ts';
import { normalizeKeys } from '../../core/keys/normalize.ts';
import { takeKeyRows } from '../../core/keys/take.ts';
import { isBytesKey, keyColumnBytes, type KeyColumn } from '../../core/keys/types.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import type { Scan } from '../../core/scan/scan.ts';
import { collectScan } from '../common/collect.ts';
import { ASC_NULLS_LAST } from '../../core/keys/order.ts';
import { orderedNumbers } from '../../core/keys/ordered-numbers.ts';
import { decodeBatch, encodeBatch, shareBatch, shareKeyColumn, shareView, type BatchWire } from '../../core/parallel/wire.ts';
import { extremeRowsOf, sortedKeys, type BufferedKeys, type SortedKeys } from './match.ts';
import type { PiecewisePlan } from './plan.ts';

/** A sorted buffered side in shared memory (`SortedBufferedSide.share`), for `restore` in a worker. */
export interface SharedBufferedSide {
  /** The rows, in the batches they came in. */
  readonly batches: readonly BatchWire[];
  readonly nonNull: number;
  readonly extremeRow: number;
  readonly firstRow: number;
  /** Sorted position -> row. */
  readonly order: Int32Array;
  /** The non-NULL keys in sorted order, and as exact numbers when they are. */
  readonly keys: KeyColumn;
  readonly nums: Float64Array | null;
  /** The rows physically in sorted order, when it was made (the classic joins read it). */
  readonly sortedBatch: BatchWire | null;
}

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
      // numbers of the whole unsorted column only where the prefilter's vectorised pass needs them:
      // a 64-bit integer key is compared as words, and the predicate's few calls go through the comparator
      const key = this.#key!;
      const words = !isBytesKey(key) && key.kind.width === 2 && (key.kind.order === 'int' || key.kind.order === 'uint');
      keys = this.#unsorted = { key, nums: words ? null : orderedNumbers(key, ASC_NULLS_LAST) };
      if (keys.nums !== null) this.reservation.grow(keys.nums.byteLength);
    }
    return { keys, extreme: this.extremeRow, first: this.firstRow };
  }

  /** The extreme key as (column, row): what the prefilter compares with; null when nonNull is 0. */
  extremeKey(): { readonly key: KeyColumn; readonly row: number } | null {
    if (this.nonNull === 0) return null;
    return this.#keys !== null ? { key: this.#keys.key, row: this.nonNull - 1 } : { key: this.#key!, row: this.extremeRow };
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

  /**
   * Per row (in row order): 1 when its sorted position is in `[w, nonNull)` — matched, for a
   * watermark `w` — else 0 (NULL keys are never matched). Transient: not kept.
   */
  matchedRows(w: number): Uint8Array {
    const flags = new Uint8Array(this.rows);
    const order = this.order;
    for (let p = w; p < this.nonNull; p++) flags[order[p]!] = 1;
    return flags;
  }

  /** Sorts the side (once); a side with no non-NULL key has nothing to sort. */
  sort(): void {
    if (this.#keys !== null || this.nonNull === 0) return;
    this.#sorted(argsortKeys([this.#key!], [{ descending: this.plan.descending, nullsFirst: false }]));
  }

  /**
   * `sort()` in steps, a turn of the event loop whenever `pacer` says one is due (an abort ends it
   * there): what the join does under a signal before a streamed batch that needs the sort.
   */
  async sortPaced(pacer: Pacer): Promise<void> {
    if (this.#keys !== null || this.nonNull === 0) return;
    const order = await argsortKeysPaced([this.#key!], [{ descending: this.plan.descending, nullsFirst: false }], pacer);
    if (this.#keys !== null) return; // (sorted meanwhile)
    if (pacer.due()) await pacer.turn();
    this.#sorted(order);
  }

  /** The side over its sort order: the sorted keys taken, the unsorted ones let go. */
  #sorted(order: Int32Array): void {
    const key = this.#key!;
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

  /**
   * This side sorted (and, with `sortedBatch`, its physically sorted copy made) and moved into
   * shared memory: the main thread's side over that memory, and its wire for the workers. The
   * copies are reserved while both exist; the originals are garbage afterwards. Needs a non-NULL key.
   */
  share(sortedBatch: boolean): { readonly side: SortedBufferedSide; readonly shared: SharedBufferedSide } {
    if (this.nonNull === 0) throw new RangeError('a buffered side without a non-NULL key has nothing to share');
    this.sort();
    const sorted = sortedBatch ? this.sortedBatch() : null;
    const { key, nums } = this.#keys!;
    const order = this.#order!;
    const keyBytes = 'words' in key ? key.words.byteLength : key.offsets.byteLength + key.bytes.byteLength + (key.codes?.byteLength ?? 0);
    const bytes =
      this.source.batches.reduce((n, b) => n + batchByteSize(b), 0) + order.byteLength + keyBytes + (key.nulls?.byteLength ?? 0) + (nums?.byteLength ?? 0) + (sorted === null ? 0 : batchByteSize(sorted));
    this.reservation.grow(bytes);
    let side: SortedBufferedSide;
    try {
      const batches = this.source.batches.map((b) => shareBatch(b));
      side = new SortedBufferedSide(new RowSource(batches, this.source.schema), null, this.nonNull, this.extremeRow, this.firstRow, this.plan, this.reservation);
      side.#order = shareView(order);
      side.#keys = { key: shareKeyColumn(key), nums: nums === null ? null : shareView(nums) };
      side.#sortedBatch = sorted === null ? null : shareBatch(sorted);
    } finally {
      this.reservation.shrink(bytes); // the originals are garbage now: only the shared copies are held
    }
    const shared: SharedBufferedSide = {
      batches: side.source.batches.map((b) => encodeBatch(b, 'copy').wire), // shared: nothing copied
      nonNull: side.nonNull,
      extremeRow: side.extremeRow,
      firstRow: side.firstRow,
      order: side.#order,
      keys: side.#keys.key,
      nums: side.#keys.nums,
      sortedBatch: side.#sortedBatch === null ? null : encodeBatch(side.#sortedBatch, 'copy').wire,
    };
    return { side, shared };
  }

  /**
   * The side `share` made, over its shared memory (in a worker): nothing copied, nothing reserved
   * (the memory is the sharing thread's). `reservation` only backs a sorted copy made later, which
   * a side shared with its `sortedBatch` never needs.
   */
  static restore(s: SharedBufferedSide, schema: Schema, plan: PiecewisePlan, reservation: Reservation): SortedBufferedSide {
    const side = new SortedBufferedSide(new RowSource(s.batches.map((w) => decodeBatch(w, schema)), schema), null, s.nonNull, s.extremeRow, s.firstRow, plan, reservation);
    side.#order = s.order;
    side.#keys = { key: s.keys, nums: s.nums };
    side.#sortedBatch = s.sortedBatch === null ? null : decodeBatch(s.sortedBatch, schema);
    return side;
  }

  static async load(scan: Scan, schema: Schema, plan: PiecewisePlan, reservation: Reservation, signal?: AbortSignal): Promise<SortedBufferedSide> {
    const batches = await collectScan(scan, reservation, { signal });
    if (batches.length === 0) return new SortedBufferedSide(new RowSource([], schema), null, 0, -1, -1, plan, reservation);
    const keyBatch = keyColumnOf(batches, plan.bufferedKey, reservation);
    // (under a signal a range of rows at a time: one pass over millions of keys takes a second)
    const key = (signal === undefined ? normalizeKeys(keyBatch, [plan.bufferedKey], [plan.kind]) : await normalizeKeysPaced(keyBatch, [plan.bufferedKey], [plan.kind], new Pacer(signal)))[0]!;
    reservation.grow(keyColumnBytes(key));
    let nulls = 0;
    if (key.nulls !== null) for (let i = 0; i < key.length; i++) nulls += key.nulls[i]!;
    // the last in sorted order: the smallest key for a descending side, the largest otherwise
    const ends = extremeRowsOf(key);
    const extremeRow = plan.descending ? ends.min : ends.max;
    const firstRow = plan.descending ? ends.max : ends.min;
    return new SortedBufferedSide(new RowSource(batches, schema), key, key.length - nulls, extremeRow, firstRow, plan, reservation);
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

/**
 * The key column of every batch as one batch of that column alone: the rows stay in their batches
 * (the output gathers from them, or slices them), only the key is copied to be normalised at once.
 * The copy is reserved while it exists, i.e. until the normalised key (which may view it) is.
 */
function keyColumnOf(batches: readonly RecordBatch[], name: string, reservation: Reservation): RecordBatch {
  const parts = batches.map((b) => projectBatch(b, [name]));
  if (parts.length === 1) return parts[0]!;
  const bytes = parts.reduce((s, b) => s + batchByteSize(b), 0);
  reservation.grow(bytes);
  try {
    return concatBatches(parts, parts[0]!.schema);
  } finally {
    reservation.shrink(bytes); // from here on counted as the normalised key
  }
}
