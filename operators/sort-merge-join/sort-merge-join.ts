/**
 * The sort-merge join (`join=sort-merge`): both inputs in one order on the join keys — sorted by
 * the sort operator (operators/sort/, external past `memoryLimit`) unless a scan declares that
 * order itself (`Scan.sortedOn`: Parquet `sorting_columns`, or an in-memory table declared
 * sorted), in which case it is checked as it streams instead — then merged by two forward-only
 * cursors, one key group at a time (merge.ts).
 *
 * Every join type: inner / left / right / full build pairs (the materializing path, with the
 * buffered key group spilled past the limit); semi / anti / mark decide one bit per outer row
 * through the configured `smj.existence` stream (`bitwise` by default, `materializing` to compare
 * against); NULL = NULL and NOT IN (null-aware anti) as every other algorithm has them; a residual
 * filter that is NULL for a pair is no match, for every join type. What is decided before a row is
 * read is in plan.ts.
 *
 * Reading: DataFusion's `SortMergeJoinExec` (datafusion/physical-plan/src/joins/sort_merge_join/)
 * for the streamed/buffered roles, key groups spanning batches and the bitwise stream; DuckDB plans
 * a merge join only for range joins and sorts inside it, which is why parity with it is by result.
 */
import type { RecordBatch } from 'apache-arrow';
import type { JoinAlgorithm, JoinContext, JoinInputs } from '../../core/join-algorithm.ts';
import { bump } from '../../core/metrics.ts';
import { chooseWorkers, type WorkerChoice } from '../../core/parallel/threshold.ts';
import type { BoundJoin } from '../../core/plan.ts';
import { estimatedRows } from '../../core/scan/scan.ts';
import { isAntiJoin } from '../../core/types.ts';
import { equiJoinUnsupportedReason } from '../common/roles.ts';
import { rangeAsResidual } from '../common/range-residual.ts';
import { ParallelSort } from '../sort/parallel.ts';
import { newSortMetrics, sortScan, type SortMetrics } from '../sort/sort.ts';
import { SortedCursor } from './cursor.ts';
import { MergeRun } from './merge.ts';
import { planSortMerge, type SideOrder, type SortMergePlan } from './plan.ts';

export class SortMergeJoin implements JoinAlgorithm {
  readonly name = 'sort-merge';
  readonly description = 'sort-merge join: both inputs sorted on the keys (unless declared sorted), merged key group by key group; semi/anti/mark via smj.existence';

  unsupportedReason(join: BoundJoin): string | null {
    const reason = equiJoinUnsupportedReason(join);
    if (reason === null && join.spec.nullAware && isAntiJoin(join.spec.type) && join.spec.on.length !== 1) return 'a null-aware (NOT IN) anti join needs exactly one key pair';
    return reason;
  }

