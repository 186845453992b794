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
 * One run, in three modules: plan.ts decides everything before a row is read (a pure function);
 * build.ts collects the build input and builds one table per partition, each reporting to the
 * pushdown barrier as it completes; probe.ts streams the probe input through the tables and emits
 * the build side's rows last. `execute` below only wires them together and owns what spans the
 * run: the memory reservations, the dynamic filter and the operator's metrics.
 */
import { nextTurn } from '../../core/next-turn.ts';
import type { RecordBatch } from 'apache-arrow';
import { batchByteSize } from '../../core/arrow/size.ts';
import type { JoinAlgorithm, JoinContext, JoinInputs } from '../../core/join-algorithm.ts';
import { TABLE_SEED } from '../../core/keys/partition.ts';
import { bump } from '../../core/metrics.ts';
import type { BoundJoin } from '../../core/plan.ts';
import { publishWhenComplete } from '../../core/pushdown/compose.ts';
import { chooseWorkers, startupDetail, threadsDetail } from '../../core/parallel/threshold.ts';
import { DynamicFilter, estimatedRows } from '../../core/scan/scan.ts';
import { collectScan } from '../common/collect.ts';
import { equiJoinUnsupportedReason } from '../common/roles.ts';
import { buildPartitions, type PartitionBuild } from './build.ts';
import { planHashJoin } from './plan.ts';
import { parallelProbe, requireShareable, serialProbeReason, shareBuild } from './parallel.ts';
import { HashJoinProbe } from './probe.ts';
import type { SharedPartition } from './probe-task.ts';

export class HashJoin implements JoinAlgorithm {
  readonly name = 'hash';
  readonly description = 'hash join: build a hash table on one side, publish a dynamic filter, stream the other side';

  unsupportedReason(join: BoundJoin): string | null {
    return equiJoinUnsupportedReason(join.spec);
  }

  async *execute(join: BoundJoin, inputs: JoinInputs, ctx: JoinContext): AsyncIterable<RecordBatch> {
    const started = performance.now();
    const reservation = ctx.pool.reservation('hash-join build');
    const scratch = ctx.pool.reservation('hash-join probe scratch');
    let parts: PartitionBuild[] | null = null;
    const m = ctx.metrics;
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
      const barrier = plan.pushdown !== null ? publishWhenComplete(filter, plan.pushdown) : null;
      const buildStarted = performance.now();
      parts = await buildPartitions(await collectScan(buildScan, reservation, { signal: ctx.signal, lateMaterialization: ctx.config['scan.lateMaterialization'] }), {
        schema: buildScan.schema,
        keyColumns: plan.buildKeys,
        kinds: plan.keyKinds,
        partitions: plan.partitions,
        layout: plan.layout,
        nullEqualsNull: plan.nullEqualsNull,
        reservation,
        onBuilt: (p) => {
          if (barrier === null) return;
          const t = performance.now();
          barrier.report(p.index, { index: p.index, rows: p.rows, keys: p.keys, table: p.table, seed: TABLE_SEED, hashes: p.hashes, bytes: p.batch === null ? 0 : batchByteSize(p.batch) });
          bump(m, 'filterPlanMs', performance.now() - t);
        },
        onFailed: (index) => barrier?.report(index, 'failed'),
        signal: ctx.signal,
        shared: mayUseWorkers,
        // partitioned: the partitions' tables are built on the workers too (build-task.ts)
        ...(buildOn !== null && plan.partitions > 1 ? { workers: buildOn } : {}),
        // collect-left: a build of several batches in shared memory is concatenated there too
        ...(buildOn !== null && plan.partitions === 1 && buildScan.numRows >= ctx.config['parallel.minProbeRows'] ? { concatOn: buildOn, metrics: m } : {}),
        payload: plan.payload,
        payloadRows: plan.payloadRows,
      });
      if (ctx.signal !== undefined) {
        // the tables were built in one synchronous step: an abort that came meanwhile is seen
        // here, not after a probe its filter may prune entirely (which gives no turn of its own)
        await nextTurn();
        ctx.signal.throwIfAborted();
      }
      const probeRows = mayUseWorkers ? estimatedRows(probeScan, filter) : staticProbeRows;
      const choice = serial !== null ? { pool: null, why: serial } : chooseWorkers(workers, probeRows, ctx.config, 'probe input');
      const parallel = choice.pool !== null;
      m.details.threads = threadsDetail(workers, choice);
      let shared: SharedPartition[] = [];
      if (parallel) ({ parts, shared } = shareBuild(parts, plan.layout, plan.nullEqualsNull, reservation));
      const probe = new HashJoinProbe(plan, join, parts, { probe: probeScan.schema, build: buildScan.schema }, ctx, scratch);
      bump(m, 'buildRows', probe.buildRowsTotal);
      bump(m, 'partitions', plan.partitions);
      bump(m, 'hashTableBytes', parts.reduce((n, p) => n + p.table.memoryBytes, 0));
      const laidOut = parts.filter((p) => p.source.layout !== null);
      m.details.payloadLayout = laidOut.length === 0 ? 'columns' : `rows (${laidOut[0]!.source.layout!.width} bytes a row)`;
      bump(m, 'buildMs', performance.now() - buildStarted);
      m.details.hashmap = [...new Set(parts.filter((p) => p.rows > 0).map((p) => p.table.layout))].join(',') || 'empty';
      m.peakReservedBytes = Math.max(m.peakReservedBytes, reservation.size);
      const publishedFilter = roles.canPushDown ? filter.current() : null;
      m.details.dynamicFilter = roles.canPushDown
        ? (publishedFilter?.description ?? 'none')
        : `none (unmatched ${roles.probe} rows reach the output of a ${join.spec.type} join)`;
      m.details.dynamicFilterLabel = publishedFilter === null ? 'none' : (publishedFilter.label ?? publishedFilter.description);

      if (parallel) {
        const starting = !workers!.started;
        yield* parallelProbe({ workers: workers!, join, plan, probe, shared, probeScan, buildScan, filter, ctx });
        if (starting) m.details.workerStart = startupDetail(workers!);
      } else yield* probe.run(probeScan, filter);
      const published = filter.current();
      if (published?.rowTestSummary) m.details.rowFilter = published.rowTestSummary();
    } finally {
      // nothing probes the tables any more (the probe input is exhausted or abandoned)
      for (const p of parts ?? []) p.table.release?.();
      m.peakReservedBytes = Math.max(m.peakReservedBytes, reservation.peak + scratch.peak);
      reservation.free();
      scratch.free();
      m.elapsedMs += performance.now() - started;
    }
  }
}
