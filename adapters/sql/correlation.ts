/**
 * Which column references of a subquery point outside it (correlation), and the plumbing to find
 * and replace subquery nodes in a query's clauses.
 *
 * `outerReferences(q)`: every column reference in q's clauses that q's own FROM does not resolve
 * (scope.ts: SQL's innermost-scope rule), plus those of its nested subqueries that neither they
 * nor q resolve; a CTE of q is resolved in its own query (it cannot see q's FROM). An empty list
 * means q is uncorrelated: its answer is the same for every row of the query around it, so it is
 * run once. Derived tables cannot read outer columns (no LATERAL; one that tries fails to bind).
 * Binding a FROM opens its scans (a Parquet footer, an in-memory table) and runs its derived
 * tables and CTEs, which the caller caches so the real run does not repeat them.
 *
 * A query's clauses are its select list, the ON conditions of its FROM joins, WHERE, GROUP BY,
 * HAVING and ORDER BY; `clauseExprs` lists their roots and `mapClauses` rebuilds the query with
 * each root mapped. `childrenOf` (relation.ts) never enters a subquery, so a walk over a clause
 * sees the subquery nodes of this query level only — nested levels are handled when they run.
 */
import type { SelectQuery, SqlExpr, TableRef } from './ast.ts';
import type { FromPlan } from './join-tree.ts';
import { childrenOf, mapChildren } from './relation.ts';
import { resolvesIn } from './scope.ts';

export type ColumnRef = Extract<SqlExpr, { kind: 'column' }>;
export type ScalarSubquery = Extract<SqlExpr, { kind: 'scalar-subquery' }>;

/** Binds `q`'s FROM (null: no FROM) in the scope around it, returning the scope inside it too. */
export type BindScope<S> = (q: SelectQuery, outer: S) => Promise<{ readonly plan: FromPlan | null; readonly scope: S }>;

/** The column references of `q` that point outside it (see the module comment). */
export async function outerReferences<S>(q: SelectQuery, outer: S, bind: BindScope<S>): Promise<ColumnRef[]> {
  const { plan, scope } = await bind(q, outer);
  // a bare name may also be one of q's output aliases (ORDER BY / GROUP BY / HAVING read them)
  const inside = (names: readonly string[]): boolean => (plan !== null && resolvesIn(plan, names)) || (names.length === 1 && q.select.some((s) => s.alias === names[0]));
  const out: ColumnRef[] = [];
  for (const cte of q.ctes) out.push(...(await outerReferences(cte.query, scope, bind)));
  const visit = async (e: SqlExpr): Promise<void> => {
    if (e.kind === 'column' && !inside(e.names)) out.push(e);
    if (e.kind === 'exists' || e.kind === 'in-subquery' || e.kind === 'scalar-subquery') {
      for (const r of await outerReferences(e.query, scope, bind)) if (!inside(r.names)) out.push(r);
    }
    for (const c of childrenOf(e)) await visit(c);
  };
  for (const e of clauseExprs(q)) await visit(e);
  return out;
}

/** The root expression of each of `q`'s clauses (see the module comment). */
export function clauseExprs(q: SelectQuery): SqlExpr[] {
  const out: SqlExpr[] = [];
  for (const s of q.select) if (s.expr.kind !== 'star') out.push(s.expr);
  const from = (r: TableRef | null): void => {
    if (r === null || r.kind !== 'join') return;
    from(r.left);
    from(r.right);
    if (r.on !== null) out.push(r.on);
  };
  from(q.from);
  if (q.where !== null) out.push(q.where);
  out.push(...q.groupBy);
  if (q.having !== null) out.push(q.having);
  for (const o of q.orderBy) out.push(o.expr);
  return out;
}

/** `q` with each clause root replaced by `f` of it. */
export function mapClauses(q: SelectQuery, f: (e: SqlExpr) => SqlExpr): SelectQuery {
  const from = (r: TableRef): TableRef => (r.kind !== 'join' ? r : { ...r, left: from(r.left), right: from(r.right), on: r.on === null ? null : f(r.on) });
  return {
    ...q,
    select: q.select.map((s) => (s.expr.kind === 'star' ? s : { ...s, expr: f(s.expr) })),
    from: q.from === null ? null : from(q.from),
    where: q.where === null ? null : f(q.where),
    groupBy: q.groupBy.map(f),
    having: q.having === null ? null : f(q.having),
    orderBy: q.orderBy.map((o) => ({ ...o, expr: f(o.expr) })),
  };
}

/** The scalar subqueries of `e` at this query level, in the order written. */
export function scalarSubqueries(e: SqlExpr, out: ScalarSubquery[] = []): ScalarSubquery[] {
  if (e.kind === 'scalar-subquery') out.push(e);
  for (const c of childrenOf(e)) scalarSubqueries(c, out);
  return out;
}

/** `e` with each node that `by` has a replacement for replaced (subqueries are not entered). */
export function replaceNodes(e: SqlExpr, by: ReadonlyMap<SqlExpr, SqlExpr>): SqlExpr {
  const r = by.get(e);
  return r !== undefined ? r : mapChildren(e, (x) => replaceNodes(x, by));
}
