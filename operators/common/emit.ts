/**
 * Emitting the rows a join has decided by flags, for any join that records matches as 0/1 per
 * row (hash, sort-merge, piecewise merge): the unmatched rows of an outer join, NULL-padded on the
 * other side, and the rows of a semi / anti / mark join. Output is cut into batches of at most
 * `batchSize` rows, in row order, and gathered columnar by an `OutputPlan` (output.ts).
 *
 * The flags are typed arrays holding exactly 0 or 1 per row, so rows are kept without a branch on
 * the data (an anti join's output is most of its input: 9.5M of 10M rows in the benchmark).
 * Degenerate cases: no rows, or no row kept, emit no batch at all — except a mark join, which
 * returns every row and so emits nothing only for zero rows.
 */
import type { RecordBatch } from 'apache-arrow';
import type { RowSource } from '../../core/arrow/gather.ts';
import { rowsWhere } from '../../core/selection.ts';
import type { Side } from '../../core/types.ts';
import type { OutputPlan } from './output.ts';
import type { RowOutput } from './roles.ts';

/**
 * Pairs (row, NULL) for the rows r of `src` (join side `side`) with `matched[r] === 0`, r <
 * `rows`; the other side is all NULL (row id -1 into `other`, any source with its schema). `none`:
 * a reusable array of at least `min(batchSize, unmatched)` entries -1 (allocated when absent).
 */
export function* unmatchedPairs(
  pairs: OutputPlan,
  side: Side,
  src: RowSource,
  matched: Uint8Array,
  rows: number,
  other: RowSource,
  batchSize: number,
  none?: Int32Array,
): Generator<RecordBatch> {
  const unmatched = rowsWhere(matched, rows, 0);
  const nulls = none ?? new Int32Array(Math.min(batchSize, unmatched.length)).fill(-1);
  for (let start = 0; start < unmatched.length; start += batchSize) {
    const n = Math.min(batchSize, unmatched.length - start);
    const ids = unmatched.subarray(start, start + n);
    yield side === 'left' ? pairs.pairBatch(src, ids, other, nulls, 0, n) : pairs.pairBatch(other, nulls, src, ids, 0, n);
  }
}

/**
 * The semi / anti / mark rows of `src`: semi the matched rows, anti the unmatched ones — or, when
 * `notIn` is given (a null-aware anti join), its survivors instead — and mark every row with its
 * match flag as the mark column.
 */
export function* sideRows(plan: OutputPlan, src: RowSource, kind: NonNullable<RowOutput>, matched: Uint8Array, notIn: Uint8Array | null, batchSize: number): Generator<RecordBatch> {
  const rows = src.numRows;
  const idx = new Int32Array(Math.min(batchSize, Math.max(1, rows)));
  if (kind === 'mark') {
    for (let start = 0; start < rows; start += idx.length) {
      const n = Math.min(idx.length, rows - start);
      for (let k = 0; k < n; k++) idx[k] = start + k;
      yield plan.sideBatch(src, idx, 0, n, matched.subarray(start, start + n));
    }
    return;
  }
  // semi keeps matched rows, NOT IN its survivors, anti the unmatched (1 - matched)
  const keep = kind === 'semi' ? matched : notIn;
  const flip = keep === null ? 1 : 0;
  const flags = keep ?? matched;
  let n = 0;
  for (let r = 0; r < rows; r++) {
    idx[n] = r;
    n += flags[r]! ^ flip;
    if (n === idx.length) {
      yield plan.sideBatch(src, idx, 0, n, null);
      n = 0;
    }
  }
  if (n > 0) yield plan.sideBatch(src, idx, 0, n, null);
}
