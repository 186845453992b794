/**
 * The classic piecewise merge join (inner / left / right / full): one streamed partition's work.
 *
 * Per streamed batch (DataFusion's `classic_join.rs` after apache/datafusion#25840):
 *  1. one vectorised comparison against the buffered side's extreme key (`pwmj.prefilter`) marks
 *     the rows that can match at all; NULL keys and hopeless rows are emitted unmatched (the
 *     streamed side is outer: right / full) or dropped, before any sort;
 *  2. only the survivors are sorted (in the buffered side's direction);
 *  3. each survivor's first match is found by the `pwmj.search` strategy, starting at the previous
 *     survivor's (the answers only move forward), and the survivor is paired with every buffered
 *     row from there to the end of the non-NULL keys.
 * Without the prefilter (the baseline) every non-NULL row is sorted and searched, and a row whose
 * search finds nothing is unmatched — as is every row after it, since the answers only grow.
 *
 * Output is cut into `batchSize` batches however many pairs one streamed batch produces: the pair
 * loop is resumable (survivor, buffered position), and every full buffer is yielded before the
 * next pair is written — a batch that produces several chunks emits all of them (DataFusion once
 * lost rows when one streamed batch produced more than one output chunk). A partial buffer is
 * emitted at the end of each streamed batch (it references that batch's rows). Pairs whose output
 * columns are all fixed-width without NULLs are kept as runs (one streamed row x a range of sorted
 * positions) and assembled by block copies of the physically sorted buffered side and fills of the
 * streamed value (core/arrow/runs.ts): ~6 ns a pair instead of ~18 by index (1e7 pairs of two int64
 * columns: ~60 ms against ~190). A streamed batch with no candidate at all, on an outer streamed
 * side, is emitted as slices of itself with the buffered columns NULL (no gather). A row whose
 * previous row's first match also matches it takes that position after one comparison, without a
 * search (equal and close keys are common).
 *
 * The buffered rows some streamed row matched are `[minMarked, nonNull)` (watermark.ts): each
 * batch lowers the shared watermark once, with its first survivor's match (the smallest, as the
 * matches only move forward). The partition that finishes last emits the buffered rows before the
 * watermark and the NULL-key rows, NULL-padded, for a left / full join.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { RowSource } from '../../core/arrow/gather.ts';
import { argsortKeys } from '../../core/keys/argsort.ts';
import { countKept } from '../../core/selection.ts';
import { normalizeKeys } from '../../core/keys/normalize.ts';
import type { KeyColumn } from '../../core/keys/types.ts';
import type { OutputPlan } from '../common/output.ts';
import type { SortedBufferedSide } from './buffered-side.ts';
import { BatchMatcher } from './match.ts';
import type { PiecewisePlan } from './plan.ts';
import { nonNullMask, type BatchScratch, type PiecewiseStats } from './scratch.ts';
import type { MinMarkedWatermark } from './watermark.ts';

export interface ClassicContext {
  readonly plan: PiecewisePlan;
  readonly buffered: SortedBufferedSide;
  readonly watermark: MinMarkedWatermark;
  /** Pairs: buffered (left) columns, then streamed (right) columns. */
  readonly output: OutputPlan;
  readonly streamedSchema: Schema;
  readonly batchSize: number;
  readonly stats: PiecewiseStats;
}

export class ClassicPartition {
  readonly #bufIdx: Int32Array;
  readonly #strIdx: Int32Array;
  #n = 0;
  /** Pairs as runs (streamed row, first sorted position, length), `#runs` of them, `#runRows` rows. */
  readonly #runRow: Int32Array;
  readonly #runStart: Int32Array;
  readonly #runLen: Int32Array;
  #runs = 0;
  #runRows = 0;
  /** `batchSize` entries of -1, and an empty buffered source: the NULL padding of whole batches. */
  #nulls: Int32Array | null = null;
  readonly #noBuffered: RowSource;

  constructor(
    private readonly c: ClassicContext,
    private readonly scratch: BatchScratch,
  ) {
    this.#bufIdx = new Int32Array(c.batchSize);
    this.#strIdx = new Int32Array(c.batchSize);
    this.#runRow = new Int32Array(c.batchSize);
    this.#runStart = new Int32Array(c.batchSize);
    this.#runLen = new Int32Array(c.batchSize);
    this.#noBuffered = new RowSource([], c.buffered.source.schema);
  }

