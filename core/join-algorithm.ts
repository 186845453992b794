/**
 * What a join algorithm strategy is: a stateless factory that, given a bound join, its two input
 * scans and a run context, produces the output as a stream of record batches.
 *
 * `unsupportedReason` lets the engine reject a spec an algorithm cannot run (a piecewise merge
 * join without a range predicate, say) with a clear error before reading any data.
 *
 * A strategy with `choose` is a *planning* strategy (`auto`, operators/auto-join/): it runs nothing
 * itself but names, per bound join, the algorithm that runs it. The engine resolves `config.join`,
 * and when that strategy has `choose` resolves the name it returns (following further planners,
 * a cycle is an error) and checks and runs that algorithm instead — so an UnsupportedJoinError
 * names the chosen algorithm and the metrics say `algorithm: <chosen>, chosenBy: <planner>`
 * (core/join-planning.ts, core/engine.ts). A chosen name that is not registered is an
 * UnknownStrategyError when the join is bound. A planner's `unsupportedReason` should answer for
 * the algorithm it would choose, and its `execute` is only reached by a caller that bypasses the
 * engine (it may delegate to the chosen algorithm).
 */
import type { RecordBatch } from 'apache-arrow';
import type { Config } from './config/schema.ts';
import type { MemoryPool } from './memory/pool.ts';
import type { SpillManager } from './memory/spill.ts';
import type { OperatorMetrics } from './metrics.ts';
import type { BoundJoin } from './plan.ts';
import type { Registry, Strategy } from './registry/registry.ts';
import type { Scan } from './scan/scan.ts';
import type { WorkerPool } from './parallel/worker-pool.ts';

export interface JoinContext {
  readonly config: Config;
  readonly registry: Registry;
  readonly pool: MemoryPool;
  readonly spill: SpillManager;
  /** Metrics of the join operator itself; the algorithm may add sub-operator entries. */
  readonly metrics: OperatorMetrics;
  readonly operators: Record<string, OperatorMetrics>;
  readonly signal?: AbortSignal;
  /**
   * The worker threads of this run (config `threads` > 1: a pool of that many workers with the
   * engine's extensions loaded, core/parallel/worker-pool.ts); absent or null when `threads` is 1
   * or the caller made the context by hand. An algorithm with a parallel phase runs it there when
   * the work repays it (core/parallel/threshold.ts): the pool is not started until something uses it.
   */
  readonly workers?: WorkerPool | null;
}

export interface JoinInputs {
  readonly left: Scan;
  readonly right: Scan;
}

export interface JoinAlgorithm extends Strategy {
  /** Why this algorithm cannot run `join`, or `null` if it can. */
  unsupportedReason(join: BoundJoin): string | null;
  /**
   * A planning strategy: the name (in slot `join`) of the algorithm that runs `join`; the engine
   * resolves and runs that one. Absent on an algorithm that runs joins itself. Decided from the
   * bound join alone (the spec and the schemas, no data), so the same join always gets the same
   * algorithm.
   */
  choose?(join: BoundJoin): string;
  /**
   * True for an algorithm whose answer is NOT the spec's plain meaning (the ASOF join keeps one
   * closest right row per left row, operators/asof-join/): it runs only when asked for by name —
   * a planner never names it and the random cases (adapters/datagen/random-cases.ts) and the demo
   * never draw it by default, since DuckDB's plain join is not its oracle.
   */
  readonly explicitOnly?: boolean;
  execute(join: BoundJoin, inputs: JoinInputs, ctx: JoinContext): AsyncIterable<RecordBatch>;
}
