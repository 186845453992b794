/**
 * `join=auto` (the default): a planning strategy. It runs nothing itself; for each bound join it
 * names the algorithm that does (`choose`), and the engine checks and runs that one
 * (core/join-planning.ts), reporting `algorithm: <chosen>, chosenBy: 'auto'` in the metrics and
 * in `joinlab join --json`.
 *
 * The rule is DuckDB's, from `PhysicalPlanGenerator::PlanComparisonJoin` in
 * src/execution/physical_plan/plan_comparison_join.cpp (duckdb/duckdb, read at commit 044a04a7):
 *  - no conditions at all: a `PhysicalCrossProduct`;
 *  - `has_equality = op.HasEquality(has_range)` counts the conditions: `=` / `IS NOT DISTINCT
 *    FROM` make `has_equality`, each of `< <= > >=` adds one to `has_range` (`<>` counts as
 *    neither). With an equality, a `PhysicalHashJoin` over all the conditions (unless the
 *    `prefer_range_joins` setting asks for a range join where an IEJoin is possible);
 *  - otherwise `can_merge = has_range > 0` and `can_iejoin = has_range >= 2`; for SEMI, ANTI and
 *    MARK (and RIGHT_SEMI / RIGHT_ANTI, which also rule IEJoin out) `can_merge` additionally
 *    needs exactly one condition; both are dropped when either input is estimated below
 *    `nested_loop_join_threshold` (5) rows, and IEJoin when either is below
 *    `merge_join_threshold` (1000) while a merge is possible;
 *  - then `PhysicalIEJoin` if `can_iejoin`, else `PhysicalPiecewiseMergeJoin` if `can_merge`,
 *    else `PhysicalNestedLoopJoin` when it supports the conditions, else
 *    `PhysicalBlockwiseNLJoin`.
 *
 * joinlab's version, for the joins it has:
 *
 *   hash         when the spec has an equi-key (`on` non-empty), whatever else it has
 *   piecewise    one range predicate, no equi-key and no residual filter
 *   nested-loop  otherwise: a range with a filter, a filter-only join, a cross product
 *
 * How it differs: there is no IEJoin, so a range predicate plus a filter (which DuckDB would often
 * turn into two range conditions and an IEJoin or a multi-condition merge) goes to nested-loop —
 * joinlab's piecewise merge join takes exactly one range predicate and no residual filter. There
 * are no cardinality thresholds: the choice is made when the join is bound, before any data or
 * statistics are read, so it depends on the spec alone. A cross product runs on nested-loop
 * (joinlab has no cross-product operator). The single-condition rule for semi/anti/mark never
 * bites: the piecewise case is always one condition. And as in DuckDB, `sort-merge` is never
 * chosen — an equi-join is a hash join. One consequence: an equi-key *plus* a range predicate goes
 * to hash, which refuses a range beside equi-keys (express the range as `--filter`, or pick
 * `--algorithm nested-loop`); the error then says `join algorithm 'hash' (chosen by 'auto')`.
 */
import type { RecordBatch } from 'apache-arrow';
import { UnknownStrategyError } from '../../core/errors.ts';
import type { JoinAlgorithm, JoinContext, JoinInputs } from '../../core/join-algorithm.ts';
import { chooseJoinAlgorithm, joinUnsupportedReason } from '../../core/join-planning.ts';
import type { BoundJoin } from '../../core/plan.ts';
import type { Registry } from '../../core/registry/registry.ts';
import { JOIN } from '../../core/registry/slots.ts';
import type { JoinSpec } from '../../core/types.ts';

/** The algorithms `auto` chooses between. */
export type AutoJoinChoice = 'hash' | 'piecewise' | 'nested-loop';

/** What `auto` chooses for `spec`, with the rule's reason. */
export function explainAutoJoin(spec: JoinSpec): { readonly algorithm: AutoJoinChoice; readonly reason: string } {
  if (spec.on.length > 0) return { algorithm: 'hash', reason: `${spec.on.length} equi-key${spec.on.length > 1 ? 's' : ''}` };
  if (spec.range !== undefined && spec.filter === undefined) return { algorithm: 'piecewise', reason: 'one range predicate, no equi-key, no filter' };
  if (spec.range !== undefined) return { algorithm: 'nested-loop', reason: 'a range predicate with a residual filter' };
  return { algorithm: 'nested-loop', reason: spec.filter !== undefined ? 'no equi-key or range predicate, only a filter' : 'a cross product' };
}

export class AutoJoin implements JoinAlgorithm {
  readonly name = 'auto';
  readonly description =
    "planner, the default: hash when the join has an equi-key; piecewise for one range predicate without equi-key or filter; nested-loop otherwise (range + filter, filter only, cross product) — DuckDB's PlanComparisonJoin rule without IEJoin; --json shows the chosen algorithm";

  /** `registry`: where the chosen algorithm is looked up to answer `unsupportedReason` (without it, null). */
  constructor(private readonly registry?: Registry) {}

  choose(join: BoundJoin): AutoJoinChoice {
    return explainAutoJoin(join.spec).algorithm;
  }

  /** The chosen algorithm's reason (or that it is not registered); null without a registry: the engine checks the chosen one. */
  unsupportedReason(join: BoundJoin): string | null {
    if (this.registry === undefined) return null;
    const chosen = this.choose(join);
    if (!this.registry.has(JOIN, chosen)) return new UnknownStrategyError(JOIN.name, chosen, this.registry.names(JOIN), this.name).message;
    return joinUnsupportedReason(this.registry, chosen, join);
  }

  /** Only reached by a caller that bypasses the engine (which runs the chosen algorithm itself): delegates to the chosen one. */
  execute(join: BoundJoin, inputs: JoinInputs, ctx: JoinContext): AsyncIterable<RecordBatch> {
    return chooseJoinAlgorithm(ctx.registry, this.choose(join), join).algorithm.execute(join, inputs, ctx);
  }
}
