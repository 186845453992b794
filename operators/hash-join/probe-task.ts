/**
 * The hash join's probe on a worker thread (worker task `hash-join.probe`, parallel.ts starts it).
 *
 * A session is one join's probe phase on one worker. `open` receives the complete build as shared
 * memory — per partition its rows (a batch over `SharedArrayBuffer`s), normalised keys, NULL-key
 * bytes and the table's `SharedTable` state — and rebuilds, without copying anything, the same
 * `HashJoinProbe` the single-threaded join runs: the join re-bound from its spec and the schemas
 * (so the residual filter compiles here), the plan made with the build side the main thread
 * chose, every table restored by the layout that built it (`HashMapLayout.restore`, found in this
 * worker's own registry — a user's layout loads here too). Each `run` is one morsel — a probe
 * batch — through `HashJoinProbe.probeBatch`: the pairs and probe-side rows it yields go back as
 * transferred buffers. `close` hands back what only the whole probe input decides: this worker's
 * match bits per build partition and whether it saw a NULL probe key; the main thread ORs them and
 * emits the build side's rows.
 *
 * Memory: the worker reserves its scratch and checks its output gathers against the query's pool
 * (attached through `MemoryPool.attach`: one limit across threads). Its metrics are counters the
 * main thread adds up from each reply — the join's (pairs matched, rows the row test dropped) and
 * the probe scan's (`ProbeMorselReply.scan`: what decoding containers and testing rows here cost,
 * added into the scan's `ScanMetrics`, so they read the same at every thread count).
 */
import type { RecordBatch } from 'apache-arrow';
import { RowSource } from '../../core/arrow/gather.ts';
import { RowLayout, type SharedRowLayout } from '../../core/arrow/row-layout.ts';
import { Bitset } from '../../core/bitset.ts';
import type { Config } from '../../core/config/schema.ts';
import type { JoinHashTable, SharedTable } from '../../core/hashmap.ts';
import type { JoinContext, JoinInputs } from '../../core/join-algorithm.ts';
import type { KeyColumn } from '../../core/keys/types.ts';
import { MemoryPool, type Reservation, type SharedPoolHandle } from '../../core/memory/pool.ts';
import { SpillManager } from '../../core/memory/spill.ts';
import { addScanMetrics, newOperatorMetrics, newScanMetrics, type ScanMetrics } from '../../core/metrics.ts';
import { buffersOf, decodeBatch, encodeBatches, type BatchWire } from '../../core/parallel/wire.ts';
import { reply, type WorkerTask } from '../../core/parallel/task.ts';
import { nextReplyChunk, type ReplyChunk } from '../../core/parallel/reply-chunks.ts';
import { HASHMAP } from '../../core/registry/slots.ts';
import { decodeMorsel } from '../../core/scan/decode-morsel.ts';
import type { DecodeMorsel, Scan, SharedRowTest } from '../../core/scan/scan.ts';
import type { MorselRowTest } from '../../core/scan/morsel.ts';
import { restoreRowTest, type RowTest } from '../../core/scan/shared-row-test.ts';
import { takeRows } from '../../core/scan/batch-shape.ts';
import { bindSharedJoin, type SharedJoin } from '../common/worker-join.ts';
import { EMPTY_TABLE, type PartitionBuild } from './build.ts';
import { planHashJoin } from './plan.ts';
import { HashJoinProbe } from './probe.ts';

export const PROBE_TASK = 'hash-join.probe';

/** One build partition as shared memory. */
export interface SharedPartition {
  readonly index: number;
  readonly rows: number;
  readonly batch: BatchWire | null;
  readonly keys: readonly KeyColumn[];
  readonly nullKeys: Uint8Array | null;
  readonly table: SharedTable | null;
  /** The partition's payload laid out as rows (build.ts), over the same shared rows; null: gathered by column. */
  readonly rowLayout: SharedRowLayout | null;
}

/** The bound join (`shareJoin`) and the shared build partitions. */
export interface ProbeTaskInit extends SharedJoin {
  /** The run's config, with `hash.build` set to the side the main thread built. */
  readonly config: Config;
  readonly parts: readonly SharedPartition[];
  readonly pool: SharedPoolHandle;
  /**
   * The dynamic filter's row test when the session opened (`ScanPredicate.shareRowTest`), run on
   * morsels the scan handed out unfiltered; null: none, or it cannot cross threads (rows kept).
   */
  readonly rowTest: SharedRowTest | null;
  /** The columns the row test reads (`ScanPredicate.columns`): a decoder decodes them first (late materialization). */
  readonly rowTestColumns: readonly string[];
}

/** A morsel to probe, or (no `batches`) the next chunk of the current one's output. */
export interface ProbeMorselInput {
  readonly morsel: number;
  /** Consecutive probe batches, probed in order (several small ones make one morsel). */
  readonly batches?: readonly BatchWire[];
  /** A container to decode here (`Scan.morsels`), instead of a batch. */
  readonly decode?: DecodeMorsel;
  /** The batch or container has not been through the row test yet (a morsel, not a scan batch). */
  readonly unfiltered?: boolean;
}

