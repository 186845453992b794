/**
 * Assembling join output. Operators describe output rows as row references — indices into each
 * side's `RowSource`, -1 for a NULL-padded side — held in typed arrays, and every batch of
 * references becomes one output RecordBatch by a columnar gather. No per-row objects.
 *
 * Two shapes: pairs (inner/outer joins: left columns then right columns) and one side plus an
 * optional boolean `mark` column (semi/anti/mark joins), both cut down and reordered to the join's
 * `select` list by an `OutputPlan` — only selected columns are ever gathered. Its `pairBatch` /
 * `sideBatch` gather one batch directly (streaming operators, whose probe source changes every
 * batch); `OutputAssembler` buffers references pushed one at a time and cuts batches of `batchSize`.
 */
import type { Data, RecordBatch, Schema } from 'apache-arrow';
import { boolData, gatherColumns, makeRecordBatch, type AllocationGuard, type RowSource } from '../../core/arrow/gather.ts';
import { copyRanges, repeatRows, runnable } from '../../core/arrow/runs.ts';
import type { OutputShape } from '../../core/output-schema.ts';

/**
 * An `OutputShape` resolved once against the schemas of the sources an operator gathers from:
 * the source columns to gather (each once, even if selected twice) and where each lands.
 */
export class OutputPlan {
  readonly schema: Schema;
  /** Columns gathered from the first source (left, or the one side) and from the right source. */
  readonly #first: number[];
  readonly #second: number[];
  /** Per output column: its index in [...first, ...second], or -1 for the mark. */
  readonly #slots: Int32Array;
  /** The output is [...first, ...second(, mark)] as gathered: no reordering. */
  readonly #identity: boolean;

