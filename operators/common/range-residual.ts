/**
 * An equi-join with a range predicate beside its keys (`--on k=k --range "t < t"`): the hash and
 * sort-merge joins run the range as part of their residual filter, `l.t OP r.t AND (filter)`.
 *
 * This is what DuckDB does: `PhysicalPlanGenerator::PlanComparisonJoin`
 * (src/execution/physical_plan/plan_comparison_join.cpp, v1.5.5) plans any join with an equality
 * as a `PhysicalHashJoin` over *all* its conditions, and the hash table evaluates the ones that are
 * not equalities on every candidate pair a key lookup found (`JoinHashTable`'s
 * `non_equality_predicates` and its `row_matcher_probe`, src/execution/join_hashtable.cpp). The
 * semantics are the residual filter's, for every join type: a pair matches when its keys are equal
 * and the range (and the filter) is TRUE — a NULL on either side of the range is no match; an outer
 * join NULL-pads a row no pair passes; semi / anti / mark count only passing pairs; NOT IN is
 * `k NOT IN (SELECT k FROM inner WHERE range AND filter)` (operators/hash-join/not-in.ts).
 *
 * Why a rewrite of the bound join and not a second predicate in the operators: everything the
 * residual filter implies is then implied for the range too, with no code of its own — a null-aware
 * anti join with a filter publishes no dynamic filter (roles.ts `canPushDown`); the dynamic filter
 * is built from the equi-keys alone, so the range never narrows the probe scan; worker threads
 * re-bind the rewritten spec (worker-join.ts) and compile the same filter. The range's columns are
 * already among the join's input columns, so the rewrite reads nothing more.
 *
 * The range is compared the way the filter compares two columns (core/expr: DuckDB's comparison
 * typing). Column types the range predicate accepts but a filter comparison does not would make
 * the rewrite throw the filter's typed error; `rangeResidualUnsupportedReason` reports it first.
 */
import { isJoinlabError } from '../../core/errors.ts';
import { and, cmp, col, type Expr } from '../../core/expr/ast.ts';
import { bindJoin, type BoundJoin } from '../../core/plan.ts';
import type { JoinSpec } from '../../core/types.ts';

/** `l.t OP r.t AND (filter)` for a spec with a range predicate (the filter alone, or none, without). */
export function rangeResidualExpr(spec: JoinSpec): Expr | undefined {
  if (spec.range === undefined) return spec.filter;
  const range = cmp(spec.range.op, col('left', spec.range.left), col('right', spec.range.right));
  return spec.filter === undefined ? range : and(range, spec.filter);
}

/**
 * `join` with its range predicate moved into the residual filter (the join itself when it has no
 * range): the same output shape, inputs and keys; `spec.range` absent, `spec.filter` the conjunction.
 */
export function rangeAsResidual(join: BoundJoin): BoundJoin {
  const { spec } = join;
  if (spec.range === undefined) return join;
  const { range: _range, ...rest } = spec;
  return bindJoin({ ...rest, filter: rangeResidualExpr(spec)! }, join.leftSchema, join.rightSchema, join.output);
}

/** Why the range cannot be evaluated as a residual filter over these inputs, or null. */
export function rangeResidualUnsupportedReason(join: BoundJoin): string | null {
  if (join.spec.range === undefined) return null;
  try {
    rangeAsResidual(join);
    return null;
  } catch (e) {
    if (isJoinlabError(e)) return `its range predicate cannot be evaluated as a residual filter: ${e.message}`;
    throw e;
  }
}
