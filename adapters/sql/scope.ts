/**
 * Which names a bound FROM clause makes visible to its query's expressions — the scope a column
 * reference is resolved in before it can count as a reference to an outer query (correlation).
 *
 * Every table of the FROM is visible, by its name (`t.c`) and its columns (`c`, under its column
 * aliases), except the right side of a `SEMI JOIN` / `ANTI JOIN`: DuckDB's binder lets only the
 * ON condition see it (`SELECT b.x FROM a SEMI JOIN b ON …` is "Referenced table b not found").
 * A WHERE conjunct naming such a table would otherwise be placed as a static predicate on its scan
 * (join-tree.ts `placeWhere`), so `checkHiddenReads` refuses it first, typed, as DuckDB does.
 *
 * Resolution is SQL's (and the existing `readsOuter` rule of subquery.ts): `t.c` belongs to this
 * scope when `t` is one of its tables (a missing `c` is then an error here, not an outer
 * reference), a bare `c` when some visible table has a column `c`.
 */
import { MissingColumnError } from '../../core/errors.ts';
import type { SqlExpr } from './ast.ts';
import { leafColumns, leaves, type FromPlan, type Leaf } from './join-tree.ts';
import { childrenOf } from './relation.ts';

/** The leaves whose names the query can use: all but those on the right of a semi / anti join. */
export function visibleLeaves(plan: FromPlan): Leaf[] {
  if (plan.kind === 'leaf') return [plan];
  const right = plan.type === 'left-semi' || plan.type === 'left-anti' ? [] : visibleLeaves(plan.right);
  return [...visibleLeaves(plan.left), ...right];
}

/** Whether the column reference `names` is resolved by this FROM (else it reads an outer query). */
export function resolvesIn(plan: FromPlan, names: readonly string[]): boolean {
  const visible = visibleLeaves(plan);
  if (names.length === 2) return visible.some((l) => l.name === names[0]);
  return visible.some((l) => leafColumns(l).some((c) => c.name === names[0]));
}

/** Throws MissingColumnError when one of `exprs` reads a table hidden by a semi / anti join (and no visible one). */
export function checkHiddenReads(plan: FromPlan, exprs: readonly SqlExpr[]): void {
  const hidden = leaves(plan).filter((l) => !visibleLeaves(plan).includes(l));
  if (hidden.length === 0) return;
  const walk = (e: SqlExpr): void => {
    if (e.kind === 'column' && !resolvesIn(plan, e.names)) {
      const inHidden = e.names.length === 2 ? hidden.some((l) => l.name === e.names[0]) : hidden.some((l) => leafColumns(l).some((c) => c.name === e.names[0]));
      if (inHidden) throw new MissingColumnError(e.names.join('.'), 'the query (the right side of a SEMI / ANTI JOIN is visible only to its ON condition)', visibleLeaves(plan).flatMap((l) => leafColumns(l).map((c) => `${l.name}.${c.name}`)));
    }
    for (const c of childrenOf(e)) walk(c);
  };
  for (const e of exprs) walk(e);
}
