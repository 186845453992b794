/**
 * Output of the sort-merge join, cut into `batchSize` batches across key groups: a join over
 * unique keys finds one pair per group, and a batch per group would be a batch per row.
 *
 * A sink holds row references — (batch, row) per side, -1 for a NULL-padded side — in typed
 * arrays, plus the list of batches they point into; a full sink gathers one output batch through
 * the join's `OutputPlan` (columnar gathers from `RowSource`s over those batches) and starts over.
 * Batches are appended to a side's list when they are first referenced since the last flush
 * (consecutive references to one batch share the entry), so the lists stay a few batches long.
 * Finished batches go to `ready`, which the merge drains (yields) after each step.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { RowSource } from '../../core/arrow/gather.ts';
import type { OutputPlan } from '../common/output.ts';

/** Batches referenced since the last flush, and the global row offset of the last one. */
class BatchList {
  batches: RecordBatch[] = [];
  #last: RecordBatch | null = null;
  #lastOffset = 0;
  #total = 0;

  /** Global index (in this list) of row 0 of `batch`. */
  offsetOf(batch: RecordBatch): number {
    if (batch !== this.#last) {
      this.#last = batch;
      this.#lastOffset = this.#total;
      this.batches.push(batch);
      this.#total += batch.numRows;
    }
    return this.#lastOffset;
  }

  source(schema: Schema): RowSource {
    return new RowSource(this.batches, schema);
  }

  reset(): void {
    this.batches = [];
    this.#last = null;
    this.#total = 0;
  }
}

/** (left row, right row) pairs for inner/left/right/full joins. */
export class PairSink {
  readonly ready: RecordBatch[] = [];
  readonly #left = new BatchList();
  readonly #right = new BatchList();
  readonly #leftIdx: Int32Array;
  readonly #rightIdx: Int32Array;
  #n = 0;

  constructor(
    private readonly plan: OutputPlan,
    private readonly leftSchema: Schema,
    private readonly rightSchema: Schema,
    private readonly batchSize: number,
  ) {
    this.#leftIdx = new Int32Array(batchSize);
    this.#rightIdx = new Int32Array(batchSize);
  }

  /** One output row: left row `l` of `lb` (lb null: NULL-padded) and right row `r` of `rb`. */
  add(lb: RecordBatch | null, l: number, rb: RecordBatch | null, r: number): void {
    const n = this.#n;
    this.#leftIdx[n] = lb === null ? -1 : this.#left.offsetOf(lb) + l;
    this.#rightIdx[n] = rb === null ? -1 : this.#right.offsetOf(rb) + r;
    if ((this.#n = n + 1) === this.batchSize) this.flush();
  }

  /** Every pair (l, r) with l in [l0, l1) of `lb` and r in [r0, r1) of `rb` (a key group's cross product). */
  addCross(lb: RecordBatch, l0: number, l1: number, rb: RecordBatch, r0: number, r1: number): void {
    let lOff = this.#left.offsetOf(lb);
    let rOff = this.#right.offsetOf(rb);
    const li = this.#leftIdx;
    const ri = this.#rightIdx;
    for (let l = l0; l < l1; l++) {
      for (let r = r0; r < r1; r++) {
        li[this.#n] = lOff + l;
        ri[this.#n] = rOff + r;
        if (++this.#n === this.batchSize) {
          this.flush();
          lOff = this.#left.offsetOf(lb);
          rOff = this.#right.offsetOf(rb);
        }
      }
    }
  }

  flush(): void {
    const n = this.#n;
    if (n === 0) return;
    this.#n = 0;
    this.ready.push(this.plan.pairBatch(this.#left.source(this.leftSchema), this.#leftIdx, this.#right.source(this.rightSchema), this.#rightIdx, 0, n));
    this.#left.reset();
    this.#right.reset();
  }
}

/** Rows of the returned side for semi/anti/mark joins (with the mark bit for mark joins). */
export class RowSink {
  readonly ready: RecordBatch[] = [];
  readonly #rows = new BatchList();
  readonly #idx: Int32Array;
  readonly #mark: Uint8Array | null;
  #n = 0;

  constructor(
    private readonly plan: OutputPlan,
    private readonly schema: Schema,
    private readonly batchSize: number,
    withMark: boolean,
  ) {
    this.#idx = new Int32Array(batchSize);
    this.#mark = withMark ? new Uint8Array(batchSize) : null;
  }

  add(batch: RecordBatch, row: number, mark: number): void {
    const n = this.#n;
    this.#idx[n] = this.#rows.offsetOf(batch) + row;
    if (this.#mark !== null) this.#mark[n] = mark;
    if ((this.#n = n + 1) === this.batchSize) this.flush();
  }

  flush(): void {
    const n = this.#n;
    if (n === 0) return;
    this.#n = 0;
    this.ready.push(this.plan.sideBatch(this.#rows.source(this.schema), this.#idx, 0, n, this.#mark));
    this.#rows.reset();
  }
}