  async *execute(join: BoundJoin, inputs: JoinInputs, ctx: JoinContext): AsyncIterable<RecordBatch> {
    join = rangeAsResidual(join); // a range beside the keys is part of the residual filter
    const started = performance.now();
    const m = ctx.metrics;
    const plan = planSortMerge(join, inputs, ctx.config, ctx.registry);
    const batchSize = ctx.config.batchSize;
    const sorts: Partial<Record<'left' | 'right', SortMetrics>> = {};
    // The sorts run on the worker threads when there are some and the rows to sort repay them
    // (core/parallel/threshold.ts: both sorts together against the cost of starting a pool that
    // is not started yet; each side against parallel.minProbeRows); both are started before
    // either is read, so they sort at once.
    const workers = ctx.workers ?? null;
    const parallel: ParallelSort[] = [];
    const serialWhy: string[] = [];
    const rowsToSort = { left: 0, right: 0 };
    for (const o of [plan.streamed, plan.buffered]) if (o.sort) rowsToSort[o.side] = estimatedRows(inputs[o.side]);
    const choice: WorkerChoice = plan.streamed.sort || plan.buffered.sort ? chooseWorkers(workers, rowsToSort.left + rowsToSort.right, ctx.config, 'inputs to sort') : { pool: null, why: null };
    if (choice.why !== null) serialWhy.push(choice.why);
    const open = (o: SideOrder): AsyncIterable<RecordBatch> => {
      const scan = inputs[o.side];
      if (!o.sort) {
        serialWhy.push(`${o.side} declared sorted`);
        return scan.batches({ signal: ctx.signal });
      }
      const metrics = (sorts[o.side] = newSortMetrics());
      const keys = o.keys.map((column, k) => ({ column, descending: plan.orders[k]!.descending, nullsFirst: plan.orders[k]!.nullsFirst }));
      const options = { pool: ctx.pool, batchSize, signal: ctx.signal, metrics, spill: ctx.spill };
      const min = ctx.config['parallel.minProbeRows'];
      if (choice.pool !== null && rowsToSort[o.side] >= min) {
        const sort = new ParallelSort(scan, keys, { ...options, workers: choice.pool }, o.side);
        parallel.push(sort);
        return sort.batches();
      }
      if (choice.pool !== null) serialWhy.push(`${o.side} input of ${rowsToSort[o.side]} estimated rows, below parallel.minProbeRows=${min}`);
      return sortScan(scan, keys, options);
    };
    const cursor = (o: SideOrder, onBatch?: (b: RecordBatch) => void) =>
      new SortedCursor(open(o), {
        columns: o.keys,
        kinds: plan.kinds,
        orders: plan.orders,
        check: o.sort ? null : { source: inputs[o.side].source },
        onBatch,
        signal: ctx.signal,
      });
    m.details.streamed = plan.streamed.side;
    m.details.order = describeOrder(plan);
    if (plan.existence !== null) m.details.existence = plan.existence.name;
    let run: MergeRun | null = null;
    const streamed = cursor(plan.streamed);
    const buffered = cursor(plan.buffered, plan.notIn ? (b) => run!.onBufferedBatch(b) : undefined);
    m.details.threads = threadsDetail(workers?.size ?? 1, parallel.length, serialWhy);
    if (parallel.length > 0) {
      choice.pool!.ready().catch(() => {}); // the threads start loading now
      for (const s of parallel) s.start();
    }
    run = new MergeRun(plan, join, streamed, buffered, { pool: ctx.pool, spill: ctx.spill, batchSize });
    try {
      yield* run.run();
    } finally {
      await run.close();
      // a sort the merge never read (an early exit, an error elsewhere) still holds its runs
      await Promise.allSettled(parallel.map((s) => s.close()));
      if (parallel.length > 0) m.details.parallelSort = [...parallel.map((s) => s.describe()), ...serialWhy].sort().join('; ');
      bump(m, `${plan.streamed.side}Rows`, streamed.rowsRead);
      bump(m, `${plan.buffered.side}Rows`, buffered.rowsRead);
      bump(m, 'keyGroups', run.stats.keyGroups);
      bump(m, 'pairsEvaluated', run.stats.pairsEvaluated + (run.existenceStats?.pairsEvaluated ?? 0));
      if (run.existenceStats !== null) bump(m, 'pairsMaterialized', run.existenceStats.pairsMaterialized);
      bump(m, 'groupsSpilled', run.stats.groupsSpilled);
      bump(m, 'rowsSpilled', run.stats.rowsSpilled);
      bump(m, 'groupSpillAppends', run.stats.groupSpillAppends);
      for (const [side, s] of Object.entries(sorts)) {
        bump(m, `${side}SortRunsSpilled`, s.runsSpilled);
        bump(m, `${side}SortBytesSpilled`, s.bytesSpilled);
        if (s.workerRuns > 0) {
          bump(m, `${side}SortWorkerRuns`, s.workerRuns);
          bump(m, `${side}SortWorkerMs`, s.workerMs);
        }
      }
      m.peakReservedBytes = Math.max(m.peakReservedBytes, ctx.pool.peak);
      m.elapsedMs += performance.now() - started;
    }
  }
}

/**
 * `details.threads`: the workers' count when a sort ran on them (the merge itself always runs on
 * the calling thread), else `1`, or `1 (why)` when there were workers to use.
 */
function threadsDetail(workers: number, parallelSorts: number, serialWhy: readonly string[]): string {
  if (parallelSorts > 0) return String(workers);
  if (workers <= 1) return '1';
  return `1 (${serialWhy.join('; ')}; the merge runs on the calling thread)`;
}

/** e.g. `k ASC NULLS LAST; left sorted, right declared (checked)`. */
function describeOrder(plan: SortMergePlan): string {
  const keys = plan.streamed.keys.map((k, i) => `${k} ${plan.orders[i]!.descending ? 'DESC' : 'ASC'} NULLS ${plan.orders[i]!.nullsFirst ? 'FIRST' : 'LAST'}`).join(', ');
  const how = (o: SideOrder) => `${o.side} ${o.sort ? 'sorted' : 'declared (checked)'}`;
  return `${keys}; ${how(plan.streamed)}, ${how(plan.buffered)}`;
}
