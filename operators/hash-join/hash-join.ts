/**
 * The hash join (`join=hash`): build a hash table over one input, publish a dynamic filter for
 * the other, then stream the other input through the table.
 *
 * - `hash.build` = left | right | auto (auto: the side with fewer rows by metadata, left on a
 *   tie); the other side is the probe and is the one the dynamic filter is pushed into.
 * - `hash.mode` = collect-left (one build shared by every probe batch) | partitioned (both sides
 *   hash-partitioned on the key into `hash.partitions` independent builds; each probe batch is
 *   split and each piece probes its own partition's table).
 * - The filter is composed from every partition's filter only once *all* partitions are built
 *   (a filter from some partitions would drop rows that belong to the others), and only when
 *   unmatched probe rows cannot reach the output (see roles.ts).
 *
 * - `hash.spill` = auto | off | always: a build side the memory pool cannot hold (with its table)
 *   is, under auto, joined by the grace hash join (grace.ts: both sides partitioned to spill files,
 *   the pairs joined one at a time); under off it is a MemoryLimitError; `always` takes the grace
 *   path whatever the size (what the parity draw and experiments use to exercise it).
 *
 * One run, in a few modules: plan.ts decides everything before a row is read (a pure function);
 * build.ts builds one table per partition from the collected build input, each reporting to the
 * pushdown barrier as it completes; probe.ts streams the probe input through the tables and emits
 * the build side's rows last; in-memory.ts runs those two over a build in memory; grace.ts when it
 * is not. `execute` below only collects the build side, picks the path and owns what spans the
 * run: the memory reservations, the dynamic filter and the operator's metrics.
 */
import type { RecordBatch } from 'apache-arrow';
import { batchByteSize } from '../../core/arrow/size.ts';
import type { JoinAlgorithm, JoinContext, JoinInputs } from '../../core/join-algorithm.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import { Pacer } from '../../core/next-turn.ts';
import type { BoundJoin } from '../../core/plan.ts';
import { publishWhenComplete } from '../../core/pushdown/compose.ts';
import { DynamicFilter, estimatedRows } from '../../core/scan/scan.ts';
import { MemoryLimitError } from '../../core/errors.ts';
import { collectScan } from '../common/collect.ts';
import { equiJoinUnsupportedReason } from '../common/roles.ts';
import { rangeAsResidual } from '../common/range-residual.ts';
import { graceHashJoin, inMemoryBytes, keyBytesPerRow } from './grace.ts';
import { joinInMemory } from './in-memory.ts';
import { planHashJoin } from './plan.ts';
import { requireShareable, serialProbeReason } from './parallel.ts';

export class HashJoin implements JoinAlgorithm {
  readonly name = 'hash';
  readonly description = 'hash join: build a hash table on one side, publish a dynamic filter, stream the other side';

  unsupportedReason(join: BoundJoin): string | null {
    return equiJoinUnsupportedReason(join);
  }

