/**
 * Assembling join output. Operators describe output rows as row references — indices into each
 * side's `RowSource`, -1 for a NULL-padded side — held in typed arrays, and every batch of
 * references becomes one output RecordBatch by a columnar gather. No per-row objects.
 *
 * Two shapes: pairs (inner/outer joins: left columns then right columns) and one side plus an
 * optional boolean `mark` column (semi/anti/mark joins). `pairBatch`/`sideBatch` gather one
 * batch directly (streaming operators, whose probe source changes every batch);
 * `OutputAssembler` buffers references pushed one at a time and cuts batches of `batchSize`.
 */
import type { Data, RecordBatch, Schema } from 'apache-arrow';
import { boolData, gatherColumns, makeRecordBatch, type RowSource } from '../../core/arrow/gather.ts';

/** Output rows `left[leftIdx[k]] ++ right[rightIdx[k]]` for k in [start, start + count). */
export function pairBatch(
  schema: Schema,
  left: RowSource,
  leftIdx: Int32Array,
  right: RowSource,
  rightIdx: Int32Array,
  start: number,
  count: number,
): RecordBatch {
  const columns: Data[] = [...gatherColumns(left, leftIdx, start, count), ...gatherColumns(right, rightIdx, start, count)];
  return makeRecordBatch(schema, columns, count);
}

/** Output rows `src[idx[k]]` (+ `mark[k]` when given) for k in [start, start + count). */
export function sideBatch(schema: Schema, src: RowSource, idx: Int32Array, start: number, count: number, mark: Uint8Array | null): RecordBatch {
  const columns: Data[] = gatherColumns(src, idx, start, count);
  if (mark) columns.push(boolData(mark, start, count));
  return makeRecordBatch(schema, columns, count);
}

export class OutputAssembler {
  readonly #left: Int32Array;
  readonly #right: Int32Array;
  readonly #mark: Uint8Array | null;
  #count = 0;

  private constructor(
    readonly schema: Schema,
    readonly batchSize: number,
    private readonly leftSource: RowSource,
    private readonly rightSource: RowSource | null,
    withMark: boolean,
  ) {
    this.#left = new Int32Array(batchSize);
    this.#right = new Int32Array(batchSize);
    this.#mark = withMark ? new Uint8Array(batchSize) : null;
  }

  /** Output of inner/left/right/full: every left column, then every right column. */
  static pairs(schema: Schema, batchSize: number, left: RowSource, right: RowSource): OutputAssembler {
    return new OutputAssembler(schema, batchSize, left, right, false);
  }

  /** Output of semi/anti (`withMark` false) or mark joins (`withMark` true): one side's columns. */
  static oneSide(schema: Schema, batchSize: number, source: RowSource, withMark: boolean): OutputAssembler {
    return new OutputAssembler(schema, batchSize, source, null, withMark);
  }

  get pending(): number {
    return this.#count;
  }

  /** Adds one output row; returns true when a full batch is ready to `flush()`. */
  addPair(leftRow: number, rightRow: number): boolean {
    this.#left[this.#count] = leftRow;
    this.#right[this.#count] = rightRow;
    return ++this.#count === this.batchSize;
  }

  /** Adds one row of the single side (with its mark bit for mark joins). */
  addRow(row: number, mark = false): boolean {
    this.#left[this.#count] = row;
    if (this.#mark) this.#mark[this.#count] = mark ? 1 : 0;
    return ++this.#count === this.batchSize;
  }

  /** The buffered rows as one batch (empty buffers give `null`). */
  flush(): RecordBatch | null {
    const n = this.#count;
    if (n === 0) return null;
    this.#count = 0;
    return this.rightSource
      ? pairBatch(this.schema, this.leftSource, this.#left, this.rightSource, this.#right, 0, n)
      : sideBatch(this.schema, this.leftSource, this.#left, 0, n, this.#mark);
  }
}
