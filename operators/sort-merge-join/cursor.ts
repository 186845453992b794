/**
 * A cursor over one sorted input of the sort-merge join: the current batch, its normalised join
 * keys, and a position that only moves forward.
 *
 * Keys are normalised once per batch (core/keys/normalize.ts, the join's common key kinds, so a
 * left Int32 and a right Int64 key compare as equal words), and the batch's own comparator under
 * the merge's sort order is built once with it; a single integer (or NaN-free float) key column
 * also gets one ordered number per row (core/keys/ordered-numbers.ts), so that group ends,
 * cross-cursor comparisons and the order check are number comparisons, not comparator calls. When a batch is loaded the cursor also records
 * whether its first row continues the previous batch's last key (`continuesPrevious`): a key group
 * may span batches, and the merge carries it across the boundary with that one comparison.
 *
 * An input that only *claims* to be sorted (`Scan.sortedOn`, checked = true) is verified as it
 * streams: every row against its predecessor, the first row of a batch against the last of the
 * one before. The first row out of order is an UnsortedInputError naming the input, never a
 * wrong answer. Inputs the join sorted itself are not re-checked. Empty batches are skipped.
 */
import type { RecordBatch } from 'apache-arrow';
import { UnsortedInputError } from '../../core/errors.ts';
import { Pacer } from '../../core/next-turn.ts';
import { anyNullMask, normalizeKeys } from '../../core/keys/normalize.ts';
import { makeSortComparator, type KeySortOrder } from '../../core/keys/order.ts';
import type { KeyColumn, KeyComparator, KeyKind } from '../../core/keys/types.ts';
import { findKeyGroupEnd } from './key-group.ts';
import { numberGroupEnd, orderedNumbers } from '../../core/keys/ordered-numbers.ts';

export interface CursorOptions {
  readonly columns: readonly string[];
  readonly kinds: readonly KeyKind[];
  readonly orders: readonly KeySortOrder[];
  /** Verify the order (the input only claims it), naming `source` in the error. */
  readonly check: { readonly source: string } | null;
  /** Called with every batch as it is loaded (before the merge sees it). */
  readonly onBatch?: (batch: RecordBatch) => void;
  readonly signal?: AbortSignal;
}

export class SortedCursor {
  batch: RecordBatch | null = null;
  keys: readonly KeyColumn[] = [];
  /** Rows of the current batch (0 when done). */
  rows = 0;
  pos = 0;
  /** Bumped on every batch load: comparators between two cursors are cached per version pair. */
  version = 0;
  /** The current batch's first row has the previous batch's last key. */
  continuesPrevious = false;
  /** 1 where any key column of the row is NULL; null when no row has one. */
  nullRows: Uint8Array | null = null;
  /** Rows loaded so far. */
  rowsRead = 0;
  /** One key column as ordered numbers (core/keys/ordered-numbers.ts), or null: use the comparator. */
  nums: Float64Array | null = null;
  #within: KeyComparator | null = null;
  readonly #it: AsyncIterator<RecordBatch>;
  readonly #pacer: Pacer;
  #finished = false;

  constructor(
    source: AsyncIterable<RecordBatch>,
    private readonly options: CursorOptions,
  ) {
    this.#it = source[Symbol.asyncIterator]();
    this.#pacer = new Pacer(options.signal);
  }

  get done(): boolean {
    return this.batch === null;
  }

  /** Loads the next non-empty batch (pos 0); false (and `done`) at the end of the input. */
  async next(): Promise<boolean> {
    const prevKeys = this.keys;
    const prevRows = this.rows;
    const prevNums = this.nums;
    for (;;) {
      // a merge of inputs in memory runs on microtasks alone: a turn now and then lets an abort in
      if (this.#pacer.due()) await this.#pacer.turn();
      this.options.signal?.throwIfAborted();
      const r = this.#finished ? { done: true as const, value: undefined } : await this.#it.next();
      if (r.done) {
        this.#finished = true;
        this.batch = null;
        this.keys = [];
        this.rows = 0;
        this.pos = 0;
        this.nullRows = null;
        this.nums = null;
        this.#within = null;
        this.version++;
        return false;
      }
      const batch = r.value;
      if (batch.numRows === 0) continue;
      const keys = normalizeKeys(batch, this.options.columns, this.options.kinds);
      const within = makeSortComparator(keys, keys, this.options.orders);
      const nums = keys.length === 1 ? orderedNumbers(keys[0]!, this.options.orders[0]!) : null;
      let continues = false;
      if (prevRows > 0) {
        const c = prevNums !== null && nums !== null ? Math.sign(prevNums[prevRows - 1]! - nums[0]!) || 0 : makeSortComparator(prevKeys, keys, this.options.orders).compare(prevRows - 1, 0);
        if (c > 0 && this.options.check) this.#outOfOrder(this.rowsRead - 1, this.rowsRead);
        continues = c === 0;
      }
      if (this.options.check) {
        const n = batch.numRows;
        if (nums !== null) {
          for (let i = 1; i < n; i++) if (nums[i - 1]! > nums[i]!) this.#outOfOrder(this.rowsRead + i - 1, this.rowsRead + i);
        } else {
          for (let i = 1; i < n; i++) if (within.compare(i - 1, i) > 0) this.#outOfOrder(this.rowsRead + i - 1, this.rowsRead + i);
        }
      }
      this.batch = batch;
      this.keys = keys;
      this.rows = batch.numRows;
      this.pos = 0;
      this.continuesPrevious = continues;
      this.nullRows = anyNullMask(keys);
      this.nums = nums;
      this.#within = within;
      this.version++;
      this.rowsRead += batch.numRows;
      this.options.onBatch?.(batch);
      return true;
    }
  }

  /** Whether row `row` of the current batch has a NULL in any key column. */
  hasNullKey(row: number): boolean {
    return this.nullRows !== null && this.nullRows[row] === 1;
  }

  /** End (exclusive) of the key group starting at `pos`, within the current batch. */
  groupEnd(): number {
    if (this.nums !== null) return numberGroupEnd(this.nums, this.pos, this.rows);
    return findKeyGroupEnd(this.#within!.equal, this.pos, this.rows);
  }

  /** Stops the input early (the merge needs nothing more from it). */
  async close(): Promise<void> {
    if (!this.#finished) {
      this.#finished = true;
      await this.#it.return?.();
    }
  }

  #outOfOrder(before: number, after: number): never {
    const keys = this.options.columns.join(', ');
    throw new UnsortedInputError(this.options.check!.source, `row ${after} sorts before row ${before} on (${keys})`);
  }
}
