/**
 * Which conditions of a join spec an IEJoin can take, and why it cannot take a spec.
 *
 * A joinlab spec holds at most one range predicate (`range`) and a residual `filter`; DuckDB's
 * planner instead sees every conjunct `l.x OP r.y` of the ON clause as a join condition. So the
 * inequality conditions here are the range predicate (first, when there is one) followed by the
 * filter's top-level conjuncts that compare a bare column of one input with a bare column of the
 * other by `< <= > >=` (either operand order; `r.y > l.x` reads as `l.x < r.y`). Everything else
 * in the filter (and any inequality beyond the second, which the IEJoin evaluates on its candidate
 * pairs like DuckDB evaluates conditions[2..]) is the residual.
 *
 * With schemas, a conjunct whose two columns have no common key kind (core/keys/resolve.ts: the
 * comparison the filter evaluator would make by its own rules, e.g. a string against a date
 * literal cast) stays in the residual instead: the IEJoin sorts by normalised keys, and a
 * conjunct it cannot sort by is not one of its conditions. Without schemas (the planner's view of
 * the spec alone) every such conjunct counts, as DuckDB counts `has_range` syntactically.
 *
 * Refusals (`ieJoinUnsupportedReason`), from DuckDB's `PhysicalPlanGenerator::PlanComparisonJoin`
 * (src/execution/physical_plan/plan_comparison_join.cpp, v1.5.5): an equi-key makes it a hash
 * join; `can_iejoin = has_range >= 2`, and `can_iejoin = false` for SEMI, ANTI, RIGHT_SEMI,
 * RIGHT_ANTI and MARK joins — so joinlab's IEJoin runs inner, left, right and full joins only.
 */
import type { Schema } from 'apache-arrow';
import { and, col, cmp, type Expr } from '../../core/expr/ast.ts';
import { resolveKeyKind } from '../../core/keys/resolve.ts';
import type { KeyKind } from '../../core/keys/types.ts';
import { flipRangeOp, outputSides, type JoinSpec, type RangeOp, type RangePredicate } from '../../core/types.ts';

export interface IEJoinConditions {
  /** The inequality conditions, in order: the range predicate first, then the filter's conjuncts. */
  readonly conditions: readonly RangePredicate[];
  /** The remaining filter conjuncts (not the conditions beyond the second: see `residualExpr`). */
  readonly residual: readonly Expr[];
}

const RANGE: ReadonlySet<string> = new Set(['<', '<=', '>', '>=']);

/** The top-level conjuncts of `e` (nested ANDs flattened), iteratively, in order. */
export function conjunctsOf(e: Expr): Expr[] {
  const out: Expr[] = [];
  const stack: Expr[] = [e];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (x.kind === 'and') for (let i = x.args.length - 1; i >= 0; i--) stack.push(x.args[i]!);
    else out.push(x);
  }
  return out;
}

/** `e` as `left.a OP right.b` when it is a column-vs-column inequality across the inputs, else null. */
export function inequalityOf(e: Expr): RangePredicate | null {
  if (e.kind !== 'compare' || !RANGE.has(e.op) || e.left.kind !== 'column' || e.right.kind !== 'column') return null;
  if (e.left.side === e.right.side) return null;
  const op = e.op as RangeOp;
  return e.left.side === 'left' ? { left: e.left.name, op, right: e.right.name } : { left: e.right.name, op: flipRangeOp(op), right: e.left.name };
}

function kindOf(p: RangePredicate, schemas: { readonly left: Schema; readonly right: Schema }): KeyKind | null {
  const l = schemas.left.fields.find((f) => f.name === p.left);
  const r = schemas.right.fields.find((f) => f.name === p.right);
  if (l === undefined || r === undefined) return null;
  try {
    return resolveKeyKind(l.type, r.type, p.left, p.right);
  } catch {
    return null;
  }
}

/** The spec's inequality conditions and residual (see the module comment). */
export function ieJoinConditions(spec: JoinSpec, schemas?: { readonly left: Schema; readonly right: Schema }): IEJoinConditions {
  const conditions: RangePredicate[] = spec.range !== undefined ? [spec.range] : [];
  const residual: Expr[] = [];
  if (spec.filter !== undefined) {
    for (const c of conjunctsOf(spec.filter)) {
      const p = inequalityOf(c);
      if (p !== null && (schemas === undefined || kindOf(p, schemas) !== null)) conditions.push(p);
      else residual.push(c);
    }
  }
  return { conditions, residual };
}

/** Everything but the first two conditions, as one filter expression; null when nothing is left. */
export function residualExpr(c: IEJoinConditions): Expr | null {
  const parts: Expr[] = c.conditions.slice(2).map((p) => cmp(p.op, col('left', p.left), col('right', p.right)));
  parts.push(...c.residual);
  return parts.length === 0 ? null : parts.length === 1 ? parts[0]! : and(...parts);
}

/** Why the IEJoin cannot run `spec`, or null (see the module comment). */
export function ieJoinUnsupportedReason(spec: JoinSpec, schemas?: { readonly left: Schema; readonly right: Schema }): string | null {
  if (spec.on.length > 0) return 'it takes inequality conditions without equi-keys (with --on, DuckDB plans a hash join: use hash, or nested-loop)';
  if (spec.nullAware) return 'a null-aware (NOT IN) anti join needs an equi-key';
  if (outputSides(spec.type) !== 'both') {
    return `DuckDB never plans an IEJoin for a ${spec.type} join (plan_comparison_join.cpp sets can_iejoin = false for SEMI, ANTI, RIGHT_SEMI, RIGHT_ANTI and MARK): use piecewise (one range predicate) or nested-loop`;
  }
  const n = ieJoinConditions(spec, schemas).conditions.length;
  if (n < 2) {
    return `it needs two inequality conditions between a column of each input (--range "a < x" and --filter "l.b > r.y", or both in --filter), found ${n}; use piecewise for one, nested-loop otherwise`;
  }
  return null;
}
