/**
 * One sorted run of the parallel sort, made on a worker thread (worker task `sort.run`;
 * parallel.ts submits to it).
 *
 * A session is one sort's run phase on one worker: `open` binds the sort keys against the input's
 * schema exactly as the calling thread did (`bindSort`: the same key kinds, the same orders); each
 * `run` receives one morsel — a contiguous chunk of the input rows, copied once into buffers the
 * worker owns — normalises its key columns over the chunk (`sortKeyColumns`, the function the
 * single-threaded sort's RunBuilder uses), orders it with `argsortKeys` (stable) and gathers the
 * rows in that order, `runRows` a batch, with their dictionaries compacted as a spilled run's are.
 * The batches go back as transferred buffers; the input is garbage once they exist. So a run made
 * here is, row for row, what the single-threaded sort would have written for the same chunk —
 * there is one ordering in this code base, not a second one for threads.
 *
 * Memory: the calling thread reserves a morsel's whole cost before it submits it (the chunk, its
 * normalised keys and argsort scratch by the same estimates the single-threaded sort reserves, and
 * the gathered output), so the worker reserves nothing in the common case. The worker attaches to
 * the query's pool (`MemoryPool.attach`: one limit across threads) only to reserve what the keys
 * actually take beyond that estimate (an upper bound, so normally nothing) — refused, it is a
 * typed MemoryLimitError the caller sees as such. The gather runs without an allocation guard:
 * its output is already reserved.
 *
 * How the engines do it: DuckDB sorts thread-local runs of normalised keys and merges them
 * (src/common/sort/: each thread's `LocalSortState` sorts its own blocks, then `MergeSorter`);
 * DataFusion runs a `SortExec` per input partition and merges their streams with
 * `SortPreservingMergeExec`. Here a run is one morsel, not one thread's whole share, so that a
 * worker that finishes early takes the next chunk and the runs stay in input order — the merge's
 * ties go to the lower run, which makes the whole sort stable.
 */
import type { RecordBatch } from 'apache-arrow';
import { gatherColumns, makeRecordBatch, RowSource } from '../../core/arrow/gather.ts';
import { argsortKeys } from '../../core/keys/argsort.ts';
import { keyColumnBytes } from '../../core/keys/types.ts';
import { MemoryPool, type SharedPoolHandle } from '../../core/memory/pool.ts';
import { decodeBatch, decodeSchema, encodeBatches, type BatchWire } from '../../core/parallel/wire.ts';
import { reply, type WorkerTask } from '../../core/parallel/task.ts';
import { compactDictionaries } from './dictionaries.ts';
import { bindSort, sortScratchPerRow, type SortKey } from './keys.ts';
import { sortKeyColumns } from './runs.ts';

export const SORT_TASK = 'sort.run';

export interface SortTaskInit {
  /** The input's schema (schema-only IPC, core/parallel/wire.ts). */
  readonly schema: Uint8Array;
  readonly keys: readonly SortKey[];
  /** The input's name, for errors. */
  readonly source: string;
  readonly pool: SharedPoolHandle;
}

export interface SortTaskInput {
  /** The morsel's place in the input (runs are merged in this order). */
  readonly morsel: number;
  readonly batch: BatchWire;
  /** Rows per batch of the sorted run. */
  readonly runRows: number;
  /** What the caller reserved for the keys and the argsort's scratch. */
  readonly workBytes: number;
}

export interface SortTaskReply {
  readonly morsel: number;
  readonly batches: readonly BatchWire[];
  readonly rows: number;
  /** Time the worker spent on the morsel (decode to encode), for the metrics. */
  readonly ms: number;
}

export const sortTask: WorkerTask = {
  name: SORT_TASK,
  description: 'one sorted run of a parallel sort (a morsel of the input sorted by the sort keys)',
  open(raw, env) {
    const init = raw as SortTaskInit;
    const schema = decodeSchema(init.schema);
    const bound = bindSort(schema, init.keys, init.source);
    const pool = MemoryPool.attach(init.pool);
    const scratchPerRow = sortScratchPerRow(bound);
    return {
      run(rawInput) {
        const started = performance.now();
        const x = rawInput as SortTaskInput;
        const batch = decodeBatch(x.batch, schema);
        const n = batch.numRows;
        const extra = pool.reservation(`sort keys (worker ${env.workerIndex})`);
        try {
          const keys = sortKeyColumns([batch], bound);
          const actual = keys.reduce((s, c) => s + keyColumnBytes(c), 0) + n * scratchPerRow;
          if (actual > x.workBytes) extra.grow(actual - x.workBytes);
          const order = argsortKeys(keys, bound.orders);
          keys.length = 0;
          const src = new RowSource([batch], schema);
          const out: RecordBatch[] = [];
          const step = Math.max(1, x.runRows);
          for (let start = 0; start < n; start += step) {
            const count = Math.min(step, n - start);
            out.push(compactDictionaries(makeRecordBatch(schema, gatherColumns(src, order, start, count), count)));
          }
          const { wires, transfer } = encodeBatches(out, 'transfer');
          const value: SortTaskReply = { morsel: x.morsel, batches: wires, rows: n, ms: performance.now() - started };
          return reply(value, transfer);
        } finally {
          extra.free();
        }
      },
      close: () => reply(null),
    };
  },
};
