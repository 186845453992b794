/**
 * `join=auto` (the default): a planning strategy. It runs nothing itself; for each bound join it
 * names the algorithm that does (`choose`), and the engine checks and runs that one
 * (core/join-planning.ts), reporting `algorithm: <chosen>, chosenBy: 'auto'` in the metrics and
 * in `joinlab join --json`.
 *
 * The rule is DuckDB's, from `PhysicalPlanGenerator::PlanComparisonJoin` in
 * src/execution/physical_plan/plan_comparison_join.cpp (duckdb/duckdb, read at commit 044a04a7, unchanged at v1.5.5):
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
 *   iejoin       two or more inequality conditions (the range predicate and the filter's
 *                column-vs-column `< <= > >=` conjuncts, operators/iejoin/conditions.ts), no
 *                equi-key, an inner / left / right / full join (`can_iejoin`)
 *   piecewise    one range predicate, no equi-key and no residual filter
 *   nested-loop  otherwise: a range with another filter, a semi / anti / mark join with two
 *                inequalities, a filter-only join, a cross product
 *
 * How it differs: joinlab's piecewise merge join takes exactly one range predicate and no residual
 * filter, so a range predicate plus a filter that is not a second inequality goes to nested-loop
 * (DuckDB would merge on it and evaluate the rest); likewise a semi / anti / mark join with two
 * inequalities (DuckDB: nested loop there too, `can_merge` needs a single condition). There are
 * no cardinality thresholds: the choice is made when the join is bound, before any data or
 * statistics are read, so it depends on the spec (and, for which filter conjuncts are IEJoin
 * conditions, the column types) alone — DuckDB's IEJoin for inputs under 1000 estimated rows
 * becomes a piecewise merge join, joinlab's stays an IEJoin. A cross product runs on nested-loop
 * (joinlab has no cross-product operator). And as in DuckDB, `sort-merge` is never chosen — an
 * equi-join is a hash join. An equi-key *plus* a range predicate goes to hash too, which runs the
 * range as part of its residual filter, as DuckDB's `PhysicalHashJoin` runs its non-equality
 * conditions (operators/common/range-residual.ts); a range whose column types a filter cannot
 * compare is refused there, and the error says `join algorithm 'hash' (chosen by 'auto')`.
 */
import type { RecordBatch } from 'apache-arrow';
import { UnknownStrategyError } from '../../core/errors.ts';
import type { JoinAlgorithm, JoinContext, JoinInputs } from '../../core/join-algorithm.ts';
import { chooseJoinAlgorithm, joinUnsupportedReason } from '../../core/join-planning.ts';
import type { BoundJoin } from '../../core/plan.ts';
import type { Registry } from '../../core/registry/registry.ts';
import { JOIN } from '../../core/registry/slots.ts';
import { outputSides, type JoinSpec } from '../../core/types.ts';
import type { Schema } from 'apache-arrow';
import { ieJoinConditions } from '../iejoin/conditions.ts';

/** The algorithms `auto` chooses between. */
export type AutoJoinChoice = 'hash' | 'iejoin' | 'piecewise' | 'nested-loop';

/**
 * What `auto` chooses for `spec`, with the rule's reason. `schemas`: the inputs' (a filter
 * conjunct whose columns have no common key kind is then not an inequality condition).
 */
export function explainAutoJoin(spec: JoinSpec, schemas?: { readonly left: Schema; readonly right: Schema }): { readonly algorithm: AutoJoinChoice; readonly reason: string } {
  if (spec.on.length > 0) return { algorithm: 'hash', reason: `${spec.on.length} equi-key${spec.on.length > 1 ? 's' : ''}` };
  if (outputSides(spec.type) === 'both') {
    const n = ieJoinConditions(spec, schemas).conditions.length;
    if (n >= 2) return { algorithm: 'iejoin', reason: `${n} inequality conditions, no equi-key (DuckDB's can_iejoin)` };
  }
  if (spec.range !== undefined && spec.filter === undefined) return { algorithm: 'piecewise', reason: 'one range predicate, no equi-key, no filter' };
  if (spec.range !== undefined) return { algorithm: 'nested-loop', reason: 'a range predicate with a residual filter' };
  return { algorithm: 'nested-loop', reason: spec.filter !== undefined ? 'no equi-key or range predicate, only a filter' : 'a cross product' };
}

export class AutoJoin implements JoinAlgorithm {
  readonly name = 'auto';
  readonly description =
    "planner, the default: hash when the join has an equi-key; iejoin for two or more inequality conditions (inner/left/right/full); piecewise for one range predicate without equi-key or filter; nested-loop otherwise (range + other filter, filter only, cross product) — DuckDB's PlanComparisonJoin rule; --json shows the chosen algorithm";

  /** `registry`: where the chosen algorithm is looked up to answer `unsupportedReason` (without it, null). */
  constructor(private readonly registry?: Registry) {}

  choose(join: BoundJoin): AutoJoinChoice {
    return explainAutoJoin(join.spec, { left: join.leftSchema, right: join.rightSchema }).algorithm;
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