  async *execute(join: BoundJoin, inputs: JoinInputs, ctx: JoinContext): AsyncIterable<RecordBatch> {
    join = rangeAsResidual(join); // a range beside the keys is part of the residual filter
    const started = performance.now();
    const reservation = ctx.pool.reservation('hash-join build');
    const scratch = ctx.pool.reservation('hash-join probe scratch');
    const m = ctx.metrics;
    let rest: AsyncIterator<RecordBatch> | null = null;
    /** Why this join stays in memory though hash.spill allows spilling (said when memory runs out). */
    let noSpill: string | null = null;
    try {
      const plan = planHashJoin(join, inputs, ctx.config, ctx.registry);
      const { roles } = plan;
      const buildScan = inputs[roles.build];
      const probeScan = inputs[roles.probe];
      m.details.build = roles.build;
      m.details.mode = plan.mode;
      // The dynamic filter is published by a barrier that every partition reports to as its table
      // completes: only the last report publishes (a filter of some partitions drops rows).
      // Worker threads probe when there are some, the join can use them and the probe is large
      // enough to repay them (parallel.ts, core/parallel/threshold.ts). Before the build only the
      // static predicates are known: a probe that may be large is built in shared memory, and a
      // pool started already (warm) helps build it. Whether the probe runs on workers — and so
      // whether a pool not started yet starts — is decided once the build has published its
      // filter, from the probe's containers that filter cannot rule out.
      const workers = ctx.workers ?? null;
      const serial = workers === null ? null : serialProbeReason(plan, join);
      const staticProbeRows = estimatedRows(probeScan);
      const mayUseWorkers = workers !== null && serial === null && staticProbeRows >= ctx.config['parallel.minProbeRows'];
      if (mayUseWorkers) requireShareable(plan.layout);
      const buildOn = mayUseWorkers && workers.started ? workers : null;
      if (buildOn !== null && plan.partitions > 1) m.details.partitionsBuiltOn = `${buildOn.size} workers`;
      const filter = new DynamicFilter();
      const scanOptions = { signal: ctx.signal, lateMaterialization: ctx.config['scan.lateMaterialization'] };
      let buildBatches: readonly RecordBatch[];
      const spill = ctx.config['hash.spill'];
      // a NOT IN with a residual filter cannot spill: each outer row's inner set spans every partition (grace.ts)
      const filteredNotIn = join.spec.nullAware && join.filter !== undefined;
      if (spill !== 'off' && filteredNotIn) noSpill = 'a NOT IN with a residual filter cannot spill: each outer row would need the inner rows of every partition';
      if (spill === 'off' || filteredNotIn) buildBatches = await collectScan(buildScan, reservation, scanOptions);
      else {
        // collect while the pool could also give the table and the concatenation; past that, spill
        // (`always`: from the first row)
        rest = buildScan.batches(scanOptions)[Symbol.asyncIterator]();
        const collected = spill === 'always' ? { batches: [], complete: false } : await collectWhileFits(rest, reservation, keyBytesPerRow(plan), ctx.signal);
        if (!collected.complete) {
          yield* graceHashJoin({ join, plan, ctx, buildScan, probeScan, held: collected.batches, rest, reservation, scratch, filter });
          return;
        }
        rest = null;
        buildBatches = collected.batches;
      }
      const barrier = plan.pushdown !== null ? publishWhenComplete(filter, plan.pushdown) : null;
      yield* joinInMemory({ join, plan, buildBatches, buildScan, probeScan, ctx, reservation, scratch, filter, barrier, workers, serial, mayUseWorkers, buildOn, staticProbeRows });
      const published = filter.current();
      if (published?.rowTestSummary) m.details.rowFilter = published.rowTestSummary();
    } catch (e) {
      if (noSpill !== null && e instanceof MemoryLimitError) throw ctx.pool.limitError(`${e.consumer} (${noSpill}; raise memoryLimit)`, e.requested);
      throw e;
    } finally {
      await rest?.return?.();
      m.peakReservedBytes = Math.max(m.peakReservedBytes, reservation.peak + scratch.peak);
      reservation.free();
      scratch.free();
      m.elapsedMs += performance.now() - started;
    }
  }
}

/**
 * Drains the build input while the pool could hold it joined in memory (grace.ts
 * `inMemoryBytes`: the batches, their concatenation and the per-row table and keys). Reserves
 * only the batches' bytes, as `collectScan` does; `complete` false when a batch did not fit
 * (it is in `batches`, unreserved, and the input goes on in `rest`).
 */
async function collectWhileFits(rest: AsyncIterator<RecordBatch>, reservation: Reservation, keyBytes: number, signal?: AbortSignal): Promise<{ batches: RecordBatch[]; complete: boolean }> {
  const batches: RecordBatch[] = [];
  const pacer = new Pacer(signal);
  let rows = 0;
  for (let r = await rest.next(); !r.done; r = await rest.next()) {
    if (pacer.due()) await pacer.turn();
    const b = r.value;
    if (b.numRows === 0) continue;
    const bytes = batchByteSize(b);
    const need = inMemoryBytes(rows + b.numRows, reservation.size + bytes, keyBytes) - reservation.size;
    batches.push(b);
    if (!reservation.tryGrow(need)) return { batches, complete: false };
    reservation.shrink(need - bytes);
    rows += b.numRows;
  }
  return { batches, complete: true };
}
