/**
 * The k-way merge of sorted runs: a loser tree over one cursor per run, each run read back a batch
 * at a time, the output gathered into `outputRows`-row batches.
 *
 * Why a loser tree: after the winner advances, the new winner is found by replaying only the
 * winner's leaf-to-root path — one comparison per level, against the loser stored there — so a
 * row costs log2(k) comparisons and no heap sift-down with two comparisons per level (DataFusion's
 * SortPreservingMergeStream, sorts/merge.rs, uses the same loser tree over its stream cursors).
 *
 * Comparisons are on normalised keys: each run batch's key columns are normalised once when it is
 * loaded (core/keys/normalize.ts), and the comparator of a pair of cursors is built once per pair
 * of batches (`makeSortComparator`, cached in a k x k table and dropped when either cursor loads
 * its next batch) — no closure per row, no `Array.prototype.sort`. Ties are broken by run index,
 * and runs are in input order, so the merge is stable: equal keys come out in input order.
 *
 * Output: the winners are recorded as (batch slot, row) pairs and gathered per column in one pass
 * (`gatherColumnsAt`). Each run has one batch loaded (its current one); a batch a cursor has
 * exhausted stays in memory only while the output batch in progress still gathers from it (as
 * DataFusion's BatchBuilder keeps batches until no pending row references them). Those kept
 * batches share a budget of one largest batch per run: should keeping one more exceed it (runs
 * whose batches are smaller than the output's exhaust several within one output batch), the rows
 * pending so far are gathered as a piece first, which lets every kept batch go; the pieces are
 * concatenated when the output batch is complete (and early, should many pile up).
 *
 * Memory: the merge reserves its whole plan when it opens (`sort merge`: each run's
 * `runMergeCost` — two of its largest batches and one batch's keys — and two output batches for
 * pieces and their concatenation), as DataFusion's multi-level merge reserves per spill file from
 * its largest batch, so a consumer that reserves memory of its own (a Parquet writer's row
 * group) cannot take what the next load needs; loaded batches, their keys, kept batches and
 * pieces are accounted inside it, and it grows only should they ever exceed the plan. The output
 * batch is guarded while it is gathered (variable-width columns) and belongs to the consumer once
 * yielded. The file read stream's buffer (64 KiB per open run, Node's default) is outside the
 * accounting, like a scan's decode buffers.
 *
 * Degenerate cases: no runs yields nothing; one run is re-batched to `outputRows`; empty batches
 * of a run are skipped. Cancelling (the signal, checked at every batch loaded and every output
 * batch) or stopping early closes every run's file; deleting the files is the caller's.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { concatBatches, gatherColumnsAt, makeRecordBatch, RowSource } from '../../core/arrow/gather.ts';
import { heldBatchBytes } from '../../core/arrow/size.ts';
import { normalizeKeyColumn } from '../../core/keys/normalize.ts';
import { makeSortComparator } from '../../core/keys/order.ts';
import { keyColumnBytes, type KeyColumn, type KeyComparator } from '../../core/keys/types.ts';
import type { MemoryPool, Reservation } from '../../core/memory/pool.ts';
import type { SpillManager } from '../../core/memory/spill.ts';
import { Pacer } from '../../core/next-turn.ts';
import { keyBytesEstimate, type BoundSort } from './keys.ts';
import { batchObjectBytes, isMemoryRun, MemoryRunReader, RunReader, type AnyRun, type RunShape, type RunSource } from './runs.ts';

/** The most runs merged at once, whatever the memory (the comparator table is k x k). */
export const MAX_FAN_IN = 128;

/** Bytes merging `run` may reserve: two of its largest batches (plus IPC padding) and one batch's keys. */
export function runMergeCost(run: RunShape, schema: Schema): number {
  return 2 * (run.maxBatchBytes + 64 * schema.fields.length) + run.maxKeyBytes;
}

/**
 * An output batch of `rows` rows, three times: the one the consumer holds, the next one's pieces
 * (at most about one batch before they are concatenated) and their concatenation.
 */
export function outputCost(rows: number, rowBytes: number, schema: Schema): number {
  return 3 * (batchObjectBytes(schema) + rows * rowBytes);
}

