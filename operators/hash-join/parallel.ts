/**
 * The hash join's probe phase on worker threads (config `threads` > 1), morsel-driven.
 *
 * The build runs as in the single-threaded join (build.ts), with its tables allocated in shared
 * memory (`BuildInput.shared`). `shareBuild` then puts the rest of each partition there — its
 * rows and normalised keys — and replaces the main thread's table by one restored over the
 * shared state, so the build exists once in memory however many workers probe it. Every worker
 * opens a session of `hash-join.probe` (probe-task.ts) over that memory.
 *
 * The main thread reads the probe input — the scan prunes containers and applies the dynamic
 * filter as always — and hands its batches, a few consecutive ones per morsel (`morselRowsFor`),
 * or the containers a scan lets workers decode themselves (`Scan.morsels`: then the workers run
 * the filter's row test, `ProbeTaskInit.rowTest`), to the next free worker (`PoolSession.map`: at most two
 * per worker in flight, so a worker never waits for its next morsel while the main thread is
 * busy). A batch in shared memory (a table read by `readTable`, or made with `shareTable`) crosses
 * without a copy; any other is copied once, into buffers of its own size (`morselBytesCopied`
 * counts them: the calling thread's copying competes with the workers for the cores). Workers answer with their output batches as
 * transferred buffers, which the main thread yields in the order they complete: output order
 * differs from the single-threaded join's (no join guarantees an order). Each reply carries the
 * scan work the worker did for it (containers decoded, rows tested: `ProbeMorselReply.scan`),
 * added into the probe scan's metrics, so they count the same work at every thread count
 * (core/metrics.ts). Once the probe input is
 * exhausted, every worker's match bits are ORed into the main thread's partitions and the build
 * side's rows (outer joins' unmatched build rows, build-side semi/anti/mark) are emitted there.
 *
 * Not parallel (the join says why in its metrics, `details.threads`): a probe too small to repay
 * the workers — estimated from the probe's containers that the static predicates and the published
 * filter cannot rule out, against `parallel.minStartRows` while the pool is not started and
 * `parallel.minProbeRows` once it is (core/parallel/threshold.ts) — and NOT IN with a residual
 * filter whose outer side is the build (its per-build-row state observes every probe batch in
 * order, not-in.ts).
 */
import type { RecordBatch } from 'apache-arrow';
import { RowSource } from '../../core/arrow/gather.ts';
import { RowLayout } from '../../core/arrow/row-layout.ts';
import { batchByteSize } from '../../core/arrow/size.ts';
import { CancelledError, UnsupportedJoinError } from '../../core/errors.ts';
import type { HashMapLayout } from '../../core/hashmap.ts';
import type { JoinContext } from '../../core/join-algorithm.ts';
import { keyColumnBytes, type KeyColumn } from '../../core/keys/types.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import { addScanMetrics, bump } from '../../core/metrics.ts';
import { buffersOf, decodeBatch, encodeBatch, shareBatch, shareKeyColumn, shareView, type BatchWire } from '../../core/parallel/wire.ts';
import type { WorkerPool } from '../../core/parallel/worker-pool.ts';
import type { BoundJoin } from '../../core/plan.ts';
import { isDecodeMorsel, type DynamicFilter, type Scan } from '../../core/scan/scan.ts';
import { MORSEL_ROWS } from '../memory-scan/memory-scan.ts';
import { shareJoin } from '../common/worker-join.ts';
import type { PartitionBuild } from './build.ts';
import type { HashJoinPlan } from './plan.ts';
import type { HashJoinProbe } from './probe.ts';
import { PROBE_TASK, type ProbeCloseReply, type ProbeMorselInput, type ProbeMorselReply, type ProbeTaskInit, type SharedPartition } from './probe-task.ts';

/**
 * Rows per morsel when batches are handed out from the calling thread: consecutive batches are
 * gathered until a morsel holds this many rows — the probe input spread over about
 * `MORSELS_PER_WORKER` morsels per worker (enough to balance the load), at most `MAX_MORSEL_ROWS`.
 * A morsel costs its worker a message each way, a decode and a reply whatever its size (profiled:
 * ~0.6 ms of a 64K-row morsel's ~1.5 ms on the hash-join suite's int64 probe at 2 threads), so a
 * cheap probe of one 64K-row batch per morsel spends much of its time on the hand-over.
 */
