/**
 * Assembling join output: operators push row references (global row indices into each side's
 * `RowSource`, -1 for "NULL-padded") one at a time into preallocated typed arrays, and every
 * `batchSize` references become one output RecordBatch by a columnar gather. No per-row objects.
 *
 * Two shapes: `pairs` (inner/outer joins: left columns then right columns) and one side plus an
 * optional boolean `mark` column (semi/anti/mark joins).
 */
import type { Data, RecordBatch, Schema } from 'apache-arrow';
import { boolData, gatherColumn, makeRecordBatch, type RowSource } from '../../core/arrow/gather.ts';

export class OutputAssembler {
  readonly #left: Int32Array;
  readonly #right: Int32Array;
  readonly #mark: Uint8Array | null;
  #count = 0;

  private constructor(
    readonly schema: Schema,
    readonly batchSize: number,
    private readonly leftSource: RowSource | null,
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
    const columns: Data[] = [];
    const ls = this.leftSource!;
    for (let c = 0; c < ls.schema.fields.length; c++) columns.push(gatherColumn(ls, c, this.#left, 0, n));
    if (this.rightSource) {
      const rs = this.rightSource;
      for (let c = 0; c < rs.schema.fields.length; c++) columns.push(gatherColumn(rs, c, this.#right, 0, n));
    }
    if (this.#mark) columns.push(boolData(this.#mark, 0, n));
    this.#count = 0;
    return makeRecordBatch(this.schema, columns, n);
  }
}
