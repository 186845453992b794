/**
 * The piecewise merge join's streamed phase on a worker thread (worker task `piecewise.stream`,
 * parallel.ts starts it) — DataFusion's `PiecewiseMergeJoinExec` shape: the buffered side is
 * built once and shared, the streamed partitions run in parallel against it, and the matched
 * buffered rows are one `AtomicUsize` lowered with `fetch_min` (piecewise_merge_join/
 * classic_join.rs, existence_join.rs).
 *
 * A session is one join's streamed phase on one worker. `open` receives the sorted buffered side
 * as shared memory (`SortedBufferedSide.restore`: rows, order, sorted keys, the physically sorted
 * copy — nothing copied) and the `SharedArrayBuffer` of the join's one `MinMarkedWatermark`,
 * which it attaches: every worker lowers the same cell the main thread reads, so the watermark is
 * the union of what every thread's streamed rows matched, exactly as in the single-threaded join.
 * Each `run` is one morsel — a streamed batch copied to this worker, or a container it decodes
 * itself (slot `scan-decoder`) — through the very `ClassicPartition` / `ExistencePartition` the
 * single-threaded join runs (no matching logic of its own):
 *  - classic (inner / left / right / full): the morsel's pairs and unmatched streamed rows go back
 *    as transferred buffers, about `REPLY_BYTES` a reply; a morsel with more output than that says
 *    `more` and the same worker continues it on a follow-up request. One partition per open
 *    morsel: a partition's pair loop is suspended between replies, and a second morsel may be
 *    opened on this worker meanwhile.
 *  - existence (semi / anti / mark): a morsel only lowers the watermark; the reply says whether
 *    anything can still be marked (the main thread stops reading the streamed side when not).
 * No worker ever calls `finish()`: what depends on the final watermark (a left / full join's
 * unmatched buffered rows, the semi / anti / mark answer) is emitted once, by the main thread,
 * after every worker has closed its session — the close is the barrier the watermark's RUNNING
 * counter is in the single-threaded join. `close` answers with this worker's counters.
 *
 * Memory: scratch and output are reserved against the query's pool (`MemoryPool.attach`: one
 * limit across threads); the shared buffered side is the main thread's reservation.
 */
import type { RecordBatch } from 'apache-arrow';
import type { Config } from '../../core/config/schema.ts';
import { MemoryPool, type Reservation, type SharedPoolHandle } from '../../core/memory/pool.ts';
import { buffersOf, decodeBatch, encodeBatches, type BatchWire } from '../../core/parallel/wire.ts';
import { reply, type WorkerTask } from '../../core/parallel/task.ts';
import { nextReplyChunk, type ReplyChunk } from '../../core/parallel/reply-chunks.ts';
import { newScanMetrics, type ScanMetrics } from '../../core/metrics.ts';
import { decodeMorsel } from '../../core/scan/decode-morsel.ts';
import type { DecodeMorsel } from '../../core/scan/scan.ts';
import { OutputPlan } from '../common/output.ts';
import { bindSharedJoin, type SharedJoin } from '../common/worker-join.ts';
import { SortedBufferedSide, type SharedBufferedSide } from './buffered-side.ts';
import { ClassicPartition, type ClassicContext } from './classic.ts';
import { ExistencePartition } from './existence.ts';
import { planPiecewise } from './plan.ts';
import { BatchScratch, newPiecewiseStats, type PiecewiseStats } from './scratch.ts';
import { MinMarkedWatermark } from './watermark.ts';

export const STREAM_TASK = 'piecewise.stream';

/** Output bytes a worker sends per reply at most (plus one batch). */
export const REPLY_BYTES = 8 << 20;

/** The bound join (`shareJoin`) and what the streamed phase shares. */
export interface StreamTaskInit extends SharedJoin {
  readonly config: Config;
  readonly buffered: SharedBufferedSide;
  /** `MinMarkedWatermark.buffer` of the main thread's watermark. */
  readonly watermark: SharedArrayBuffer;
  readonly pool: SharedPoolHandle;
}

/** A morsel to run, or (neither `batch` nor `decode`) the next chunk of an open one's output. */
export interface StreamMorselInput {
  readonly morsel: number;
  readonly batch?: BatchWire;
  /** A container to decode here (`Scan.morsels`), instead of a batch. */
  readonly decode?: DecodeMorsel;
}

export interface StreamMorselReply {
  readonly batches: readonly BatchWire[];
  /** The streamed scan's work done here since the last reply (containers decoded): a delta for the scan's metrics. */
  readonly scan: ScanMetrics;
  /** The morsel has more output: ask the same worker (`worker`) to continue. */
  readonly more: boolean;
  readonly worker: number;
  readonly morsel: number;
}

export interface StreamCloseReply {
  readonly stats: PiecewiseStats;
}

