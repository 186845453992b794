/**
 * The piecewise merge join's streamed phase on worker threads (config `threads` > 1), as
 * DataFusion's `PiecewiseMergeJoinExec` runs it: the buffered side built once and shared by every
 * streamed partition, the partitions in parallel, the matched buffered rows one watermark lowered
 * with `fetch_min` (piecewise_merge_join/classic_join.rs, existence_join.rs). Here the partitions
 * are the pool's workers (stream-task.ts), not `pwmj.partitions`.
 *
 * The main thread loads the buffered side as always, then sorts it and moves it into shared
 * memory once (`SortedBufferedSide.share`: rows, order, sorted keys and, for the classic joins, the
 * physically sorted copy their run output reads) — so it exists once however many workers search
 * it, and its main-thread copy is replaced by the shared one. The sort is therefore eager here:
 * the single-threaded join's lazy sort (a join whose streamed containers are all pruned, or an
 * existence join whose first batch matches every key, never sorts) would need the workers to ask
 * the main thread for it mid-stream. The watermark is created for one partition — the main
 * thread's, which emits the answer — and its `SharedArrayBuffer` attached by every worker.
 *
 * The main thread reads the streamed input (containers pruned by the extreme-key filter as
 * always) and hands each morsel to the next free worker (`PoolSession.map`, at most two in flight
 * per worker): a container a worker decodes itself (`Scan.morsels`), or a batch cut to at most
 * `MORSEL_ROWS` and copied once (a batch in shared memory crosses without a copy). Output comes
 * back as transferred buffers and is yielded in completion order (no join guarantees an order).
 * An existence join stops reading the streamed side as soon as the watermark reaches 0 (checked
 * before each morsel; the morsels already in flight finish, so a few more containers may be read
 * than single-threaded). Once every worker has closed its session the watermark is final and the
 * main thread emits what depends on it, through the same `finish()` as the single-threaded join:
 * a left / full join's unmatched buffered rows, or the semi / anti / mark answer.
 *
 * Stays on the calling thread (the join says why in `details.threads`): a streamed input too small
 * to repay the workers (estimated from its containers the extreme key cannot rule out, against
 * `parallel.minStartRows` while the pool is not started, `parallel.minProbeRows` once it is:
 * core/parallel/threshold.ts), and a buffered side without a non-NULL key (nothing is compared: the join short-circuits).
 * Errors in a worker reach the caller as the same typed error; an abort stops handing out
 * morsels and the session is closed whatever happens (`finally`), so no worker keeps working for
 * a consumer that is gone.
 */
import type { RecordBatch } from 'apache-arrow';
import { CancelledError } from '../../core/errors.ts';
import type { JoinContext } from '../../core/join-algorithm.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import { addScanMetrics, bump } from '../../core/metrics.ts';
import { Pacer } from '../../core/next-turn.ts';
import { decodeBatch, encodeBatch } from '../../core/parallel/wire.ts';
import type { WorkerPool } from '../../core/parallel/worker-pool.ts';
import type { BoundJoin } from '../../core/plan.ts';
import { isDecodeMorsel, type DecodeMorsel, type Scan, type ScanOptions } from '../../core/scan/scan.ts';
import { OutputPlan } from '../common/output.ts';
import { shareJoin } from '../common/worker-join.ts';
import { MORSEL_ROWS } from '../memory-scan/memory-scan.ts';
import type { SortedBufferedSide } from './buffered-side.ts';
import { ClassicPartition } from './classic.ts';
import { ExistencePartition } from './existence.ts';
import type { PiecewisePlan } from './plan.ts';
import { BatchScratch, type PiecewiseStats } from './scratch.ts';
import { STREAM_TASK, type StreamCloseReply, type StreamMorselInput, type StreamMorselReply, type StreamTaskInit } from './stream-task.ts';
import type { MinMarkedWatermark } from './watermark.ts';

/**
 * Why the streamed phase stays on the calling thread whatever its size once the buffered side is
 * loaded, or null (its size is core/parallel/threshold.ts's to judge).
 */
export function serialStreamReason(buffered: SortedBufferedSide): string | null {
  return buffered.nonNull === 0 ? 'no non-NULL buffered key: nothing to compare' : null;
}

export interface ParallelStreamArgs {
  readonly workers: WorkerPool;
  readonly join: BoundJoin;
  readonly plan: PiecewisePlan;
  /** The loaded buffered side (shared here, then replaced by its shared copy). */
  readonly buffered: SortedBufferedSide;
  /** Created for one partition: the main thread's, which emits the answer. */
  readonly watermark: MinMarkedWatermark;
  readonly streamed: Scan;
  readonly scanOptions: ScanOptions;
  readonly stats: PiecewiseStats;
  /** The main thread's scratch (the final output's gathers). */
  readonly scratch: Reservation;
  readonly ctx: JoinContext;
}

