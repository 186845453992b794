/**
 * The piecewise merge join (`join=piecewise`): a join on one range predicate `<, <=, >, >=` and
 * no equi-key — DuckDB's `PhysicalPiecewiseMergeJoin`, DataFusion's `PiecewiseMergeJoinExec`.
 *
 * The buffered side (plan.ts says which) is held and sorted once (buffered-side.ts); the other side
 * streams, batch by batch, dealt round-robin to `pwmj.partitions` streamed partitions that share
 * the buffered side and one watermark (watermark.ts). Because every streamed row's match set is a
 * suffix of the sorted buffered side:
 *  - inner / left / right / full (classic.ts): a prefilter against the buffered extreme key drops
 *    or emits unmatched every row that cannot match before anything is sorted; the survivors are
 *    sorted and each one's first match is searched for (`pwmj.search`: `binary` or the `linear`
 *    baseline) from the previous one's; the unmatched buffered rows are the prefix before the
 *    watermark;
 *  - semi / anti / mark (existence.ts): a batch is reduced to its extreme row, one search lowers
 *    the watermark, and the answer is read off the watermark at the end. The streamed side stops
 *    being read once every buffered row is marked.
 * An empty or all-NULL buffered side short-circuits: nothing is compared, and the streamed side is
 * read only when its rows are output unmatched (right / full).
 *
 * With worker threads (config `threads` > 1, `ctx.workers`) and a streamed input large enough to
 * repay them (core/parallel/threshold.ts), the streamed partitions are the workers instead (parallel.ts,
 * stream-task.ts): the sorted buffered side and the watermark in shared memory, the same partition
 * code on each worker, the buffered side's rows emitted here once every worker is done.
 * `details.threads` says which ran, or why not.
 *
 * Refused before any data is read (`unsupportedReason`): equi-keys, no range predicate, a residual
 * filter (the planner rule of DataFusion: a piecewise merge join only when the range predicate is
 * the whole join condition), NOT IN. `join=auto` picks this algorithm for exactly the joins it runs.
 */
import { Pacer } from '../../core/next-turn.ts';
import type { RecordBatch } from 'apache-arrow';
import type { JoinAlgorithm, JoinContext, JoinInputs } from '../../core/join-algorithm.ts';
import { UnsupportedJoinError } from '../../core/errors.ts';
import { bump } from '../../core/metrics.ts';
import type { BoundJoin } from '../../core/plan.ts';
import { chooseWorkers, threadsDetail } from '../../core/parallel/threshold.ts';
import { DynamicFilter, estimatedRows } from '../../core/scan/scan.ts';
import { OutputPlan } from '../common/output.ts';
import { SortedBufferedSide } from './buffered-side.ts';
import { ClassicPartition } from './classic.ts';
import { ExistencePartition } from './existence.ts';
import { ExtremeKeyFilter } from './range-filter.ts';
import { parallelStream, serialStreamReason } from './parallel.ts';
import { piecewiseUnsupportedReason, planPiecewise, type PiecewisePlan } from './plan.ts';
import { BatchScratch, newPiecewiseStats, type PiecewiseStats } from './scratch.ts';
import { MinMarkedWatermark } from './watermark.ts';

export class PiecewiseMergeJoin implements JoinAlgorithm {
  readonly name = 'piecewise';
  readonly description =
    'piecewise merge join: one range predicate (<, <=, >, >=) and no equi-key; the buffered side sorted, a prefilter against its extreme key (pwmj.prefilter), a first-match search per streamed row (pwmj.search), one watermark for semi/anti/mark';

  unsupportedReason(join: BoundJoin): string | null {
    return piecewiseUnsupportedReason(join.spec);
  }