function* processAll(part: ClassicPartition, batches: readonly RecordBatch[]): Generator<RecordBatch> {
  for (const b of batches) yield* part.process(b);
}

export const streamTask: WorkerTask = {
  name: STREAM_TASK,
  description: "the piecewise merge join's streamed partitions over a shared sorted buffered side and one shared minMarked watermark",
  open(raw, env) {
    const init = raw as StreamTaskInit;
    const { left, right, join } = bindSharedJoin(init);
    const plan = planPiecewise(join, init.config, env.registry);
    const bufferedSchema = plan.buffered === 'left' ? left : right;
    const streamedSchema = plan.streamed === 'left' ? left : right;
    const pool = MemoryPool.attach(init.pool);
    const reservations: Reservation[] = [];
    const reserve = (what: string) => {
      const r = pool.reservation(`piecewise merge join ${what} (worker ${env.workerIndex})`);
      reservations.push(r);
      return r;
    };
    // the residual filter's node buffers (core/expr/scratch.ts), freed with the task
    join.filter?.scratch.attach(reserve('filter scratch'));
    const buffered = SortedBufferedSide.restore(init.buffered, bufferedSchema, plan, reserve('buffered side'));
    const watermark = MinMarkedWatermark.attach(init.watermark);
    const stats = newPiecewiseStats();
    const batchSize = init.config.batchSize;
    // what decoding containers here cost since the last reply (the streamed scan's metrics)
    let scan = newScanMetrics();
    const scanDelta = (): ScanMetrics => {
      const out = scan;
      scan = newScanMetrics();
      return out;
    };
    const decode = async (x: StreamMorselInput): Promise<readonly RecordBatch[]> => {
      if (x.batch !== undefined) return [decodeBatch(x.batch, streamedSchema)];
      // a container the scan handed out undecoded: decoded here, off the main thread (no row
      // test: the extreme-key filter keeps every row of a container it keeps)
      return decodeMorsel(env.registry, x.decode!, { metrics: scan });
    };
    const close = () => {
      for (const r of reservations) r.free();
      join.filter?.scratch.detach();
      return reply({ stats } satisfies StreamCloseReply);
    };

    if (plan.existence !== null) {
      const output = OutputPlan.oneSide(join.output, bufferedSchema, plan.buffered, pool);
      const part = new ExistencePartition({ plan, buffered, watermark, output, batchSize, stats }, new BatchScratch(reserve('streamed partition')));
      return {
        async run(input) {
          const x = input as StreamMorselInput;
          for (const b of await decode(x)) if (!part.process(b)) break;
          return reply({ batches: [], scan: scanDelta(), more: false, worker: env.workerIndex, morsel: x.morsel } satisfies StreamMorselReply);
        },
        close,
      };
    }

    const c: ClassicContext = { plan, buffered, watermark, output: OutputPlan.pairs(join.output, join.leftSchema, join.rightSchema, pool), streamedSchema, batchSize, stats };
    // one partition per open morsel (its pair loop lives across the replies of its output)
    const idle: ClassicPartition[] = [];
    const open = new Map<number, { readonly part: ClassicPartition; readonly out: Iterator<RecordBatch>; readonly buffers: Set<ArrayBufferLike> }>();
    const end = (morsel: number) => {
      const o = open.get(morsel);
      if (o === undefined) return;
      open.delete(morsel);
      idle.push(o.part);
    };
    const held = reserve('output');
    return {
      async run(input) {
        const x = input as StreamMorselInput;
        if (x.batch !== undefined || x.decode !== undefined) {
          const batches = await decode(x);
          const part = idle.pop() ?? new ClassicPartition(c, new BatchScratch(reserve(`streamed partition ${reservations.length}`)));
          open.set(x.morsel, { part, out: processAll(part, batches), buffers: buffersOf(batches) });
        }
        const current = open.get(x.morsel);
        if (current === undefined) throw new Error(`${STREAM_TASK}: no morsel ${x.morsel} to continue`);
        let chunk: ReplyChunk;
        try {
          chunk = nextReplyChunk(current.out, held, REPLY_BYTES);
        } catch (e) {
          open.delete(x.morsel); // not reused: its pair loop stopped mid-batch (the join fails anyway)
          throw e;
        }
        const { batches: out, more } = chunk;
        if (!more) end(x.morsel);
        // output may slice the morsel's own buffers: they are moved only once its output is complete
        const { wires, transfer } = encodeBatches(out, 'transfer', more ? current.buffers : undefined);
        return reply({ batches: wires, scan: scanDelta(), more, worker: env.workerIndex, morsel: x.morsel } satisfies StreamMorselReply, transfer);
      },
      close() {
        for (const o of open.values()) o.out.return?.(undefined); // releases each partition's scratch (its finally)
        open.clear();
        return close();
      },
    };
  },
};
