/**
 * Sorted runs: the rows the sort holds in memory (`RunBuilder`), sorted and written to a spill
 * file as one run (`writeHeldRun`, `RunWriter`), and read back batch by batch (`RunReader`).
 *
 * Memory, reserved before it is used:
 * - `RunBuilder.tryAdd` reserves each input batch (`heldBatchBytes`: its buffers and JS objects)
 *   under `sort input` *and* what sorting its rows will cost under `sort keys` — the normalised
 *   key columns and argsort's scratch (`keyBytesEstimate`, `sortScratchPerRow`). Sorting what is
 *   held therefore never needs memory the pool has not granted; after the argsort the keys are let
 *   go and only the order (4 bytes a row) stays reserved.
 * - Writing: each gathered batch is reserved (`sort run write`) while it is written — IPC writes
 *   the batch's own buffers, no copy — then released. The rows per written batch are at most
 *   `batchSize`, fewer when the memory left would not hold that many (`runBatchRows`), so a run
 *   written under a tight limit is one of small batches rather than a failure.
 * - A `Run` records the most its batches cost when read back (`maxBatchBytes`, `maxKeyBytes`): the
 *   merge plans its fan-in from them (merge.ts), as DataFusion's multi-level merge reserves per
 *   spill file from its largest batch.
 *
 * Dictionary columns are compacted before they are written (dictionaries.ts), so a run's batch
 * carries at most as many dictionary entries as it has rows.
 */
import { Vector, type RecordBatch, type Schema } from 'apache-arrow';
import { gatherColumns, makeRecordBatch, RowSource } from '../../core/arrow/gather.ts';
import { batchByteSize, heldBatchBytes } from '../../core/arrow/size.ts';
import { MemoryLimitError } from '../../core/errors.ts';
import { argsortKeys, argsortKeysPaced } from '../../core/keys/argsort.ts';
import { Pacer } from '../../core/next-turn.ts';
import { normalizeKeyColumn } from '../../core/keys/normalize.ts';
import { keyColumnBytes, type FixedKeyColumn, type KeyColumn } from '../../core/keys/types.ts';
import type { MemoryPool, Reservation } from '../../core/memory/pool.ts';
import type { SpillFile, SpillManager, SpillWriter } from '../../core/memory/spill.ts';
import { compactDictionaries } from './dictionaries.ts';
import { keyBytesEstimate, sortScratchPerRow, type BoundSort } from './keys.ts';

/** What reading a sorted run back costs, wherever it is (the merge plans its fan-in from it). */
export interface RunShape {
  readonly rows: number;
  /** Largest `heldBatchBytes` of a batch written. */
  readonly maxBatchBytes: number;
  /** Largest normalised-key estimate of a batch written. */
  readonly maxKeyBytes: number;
  /** Most rows in one batch. */
  readonly maxBatchRows: number;
  /** Largest buffer bytes per row of a batch written (for sizing output batches). */
  readonly maxRowBytes: number;
}

/** A sorted run on disk. */
export interface Run extends RunShape {
  readonly file: SpillFile;
}

/**
 * A sorted run held in memory (a worker thread sorted it, parallel.ts): its batches in order and
 * the reservation that covers them. The merge reads it like a file run (`MemoryRunReader`); each
 * batch handed to the merge leaves the run — its bytes move from `reservation` into the merge's
 * own accounting — so no batch is counted twice and none is held by the run once read.
 */
export interface MemoryRun extends RunShape {
  readonly batches: (RecordBatch | null)[];
  readonly reservation: Reservation;
}

/** A run the merge can read: on disk or in memory. */
export type AnyRun = Run | MemoryRun;

export function isMemoryRun(run: AnyRun): run is MemoryRun {
  return (run as MemoryRun).batches !== undefined;
}