  /**
   * Whether `process(batch)` would sort the buffered side: the join asks first under a signal and
   * sorts it in steps (`SortedBufferedSide.sortPaced`). Without the prefilter every batch does;
   * with it, one with a row the buffered side's extreme key matches.
   */
  needsSort(batch: RecordBatch): boolean {
    const { plan, buffered } = this.c;
    if (buffered.sorted || buffered.nonNull === 0 || batch.numRows === 0) return false;
    if (!plan.prefilter) return true;
    const key: KeyColumn = normalizeKeys(batch, [plan.streamedKey], [plan.kind])[0]!;
    this.scratch.hold(batch, key);
    try {
      return new BatchMatcher(buffered.target(), key, plan.op, this.scratch).matchable(this.scratch.mask(batch.numRows)) > 0;
    } finally {
      this.scratch.release();
    }
  }

  /** The output of one streamed batch. */
  *process(batch: RecordBatch): Generator<RecordBatch> {
    const n = batch.numRows;
    if (n === 0) return;
    const { plan, buffered, stats } = this.c;
    stats.streamedRows += n;
    const src = new RowSource([batch], this.c.streamedSchema);
    const nonNull = buffered.nonNull;
    if (nonNull === 0) {
      // nothing can match: no comparison, every row unmatched
      if (plan.streamedOuter) yield* this.#wholeBatchUnmatched(batch);
      return;
    }
    const key: KeyColumn = normalizeKeys(batch, [plan.streamedKey], [plan.kind])[0]!;
    this.scratch.hold(batch, key);
    try {
      // the prefilter needs only the extreme key: the buffered side is sorted once a row survives it
      // (another partition may sort the side while this one is suspended at a yield: remember
      // what this matcher was built on)
      const onSorted = !plan.prefilter || buffered.sorted;
      let matcher = new BatchMatcher(onSorted ? buffered.sortedTarget() : buffered.target(), key, plan.op, this.scratch);
      const mask = this.scratch.mask(n);
      const candidates = plan.prefilter ? matcher.matchable(mask) : nonNullMask(key, mask);
      stats.candidates += candidates;
      if (plan.streamedOuter && candidates === 0) yield* this.#wholeBatchUnmatched(batch);
      else if (plan.streamedOuter && candidates < n) yield* this.#unmatched(src, mask, n);
      if (candidates > 0) {
        if (!onSorted) matcher = new BatchMatcher(buffered.sortedTarget(), key, plan.op, this.scratch);
        const rows = this.scratch.rowsWhere(mask, n);
        const sorted = argsortKeys([key], [{ descending: plan.descending, nullsFirst: false }], rows);
        yield* this.#pairs(src, matcher, sorted);
      }
      if (this.#n > 0) yield this.#flush(src);
      if (this.#runRows > 0) yield this.#flushRuns(batch);
    } finally {
      this.scratch.release();
    }
  }

  /**
   * Every streamed row in `sorted` with the buffered rows from its first match on. When every
   * output column is fixed-width without NULLs (`OutputPlan.canRun`), the pairs are kept as runs —
   * one streamed row against a range of sorted positions — and each output column is a block copy
   * of the physically sorted buffered side or a fill of the streamed value (core/arrow/runs.ts);
   * otherwise as row indices for the general gather.
   */
  *#pairs(src: RowSource, matcher: BatchMatcher, sorted: Int32Array): Generator<RecordBatch> {
    const { plan, buffered, stats } = this.c;
    const streamed = src.batches[0]!;
    const runs = this.c.output.canRun(buffered.sortedBatch(), streamed);
    const order = buffered.order;
    const nonNull = buffered.nonNull;
    const search = plan.search;
    const p = matcher.predicate;
    const bs = this.c.batchSize;
    const bi = this.#bufIdx;
    const si = this.#strIdx;
    let k = 0;
    let first = -1;
    for (let t = 0; t < sorted.length; t++) {
      const r = sorted[t]!;
      p.row = r;
      // the previous row's first match is a lower bound, and the answer when it matches this row
      // too (equal or close keys): one comparison instead of a search
      if (t === 0 || k === nonNull || !p.matches(k)) {
        k = search.firstMatch(p, t === 0 ? 0 : k + 1, nonNull);
        stats.searches++;
      }
      if (k === nonNull) {
        // only without the prefilter: this row and every later one match nothing
        if (plan.streamedOuter) yield* this.#unmatchedRows(src, sorted, t);
        break;
      }
      if (first < 0) first = k;
      stats.pairs += nonNull - k;
      let j = k;
      if (runs) {
        while (j < nonNull) {
          const take = Math.min(nonNull - j, bs - this.#runRows);
          this.#runRow[this.#runs] = r;
          this.#runStart[this.#runs] = j;
          this.#runLen[this.#runs++] = take;
          j += take;
          if ((this.#runRows += take) === bs) yield this.#flushRuns(streamed);
        }
        continue;
      }
      while (j < nonNull) {
        let n = this.#n;
        const take = Math.min(nonNull - j, bs - n);
        for (const end = j + take; j < end; j++, n++) {
          bi[n] = order[j]!;
          si[n] = r;
        }
        this.#n = n;
        if (n === bs) yield this.#flush(src);
      }
    }
    if (first >= 0 && plan.bufferedOuter) this.c.watermark.lower(first);
  }

  /** Streamed rows with `mask[r] === 0`, NULL-padded. */
  *#unmatched(src: RowSource, mask: Uint8Array, n: number): Generator<RecordBatch> {
    const bs = this.c.batchSize;
    const bi = this.#bufIdx;
    const si = this.#strIdx;
    for (let r = 0; r < n; r++) {
      if (mask[r] === 1) continue;
      bi[this.#n] = -1;
      si[this.#n] = r;
      if (++this.#n === bs) yield this.#flush(src);
    }
    this.c.stats.streamedUnmatched += n - countKept(mask, n);
  }

  /** Every row of `batch` unmatched: its own columns sliced, the buffered side NULL, no gather. */
  *#wholeBatchUnmatched(batch: RecordBatch): Generator<RecordBatch> {
    const bs = this.c.batchSize;
    const nulls = (this.#nulls ??= new Int32Array(bs).fill(-1));
    const n = batch.numRows;
    for (let at = 0; at < n; at += bs) yield this.c.output.paddedBatch('right', batch, at, Math.min(bs, n - at), this.#noBuffered, nulls);
    this.c.stats.streamedUnmatched += n;
  }

  /** `rows[from..]`, NULL-padded. */
  *#unmatchedRows(src: RowSource, rows: Int32Array, from: number): Generator<RecordBatch> {
    const bs = this.c.batchSize;
    for (let t = from; t < rows.length; t++) {
      this.#bufIdx[this.#n] = -1;
      this.#strIdx[this.#n] = rows[t]!;
      if (++this.#n === bs) yield this.#flush(src);
    }
    this.c.stats.streamedUnmatched += rows.length - from;
  }

  #flushRuns(streamed: RecordBatch): RecordBatch {
    const runs = this.#runs;
    const rows = this.#runRows;
    this.#runs = 0;
    this.#runRows = 0;
    this.c.stats.runBatches++;
    return this.c.output.runPairBatch(this.c.buffered.sortedBatch(), this.#runStart, streamed, this.#runRow, this.#runLen, runs, rows);
  }

  #flush(src: RowSource): RecordBatch {
    const n = this.#n;
    this.#n = 0;
    return this.c.output.pairBatch(this.c.buffered.source, this.#bufIdx, src, this.#strIdx, 0, n);
  }

  /**
   * Called once per partition after the streamed side is exhausted; the last partition to finish
   * emits the unmatched buffered rows of a left / full join: sorted positions before the
   * watermark, then the NULL keys.
   */
  *finish(): Generator<RecordBatch> {
    if (!this.c.watermark.finishPartition() || !this.c.plan.bufferedOuter) return;
    const { buffered, batchSize } = this.c;
    const w = this.c.watermark.value;
    const none = new RowSource([], this.c.streamedSchema);
    if (!buffered.sorted && buffered.nonNull === buffered.rows) {
      // never sorted, no NULL key: nothing matched — every buffered batch, sliced, NULL-padded
      const nulls = (this.#nulls ??= new Int32Array(batchSize).fill(-1));
      this.c.stats.bufferedUnmatched += buffered.rows;
      for (const b of buffered.source.batches) {
        for (let at = 0; at < b.numRows; at += batchSize) yield this.c.output.paddedBatch('left', b, at, Math.min(batchSize, b.numRows - at), none, nulls);
      }
      return;
    }
    // the rows not matched, in row order, gathered one buffered batch at a time
    const matched = buffered.matchedRows(w);
    const bi = this.#bufIdx;
    const si = this.#strIdx.fill(-1);
    this.c.stats.bufferedUnmatched += w + buffered.rows - buffered.nonNull;
    let base = 0;
    for (const b of buffered.source.batches) {
      const src = new RowSource([b]);
      let n = 0;
      for (let r = 0; r < b.numRows; r++) {
        bi[n] = r;
        n += matched[base + r]! ^ 1;
        if (n === batchSize) {
          yield this.c.output.pairBatch(src, bi, none, si, 0, n);
          n = 0;
        }
      }
      if (n > 0) yield this.c.output.pairBatch(src, bi, none, si, 0, n);
      base += b.numRows;
    }
  }
}
