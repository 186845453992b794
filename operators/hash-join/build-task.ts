/**
 * The hash join's partitioned build on worker threads (worker task `hash-join.build`, build.ts
 * submits to it): with `threads` > 1 and `hash.mode=partitioned`, each partition's table is built
 * on whichever worker is free, all partitions at once, where the single-threaded build runs them
 * one after another on the calling thread.
 *
 * The calling thread still collects the build input and splits it by key partition (one pass over
 * the rows); each partition's rows are copied into shared memory once and cross without a copy.
 * A `run` normalises the partition's keys, hashes them and builds its table with `shared: true`,
 * and answers with what the calling thread needs to use it there — the keys and hashes in shared
 * memory, the NULL-key bytes and the table's `SharedTable` state — which the layout restores
 * (`HashMapLayout.restore`) without copying. So a partition's build is the same code whichever
 * thread runs it, the pushdown barrier sees each partition reported as its reply arrives, and the
 * probe that follows (parallel.ts) finds every table already in shared memory.
 *
 * Memory: the worker allocates the table; the calling thread reserves its bytes when the reply
 * arrives (a layout's `estimateBytes` needs the keys, which only the worker has), so a memory
 * limit is enforced one partition late — by at most one partition's table.
 */
import { UnsupportedJoinError } from '../../core/errors.ts';
import type { SharedTable } from '../../core/hashmap.ts';
import { hashKeys } from '../../core/keys/hash.ts';
import { anyNullMask, normalizeKeys } from '../../core/keys/normalize.ts';
import { TABLE_SEED } from '../../core/keys/partition.ts';
import type { KeyColumn, KeyKind } from '../../core/keys/types.ts';
import { decodeBatch, decodeSchema, shareKeyColumn, shareView, type BatchWire } from '../../core/parallel/wire.ts';
import { reply, type WorkerTask } from '../../core/parallel/task.ts';
import { HASHMAP } from '../../core/registry/slots.ts';

export const BUILD_TASK = 'hash-join.build';

export interface BuildTaskInit {
  /** The build input's schema (schema-only IPC). */
  readonly schema: Uint8Array;
  readonly keyColumns: readonly string[];
  readonly kinds: readonly KeyKind[];
  /** The hash-map layout's registered name (resolved in the worker's registry). */
  readonly layout: string;
  readonly nullEqualsNull: boolean;
}

/** One partition's rows, in shared memory. */
export interface BuildTaskInput {
  readonly index: number;
  readonly batch: BatchWire;
}

export interface BuildTaskReply {
  readonly index: number;
  readonly keys: readonly KeyColumn[];
  readonly hashes: Uint32Array;
  readonly nullKeys: Uint8Array | null;
  readonly table: SharedTable;
  readonly tableBytes: number;
}

export const buildTask: WorkerTask = {
  name: BUILD_TASK,
  description: "one partition's hash table of a partitioned hash join, built in shared memory",
  open(raw, env) {
    const init = raw as BuildTaskInit;
    const schema = decodeSchema(init.schema);
    const layout = env.registry.resolve(HASHMAP, init.layout);
    return {
      run(rawInput) {
        const input = rawInput as BuildTaskInput;
        const batch = decodeBatch(input.batch, schema);
        const keys = normalizeKeys(batch, init.keyColumns, init.kinds).map(shareKeyColumn);
        const hashes = shareView(hashKeys(keys, TABLE_SEED));
        const buildInput = { keys, hashes, rows: batch.numRows, nullEqualsNull: init.nullEqualsNull, shared: true };
        const reason = layout.unsupportedReason(buildInput);
        if (reason) throw new UnsupportedJoinError(`hashmap '${layout.name}' cannot index this build side: ${reason}`);
        const table = layout.build(buildInput);
        const nulls = anyNullMask(keys);
        const value: BuildTaskReply = {
          index: input.index,
          keys,
          hashes,
          nullKeys: nulls === null ? null : shareView(nulls),
          table: table.share!(),
          tableBytes: table.memoryBytes,
        };
        return reply(value);
      },
      close: () => reply(null),
    };
  },
};