/** The shape of a run of these batches (heldBatchBytes, key estimate, rows, bytes per row). */
export function runShapeOf(batches: readonly RecordBatch[], bound: BoundSort): RunShape {
  let rows = 0;
  let maxBatchBytes = 0;
  let maxKeyBytes = 0;
  let maxBatchRows = 0;
  let maxRowBytes = 0;
  for (const b of batches) {
    if (b.numRows === 0) continue;
    rows += b.numRows;
    maxBatchBytes = Math.max(maxBatchBytes, heldBatchBytes(b));
    maxKeyBytes = Math.max(maxKeyBytes, keyBytesEstimate(b, bound));
    maxBatchRows = Math.max(maxBatchRows, b.numRows);
    maxRowBytes = Math.max(maxRowBytes, Math.ceil(batchByteSize(b) / b.numRows));
  }
  return { rows, maxBatchBytes, maxKeyBytes, maxBatchRows, maxRowBytes };
}

/**
 * The normalised sort-key columns of `batches` taken as one sequence of rows (each key column
 * normalised once over all of them, core/keys/normalize.ts): what `argsortKeys` orders, on the
 * calling thread (`RunBuilder.sortOrder`) and on a worker (sort-task.ts) alike — one ordering.
 */
export function sortKeyColumns(batches: readonly RecordBatch[], bound: BoundSort): KeyColumn[] {
  return bound.columns.map((name, k) => normalizeKeyColumn(new Vector(batches.map((b) => b.data.children[bound.indices[k]!]!)), bound.kinds[k]!, name));
}

/** Rows of key normalised between two pacer checks (`sortKeyColumnsPaced`). */
const NORMALIZE_SLICE_ROWS = 1 << 18;

/**
 * `sortKeyColumns` with a turn of the event loop whenever `pacer` says one is due: between the
 * columns and, for a fixed-width key, between groups of batches of ~256K rows — each group
 * normalised alone and copied into the column's one words array (a fixed-width key's words are
 * per row, so the result is the same). A bytes key (its entries are ranked over the whole column)
 * is normalised in one step.
 */
export async function sortKeyColumnsPaced(batches: readonly RecordBatch[], bound: BoundSort, pacer: Pacer): Promise<KeyColumn[]> {
  const out: KeyColumn[] = [];
  const rows = batches.reduce((n, b) => n + b.numRows, 0);
  for (let k = 0; k < bound.columns.length; k++) {
    if (pacer.due()) await pacer.turn();
    const kind = bound.kinds[k]!;
    const name = bound.columns[k]!;
    const child = (b: RecordBatch) => b.data.children[bound.indices[k]!]!;
    if (kind.width === 0 || rows <= NORMALIZE_SLICE_ROWS) {
      out.push(normalizeKeyColumn(new Vector(batches.map(child)), kind, name));
      continue;
    }
    const words = new Int32Array(rows * kind.width);
    let nulls: Uint8Array | null = null;
    let at = 0;
    for (let i = 0; i < batches.length; ) {
      let j = i;
      let n = 0;
      while (j < batches.length && (j === i || n + batches[j]!.numRows <= NORMALIZE_SLICE_ROWS)) n += batches[j++]!.numRows;
      const part = normalizeKeyColumn(new Vector(batches.slice(i, j).map(child)), kind, name) as FixedKeyColumn;
      words.set(part.words, at * kind.width);
      if (part.nulls !== null) (nulls ??= new Uint8Array(rows)).set(part.nulls, at);
      at += n;
      i = j;
      if (pacer.due()) await pacer.turn();
    }
    out.push({ kind, length: rows, words, nulls } satisfies FixedKeyColumn);
  }
  return out;
}

/** Estimated JS-object bytes of one held batch of `schema` (see core/arrow/size.ts). */
export function batchObjectBytes(schema: Schema): number {
  return 256 + 512 * schema.fields.length;
}

/**
 * Runs are written in batches small enough that this many runs — two batches each while the
 * merge reads them (the current one, and one kept while the output batch in progress gathers
 * from it) plus the current batch's normalised keys — fit in the memory the sort started with;
 * under a tight budget, fewer ways (down to `RUN_MIN_WAYS`) for batches of up to
 * `RUN_MIN_BATCH_ROWS` rows, since every batch also costs its JS objects, per column.
 */
export const RUN_MERGE_WAYS = 16;
const RUN_MIN_WAYS = 4;
const RUN_MIN_BATCH_ROWS = 256;

