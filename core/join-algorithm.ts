/**
 * What a join algorithm strategy is: a stateless factory that, given a bound join, its two input
 * scans and a run context, produces the output as a stream of record batches.
 *
 * `unsupportedReason` lets the engine reject a spec an algorithm cannot run (a piecewise merge
 * join without a range predicate, say) with a clear error before reading any data.
 */
import type { RecordBatch } from 'apache-arrow';
import type { Config } from './config/schema.ts';
import type { MemoryPool } from './memory/pool.ts';
import type { SpillManager } from './memory/spill.ts';
import type { OperatorMetrics } from './metrics.ts';
import type { BoundJoin } from './plan.ts';
import type { Registry, Strategy } from './registry/registry.ts';
import type { Scan } from './scan/scan.ts';

export interface JoinContext {
  readonly config: Config;
  readonly registry: Registry;
  readonly pool: MemoryPool;
  readonly spill: SpillManager;
  /** Metrics of the join operator itself; the algorithm may add sub-operator entries. */
  readonly metrics: OperatorMetrics;
  readonly operators: Record<string, OperatorMetrics>;
  readonly signal?: AbortSignal;
}

export interface JoinInputs {
  readonly left: Scan;
  readonly right: Scan;
}

export interface JoinAlgorithm extends Strategy {
  /** Why this algorithm cannot run `join`, or `null` if it can. */
  unsupportedReason(join: BoundJoin): string | null;
  execute(join: BoundJoin, inputs: JoinInputs, ctx: JoinContext): AsyncIterable<RecordBatch>;
}
