/**
 * The existence piecewise merge join (semi / anti / mark on the buffered side): one streamed
 * partition's work, which is only ever to lower the watermark.
 *
 * The answer is a property of the buffered side: which of its rows some streamed row matches.
 * Those are `[minMarked, nonNull)` of the sorted positions (watermark.ts), so a streamed batch
 * needs exactly one question answered — where does the match set of its *extreme* row begin (the
 * largest key for `<` / `<=`, the smallest for `>` / `>=`: its match set contains every other
 * row's)? — and that search stops at the current watermark: rows from there on are marked
 * already, by this partition or another, and a match among them would record nothing (DataFusion's
 * `existence_join.rs`). With `pwmj.prefilter` the batch is first reduced to that row and tested
 * against the two ends of the buffered order: a batch that matches nothing costs one pass over its
 * keys and no search, and one whose row matches the first key marks every row, with no search and
 * no sort of the buffered side (buffered-side.ts). Without it (the baseline) every non-NULL row is sorted and searched, each from the
 * previous one's match, lowering the watermark per row as a per-row marking would.
 *
 * Once the watermark reaches 0 every buffered row is marked and `process` returns false: the
 * streamed side is not read any further. An empty or all-NULL buffered side can mark nothing, so
 * the streamed side is never read at all (the join's entry checks `canMark`).
 *
 * The last partition to finish emits the answer, in the buffered side's row order (its batches,
 * sliced or gathered one at a time, never a random gather over the whole side): semi the rows at
 * sorted positions `[minMarked, nonNull)`, anti those before `minMarked` plus the NULL-key rows,
 * mark every row with `mark = minMarked <= position < nonNull` (non-NULL, like `EXISTS`).
 */
import type { RecordBatch } from 'apache-arrow';
import { RowSource } from '../../core/arrow/gather.ts';
import { argsortKeys } from '../../core/keys/argsort.ts';
import { normalizeKeys } from '../../core/keys/normalize.ts';
import type { OutputPlan } from '../common/output.ts';
import type { SortedBufferedSide } from './buffered-side.ts';
import { BatchMatcher } from './match.ts';
import type { ExistenceKind, PiecewisePlan } from './plan.ts';
import { nonNullMask, type BatchScratch, type PiecewiseStats } from './scratch.ts';
import type { MinMarkedWatermark } from './watermark.ts';

export interface ExistenceContext {
  readonly plan: PiecewisePlan;
  readonly buffered: SortedBufferedSide;
  readonly watermark: MinMarkedWatermark;
  /** The buffered side's columns (and the mark). */
  readonly output: OutputPlan;
  readonly batchSize: number;
  readonly stats: PiecewiseStats;
}

export class ExistencePartition {
  constructor(
    private readonly c: ExistenceContext,
    private readonly scratch: BatchScratch,
  ) {}

  /** Whether a streamed row could still mark something (false: stop reading the streamed side). */
  get canMark(): boolean {
    return this.c.watermark.value > 0;
  }

  /**
   * Whether `process(batch)` would sort the buffered side: the join asks first under a signal and
   * sorts it in steps (`SortedBufferedSide.sortPaced`). The prefilter's two end checks, as there.
   */
  needsSort(batch: RecordBatch): boolean {
    const { plan, buffered, watermark } = this.c;
    if (buffered.sorted || buffered.nonNull === 0 || batch.numRows === 0 || watermark.value === 0) return false;
    if (!plan.prefilter) return true;
    const key = normalizeKeys(batch, [plan.streamedKey], [plan.kind])[0]!;
    this.scratch.hold(batch, key);
    try {
      const target = buffered.target();
      const ends = new BatchMatcher(target, key, plan.op, this.scratch);
      const r = ends.extremeRow();
      if (r < 0) return false;
      ends.predicate.row = r;
      return ends.predicate.matches(target.extreme) && !ends.predicate.matches(target.first);
    } finally {
      this.scratch.release();
    }
  }

