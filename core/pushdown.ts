/**
 * The pushdown-policy contract: after a join's build side is complete, the policy turns what the
 * build saw into a `ScanPredicate` for the probe-side scan (or `null`: publish nothing).
 *
 * A published predicate may only ever answer "maybe" for a row or container that could match —
 * a dropped row is the worst bug a policy can have. `BuildSummary` is deliberately small here;
 * the hash-join work extends it with the build's hash table, distinct keys and bounds.
 */
import type { BoundJoin } from './plan.ts';
import type { Config } from './config/schema.ts';
import type { Strategy } from './registry/registry.ts';
import type { ScanPredicate } from '../operators/scan/types.ts';
import type { Side } from './types.ts';

export interface BuildSummary {
  readonly join: BoundJoin;
  /** Which input was built; the other one is probed and receives the filter. */
  readonly buildSide: Side;
  readonly buildRows: number;
}

export interface PushdownPolicy extends Strategy {
  /** The predicate for the probe scan, or `null` for "keep everything". */
  plan(build: BuildSummary, config: Config): ScanPredicate | null;
}
