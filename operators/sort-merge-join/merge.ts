/**
 * The merge of the sort-merge join: two cursors over inputs sorted on the join keys, never moving
 * backwards, joining one key group at a time.
 *
 * Each step compares the two cursors' current rows with a comparator built once per pair of
 * batches. On a mismatch the smaller side's whole key group is skipped (found by
 * `findKeyGroupEnd`: adjacent row, rest of the batch, then binary search) and its rows are
 * unmatched; a group whose key has a NULL is unmatched too under NULL != NULL (NULL = NULL needs
 * nothing special: the sort order puts NULLs together and the comparator calls them equal). On a
 * match, the buffered side's group is collected — across batch boundaries, while the next batch's
 * first row continues the last key — and the streamed side's group is joined against it one
 * streamed batch segment at a time, so the streamed group may span any number of batches too.
 *
 * Pairs (inner / left / right / full): every (streamed, buffered) pair of the two groups, through
 * the residual filter a block at a time (a pair whose filter is NULL does not match), into a
 * `PairSink` that cuts `batchSize` batches across groups; streamed rows without a passing pair
 * are emitted NULL-padded per segment (left/right/full), buffered ones when the group ends (full).
 * The buffered group lives in a `BufferedGroup`, which spills to a per-group file when the pool
 * refuses and is read back for every streamed segment.
 *
 * Existence (semi / anti / mark): one bit per row of the current streamed batch; the configured
 * `smj.existence` stream sets the bits of a segment from the buffered group (read chunk by chunk,
 * stopped early when the stream says the whole segment has matched), and the batch is emitted by
 * its bits when the cursor leaves it. When the stream needs no inner rows (no filter) the group is
 * only counted, never kept.
 *
 * NOT IN (null-aware anti, one key, both inputs NULLS FIRST): without a filter, an empty inner
 * input keeps every outer row, an inner NULL key (seen first) empties the result, and otherwise an
 * outer row survives iff its key is not NULL and unmatched. With a filter each outer row o has its
 * own inner set S(o) (the inner rows passing the filter with o): a non-NULL o is dropped iff a row
 * of S(o) has o's key or a NULL key — so the inner NULL-key rows are kept (in memory) and every
 * outer segment is also matched against them — and a NULL-key o is dropped iff S(o) is not empty,
 * so the outer NULL-key rows (in memory, seen first) are matched against every inner batch as the
 * inner cursor loads it, the inner input is read to its end, and they are emitted last.
 *
 * Early exits: an inner join, a semi join or a join that keeps nothing of the streamed side stops
 * reading the streamed input once the buffered one is exhausted, and vice versa.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { batchByteSize } from '../../core/arrow/size.ts';
import { Bitset } from '../../core/bitset.ts';
import type { CompiledFilter } from '../../core/expr/evaluate.ts';
import { makeSortComparator } from '../../core/keys/order.ts';
import type { KeyComparator } from '../../core/keys/types.ts';
import type { MemoryPool, Reservation } from '../../core/memory/pool.ts';
import type { SpillManager } from '../../core/memory/spill.ts';
import type { ExistenceProbe } from '../../core/smj-existence.ts';
import type { Side } from '../../core/types.ts';
import { OutputPlan } from '../common/output.ts';
import { evaluatePairs } from '../common/residual.ts';
import { BufferedGroup, type GroupChunk, type GroupSpillStats } from './buffered-group.ts';
import type { SortedCursor } from './cursor.ts';
import type { SortMergePlan } from './plan.ts';
import { numberGroupEnd } from '../../core/keys/ordered-numbers.ts';
import type { BoundJoin } from '../../core/plan.ts';
import { PairSink, RowSink } from './sinks.ts';

/** Pairs evaluated against the filter per call. */
const FILTER_BLOCK = 4096;
/** Most pairs a key group inside one batch pair may produce on the synchronous path. */
const FAST_PAIRS = 4096;

export interface MergeStats extends GroupSpillStats {
  keyGroups: number;
  pairsEvaluated: number;
}

export interface MergeContext {
  readonly pool: MemoryPool;
  readonly spill: SpillManager;
  readonly batchSize: number;
}

/** An in-memory set of rows kept for NOT IN (NULL-key rows), each slice with its own match bits. */
interface HeldRows {
  readonly chunks: { batch: RecordBatch; bits: Bitset }[];
  rows: number;
}