/**
 * What this worker did since the last reply, for the metrics: rows the row test dropped, and the
 * probe scan's work — the containers it decoded (counted by the decoder) and the row test on
 * batches handed out unfiltered (rows kept, time).
 */
interface DropCount {
  dropped: number;
  scan: ScanMetrics;
}

/**
 * The morsel's output: each batch through the row test, then the probe. `inputBuffers` collects
 * the buffers of every batch probed — a batch the row test cut is new memory, and output slices
 * point into it as they do into the decoded input, so a reply with more to come must not move it.
 */
function* probeAll(probe: HashJoinProbe, batches: readonly RecordBatch[], rowTest: RowTest | null, unfiltered: boolean, count: DropCount, inputBuffers: Set<ArrayBufferLike>): Generator<RecordBatch> {
  for (const buffer of buffersOf(batches)) inputBuffers.add(buffer);
  for (const b of batches) {
    const t0 = unfiltered ? performance.now() : 0;
    const rows = rowTest === null ? null : rowTest.selectRows(b);
    if (rows !== null) count.dropped += b.numRows - rows.length;
    // a batch the scan handed out unfiltered: its rows after the filter are counted here
    if (unfiltered) count.scan.rowsAfterFilter += rows === null ? b.numRows : rows.length;
    if (rows !== null && rows.length === 0) {
      if (unfiltered) count.scan.elapsedMs += performance.now() - t0;
      continue;
    }
    const probed = rows === null ? b : takeRows(b, rows);
    if (unfiltered) count.scan.elapsedMs += performance.now() - t0;
    if (probed !== b) for (const buffer of buffersOf([probed])) inputBuffers.add(buffer);
    yield* probe.probeBatch(probed);
  }
}

export interface ProbeMorselReply {
  readonly batches: readonly BatchWire[];
  readonly pairsMatched: number;
  /** Probe rows the restored row test dropped (`ProbeTaskInit.rowTest`) since the last reply. */
  readonly rowsDropped: number;
  /**
   * The probe scan's work done here since the last reply (containers decoded, the row test): a
   * delta the main thread adds into the scan's metrics (core/metrics.ts `addScanMetrics`).
   */
  readonly scan: ScanMetrics;
  /** The morsel has more output: ask the same worker (`worker`) to continue. */
  readonly more: boolean;
  readonly worker: number;
  readonly morsel: number;
}

/** Output bytes a worker sends per reply at most (plus one batch). */
export const REPLY_BYTES = 8 << 20;

export interface ProbeCloseReply {
  readonly matched: readonly Uint32Array[];
  readonly sawNullKey: boolean;
}