/**
 * Rows per written run batch: `batchSize` (but at least `RUN_MIN_BATCH_ROWS`: a tiny output batch
 * size says nothing about how runs should be read back), fewer when `budget` is tight (see
 * RUN_MERGE_WAYS).
 */
export function runBatchRows(batchSize: number, budget: number, rowBytes: number, keyRowBytes: number, fixed: number): number {
  const most = Math.max(batchSize, RUN_MIN_BATCH_ROWS);
  const rowsFor = (ways: number) => Math.floor((budget / ways - 2 * fixed) / (2 * rowBytes + keyRowBytes + 1));
  const wide = rowsFor(RUN_MERGE_WAYS);
  const rows = wide >= RUN_MIN_BATCH_ROWS ? wide : Math.max(wide, Math.min(RUN_MIN_BATCH_ROWS, rowsFor(RUN_MIN_WAYS)));
  return Math.max(1, Math.min(most, rows));
}

/** The rows the sort holds: input batches and their reservations (see the module doc). */
export class RunBuilder {
  batches: RecordBatch[] = [];
  rows = 0;
  /** Buffer bytes of the held batches (without JS objects). */
  dataBytes = 0;
  /** The normalised-key estimate of the held rows. */
  keyBytes = 0;
  /** Largest buffer bytes per row of a held batch. */
  maxRowBytes = 0;
  readonly #input: Reservation;
  readonly #work: Reservation;
  readonly #write: Reservation;
  readonly #scratchPerRow: number;
  readonly #fixed: number;
  /** The most rows a written batch will have (what the write headroom covers; see `runBatchRows`). */
  writeRows: number;
  #maxKeyRowBytes = 0;

  /**
   * `batchSize`: the most rows a written batch may have; `budget`: the memory the sort can count
   * on (what the pool had available when it started), which sizes the written batches.
   */
  constructor(
    readonly schema: Schema,
    readonly bound: BoundSort,
    readonly pool: MemoryPool,
    readonly batchSize: number,
    readonly budget: number,
  ) {
    this.writeRows = batchSize;
    this.#input = pool.reservation('sort input');
    this.#work = pool.reservation('sort keys');
    this.#write = pool.reservation('sort run write');
    this.#scratchPerRow = sortScratchPerRow(bound);
    this.#fixed = batchObjectBytes(schema);
  }