export function morselRowsFor(probeRows: number, workers: number): number {
  return Math.max(1, Math.min(MAX_MORSEL_ROWS, Math.floor(probeRows / (Math.max(1, workers) * MORSELS_PER_WORKER))));
}
const MAX_MORSEL_ROWS = 1 << 20;
const MORSELS_PER_WORKER = 8;

/**
 * Why this join's probe cannot run on workers whatever its size, or null (its size is
 * core/parallel/threshold.ts's to judge).
 */
export function serialProbeReason(plan: HashJoinPlan, join: BoundJoin): string | null {
  if (plan.roles.nullAwareOuter === 'build' && join.filter) return 'NOT IN with a residual filter over the build side observes the probe input in order';
  return null;
}

/** The layout can hand its tables to worker threads, or an UnsupportedJoinError saying it cannot. */
export function requireShareable(layout: HashMapLayout): void {
  if (layout.restore === undefined) {
    throw new UnsupportedJoinError(
      `hashmap '${layout.name}' cannot be probed from worker threads (threads > 1): it has no share()/restore() (core/hashmap.ts); implement them, or run with threads=1`,
    );
  }
}

/**
 * Each partition in shared memory: rows, keys and NULL bytes copied there (their bytes reserved
 * first, the originals' released), the table restored over its shared state. Rows the build put in
 * shared memory already (a collect-left build, build.ts) are not copied, so not reserved again.
 * Returns the main thread's new partitions and what the workers' sessions open with.
 */
export function shareBuild(parts: readonly PartitionBuild[], layout: HashMapLayout, nullEqualsNull: boolean, reservation: Reservation): { parts: PartitionBuild[]; shared: SharedPartition[] } {
  const mainParts: PartitionBuild[] = [];
  const shared: SharedPartition[] = [];
  for (const p of parts) {
    if (p.batch === null || p.rows === 0) {
      mainParts.push(p);
      shared.push({ index: p.index, rows: 0, batch: null, keys: [], nullKeys: null, table: null, rowLayout: null });
      continue;
    }
    const keyBytes = p.keys.reduce((n, k) => n + keyColumnBytes(k), 0);
    const rowBytes = buffersOf([p.batch]).size === 0 ? 0 : batchByteSize(p.batch);
    const bytes = rowBytes + keyBytes + (p.nullKeys?.byteLength ?? 0);
    reservation.grow(bytes);
    const batch = shareBatch(p.batch);
    const keys = p.keys.map(shareKeyColumn);
    const nullKeys = p.nullKeys === null ? null : shareView(p.nullKeys);
    // built with `shared: true`, the table's arrays are already shared: share() copies nothing, and
    // the original must not release them to the buffer cache (the restored table reads them)
    const table = p.table.share!();
    const restored = layout.restore!(table, { keys, rows: p.rows, nullEqualsNull });
    reservation.shrink(bytes); // the originals are garbage now: only the shared copies are held
    // the payload rows were laid out in shared memory (build.ts): restored over the shared batch
    const rowLayout = p.source.layout === null ? null : p.source.layout.share();
    const source = new RowSource([batch], p.source.schema);
    if (rowLayout !== null) source.layout = RowLayout.restore(rowLayout, batch);
    mainParts.push({ ...p, batch, source, keys, nullKeys, table: restored });
    shared.push({ index: p.index, rows: p.rows, batch: encodeBatch(batch, 'copy').wire, keys, nullKeys, table, rowLayout });
  }
  return { parts: mainParts, shared };
}

export interface ParallelProbeArgs {
  readonly workers: WorkerPool;
  readonly join: BoundJoin;
  readonly plan: HashJoinPlan;
  /** The main thread's probe over the shared partitions: merges the workers' match bits and emits the build side's rows. */
  readonly probe: HashJoinProbe;
  readonly shared: readonly SharedPartition[];
  readonly probeScan: Scan;
  readonly filter: DynamicFilter;
  readonly ctx: JoinContext;
}