  private constructor(
    shape: OutputShape,
    first: Schema,
    second: Schema | null,
    firstSide: 'left' | 'right',
    private readonly guard: AllocationGuard | undefined,
  ) {
    this.schema = shape.schema;
    const resolve = (schema: Schema | null, name: string): number => {
      const c = schema === null ? -1 : schema.fields.findIndex((f) => f.name === name);
      if (c < 0) throw new RangeError(`output column '${name}' is not in its source (columns: ${schema?.fields.map((f) => f.name).join(', ') ?? 'none'})`);
      return c;
    };
    // each source column gathered once, in order of first use
    const firstCols: number[] = [];
    const secondCols: number[] = [];
    for (const c of shape.columns) {
      if (c.from === 'mark') continue;
      const [list, col] = c.from === firstSide ? [firstCols, resolve(first, c.name)] : [secondCols, resolve(second, c.name)];
      if (!list.includes(col)) list.push(col);
    }
    this.#first = firstCols;
    this.#second = secondCols;
    this.#slots = Int32Array.from(shape.columns, (c) => {
      if (c.from === 'mark') return -1;
      return c.from === firstSide ? firstCols.indexOf(resolve(first, c.name)) : firstCols.length + secondCols.indexOf(resolve(second, c.name));
    });
    const gathered = firstCols.length + secondCols.length;
    this.#identity = this.#slots.every((s, i) => (i < gathered ? s === i : s === -1 && i === gathered));
  }

  /**
   * Inner/outer joins: left columns then right columns (as selected). `guard` (the run's memory
   * pool) refuses a variable-width column too large for the limit before it is gathered.
   */
  static pairs(shape: OutputShape, left: Schema, right: Schema, guard?: AllocationGuard): OutputPlan {
    return new OutputPlan(shape, left, right, 'left', guard);
  }

  /** Semi/anti/mark joins: the returned side's columns (and the mark, as selected). */
  static oneSide(shape: OutputShape, side: Schema, which: 'left' | 'right', guard?: AllocationGuard): OutputPlan {
    return new OutputPlan(shape, side, null, which, guard);
  }

  /**
   * Output rows `left[leftIdx[k]] ++ right[rightIdx[k]]` for k in [start, start + count). A side
   * whose rows are one run of consecutive input rows (a probe batch of a foreign-key join, each
   * row matched once) comes back as zero-copy slices (gatherColumns' `slices`).
   */
  pairBatch(left: RowSource, leftIdx: Int32Array, right: RowSource, rightIdx: Int32Array, start: number, count: number): RecordBatch {
    const a = this.#first.length === 0 ? [] : gatherColumns(left, leftIdx, start, count, this.#first, this.guard, true);
    const b = this.#second.length === 0 ? [] : gatherColumns(right, rightIdx, start, count, this.#second, this.guard, true);
    return this.#assemble([...a, ...b], null, count);
  }

  /**
   * Rows [start, start + count) of one `batch` of side `side` (in the schema this plan was resolved
   * against), each beside row `otherRows[k]` of `other` (any source with the other side's schema;
   * -1: NULLs): that side's columns are zero-copy slices of the batch — an outer join's unmatched
   * rows that make up a whole batch, or a probe batch that passes through (hash-join/probe.ts),
   * need no gather — and only the other side's are gathered.
   */
  paddedBatch(side: 'left' | 'right', batch: RecordBatch, start: number, count: number, other: RowSource, otherRows: Int32Array): RecordBatch {
    const slices = (cols: readonly number[]) => cols.map((c) => batch.data.children[c]!.slice(start, count));
    const gathered = (cols: readonly number[]) => (cols.length === 0 ? [] : gatherColumns(other, otherRows, 0, count, cols, this.guard));
    const a = side === 'left' ? slices(this.#first) : gathered(this.#first);
    const b = side === 'left' ? gathered(this.#second) : slices(this.#second);
    return this.#assemble([...a, ...b], null, count);
  }

  /** Whether `runPairBatch` can assemble every selected column of these two batches. */
  canRun(left: RecordBatch, right: RecordBatch): boolean {
    return this.#first.every((c) => runnable(left.data.children[c]!)) && this.#second.every((c) => runnable(right.data.children[c]!));
  }

  /**
   * Pairs given as runs (core/arrow/runs.ts): run i is rows [leftStarts[i], leftStarts[i] + lens[i])
   * of `left`, each paired with row rightRows[i] of `right`; `count` rows in all. Only when
   * `canRun(left, right)`.
   */
  runPairBatch(left: RecordBatch, leftStarts: Int32Array, right: RecordBatch, rightRows: Int32Array, lens: Int32Array, runs: number, count: number): RecordBatch {
    const a = this.#first.map((c) => copyRanges(left.data.children[c]!, leftStarts, lens, runs, count));
    const b = this.#second.map((c) => repeatRows(right.data.children[c]!, rightRows, lens, runs, count));
    return this.#assemble([...a, ...b], null, count);
  }

  /** Rows [start, start + count) of one `batch` of the one side, as zero-copy slices (+ `mark[k]` for k < count when given). */
  sliceBatch(batch: RecordBatch, start: number, count: number, mark: Uint8Array | null): RecordBatch {
    const a = this.#first.map((c) => batch.data.children[c]!.slice(start, count));
    return this.#assemble(a, mark === null ? null : () => boolData(mark, 0, count), count);
  }

  /** Output rows `src[idx[k]]` (+ `mark[k]` when given) for k in [start, start + count). */
  sideBatch(src: RowSource, idx: Int32Array, start: number, count: number, mark: Uint8Array | null): RecordBatch {
    const a = this.#first.length === 0 ? [] : gatherColumns(src, idx, start, count, this.#first, this.guard, true);
    return this.#assemble(a, mark === null ? null : () => boolData(mark, start, count), count);
  }

  #assemble(gathered: Data[], mark: (() => Data) | null, count: number): RecordBatch {
    if (this.#identity) {
      if (mark !== null && this.#slots.length > gathered.length) gathered.push(mark());
      return makeRecordBatch(this.schema, gathered, count);
    }
    let markData: Data | null = null;
    const columns = Array.from(this.#slots, (s) => (s >= 0 ? gathered[s]! : (markData ??= mark!())));
    return makeRecordBatch(this.schema, columns, count);
  }
}

/**
 * Buffers output row references pushed one at a time and cuts batches of `batchSize` (the
 * nested-loop join's output path).
 */
export class OutputAssembler {
  readonly #left: Int32Array;
  readonly #right: Int32Array;
  readonly #mark: Uint8Array | null;
  #count = 0;

  private constructor(
    readonly plan: OutputPlan,
    readonly batchSize: number,
    private readonly leftSource: RowSource,
    private readonly rightSource: RowSource | null,
    withMark: boolean,
  ) {
    this.#left = new Int32Array(batchSize);
    this.#right = new Int32Array(batchSize);
    this.#mark = withMark ? new Uint8Array(batchSize) : null;
  }

  /** Output of inner/left/right/full: left columns, then right columns. */
  static pairs(plan: OutputPlan, batchSize: number, left: RowSource, right: RowSource): OutputAssembler {
    return new OutputAssembler(plan, batchSize, left, right, false);
  }

  /** Output of semi/anti (`withMark` false) or mark joins (`withMark` true): one side's columns. */
  static oneSide(plan: OutputPlan, batchSize: number, source: RowSource, withMark: boolean): OutputAssembler {
    return new OutputAssembler(plan, batchSize, source, null, withMark);
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
      ? this.plan.pairBatch(this.leftSource, this.#left, this.rightSource, this.#right, 0, n)
      : this.plan.sideBatch(this.leftSource, this.#left, 0, n, this.#mark);
  }
}