/** What a merge of `runs` into `outputRows`-row batches reserves when it opens (its whole plan, see the module doc). */
export function mergePlanBytes(runs: readonly RunShape[], outputRows: number, schema: Schema): number {
  const rows = Math.min(outputRows, runs.reduce((sum, r) => sum + r.rows, 0));
  const output = outputCost(rows, Math.max(...runs.map((r) => r.maxRowBytes)), schema) / 3;
  return runs.reduce((sum, run) => sum + runMergeCost(run, schema), 0) + 2 * output;
}

/** Pieces of one output batch concatenated into one once this many have piled up. */
const MAX_PIECES = 16;

export interface MergeOptions {
  readonly spill: SpillManager;
  /** The output schema (the sort's input schema). */
  readonly schema: Schema;
  readonly bound: BoundSort;
  readonly pool: MemoryPool;
  /** Rows per output batch (the last may have fewer). */
  readonly outputRows: number;
  readonly signal?: AbortSignal;
}

/**
 * The rows of `runs` (each sorted, in input order; on disk or in memory) as one sorted, stable
 * stream of batches.
 */
export async function* mergeRuns(runs: readonly AnyRun[], o: MergeOptions): AsyncGenerator<RecordBatch> {
  if (runs.length === 0) return;
  const merge = new RunMerge(runs, o);
  // runs held in memory merge on microtasks alone: a turn now and then for a timer's abort
  const pacer = new Pacer(o.signal);
  try {
    await merge.open();
    for (;;) {
      if (pacer.due()) await pacer.turn();
      const batch = await merge.next();
      if (batch === null) return;
      yield batch;
    }
  } finally {
    await merge.close();
  }
}

class RunMerge {
  readonly k: number;
  readonly readers: RunSource[] = [];
  readonly batches: (RecordBatch | null)[];
  readonly keys: (KeyColumn[] | null)[];
  readonly pos: Int32Array;
  readonly len: Int32Array;
  /** 1 once a run has no rows left (it then loses to every live cursor). */
  readonly done: Uint8Array;
  /** Reserved bytes of each cursor's current batch and its keys. */
  readonly heldBytes: Float64Array;
  readonly keyBytes: Float64Array;
  /** Bytes of exhausted batches the pending rows still reference, and what they may reach. */
  keptBytes = 0;
  readonly keptBudget: number;
  /** Slot of each cursor's current batch in `window`, -1 while no pending row references it. */
  readonly slot: Int32Array;
  /** Comparator of cursors (a, b), a < b, at index a * k + b; null until needed or after a load. */
  readonly cmps: (KeyComparator | null)[];
  /** tree[0]: the winner; tree[1..k-1]: the loser at each internal node (leaf of run r: node k + r). */
  readonly tree: Int32Array;
  /** The batches the pending output rows come from. */
  window: RecordBatch[] = [];
  readonly outSlot: Int32Array;
  readonly outRow: Int32Array;
  pending = 0;
  pieces: RecordBatch[] = [];
  piecesRows = 0;
  /**
   * Everything the merge holds, reserved up front at what the plan allows (`planned`: each run's
   * `runMergeCost`, two output batches for pieces and their concatenation) so that the merge's
   * consumer cannot take it in between loads; it grows only should the merge ever hold more.
   */
  readonly reservation: Reservation;
  readonly planned: number;
  /** Bytes the merge holds now: loaded batches and their keys, kept batches, pieces. */
  used = 0;
  /** Bytes of the pieces of the output batch in progress. */
  piecesBytes = 0;
  /** What one output batch may cost: past it, pieces are concatenated (their JS objects add up). */
  readonly outputBytes: number;

