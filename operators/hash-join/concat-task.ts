/**
 * The collect-left build's concatenation on worker threads (worker task `hash-join.concat`):
 * with `threads` > 1, a build input of several batches in shared memory is made one batch — the
 * partition's rows, which the probe's gathers read by plain row index — a column per task on
 * whichever worker is free, while the calling thread concatenates the key columns itself and
 * builds the table over them (build.ts `buildCollectLeftOnWorkers`). The build's two halves then
 * overlap: the keys' normalisation, hashing and table build on one thread, the payload's block
 * copies on the others (h2o q5, a 10M-row build of seven columns: the copies took ~0.45 s of
 * its ~1 s build on one thread).
 *
 * A `run` receives one column of every batch (wires over the batches' shared buffers: nothing is
 * copied to the worker) and answers with the column concatenated by the same `concatBatches` as
 * on one thread, in shared memory (what the block copies did not allocate there is shared after),
 * so the calling thread and every probing worker read it where it is.
 *
 * Memory: the calling thread reserves the whole concatenation before any task is submitted (as
 * the single-threaded build reserves its `concatBatches`), so the workers allocate within it.
 */
import { Schema } from 'apache-arrow';
import { concatBatches } from '../../core/arrow/gather.ts';
import { decodeBatch, decodeSchema, encodeBatch, shareBatch, type BatchWire } from '../../core/parallel/wire.ts';
import { reply, type WorkerTask } from '../../core/parallel/task.ts';

export const CONCAT_TASK = 'hash-join.concat';

export interface ConcatTaskInit {
  /** The build input's schema (schema-only IPC). */
  readonly schema: Uint8Array;
}

/** One column (`column`: its index in the schema) of every batch, as one-column batch wires. */
export interface ConcatTaskInput {
  readonly column: number;
  readonly batches: readonly BatchWire[];
}

/** The column concatenated, as a one-column batch wire over shared memory. */
export interface ConcatTaskReply {
  readonly column: number;
  readonly batch: BatchWire;
}

export const concatTask: WorkerTask = {
  name: CONCAT_TASK,
  description: "one column of a collect-left hash join's build input concatenated into shared memory",
  open(raw) {
    const schema = decodeSchema((raw as ConcatTaskInit).schema);
    return {
      run(rawInput) {
        const input = rawInput as ConcatTaskInput;
        const one = new Schema([schema.fields[input.column]!], schema.metadata);
        const all = concatBatches(input.batches.map((w) => decodeBatch(w, one)), one, { shared: true });
        const value: ConcatTaskReply = { column: input.column, batch: encodeBatch(shareBatch(all), 'copy').wire };
        return reply(value);
      },
      close: () => reply(null),
    };
  },
};