export class MergeRun {
  readonly stats: MergeStats = { keyGroups: 0, pairsEvaluated: 0, groupsSpilled: 0, rowsSpilled: 0, groupSpillAppends: 0 };
  readonly #sSide: Side;
  readonly #filter: CompiledFilter | null;
  readonly #pairs: PairSink | null;
  readonly #rows: RowSink | null;
  readonly #probe: ExistenceProbe | null;
  readonly #needInnerRows: boolean;
  readonly #group: BufferedGroup;
  readonly #held: Reservation;
  #bits = new Bitset(0);
  #cmp: KeyComparator | null = null;
  #cmpS = -1;
  #cmpB = -1;
  // scratch for the pair path: a block of candidate pairs and per-segment match flags
  readonly #blockS = new Int32Array(FILTER_BLOCK);
  readonly #blockB = new Int32Array(FILTER_BLOCK);
  readonly #pass = new Uint8Array(FILTER_BLOCK);
  #sMatched: Uint8Array = new Uint8Array(0);
  #bMatched: Uint8Array = new Uint8Array(0);
  // NOT IN state
  #innerEmpty = false;
  readonly #nullInner: HeldRows = { chunks: [], rows: 0 };
  readonly #nullOuter: HeldRows = { chunks: [], rows: 0 };