  constructor(
    readonly runs: readonly AnyRun[],
    readonly o: MergeOptions,
  ) {
    const k = runs.length;
    this.k = k;
    this.batches = new Array<RecordBatch | null>(k).fill(null);
    this.keys = new Array<KeyColumn[] | null>(k).fill(null);
    this.pos = new Int32Array(k);
    this.len = new Int32Array(k);
    this.done = new Uint8Array(k);
    this.heldBytes = new Float64Array(k);
    this.keyBytes = new Float64Array(k);
    this.keptBudget = runs.reduce((sum, run) => sum + run.maxBatchBytes + 64 * o.schema.fields.length, 0);
    const rows = Math.min(o.outputRows, runs.reduce((sum, r) => sum + r.rows, 0));
    this.outSlot = new Int32Array(rows);
    this.outRow = new Int32Array(rows);
    this.outputBytes = outputCost(rows, Math.max(...runs.map((r) => r.maxRowBytes)), o.schema) / 3;
    this.slot = new Int32Array(k).fill(-1);
    this.cmps = new Array<KeyComparator | null>(k * k).fill(null);
    this.tree = new Int32Array(k);
    this.reservation = o.pool.reservation('sort merge');
    this.planned = mergePlanBytes(runs, o.outputRows, o.schema);
  }

  async open(): Promise<void> {
    this.reservation.grow(this.planned);
    for (let r = 0; r < this.k; r++) {
      const run = this.runs[r]!;
      this.readers.push(isMemoryRun(run) ? new MemoryRunReader(run) : new RunReader(this.o.spill, run));
      await this.load(r);
    }
    this.build();
  }

  async close(): Promise<void> {
    const readers = this.readers.splice(0);
    await Promise.allSettled(readers.map((r) => r.close()));
    this.window = [];
    this.pieces = [];
    this.batches.fill(null);
    this.keys.fill(null);
    this.reservation.free();
    this.used = 0;
  }

  /** `delta` more (or fewer) bytes held; the reservation follows above the plan only. */
  account(delta: number): void {
    this.used += delta;
    const want = Math.max(this.planned, this.used);
    if (want !== this.reservation.size) this.reservation.resize(want);
  }

  /** The next output batch, or null when every run is exhausted. */
  async next(): Promise<RecordBatch | null> {
    const target = this.o.outputRows;
    const { tree, done, pos, len, slot, outSlot, outRow } = this;
    while (this.piecesRows + this.pending < target) {
      const w = tree[0]!;
      if (done[w] === 1) break;
      let s = slot[w]!;
      if (s < 0) {
        s = this.window.push(this.batches[w]!) - 1;
        slot[w] = s;
      }
      outSlot[this.pending] = s;
      outRow[this.pending] = pos[w]!;
      this.pending++;
      if (++pos[w]! === len[w]!) await this.load(w);
      this.replay(w);
    }
    if (this.piecesRows + this.pending === 0) return null;
    this.o.signal?.throwIfAborted();
    return this.emit();
  }

  // --- the loser tree ---------------------------------------------------------------------------

  /** Whether cursor a's current row comes before cursor b's (ties: the lower run index first). */
  before(a: number, b: number): boolean {
    const done = this.done;
    if (done[a] === 1) return done[b] === 1 && a < b;
    if (done[b] === 1) return true;
    const c = a < b ? this.pair(a, b).compare(this.pos[a]!, this.pos[b]!) : -this.pair(b, a).compare(this.pos[b]!, this.pos[a]!);
    return c < 0 || (c === 0 && a < b);
  }

  pair(a: number, b: number): KeyComparator {
    const i = a * this.k + b;
    return (this.cmps[i] ??= makeSortComparator(this.keys[a]!, this.keys[b]!, this.o.bound.orders));
  }

  /** Every internal node's loser and the overall winner, bottom up. */
  build(): void {
    const k = this.k;
    if (k === 1) {
      this.tree[0] = 0;
      return;
    }
    const win = new Int32Array(2 * k);
    for (let r = 0; r < k; r++) win[k + r] = r;
    for (let p = k - 1; p >= 1; p--) {
      const a = win[2 * p]!;
      const b = win[2 * p + 1]!;
      if (this.before(a, b)) {
        win[p] = a;
        this.tree[p] = b;
      } else {
        win[p] = b;
        this.tree[p] = a;
      }
    }
    this.tree[0] = win[1]!;
  }

  /** After cursor w moved: replay its path to the root. */
  replay(w: number): void {
    const tree = this.tree;
    let winner = w;
    for (let node = (this.k + w) >> 1; node >= 1; node >>= 1) {
      const l = tree[node]!;
      if (this.before(l, winner)) {
        tree[node] = winner;
        winner = l;
      }
    }
    tree[0] = winner;
  }