  #workCost(b: RecordBatch): number {
    return keyBytesEstimate(b, this.bound) + b.numRows * this.#scratchPerRow;
  }

  /** Rows per written batch and the write headroom once `b` is held too. */
  #writePlan(b: RecordBatch): { rows: number; bytes: number } {
    const rowBytes = Math.max(this.maxRowBytes, Math.ceil(batchByteSize(b) / b.numRows));
    const keyRowBytes = Math.max(this.#maxKeyRowBytes, Math.ceil(keyBytesEstimate(b, this.bound) / b.numRows));
    const rows = runBatchRows(this.batchSize, this.budget, rowBytes, keyRowBytes, this.#fixed);
    return { rows, bytes: this.#fixed + Math.min(this.rows + b.numRows, rows) * rowBytes };
  }

  /** Bytes holding `b` would reserve were nothing held yet. */
  costAlone(b: RecordBatch): number {
    const rowBytes = Math.ceil(batchByteSize(b) / b.numRows);
    const rows = runBatchRows(this.batchSize, this.budget, rowBytes, Math.ceil(keyBytesEstimate(b, this.bound) / b.numRows), this.#fixed);
    return heldBatchBytes(b) + this.#workCost(b) + this.#fixed + Math.min(b.numRows, rows) * rowBytes;
  }

  /**
   * Hold `b` if the pool grants its bytes, its sort's and the write headroom; false (nothing
   * reserved) otherwise.
   */
  tryAdd(b: RecordBatch): boolean {
    const held = heldBatchBytes(b);
    const work = this.#workCost(b);
    const plan = this.#writePlan(b);
    const write = plan.bytes - this.#write.size;
    if (!this.#input.tryGrow(held)) return false;
    if (!this.#work.tryGrow(work)) {
      this.#input.shrink(held);
      return false;
    }
    if (write > 0 && !this.#write.tryGrow(write)) {
      this.#input.shrink(held);
      this.#work.shrink(work);
      return false;
    }
    this.batches.push(b);
    this.rows += b.numRows;
    const data = batchByteSize(b);
    this.dataBytes += data;
    this.maxRowBytes = Math.max(this.maxRowBytes, Math.ceil(data / b.numRows));
    const keys = keyBytesEstimate(b, this.bound);
    this.keyBytes += keys;
    this.#maxKeyRowBytes = Math.max(this.#maxKeyRowBytes, Math.ceil(keys / b.numRows));
    this.writeRows = plan.rows;
    return true;
  }

  /**
   * The held rows' stable sort order (global row indices over `batches`): each key normalised
   * once over all held batches, one `argsortKeys`. The keys are let go afterwards; the order stays
   * reserved until `clear`.
   */
  sortOrder(): Int32Array {
    const keys = sortKeyColumns(this.batches, this.bound);
    this.#reserveKeys(keys);
    return this.#keep(argsortKeys(keys, this.bound.orders));
  }

  /**
   * `sortOrder` in steps under a signal (core/keys/argsort.ts `argsortKeysPaced`): the event loop
   * gets a turn whenever `pacer` says one is due, and an abort ends the sort there.
   */
  async sortOrderPaced(pacer: Pacer): Promise<Int32Array> {
    const keys = await sortKeyColumnsPaced(this.batches, this.bound, pacer);
    this.#reserveKeys(keys);
    return this.#keep(await argsortKeysPaced(keys, this.bound.orders, pacer));
  }

  /** The held rows' normalised keys reserved. */
  #reserveKeys(keyCols: readonly KeyColumn[]): void {
    // the estimate is an upper bound; should a column ever need more, it is reserved (or refused) here
    const actual = keyCols.reduce((s, c) => s + keyColumnBytes(c), 0) + this.rows * this.#scratchPerRow;
    if (actual > this.#work.size) this.#work.grow(actual - this.#work.size);
  }

  /** The keys are garbage once the order is made: only the order stays reserved. */
  #keep(order: Int32Array): Int32Array {
    this.#work.resize(order.byteLength);
    return order;
  }

  /** Give the write headroom back, for the writer to reserve the batch it writes. */
  releaseWriteHeadroom(): void {
    this.#write.free();
  }

  /** Let every held batch go and release the reservations. */
  clear(): void {
    this.batches = [];
    this.rows = 0;
    this.dataBytes = 0;
    this.keyBytes = 0;
    this.maxRowBytes = 0;
    this.#maxKeyRowBytes = 0;
    this.writeRows = this.batchSize;
    this.#input.free();
    this.#work.free();
    this.#write.free();
  }
}

/** Appends sorted batches to one spill file, recording what the run costs to read back. */
export class RunWriter {
  readonly #writer: SpillWriter;
  readonly #reservation: Reservation;
  #rows = 0;
  #maxBatchBytes = 0;
  #maxKeyBytes = 0;
  #maxBatchRows = 0;
  #maxRowBytes = 0;

  constructor(
    spill: SpillManager,
    readonly schema: Schema,
    readonly bound: BoundSort,
    pool: MemoryPool,
  ) {
    this.#writer = spill.writer(schema);
    this.#reservation = pool.reservation('sort run write');
  }

  /**
   * Write `batch` (reserved while it is written, unless `covered`: the caller's reservation
   * already counts it — a sorted run held in memory being spilled; its dictionaries compacted first).
   */
  async append(batch: RecordBatch, covered = false): Promise<void> {
    if (batch.numRows === 0) return;
    const b = compactDictionaries(batch);
    const held = heldBatchBytes(b);
    if (!covered) this.#reservation.resize(held);
    try {
      await this.#writer.append(b);
    } finally {
      this.#reservation.free();
    }
    this.#rows += b.numRows;
    this.#maxBatchBytes = Math.max(this.#maxBatchBytes, held);
    this.#maxKeyBytes = Math.max(this.#maxKeyBytes, keyBytesEstimate(b, this.bound));
    this.#maxBatchRows = Math.max(this.#maxBatchRows, b.numRows);
    this.#maxRowBytes = Math.max(this.#maxRowBytes, Math.ceil(batchByteSize(b) / b.numRows));
  }

  async finish(): Promise<Run> {
    const file = await this.#writer.finish();
    return {
      file,
      rows: this.#rows,
      maxBatchBytes: this.#maxBatchBytes,
      maxKeyBytes: this.#maxKeyBytes,
      maxBatchRows: this.#maxBatchRows,
      maxRowBytes: this.#maxRowBytes,
    };
  }

  /** Remove the partial file (after a failure or a cancel). */
  abort(): Promise<void> {
    this.#reservation.free();
    return this.#writer.abort();
  }
}

export interface WriteRunOptions {
  readonly spill: SpillManager;
  readonly pool: MemoryPool;
  readonly signal?: AbortSignal;
}

/**
 * Sort what `held` holds and write it as one run; `held` is cleared (its memory released) once
 * the run is complete. On failure the partial file is removed and `held` is left to its owner.
 */
export async function writeHeldRun(held: RunBuilder, o: WriteRunOptions): Promise<Run> {
  const order = o.signal === undefined ? held.sortOrder() : await held.sortOrderPaced(new Pacer(o.signal));
  held.releaseWriteHeadroom();
  const n = order.length;
  const src = new RowSource(held.batches, held.schema);
  const fixed = batchObjectBytes(held.schema);
  const rowBytes = Math.max(1, held.maxRowBytes);
  const writer = new RunWriter(o.spill, held.schema, held.bound, o.pool);
  try {
    // `held.writeRows` a batch, fewer should the memory left not hold them
    let rows = Math.max(1, Math.min(held.writeRows, Math.floor((o.pool.available - fixed) / rowBytes)));
    for (let start = 0; start < n; ) {
      o.signal?.throwIfAborted();
      const count = Math.min(rows, n - start);
      let columns;
      try {
        columns = gatherColumns(src, order, start, count, undefined, o.pool);
      } catch (err) {
        // long strings: these rows do not fit, fewer might
        if (err instanceof MemoryLimitError && count > 1) {
          rows = Math.ceil(count / 2);
          continue;
        }
        throw err;
      }
      await writer.append(makeRecordBatch(held.schema, columns, count));
      start += count;
    }
    const run = await writer.finish();
    held.clear();
    return run;
  } catch (err) {
    await writer.abort();
    throw err;
  }
}

/** What the merge reads a run through: its batches in order, then null. */
export interface RunSource {
  next(): Promise<RecordBatch | null>;
  close(): Promise<void>;
}

/** A memory run read by the merge: each batch leaves the run (and its reservation) as it is handed out. */
export class MemoryRunReader implements RunSource {
  #at = 0;

  constructor(readonly run: MemoryRun) {}

  next(): Promise<RecordBatch | null> {
    const { batches, reservation } = this.run;
    while (this.#at < batches.length) {
      const b = batches[this.#at]!;
      batches[this.#at++] = null;
      if (b === null || b.numRows === 0) continue;
      reservation.shrink(Math.min(reservation.size, heldBatchBytes(b)));
      return Promise.resolve(b);
    }
    return Promise.resolve(null);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A run read back a batch at a time (each batch is decoded when asked for). */
export class RunReader implements RunSource {
  readonly #it: AsyncIterator<RecordBatch>;

  constructor(spill: SpillManager, readonly run: Run) {
    this.#it = spill.read(run.file)[Symbol.asyncIterator]();
  }

  /** The next non-empty batch, or null at the end of the run. */
  async next(): Promise<RecordBatch | null> {
    for (;;) {
      const r = await this.#it.next();
      if (r.done) return null;
      if (r.value.numRows > 0) return r.value;
    }
  }

  /** Stop reading (closes the file); idempotent. */
  async close(): Promise<void> {
    await this.#it.return?.();
  }
}