/** The join's output with the probe phase on the pool's workers (see the module comment). */
export async function* parallelProbe(a: ParallelProbeArgs): AsyncGenerator<RecordBatch> {
  const { ctx, plan, join } = a;
  const m = ctx.metrics;
  // the filter is complete before the probe starts (the build published it); a filter an upper
  // join publishes later still prunes containers here, and the workers just keep those rows
  const predicate = a.filter.current();
  const rowTest = predicate?.shareRowTest?.() ?? null;
  const unfiltered = a.probeScan.morsels !== undefined;
  if (unfiltered) m.details.workerRowTest = predicate === null ? 'none (no filter published)' : rowTest === null ? 'none (not shareable or no row test: workers keep every row)' : 'shared';
  const init: ProbeTaskInit = {
    ...shareJoin(join),
    config: { ...ctx.config, 'hash.build': plan.roles.build },
    parts: a.shared,
    pool: ctx.pool.share(),
    rowTest,
    rowTestColumns: rowTest === null ? [] : predicate!.columns,
  };
  const session = await a.workers.open(PROBE_TASK, init);
  try {
    const scan = a.probeScan;
    const signal = ctx.signal;
    let morsel = 0;
    const scanOptions = { filter: a.filter, signal, bloomFilters: ctx.config['pushdown.parquetBloom'], pageIndex: ctx.config['scan.pageIndex'] !== 'off', lateMaterialization: ctx.config['scan.lateMaterialization'] };
    // containers the workers decode themselves when the scan offers them, else batches from here
    const source = scan.morsels?.(scanOptions) ?? scan.batches(scanOptions);
    // batches waiting to be handed out as one morsel
    let pending: BatchWire[] = [];
    let pendingTransfer: ArrayBuffer[] = [];
    let pendingRows = 0;
    const flush = () => {
      bump(m, 'morsels');
      const input: ProbeMorselInput = { morsel: morsel++, batches: pending, unfiltered };
      const out = { input, transfer: pendingTransfer };
      pending = [];
      pendingTransfer = [];
      pendingRows = 0;
      return out;
    };
    const morselRows = morselRowsFor(scan.numRows, a.workers.size);
    async function* morsels() {
      for await (const item of source) {
        if (isDecodeMorsel(item)) {
          bump(m, 'probeRows', item.rows);
          bump(m, 'morsels');
          bump(m, 'morselsDecodedByWorkers');
          const input: ProbeMorselInput = { morsel: morsel++, decode: item, unfiltered };
          yield { input };
          continue;
        }
        bump(m, 'probeRows', item.numRows);
        // a huge batch is cut (zero copy) so that every worker gets a share of it; small ones
        // are gathered into one morsel of about `morselRows`
        for (let at = 0; at < item.numRows; at += MORSEL_ROWS) {
          const piece = item.numRows <= MORSEL_ROWS ? item : item.slice(at, Math.min(item.numRows, at + MORSEL_ROWS));
          const { wire, transfer } = encodeBatch(piece, 'copy');
          // what the hand-over copied (0 for a table in shared memory: `readTable`, `shareTable`)
          bump(m, 'morselBytesCopied', transfer.reduce((n, b) => n + b.byteLength, 0));
          pending.push(wire);
          pendingTransfer.push(...transfer);
          pendingRows += piece.numRows;
          if (pendingRows >= morselRows) yield flush();
        }
      }
      if (pendingRows > 0) yield flush();
    }
    const outSchema = join.outputSchema;
    const followUp = (r: ProbeMorselReply) => (r.more ? { worker: r.worker, input: { morsel: r.morsel } satisfies ProbeMorselInput } : null);
    for await (const r of session.map<ProbeMorselReply>(morsels(), { signal, followUp })) {
      bump(m, 'morselReplies');
      bump(m, 'pairsMatched', r.pairsMatched);
      // what the worker's decoding and row test of probe morsels cost, into the probe scan's metrics
      addScanMetrics(scan.metrics, r.scan);
      if (r.rowsDropped > 0) bump(m, 'workerRowTestDropped', r.rowsDropped);
      for (const w of r.batches) {
        if (signal?.aborted) throw signal.reason ?? new CancelledError('the join was cancelled');
        yield decodeBatch(w, outSchema);
      }
    }
    for (const state of (await session.close()) as ProbeCloseReply[]) a.probe.mergeWorker(state);
    yield* a.probe.buildSideOutput(scan);
  } finally {
    await session.close().catch(() => {});
  }
}
