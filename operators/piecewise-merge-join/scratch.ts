/**
 * Per streamed batch working memory of the piecewise merge join, reused across batches and
 * counted against the run's pool while a batch is processed: the batch itself, its normalised
 * key, the prefilter mask, the key as numbers and the candidate rows (the sort allocates its own
 * index, counted with the rows). Also the join's counters.
 */
import type { RecordBatch } from 'apache-arrow';
import { batchByteSize } from '../../core/arrow/size.ts';
import { keyColumnBytes, type KeyColumn } from '../../core/keys/types.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import { liveRows } from '../../core/selection.ts';

export interface PiecewiseStats {
  streamedRows: number;
  /** Streamed rows that reached the sort (classic) — every non-NULL row without the prefilter. */
  candidates: number;
  /** First-match searches run. */
  searches: number;
  /** Existence joins: streamed batches whose extreme key matched nothing (no search run). */
  batchesSkipped: number;
  /** Existence joins: streamed batches whose extreme key matched every buffered key (no search, no sort). */
  batchesAllMatched: number;
  pairs: number;
  /** Output batches assembled from runs (core/arrow/runs.ts) rather than gathered by index. */
  runBatches: number;
  streamedUnmatched: number;
  bufferedUnmatched: number;
}

export function newPiecewiseStats(): PiecewiseStats {
  return { streamedRows: 0, candidates: 0, searches: 0, batchesSkipped: 0, batchesAllMatched: 0, pairs: 0, runBatches: 0, streamedUnmatched: 0, bufferedUnmatched: 0 };
}

/** `mask[i] = 1` for the non-NULL rows of `key`; returns their count. */
export function nonNullMask(key: KeyColumn, mask: Uint8Array): number {
  const n = key.length;
  const nulls = key.nulls;
  if (nulls === null) {
    mask.fill(1, 0, n);
    return n;
  }
  let c = 0;
  for (let i = 0; i < n; i++) c += mask[i] = nulls[i]! ^ 1;
  return c;
}

export class BatchScratch {
  #mask = new Uint8Array(0);
  #nums = new Float64Array(0);
  #rows = new Int32Array(0);

  constructor(private readonly reservation: Reservation) {}

  /** Reserves the batch, its key and the buffers for `batch.numRows` rows (freed by `release`). */
  hold(batch: RecordBatch, key: KeyColumn): void {
    const n = batch.numRows;
    // mask (1) + numbers (8) + candidate rows (4) + the sort's index (4) per row
    this.reservation.resize(batchByteSize(batch) + keyColumnBytes(key) + 17 * n);
  }

  release(): void {
    this.reservation.resize(0);
  }

  mask(n: number): Uint8Array {
    if (this.#mask.length < n) this.#mask = new Uint8Array(n);
    return this.#mask;
  }

  nums(n: number): Float64Array {
    if (this.#nums.length < n) this.#nums = new Float64Array(n);
    return this.#nums;
  }

  /** The rows with `mask[i] !== 0`, i < n, ascending (valid until the next call). */
  rowsWhere(mask: Uint8Array, n: number): Int32Array {
    if (this.#rows.length < n) this.#rows = new Int32Array(n);
    return liveRows(null, mask, n, this.#rows);
  }
}