  async *execute(join: BoundJoin, inputs: JoinInputs, ctx: JoinContext): AsyncIterable<RecordBatch> {
    const started = performance.now();
    const reason = this.unsupportedReason(join);
    if (reason !== null) throw new UnsupportedJoinError(`join algorithm 'piecewise' cannot run this join: ${reason}`);
    const plan = planPiecewise(join, ctx.config, ctx.registry);
    const m = ctx.metrics;
    m.details.buffered = `${plan.buffered} (sorted ${plan.descending ? 'DESC' : 'ASC'}, ${plan.bufferedKey} ${plan.op} ${plan.streamed}.${plan.streamedKey})`;
    m.details.search = plan.search.name;
    m.details.prefilter = String(plan.prefilter);
    const stats = newPiecewiseStats();
    const held = ctx.pool.reservation('piecewise merge join buffered side');
    const scratches = Array.from({ length: plan.partitions }, (_, i) => ctx.pool.reservation(`piecewise merge join streamed partition ${i}`));
    let buffered: SortedBufferedSide | null = null;
    let watermark: MinMarkedWatermark | null = null;
    try {
      const bufferedSchema = plan.buffered === 'left' ? join.leftSchema : join.rightSchema;
      const streamedSchema = plan.streamed === 'left' ? join.leftSchema : join.rightSchema;
      const workers = ctx.workers ?? null;
      buffered = await SortedBufferedSide.load(inputs[plan.buffered], bufferedSchema, plan, held, ctx.signal);
      const batchSize = ctx.config.batchSize;
      const filter = new DynamicFilter();
      const extreme = ExtremeKeyFilter.forJoin(plan, buffered, streamedSchema.fields.find((f) => f.name === plan.streamedKey)!.type);
      if (extreme !== null) {
        filter.publish(extreme);
        m.details.dynamicFilter = extreme.description;
      }
      // on workers when the streamed rows the extreme key cannot rule out repay them
      // (core/parallel/threshold.ts; a pool not started yet starts in parallel.ts, at the first morsel)
      const serial = workers === null ? null : serialStreamReason(buffered);
      const choice = serial !== null ? { pool: null, why: serial } : chooseWorkers(workers, estimatedRows(inputs[plan.streamed], extreme !== null ? filter : undefined), ctx.config, 'streamed input');
      const parallel = choice.pool !== null;
      m.details.threads = threadsDetail(workers, choice);
      // on workers, the partitions are the workers and only the main thread finishes (parallel.ts)
      watermark = MinMarkedWatermark.create(buffered.nonNull, parallel ? 1 : plan.partitions);
      const scanOptions = { signal: ctx.signal, pageIndex: ctx.config['scan.pageIndex'] !== 'off', ...(extreme !== null ? { filter } : {}) };
      const pacer = new Pacer(ctx.signal);
      const side = buffered;
      // a turn of the event loop now and then between streamed batches (a batch that matches
      // nothing yields nothing for Engine.stream to pace on); under a signal, the buffered side's
      // sort in steps before the first batch whose processing would sort it (seconds on millions
      // of rows: an abort ends it there)
      const streamedBatches = async function* (needsSort: (b: RecordBatch) => boolean): AsyncGenerator<RecordBatch> {
        for await (const b of inputs[plan.streamed].batches(scanOptions)) {
          if (pacer.due()) await pacer.turn();
          if (ctx.signal !== undefined && !side.sorted && needsSort(b)) await side.sortPaced(pacer);
          yield b;
        }
      };
      if (parallel) {
        yield* parallelStream({ workers: workers!, join, plan, buffered, watermark, streamed: inputs[plan.streamed], scanOptions, stats, scratch: scratches[0]!, ctx });
      } else if (plan.existence !== null) {
        const c = { plan, buffered, watermark, output: OutputPlan.oneSide(join.output, bufferedSchema, plan.buffered, ctx.pool), batchSize, stats };
        const parts = Array.from({ length: plan.partitions }, (_, i) => new ExistencePartition(c, new BatchScratch(scratches[i]!)));
        if (parts[0]!.canMark) {
          let i = 0;
          for await (const batch of streamedBatches((b) => parts[0]!.needsSort(b))) {
            if (!parts[i++ % parts.length]!.process(batch)) break;
          }
        }
        for (const p of parts) yield* p.finish();
      } else {
        const c = { plan, buffered, watermark, output: OutputPlan.pairs(join.output, join.leftSchema, join.rightSchema, ctx.pool), streamedSchema, batchSize, stats };
        const parts = Array.from({ length: plan.partitions }, (_, i) => new ClassicPartition(c, new BatchScratch(scratches[i]!)));
        if (buffered.nonNull > 0 || plan.streamedOuter) {
          let i = 0;
          for await (const batch of streamedBatches((b) => parts[0]!.needsSort(b))) yield* parts[i++ % parts.length]!.process(batch);
        }
        for (const p of parts) yield* p.finish();
      }
    } finally {
      record(m, plan, stats, buffered, watermark);
      m.peakReservedBytes = Math.max(m.peakReservedBytes, ctx.pool.peak);
      held.free();
      for (const r of scratches) r.free();
      m.elapsedMs += performance.now() - started;
    }
  }
}

function record(m: JoinContext['metrics'], plan: PiecewisePlan, s: PiecewiseStats, buffered: SortedBufferedSide | null, watermark: MinMarkedWatermark | null): void {
  bump(m, `${plan.buffered}Rows`, buffered?.rows ?? 0);
  bump(m, `${plan.streamed}Rows`, s.streamedRows);
  bump(m, 'bufferedNullKeys', buffered === null ? 0 : buffered.rows - buffered.nonNull);
  bump(m, 'searches', s.searches);
  if (plan.existence === null) {
    bump(m, 'candidates', s.candidates);
    bump(m, 'pairs', s.pairs);
    bump(m, 'runBatches', s.runBatches);
    bump(m, 'streamedUnmatched', s.streamedUnmatched);
    bump(m, 'bufferedUnmatched', s.bufferedUnmatched);
  } else {
    bump(m, 'batchesSkipped', s.batchesSkipped);
    bump(m, 'batchesAllMatched', s.batchesAllMatched);
    if (!plan.prefilter) bump(m, 'candidates', s.candidates);
  }
  if (buffered !== null) m.details.bufferedSort = buffered.sorted ? 'sorted' : buffered.nonNull === 0 ? 'nothing to sort' : 'not needed (no streamed batch needed it)';
  if (watermark !== null) m.details.minMarked = `${watermark.value} of ${buffered!.nonNull} non-NULL buffered keys`;
}