/** The join's output with the streamed phase on the pool's workers (see the module comment). */
export async function* parallelStream(a: ParallelStreamArgs): AsyncGenerator<RecordBatch> {
  const { ctx, plan, join, watermark, stats } = a;
  const m = ctx.metrics;
  const signal = ctx.signal;
  const cancelled = () => new CancelledError('the piecewise merge join was cancelled');
  const existence = plan.existence !== null;
  const fromMorsels = a.streamed.morsels !== undefined;
  const source = (a.streamed.morsels?.(a.scanOptions) ?? a.streamed.batches(a.scanOptions))[Symbol.asyncIterator]();
  let buffered = a.buffered;
  try {
    // the first non-empty item decides whether there is anything to stream: when every container
    // was pruned by the extreme key (or the input is empty) nothing is sorted, shared or started
    let first = await source.next();
    while (!first.done && !isDecodeMorsel(first.value) && first.value.numRows === 0) first = await source.next();
    if (first.done) m.details.threads = '1 (nothing to stream: the streamed input is empty or the extreme key pruned every container)';
    else {
      const shareStarted = performance.now();
      if (signal !== undefined) await a.buffered.sortPaced(new Pacer(signal)); // (share sorts it otherwise, in one step)
      const { side, shared } = a.buffered.share(plan.existence === null);
      buffered = side;
      bump(m, 'shareMs', performance.now() - shareStarted); // the sort, the sorted copy and the copies into shared memory
      const init: StreamTaskInit = {
        ...shareJoin(join),
        config: ctx.config,
        buffered: shared,
        watermark: watermark.buffer,
        pool: ctx.pool.share(),
      };
      const session = await a.workers.open(STREAM_TASK, init);
      try {
        let morsel = 0;
        let next: IteratorResult<RecordBatch | DecodeMorsel> = first;
        async function* morsels(): AsyncGenerator<{ input: StreamMorselInput; transfer?: readonly ArrayBuffer[] }> {
          while (!next.done) {
            if (signal?.aborted) throw cancelled();
            const item = next.value;
            if (isDecodeMorsel(item)) {
              bump(m, 'morsels');
              bump(m, 'morselsDecodedByWorkers');
              yield { input: { morsel: morsel++, decode: item } };
            } else {
              // a batch the scan handed out unfiltered (`Scan.morsels`): no worker tests its rows
              // (the extreme-key filter keeps every row of a container it keeps), so all count
              if (fromMorsels) a.streamed.metrics.rowsAfterFilter += item.numRows;
              // a huge batch is cut (zero copy) so that every worker gets a share of it
              for (let at = 0; at < item.numRows; at += MORSEL_ROWS) {
                if (existence && watermark.value === 0) return;
                const piece = item.numRows <= MORSEL_ROWS ? item : item.slice(at, Math.min(item.numRows, at + MORSEL_ROWS));
                bump(m, 'morsels');
                const { wire, transfer } = encodeBatch(piece, 'copy');
                yield { input: { morsel: morsel++, batch: wire }, transfer };
              }
            }
            // an existence join reads no further once every buffered row is marked
            if (existence && watermark.value === 0) return;
            next = await source.next();
          }
        }
        const outSchema = join.outputSchema;
        const followUp = (r: StreamMorselReply) => (r.more ? { worker: r.worker, input: { morsel: r.morsel } satisfies StreamMorselInput } : null);
        for await (const r of session.map<StreamMorselReply>(morsels(), { followUp })) {
          bump(m, 'morselReplies');
          // what the worker's decoding of streamed containers cost, into the streamed scan's metrics
          addScanMetrics(a.streamed.metrics, r.scan);
          for (const w of r.batches) {
            if (signal?.aborted) throw cancelled();
            yield decodeBatch(w, outSchema);
          }
        }
        for (const r of (await session.close()) as (StreamCloseReply | null)[]) if (r !== null) addStats(stats, r.stats);
      } finally {
        await session.close().catch(() => {});
      }
    }
  } finally {
    await source.return?.();
  }
  if (signal?.aborted) throw cancelled();
  // every worker has closed its session: the watermark is final
  const scratch = new BatchScratch(a.scratch);
  const batchSize = ctx.config.batchSize;
  if (plan.existence !== null) {
    const bufferedSchema = plan.buffered === 'left' ? join.leftSchema : join.rightSchema;
    const output = OutputPlan.oneSide(join.output, bufferedSchema, plan.buffered, ctx.pool);
    yield* new ExistencePartition({ plan, buffered, watermark, output, batchSize, stats }, scratch).finish();
  } else {
    const streamedSchema = plan.streamed === 'left' ? join.leftSchema : join.rightSchema;
    const output = OutputPlan.pairs(join.output, join.leftSchema, join.rightSchema, ctx.pool);
    yield* new ClassicPartition({ plan, buffered, watermark, output, streamedSchema, batchSize, stats }, scratch).finish();
  }
}

function addStats(into: PiecewiseStats, s: PiecewiseStats): void {
  for (const k of Object.keys(into) as (keyof PiecewiseStats)[]) into[k] += s[k];
}