  constructor(
    private readonly plan: SortMergePlan,
    join: BoundJoin,
    private readonly S: SortedCursor,
    private readonly B: SortedCursor,
    private readonly ctx: MergeContext,
  ) {
    this.#sSide = plan.streamed.side;
    this.#filter = join.filter ?? null;
    const schemaOf = (side: Side): Schema => (side === 'left' ? join.leftSchema : join.rightSchema);
    if (plan.pairs) {
      this.#pairs = new PairSink(OutputPlan.pairs(join.output, join.leftSchema, join.rightSchema, ctx.pool), join.leftSchema, join.rightSchema, ctx.batchSize);
      this.#rows = null;
      this.#probe = null;
      this.#needInnerRows = true;
    } else {
      const sSchema = schemaOf(this.#sSide);
      this.#rows = new RowSink(OutputPlan.oneSide(join.output, sSchema, this.#sSide, ctx.pool), sSchema, ctx.batchSize, plan.rowOutput === 'mark');
      this.#pairs = null;
      this.#probe = plan.existence!.open({ filter: this.#filter, outerSide: this.#sSide, batchSize: ctx.batchSize });
      this.#needInnerRows = plan.existence!.buffersInnerGroup(this.#filter !== null);
    }
    this.#group = new BufferedGroup(schemaOf(plan.buffered.side), ctx.pool.reservation('sort-merge buffered key group'), ctx.spill, this.stats, ctx.pool.limit / 2);
    this.#held = ctx.pool.reservation('sort-merge join state');
  }

  /** The existence stream's counters (semi/anti/mark), for the operator's metrics. */
  get existenceStats(): ExistenceProbe['stats'] | null {
    return this.#probe?.stats ?? null;
  }

  /** Receives every buffered-side batch as the cursor loads it (NOT IN's NULL-key outer rows). */
  onBufferedBatch = (batch: RecordBatch): void => {
    if (this.#nullOuter.rows === 0) return;
    for (const c of this.#nullOuter.chunks) {
      const n = c.batch.numRows;
      if (c.bits.popcount(0, n) < n) this.#probe!.match(c.batch, 0, n, batch, 0, batch.numRows, c.bits);
    }
  };

  async *run(): AsyncGenerator<RecordBatch> {
    const { S, B, plan } = this;
    await this.#advanceS();
    if (plan.notIn && this.#filter !== null) await this.#holdOuterNulls();
    await B.next();
    if (plan.notIn) {
      this.#innerEmpty = B.done;
      if (this.#filter === null && !B.done && B.hasNullKey(0)) return; // x NOT IN (…, NULL) is never TRUE
      if (this.#filter !== null) await this.#holdInnerNulls();
    }
    const ready = (this.#pairs ?? this.#rows)!.ready;
    while (!S.done) {
      if (ready.length > 0) yield* this.#drain();
      if (S.pos >= S.rows) {
        await this.#advanceS();
        continue;
      }
      if (!plan.notIn && S.nums !== null && !B.done && B.pos < B.rows && B.nums !== null) {
        this.#mergeNumbers();
        if (ready.length > 0 || S.pos >= S.rows) continue;
      }
      if (plan.nullsNeverMatch && S.hasNullKey(S.pos)) {
        const end = S.groupEnd();
        if (plan.notIn) {
          if (!this.#innerEmpty) this.#bits.setRange(S.pos, end); // a NULL key is never NOT IN a non-empty set
        } else this.#unmatchedStreamed(S.pos, end);
        S.pos = end;
        continue;
      }
      if (B.done) {
        if (this.#streamedDone()) break;
        this.#unmatchedStreamed(S.pos, S.rows);
        S.pos = S.rows;
        continue;
      }
      if (B.pos >= B.rows) {
        await B.next();
        continue;
      }
      if (plan.nullsNeverMatch && B.hasNullKey(B.pos)) {
        const end = B.groupEnd();
        this.#unmatchedBuffered(B.pos, end);
        B.pos = end;
        continue;
      }
      const c = this.#compare();
      if (c < 0) {
        const end = S.groupEnd();
        this.#unmatchedStreamed(S.pos, end);
        S.pos = end;
      } else if (c > 0) {
        const end = B.groupEnd();
        this.#unmatchedBuffered(B.pos, end);
        B.pos = end;
      } else {
        this.stats.keyGroups++;
        const sEnd = S.groupEnd();
        const bEnd = B.groupEnd();
        if (sEnd < S.rows && bEnd < B.rows && (!plan.pairs || (sEnd - S.pos) * (bEnd - B.pos) <= FAST_PAIRS)) {
          this.#joinInBatches(S.pos, sEnd, B.batch!, B.pos, bEnd);
          S.pos = sEnd;
          B.pos = bEnd;
        } else yield* this.#joinGroups();
      }
    }
    if (this.#rows !== null && !S.done) this.#emitStreamedBatch(); // stopped early: the current batch is decided
    await S.close();
    if (plan.keepBuffered) {
      while (!B.done) {
        if (B.pos < B.rows) this.#unmatchedBuffered(B.pos, B.rows);
        yield* this.#drain();
        await B.next();
      }
    } else if (this.#nullOuter.rows > 0) {
      while (!B.done) await B.next(); // every inner row may still pass the filter with a NULL-key outer row
    }
    await B.close();
    this.#emitHeldOuter();
    this.#pairs?.flush();
    this.#rows?.flush();
    yield* this.#drain();
  }

  /** Releases the group (and its spill file) and the held rows; idempotent. */
  async close(): Promise<void> {
    await this.#group.release();
    this.#held.free();
    await Promise.allSettled([this.S.close(), this.B.close()]);
  }

  *#drain(): Generator<RecordBatch> {
    const ready = (this.#pairs ?? this.#rows)!.ready;
    while (ready.length > 0) yield ready.shift()!;
  }

  /** With the buffered side exhausted, nothing more of the streamed side can reach the output. */
  #streamedDone(): boolean {
    return this.plan.pairs ? !this.plan.keepStreamed : this.plan.rowOutput === 'semi' && !this.plan.notIn;
  }

  #compare(): number {
    const { S, B } = this;
    const sn = S.nums;
    const bn = B.nums;
    if (sn !== null && bn !== null) {
      const a = sn[S.pos]!;
      const b = bn[B.pos]!;
      return a < b ? -1 : a > b ? 1 : 0;
    }
    if (this.#cmpS !== S.version || this.#cmpB !== B.version) {
      this.#cmp = makeSortComparator(S.keys, B.keys, this.plan.orders);
      this.#cmpS = S.version;
      this.#cmpB = B.version;
    }
    return this.#cmp!.compare(S.pos, B.pos);
  }

  /** Emits the finished streamed batch (one-sided) and loads the next, clearing its bits. */
  async #advanceS(): Promise<void> {
    const { S } = this;
    if (this.#rows !== null && !S.done) this.#emitStreamedBatch();
    await S.next();
    if (!S.done && this.#rows !== null) {
      if (this.#bits.length < S.rows) {
        this.#held.resize(this.#held.size - this.#bits.words.byteLength + 4 * Math.ceil(S.rows / 32));
        this.#bits = new Bitset(S.rows);
      } else this.#bits.clearAll();
    }
  }

  #emitStreamedBatch(): void {
    const sink = this.#rows!;
    const batch = this.S.batch!;
    const bits = this.#bits;
    const n = this.S.rows;
    switch (this.plan.rowOutput) {
      case 'mark':
        for (let r = 0; r < n; r++) sink.add(batch, r, bits.get(r) ? 1 : 0);
        break;
      case 'semi':
        for (let r = bits.nextSetBit(0); r !== -1 && r < n; r = bits.nextSetBit(r + 1)) sink.add(batch, r, 1);
        break;
      default:
        for (let r = bits.nextClearBit(0); r !== -1 && r < n; r = bits.nextClearBit(r + 1)) sink.add(batch, r, 0);
    }
  }

  #pair(s: RecordBatch | null, sRow: number, b: RecordBatch | null, bRow: number): void {
    if (this.#sSide === 'left') this.#pairs!.add(s, sRow, b, bRow);
    else this.#pairs!.add(b, bRow, s, sRow);
  }

  /** Streamed rows [from, to) of the current batch have no partner with an equal key. */
  #unmatchedStreamed(from: number, to: number): void {
    if (this.#pairs !== null) {
      if (this.plan.keepStreamed) for (let r = from; r < to; r++) this.#pair(this.S.batch, r, null, -1);
      return;
    }
    if (this.#nullInner.rows > 0) this.#matchHeldInner(from, to);
  }

  /** Buffered rows [from, to) of the current batch have no partner. */
  #unmatchedBuffered(from: number, to: number): void {
    if (this.#pairs !== null && this.plan.keepBuffered) for (let r = from; r < to; r++) this.#pair(null, -1, this.B.batch, r);
  }

  /** NOT IN with a filter: streamed rows [from, to) against the inner NULL-key rows. */
  #matchHeldInner(from: number, to: number): void {
    const batch = this.S.batch!;
    for (const c of this.#nullInner.chunks) if (this.#probe!.match(batch, from, to, c.batch, 0, c.batch.numRows, this.#bits)) return;
  }

  /**
   * The merge over ordered numbers (one key column, core/keys/ordered-numbers.ts) inside the current
   * pair of batches, as the plain two-pointer loop: runs of unmatched rows are skipped (and emitted
   * where kept) a run at a time, matching key groups inside both batches are joined in place. It
   * stops where the general loop must take over — a group reaching either batch's end (it may go
   * on in the next batch), a cross product too large for the synchronous path — or when output is
   * ready. An infinite number is a NULL key (never a value: see ordered-numbers.ts).
   */
  #mergeNumbers(): void {
    const { S, B, plan } = this;
    const sn = S.nums!;
    const bn = B.nums!;
    const sRows = S.rows;
    const bRows = B.rows;
    const ready = (this.#pairs ?? this.#rows)!.ready;
    const keepS = this.#pairs !== null && plan.keepStreamed;
    const keepB = this.#pairs !== null && plan.keepBuffered;
    const maxPairs = plan.pairs ? FAST_PAIRS : Infinity;
    let i = S.pos;
    let j = B.pos;
    while (i < sRows && j < bRows) {
      const a = sn[i]!;
      const b = bn[j]!;
      if (a < b) {
        let e = i + 1;
        while (e < sRows && sn[e]! < b) e++;
        if (keepS) this.#unmatchedStreamed(i, e);
        i = e;
        continue;
      }
      if (a > b) {
        let e = j + 1;
        while (e < bRows && bn[e]! < a) e++;
        if (keepB) this.#unmatchedBuffered(j, e);
        j = e;
        continue;
      }
      const sEnd = numberGroupEnd(sn, i, sRows);
      const bEnd = numberGroupEnd(bn, j, bRows);
      if (sEnd === sRows || bEnd === bRows) break;
      if (plan.nullsNeverMatch && !Number.isFinite(a)) {
        if (keepS) this.#unmatchedStreamed(i, sEnd);
        if (keepB) this.#unmatchedBuffered(j, bEnd);
      } else {
        if ((sEnd - i) * (bEnd - j) > maxPairs) break;
        this.stats.keyGroups++;
        S.pos = i; // #joinInBatches reads the streamed batch only
        this.#joinInBatches(i, sEnd, B.batch!, j, bEnd);
      }
      i = sEnd;
      j = bEnd;
      if (ready.length > 0) break;
    }
    S.pos = i;
    B.pos = j;
  }

  /** A matching key group that lies inside the current batch of each side (the common case). */
  #joinInBatches(sFrom: number, sEnd: number, bBatch: RecordBatch, bFrom: number, bEnd: number): void {
    const sBatch = this.S.batch!;
    if (this.#pairs === null) {
      if (this.#needInnerRows) this.#probe!.match(sBatch, sFrom, sEnd, bBatch, bFrom, bEnd, this.#bits);
      else this.#bits.setRange(sFrom, sEnd);
      if (this.#nullInner.rows > 0) this.#matchHeldInner(sFrom, sEnd);
      return;
    }
    // match flags matter only where a filter can leave rows of a kept side unmatched
    const filtered = this.#filter !== null;
    const sMatched = filtered && this.plan.keepStreamed ? this.#segmentFlags(sEnd - sFrom) : null;
    const bMatched = filtered && this.plan.keepBuffered ? this.#bufferedFlags(bEnd - bFrom) : null;
    this.#pairsOf(sBatch, sFrom, sEnd, bBatch, bFrom, bEnd, sMatched, bMatched, 0);
    if (sMatched !== null) this.#finishSegment(sBatch, sFrom, sEnd, sMatched);
    if (bMatched !== null) for (let r = bFrom; r < bEnd; r++) if (bMatched[r - bFrom] === 0) this.#pair(null, -1, bBatch, r);
  }

  /** A matching key group that spans batches on either side (or is large): buffer, then stream. */
  async *#joinGroups(): AsyncGenerator<RecordBatch> {
    const { S, B } = this;
    const group = this.#group;
    let groupRows = 0;
    for (;;) {
      const end = B.groupEnd();
      if (this.#needInnerRows) await group.add(B.batch!, B.pos, end);
      groupRows += end - B.pos;
      B.pos = end;
      if (end < B.rows) break;
      await B.next();
      if (B.done || !B.continuesPrevious) break;
    }
    const bMatched = this.#pairs !== null && this.plan.keepBuffered && this.#filter !== null ? group.matched() : null;
    for (;;) {
      const sEnd = S.groupEnd();
      yield* this.#segment(S.pos, sEnd, groupRows, bMatched);
      S.pos = sEnd;
      if (sEnd < S.rows) break;
      await this.#advanceS();
      if (S.done || !S.continuesPrevious) break;
    }
    if (bMatched !== null) {
      for await (const c of group.chunks()) {
        for (let r = 0; r < c.batch.numRows; r++) if (bMatched[c.offset + r] === 0) this.#pair(null, -1, c.batch, r);
        yield* this.#drain();
      }
    }
    await group.release();
  }

  /** Streamed rows [sFrom, sEnd) of the current batch against the whole buffered group. */
  async *#segment(sFrom: number, sEnd: number, groupRows: number, bMatched: Uint8Array | null): AsyncGenerator<RecordBatch> {
    const sBatch = this.S.batch!;
    if (this.#pairs === null) {
      if (!this.#needInnerRows) {
        if (groupRows > 0) this.#bits.setRange(sFrom, sEnd);
      } else {
        for await (const c of this.#group.chunks()) if (this.#probe!.match(sBatch, sFrom, sEnd, c.batch, 0, c.batch.numRows, this.#bits)) break;
      }
      if (this.#nullInner.rows > 0) this.#matchHeldInner(sFrom, sEnd);
      return;
    }
    const sMatched = this.#filter !== null && this.plan.keepStreamed ? this.#segmentFlags(sEnd - sFrom) : null;
    for await (const c of this.#group.chunks()) {
      yield* this.#chunkPairs(sBatch, sFrom, sEnd, c, sMatched, bMatched);
    }
    if (sMatched !== null) this.#finishSegment(sBatch, sFrom, sEnd, sMatched);
  }

  /** Pairs of a streamed segment and one buffered chunk, draining the sink every streamed row. */
  *#chunkPairs(sBatch: RecordBatch, sFrom: number, sEnd: number, c: GroupChunk, sMatched: Uint8Array | null, bMatched: Uint8Array | null): Generator<RecordBatch> {
    const n = c.batch.numRows;
    // cut the segment so that each piece's pairs fit the sink a few times over before a drain
    const step = Math.max(1, Math.floor((4 * this.ctx.batchSize) / Math.max(1, n)));
    for (let s = sFrom; s < sEnd; s += step) {
      const e = Math.min(sEnd, s + step);
      this.#pairsOf(sBatch, s, e, c.batch, 0, n, sMatched === null ? null : sMatched.subarray(s - sFrom), bMatched, c.offset);
      yield* this.#drain();
    }
  }

  /**
   * All pairs of streamed rows [sFrom, sEnd) and buffered rows [bFrom, bEnd) of `bBatch` that pass
   * the filter; marks sMatched[s - sFrom] and bMatched[bBase + b - bFrom] (each when given) for them.
   */
  #pairsOf(sBatch: RecordBatch, sFrom: number, sEnd: number, bBatch: RecordBatch, bFrom: number, bEnd: number, sMatched: Uint8Array | null, bMatched: Uint8Array | null, bBase: number): void {
    const filter = this.#filter;
    if (filter === null) {
      if (this.#sSide === 'left') this.#pairs!.addCross(sBatch, sFrom, sEnd, bBatch, bFrom, bEnd);
      else this.#pairs!.addCross(bBatch, bFrom, bEnd, sBatch, sFrom, sEnd);
      return;
    }
    const bs = this.#blockS;
    const bb = this.#blockB;
    let n = 0;
    const settle = () => {
      this.stats.pairsEvaluated += n;
      const pass = evaluatePairs(filter, this.#sSide, sBatch, bs, bBatch, bb, n, this.#pass);
      for (let k = 0; k < n; k++) {
        if (pass[k] !== 1) continue;
        const s = bs[k]!;
        const b = bb[k]!;
        this.#pair(sBatch, s, bBatch, b);
        if (sMatched !== null) sMatched[s - sFrom] = 1;
        if (bMatched !== null) bMatched[bBase + b - bFrom] = 1;
      }
      n = 0;
    };
    for (let s = sFrom; s < sEnd; s++) {
      for (let b = bFrom; b < bEnd; b++) {
        bs[n] = s;
        bb[n] = b;
        if (++n === FILTER_BLOCK) settle();
      }
    }
    if (n > 0) settle();
  }

  /** Left/right/full: the segment's streamed rows that found no passing pair, NULL-padded. */
  #finishSegment(sBatch: RecordBatch, sFrom: number, sEnd: number, sMatched: Uint8Array): void {
    if (!this.plan.keepStreamed) return;
    for (let s = sFrom; s < sEnd; s++) if (sMatched[s - sFrom] === 0) this.#pair(sBatch, s, null, -1);
  }

  /** Zeroed per-row flags for a streamed segment (scratch, grown on demand and reserved). */
  #segmentFlags(n: number): Uint8Array {
    return (this.#sMatched = this.#flags(this.#sMatched, n)).subarray(0, n);
  }

  /** The same for a buffered group inside one batch. */
  #bufferedFlags(n: number): Uint8Array {
    return (this.#bMatched = this.#flags(this.#bMatched, n)).subarray(0, n);
  }

  /** `buf` zeroed over [0, n), or a larger zeroed array reserved in its place. */
  #flags(buf: Uint8Array, n: number): Uint8Array {
    if (buf.length >= n) return buf.fill(0, 0, n);
    const size = Math.max(n, 2 * buf.length);
    this.#held.grow(size - buf.length);
    return new Uint8Array(size);
  }

  /** NOT IN with a filter: the outer NULL-key rows (first in the order) are held, dropped from their batches. */
  async #holdOuterNulls(): Promise<void> {
    const { S } = this;
    while (!S.done && S.hasNullKey(S.pos)) {
      const end = S.groupEnd();
      this.#hold(this.#nullOuter, S.batch!, S.pos, end);
      this.#bits.setRange(S.pos, end);
      S.pos = end;
      if (end < S.rows) break;
      await this.#advanceS();
    }
  }

  /** NOT IN with a filter: the inner NULL-key rows (first in the order), held for every outer row. */
  async #holdInnerNulls(): Promise<void> {
    const { B } = this;
    while (!B.done && B.hasNullKey(B.pos)) {
      const end = B.groupEnd();
      this.#hold(this.#nullInner, B.batch!, B.pos, end);
      B.pos = end;
      if (end < B.rows) break;
      await B.next();
    }
  }

  #hold(held: HeldRows, batch: RecordBatch, from: number, to: number): void {
    const slice = batch.slice(from, to);
    const n = to - from;
    this.#held.grow(Math.ceil((batchByteSize(batch) * n) / batch.numRows) + 4 * Math.ceil(n / 32));
    held.chunks.push({ batch: slice, bits: new Bitset(n) });
    held.rows += n;
  }

  /** NOT IN with a filter: the held outer NULL-key rows with no inner row passing the filter. */
  #emitHeldOuter(): void {
    for (const c of this.#nullOuter.chunks) {
      const n = c.batch.numRows;
      for (let r = c.bits.nextClearBit(0); r !== -1 && r < n; r = c.bits.nextClearBit(r + 1)) this.#rows!.add(c.batch, r, 0);
    }
  }
}