  // --- cursors ----------------------------------------------------------------------------------

  /** Cursor r's next batch (or the end of its run), reserved before its keys are normalised. */
  async load(r: number): Promise<void> {
    this.leave(r);
    const b = await this.readers[r]!.next();
    this.o.signal?.throwIfAborted();
    if (b === null) {
      this.done[r] = 1;
      this.pos[r] = 0;
      this.len[r] = 0;
      return;
    }
    const { bound } = this.o;
    const held = heldBatchBytes(b);
    let keyBytes = keyBytesEstimate(b, bound);
    this.account(held + keyBytes);
    this.heldBytes[r] = held;
    this.keyBytes[r] = keyBytes;
    const keys = bound.indices.map((idx, k) => normalizeKeyColumn(b.getChildAt(idx)!, bound.kinds[k]!, bound.columns[k]));
    const actual = keys.reduce((s, c) => s + keyColumnBytes(c), 0);
    if (actual > keyBytes) {
      this.account(actual - keyBytes);
      this.keyBytes[r] = keyBytes = actual;
    }
    this.batches[r] = b;
    this.keys[r] = keys;
    this.pos[r] = 0;
    this.len[r] = b.numRows;
    const k = this.k;
    for (let x = 0; x < k; x++) this.cmps[x < r ? x * k + r : r * k + x] = null;
  }

  /** Cursor r lets its current batch go: kept while pending output rows reference it. */
  leave(r: number): void {
    if (this.batches[r] === null) return;
    if (this.slot[r]! >= 0 && this.keptBytes + this.heldBytes[r]! > this.keptBudget) this.cutPiece();
    this.account(-this.keyBytes[r]!);
    if (this.slot[r]! >= 0) this.keptBytes += this.heldBytes[r]!;
    else this.account(-this.heldBytes[r]!);
    this.keyBytes[r] = 0;
    this.heldBytes[r] = 0;
    this.slot[r] = -1;
    this.batches[r] = null;
    this.keys[r] = null;
  }

  // --- output -----------------------------------------------------------------------------------

  /** The pending rows as one batch (the window is left as it is). */
  gatherPending(): RecordBatch {
    const n = this.pending;
    const schema = this.o.schema;
    const columns = gatherColumnsAt(new RowSource(this.window, schema), this.outSlot, this.outRow, n, undefined, this.o.pool);
    this.pending = 0;
    return makeRecordBatch(schema, columns, n);
  }

  /** Gather the pending rows now, so no pending row references a kept batch any more. */
  cutPiece(): void {
    if (this.pending > 0) {
      const piece = this.gatherPending();
      const bytes = heldBatchBytes(piece);
      this.account(bytes);
      this.piecesBytes += bytes;
      this.pieces.push(piece);
      this.piecesRows += piece.numRows;
      if (this.pieces.length >= MAX_PIECES || (this.pieces.length > 1 && this.piecesBytes > this.outputBytes)) {
        // one batch instead of many small ones (each costs its JS objects)
        const one = concatBatches(this.pieces, this.o.schema);
        const oneBytes = heldBatchBytes(one);
        this.account(oneBytes); // both, while the pieces are concatenated
        this.account(-this.piecesBytes);
        this.pieces = [one];
        this.piecesBytes = oneBytes;
      }
    }
    this.clearWindow();
  }

  /** No pending row references any batch: the kept batches go. */
  clearWindow(): void {
    this.window = [];
    this.slot.fill(-1);
    if (this.keptBytes > 0) {
      this.account(-this.keptBytes);
      this.keptBytes = 0;
    }
  }

  emit(): RecordBatch {
    let out: RecordBatch;
    if (this.pieces.length === 0) out = this.gatherPending();
    else {
      if (this.pending > 0) this.pieces.push(this.gatherPending());
      out = concatBatches(this.pieces, this.o.schema);
    }
    this.pieces = [];
    this.piecesRows = 0;
    this.account(-this.piecesBytes);
    this.piecesBytes = 0;
    this.clearWindow();
    return out;
  }
}