  /** Lowers the watermark by one streamed batch; returns `canMark`. */
  process(batch: RecordBatch): boolean {
    const { plan, buffered, stats, watermark } = this.c;
    const n = batch.numRows;
    if (n === 0 || watermark.value === 0) return this.canMark;
    stats.streamedRows += n;
    const key = normalizeKeys(batch, [plan.streamedKey], [plan.kind])[0]!;
    this.scratch.hold(batch, key);
    try {
      if (plan.prefilter) {
        // the batch's extreme row against the two ends of the buffered order, before any sort
        const target = buffered.target();
        const ends = new BatchMatcher(target, key, plan.op, this.scratch);
        const r = ends.extremeRow();
        if (r < 0) return this.canMark;
        ends.predicate.row = r;
        if (!ends.predicate.matches(target.extreme)) {
          stats.batchesSkipped++;
          return this.canMark;
        }
        if (ends.predicate.matches(target.first)) {
          stats.batchesAllMatched++;
          watermark.lower(0); // it matches the first key, so every one
          return this.canMark;
        }
        const matcher = buffered.sorted ? ends : new BatchMatcher(buffered.sortedTarget(), key, plan.op, this.scratch);
        matcher.predicate.row = r;
        const k = plan.search.firstMatch(matcher.predicate, 0, watermark.value);
        stats.searches++;
        watermark.lower(k);
        return this.canMark;
      }
      const p = new BatchMatcher(buffered.sortedTarget(), key, plan.op, this.scratch).predicate;
      const mask = this.scratch.mask(n);
      if (nonNullMask(key, mask) === 0) return this.canMark;
      const sorted = argsortKeys([key], [{ descending: plan.descending, nullsFirst: false }], this.scratch.rowsWhere(mask, n));
      stats.candidates += sorted.length;
      let k = 0;
      for (let t = 0; t < sorted.length; t++) {
        p.row = sorted[t]!;
        const w = watermark.value;
        if (k >= w) break; // every later row's match starts at or after k: nothing left to mark
        k = plan.search.firstMatch(p, k, w);
        stats.searches++;
        watermark.lower(k);
      }
      return this.canMark;
    } finally {
      this.scratch.release();
    }
  }

  /** Called once per partition after the streamed side; the last one emits the answer. */
  *finish(): Generator<RecordBatch> {
    if (!this.c.watermark.finishPartition()) return;
    yield* existenceAnswer(this.c.plan.existence!, this.c.buffered, this.c.watermark.value, this.c.output, this.c.batchSize);
  }
}

/** The semi / anti / mark rows of the buffered side for the final watermark `w`. */
export function* existenceAnswer(kind: ExistenceKind, buffered: SortedBufferedSide, w: number, output: OutputPlan, batchSize: number): Generator<RecordBatch> {
  if (!buffered.sorted && buffered.nonNull === buffered.rows) {
    // never sorted, no NULL key: every row matched (w = 0) or none did — whole batches, sliced
    if (w !== 0 && w !== buffered.nonNull) throw new RangeError(`watermark ${w} on a buffered side that was never sorted`);
    const all = w === 0;
    if (kind === 'semi' ? !all : kind === 'anti' ? all : false) return;
    const mark = kind === 'mark' ? new Uint8Array(batchSize).fill(all ? 1 : 0) : null;
    for (const b of buffered.source.batches) {
      for (let at = 0; at < b.numRows; at += batchSize) yield output.sliceBatch(b, at, Math.min(batchSize, b.numRows - at), mark);
    }
    return;
  }
  // sorted: flag the matched rows, then emit in row order, batch by batch — a mark join's columns
  // are slices and its mark the flags; semi / anti gather from one batch at a time in row order
  const matched = buffered.matchedRows(w);
  const idx = new Int32Array(Math.max(1, batchSize));
  let base = 0;
  for (const b of buffered.source.batches) {
    const rows = b.numRows;
    if (kind === 'mark') {
      for (let at = 0; at < rows; at += batchSize) yield output.sliceBatch(b, at, Math.min(batchSize, rows - at), matched.subarray(base + at));
    } else {
      const want = kind === 'semi' ? 1 : 0;
      const src = new RowSource([b]);
      let n = 0;
      for (let r = 0; r < rows; r++) {
        idx[n] = r;
        n += matched[base + r] === want ? 1 : 0;
        if (n === idx.length) {
          yield output.sideBatch(src, idx, 0, n, null);
          n = 0;
        }
      }
      if (n > 0) yield output.sideBatch(src, idx, 0, n, null);
    }
    base += rows;
  }
}
