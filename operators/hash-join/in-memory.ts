/**
 * The hash join over a build side that is already in memory: build the partitions' tables
 * (build.ts), report each to the pushdown barrier, then stream the probe input through them
 * (probe.ts), serially or on worker threads (parallel.ts).
 *
 * Two callers: the hash join itself when its whole build side fits (hash-join.ts), and the grace
 * hash join (grace.ts) once per spilled partition pair — then with no barrier (the grace join
 * published its own filter, from a summary of every partition), no workers, and the NOT IN facts
 * of the whole input (`NotInFacts`), which one partition cannot see on its own.
 *
 * The tables are released when the generator ends, however it ends (probe input exhausted, an
 * error, a consumer that stops early).
 */
import type { RecordBatch } from 'apache-arrow';
import { batchByteSize } from '../../core/arrow/size.ts';
import type { JoinContext } from '../../core/join-algorithm.ts';
import { TABLE_SEED } from '../../core/keys/partition.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import { bump } from '../../core/metrics.ts';
import { nextTurn } from '../../core/next-turn.ts';
import { chooseWorkers, startupDetail, threadsDetail } from '../../core/parallel/threshold.ts';
import type { WorkerPool } from '../../core/parallel/worker-pool.ts';
import type { BoundJoin } from '../../core/plan.ts';
import type { PartitionReporter } from '../../core/pushdown/compose.ts';
import { estimatedRows, type DynamicFilter, type Scan } from '../../core/scan/scan.ts';
import { buildPartitions, type PartitionBuild } from './build.ts';
import { parallelProbe, shareBuild } from './parallel.ts';
import type { HashJoinPlan } from './plan.ts';
import type { SharedPartition } from './probe-task.ts';
import { HashJoinProbe, type NotInFacts } from './probe.ts';

export interface InMemoryJoin {
  readonly join: BoundJoin;
  readonly plan: HashJoinPlan;
  /** The build side's rows, their bytes held by `reservation`. */
  readonly buildBatches: readonly RecordBatch[];
  readonly buildScan: Pick<Scan, 'schema' | 'numRows'>;
  readonly probeScan: Scan;
  readonly ctx: JoinContext;
  readonly reservation: Reservation;
  readonly scratch: Reservation;
  /** The filter the probe scan reads; `barrier` publishes into it as the tables complete. */
  readonly filter: DynamicFilter;
  readonly barrier: PartitionReporter | null;
  /**
   * The worker pool when the probe may run on it (`serial` null), and the pool the build may use
   * already (`buildOn`); both null for a serial run.
   */
  readonly workers: WorkerPool | null;
  readonly serial: string | null;
  readonly mayUseWorkers: boolean;
  readonly buildOn: WorkerPool | null;
  readonly staticProbeRows: number;
  /** NOT IN's facts about the whole input (grace.ts); absent: this build and probe are the whole input. */
  readonly notIn?: NotInFacts;
}

export async function* joinInMemory(a: InMemoryJoin): AsyncGenerator<RecordBatch> {
  const { join, plan, ctx, reservation, filter, barrier, workers, buildOn } = a;
  const { roles } = plan;
  const m = ctx.metrics;
  let parts: PartitionBuild[] | null = null;
  try {
    const buildStarted = performance.now();
    parts = await buildPartitions(a.buildBatches, {
      schema: a.buildScan.schema,
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
      shared: a.mayUseWorkers,
      // partitioned: the partitions' tables are built on the workers too (build-task.ts)
      ...(buildOn !== null && plan.partitions > 1 ? { workers: buildOn } : {}),
      // collect-left: a build of several batches in shared memory is concatenated there too
      ...(buildOn !== null && plan.partitions === 1 && a.buildScan.numRows >= ctx.config['parallel.minProbeRows'] ? { concatOn: buildOn, metrics: m } : {}),
      payload: plan.payload,
      payloadRows: plan.payloadRows,
    });
    if (ctx.signal !== undefined) {
      // the tables were built in one synchronous step: an abort that came meanwhile is seen
      // here, not after a probe its filter may prune entirely (which gives no turn of its own)
      await nextTurn();
      ctx.signal.throwIfAborted();
    }
    const probeScan = a.probeScan;
    const probeRows = a.mayUseWorkers ? estimatedRows(probeScan, filter) : a.staticProbeRows;
    const choice = a.serial !== null ? { pool: null, why: a.serial } : chooseWorkers(workers, probeRows, ctx.config, 'probe input');
    const parallel = choice.pool !== null;
    m.details.threads = threadsDetail(workers, choice);
    let shared: SharedPartition[] = [];
    if (parallel) ({ parts, shared } = shareBuild(parts, plan.layout, plan.nullEqualsNull, reservation));
    const probe = new HashJoinProbe(plan, join, parts, { probe: probeScan.schema, build: a.buildScan.schema }, ctx, a.scratch, a.notIn);
    bump(m, 'buildRows', probe.buildRowsTotal);
    bump(m, 'partitions', plan.partitions);
    bump(m, 'hashTableBytes', parts.reduce((n, p) => n + p.table.memoryBytes, 0));
    const laidOut = parts.filter((p) => p.source.layout !== null);
    m.details.payloadLayout = laidOut.length === 0 ? 'columns' : `rows (${laidOut[0]!.source.layout!.width} bytes a row)`;
    bump(m, 'buildMs', performance.now() - buildStarted);
    m.details.hashmap = [...new Set(parts.filter((p) => p.rows > 0).map((p) => p.table.layout))].join(',') || 'empty';
    m.peakReservedBytes = Math.max(m.peakReservedBytes, reservation.size);
    if (a.notIn === undefined) {
      const publishedFilter = roles.canPushDown ? filter.current() : null;
      m.details.dynamicFilter = roles.canPushDown
        ? (publishedFilter?.description ?? 'none')
        : `none (unmatched ${roles.probe} rows reach the output of a ${join.spec.type} join)`;
      m.details.dynamicFilterLabel = publishedFilter === null ? 'none' : (publishedFilter.label ?? publishedFilter.description);
    }

    if (parallel) {
      const starting = !workers!.started;
      yield* parallelProbe({ workers: workers!, join, plan, probe, shared, probeScan, filter, ctx });
      if (starting) m.details.workerStart = startupDetail(workers!);
    } else yield* probe.run(probeScan, filter);
  } finally {
    // nothing probes the tables any more (the probe input is exhausted or abandoned)
    for (const p of parts ?? []) p.table.release?.();
  }
}