export const probeTask: WorkerTask = {
  name: PROBE_TASK,
  description: "the hash join's probe phase over shared build partitions, one probe batch per morsel",
  open(raw, env) {
    const init = raw as ProbeTaskInit;
    const { left, right, join } = bindSharedJoin(init);
    const schemaOnly = (schema: typeof left) => ({ schema, numRows: 0 }) as unknown as Scan;
    const inputs: JoinInputs = { left: schemaOnly(left), right: schemaOnly(right) };
    const plan = planHashJoin(join, inputs, init.config, env.registry);
    const buildSchema = plan.roles.build === 'left' ? left : right;
    const probeSchema = plan.roles.probe === 'left' ? left : right;
    const parts: PartitionBuild[] = init.parts.map((p) => {
      const batch = p.batch === null ? null : decodeBatch(p.batch, buildSchema);
      let table: JoinHashTable = EMPTY_TABLE;
      if (p.table !== null) {
        const layout = env.registry.resolve(HASHMAP, p.table.layout);
        if (layout.restore === undefined) throw new Error(`hashmap '${p.table.layout}' shared a table it cannot restore`);
        table = layout.restore(p.table, { keys: p.keys, rows: p.rows, nullEqualsNull: plan.nullEqualsNull });
      }
      const source = new RowSource(batch === null ? [] : [batch], buildSchema);
      if (p.rowLayout !== null && batch !== null) source.layout = RowLayout.restore(p.rowLayout, batch);
      return {
        index: p.index,
        rows: p.rows,
        batch,
        source,
        keys: p.keys,
        nullKeys: p.nullKeys,
        table,
        hashes: new Uint32Array(0),
        matched: new Bitset(p.rows),
      };
    });
    const pool = MemoryPool.attach(init.pool);
    const metrics = newOperatorMetrics('hash');
    const ctx: JoinContext = { config: init.config, registry: env.registry, pool, spill: new SpillManager(), metrics, operators: { join: metrics } };
    // One HashJoinProbe per open morsel: a probe's scratch (hashes, flags, pair and passthrough
    // arrays) lives across the yields of its batch's generator, and a second morsel may be opened
    // while the first's output is still being drained — sharing one probe, the second would
    // overwrite what the first resumes with. The probes share the partitions (read-only tables;
    // match bits only ever set, so any probe's workerState holds them all).
    const scratches: Reservation[] = [];
    // the residual filter's node buffers (core/expr/scratch.ts), against the query's one limit
    join.filter?.scratch.attach(pool.reservation(`hash-join filter scratch (worker ${env.workerIndex})`));
    const probes: HashJoinProbe[] = [];
    const idle: HashJoinProbe[] = [];
    const probeOf = new Map<number, HashJoinProbe>();
    const takeProbe = (): HashJoinProbe => {
      const free = idle.pop();
      if (free !== undefined) return free;
      const scratch = pool.reservation(`hash-join probe scratch ${probes.length} (worker ${env.workerIndex})`);
      scratches.push(scratch);
      const probe = new HashJoinProbe(plan, join, parts, { probe: probeSchema, build: buildSchema }, ctx, scratch);
      probes.push(probe);
      return probe;
    };
    const endMorsel = (morsel: number) => {
      open.delete(morsel);
      morselBuffers.delete(morsel);
      const probe = probeOf.get(morsel);
      if (probe !== undefined) idle.push(probe);
      probeOf.delete(morsel);
    };
    const rowTest = init.rowTest === null ? null : restoreRowTest(init.rowTest, { registry: env.registry });
    const drops: DropCount = { dropped: 0, scan: newScanMetrics() };
    const decodeTest: MorselRowTest | null = rowTest === null ? null : { columns: init.rowTestColumns, selectRows: (b) => rowTest.selectRows(b) };
    const held = pool.reservation(`hash-join probe output (worker ${env.workerIndex})`);
    // the morsel being probed: its output goes back in chunks of about REPLY_BYTES (a morsel of
    // a many-to-many join can yield far more than a worker should hold at once)
    // (by morsel id: a worker may hold a second morsel while the first's output is drained)
    const open = new Map<number, Iterator<RecordBatch>>();
    // per open morsel: the buffers of its input, which a reply must not move while more output
    // of the morsel is to come (zero-copy output slices point into them)
    const morselBuffers = new Map<number, Set<ArrayBufferLike>>();
    return {
      async run(input) {
        const x = input as ProbeMorselInput;
        if (x.batches !== undefined || x.decode !== undefined) {
          let batches: readonly RecordBatch[];
          let test = x.unfiltered ? rowTest : null;
          let unfiltered = x.unfiltered === true;
          if (x.batches !== undefined) batches = x.batches.map((w) => decodeBatch(w, probeSchema));
          else {
            // a container the scan handed out undecoded: decoded here, off the main thread, under
            // the row test (late materialization), its work counted into this reply's scan delta
            const scan = newScanMetrics();
            batches = await decodeMorsel(env.registry, x.decode!, { rowTest: x.unfiltered ? decodeTest : null, metrics: scan });
            addScanMetrics(drops.scan, scan);
            drops.dropped += Math.max(0, scan.rowsDecoded - scan.rowsAfterFilter);
            test = null;
            unfiltered = false;
          }
          const probe = takeProbe();
          probeOf.set(x.morsel, probe);
          const inputBuffers = new Set<ArrayBufferLike>();
          morselBuffers.set(x.morsel, inputBuffers);
          open.set(x.morsel, probeAll(probe, batches, test, unfiltered, drops, inputBuffers));
        }
        const current = open.get(x.morsel);
        if (current === undefined) throw new Error(`hash-join.probe: no morsel ${x.morsel} to continue`);
        const before = metrics.counters.pairsMatched ?? 0;
        let chunk: ReplyChunk;
        try {
          chunk = nextReplyChunk(current, held, REPLY_BYTES);
        } catch (e) {
          endMorsel(x.morsel);
          throw e;
        }
        const { batches: out, more } = chunk;
        if (!more) endMorsel(x.morsel);
        const { wires, transfer } = encodeBatches(out, 'transfer', more ? morselBuffers.get(x.morsel) : undefined);
        const value: ProbeMorselReply = { batches: wires, pairsMatched: (metrics.counters.pairsMatched ?? 0) - before, rowsDropped: drops.dropped, scan: drops.scan, more, worker: env.workerIndex, morsel: x.morsel };
        drops.dropped = 0;
        drops.scan = newScanMetrics();
        return reply(value, transfer);
      },
      close() {
        open.clear();
        morselBuffers.clear();
        for (const r of scratches) r.free();
        join.filter?.scratch.detach();
        const first = probes[0] ?? takeProbe();
        const state: ProbeCloseReply = { ...first.workerState(), sawNullKey: probes.some((p) => p.workerState().sawNullKey) };
        return reply(state, state.matched.map((w) => w.buffer as ArrayBuffer));
      },
    };
  },
};
