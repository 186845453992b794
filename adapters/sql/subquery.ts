/**
 * WHERE conjuncts with a subquery, as joins on top of the FROM result (issue 14). DuckDB's
 * semantics, which are the semi / anti join's own:
 *  - `EXISTS (q)` keeps an outer row when q has a row for it: a LEFT SEMI join; `NOT EXISTS`: a
 *    LEFT ANTI join. NULLs play no part beyond the conditions' own three-valued logic.
 *  - `x IN (SELECT y …)`: a semi join on `x = y` — as a WHERE conjunct, UNKNOWN (x NULL, or no
 *    match and a NULL y) filters the row out exactly like FALSE, so no NULL handling is needed.
 *  - `x NOT IN (SELECT y …)`: the NULL-aware anti join (`nullAware`): a NULL y empties the result,
 *    and a NULL x never qualifies once the subquery has rows. Correlated, the NULL rule is per
 *    outer row's own subquery rows: an anti join on the correlation keys whose residual is
 *    `x = y OR x IS NULL OR y IS NULL` (no such row: every y of the row's subquery differs from x).
 * Correlation (a subquery condition naming an outer column): each `inner = outer` equality of the
 * subquery's WHERE becomes a join key, any other correlated conjunct the join's residual filter —
 * evaluated on (outer row, subquery row) pairs, which is what the subquery's WHERE means per outer
 * row. A correlated subquery must be a plain SELECT … FROM … WHERE (no GROUP BY, aggregate,
 * DISTINCT or LIMIT: correlation through those is not a join). An uncorrelated one is run as a
 * query of its own and joined as a table.
 *
 * The join streams like the FROM joins (join-tree.ts): its output is the outer rows, so the FROM
 * tables' routes pass through and its build side's filter prunes the FROM scans too.
 *
 * A subquery inside an expression (`a.v > 5 OR EXISTS (…)`) is a LEFT MARK join: every outer row
 * with a non-NULL boolean `mark` (whether it has a match), and the conjunct evaluated with the
 * subquery read off the mark, on the join's rows; the mark is then projected away. The mark is
 * two-valued, which is EXISTS's meaning everywhere but IN's only where UNKNOWN acts as FALSE (under
 * AND / OR from the conjunct's top); elsewhere IN is refused.
 */
import { Table } from 'apache-arrow';
import type { SelectQuery, SqlExpr } from './ast.ts';
import type { JoinType, KeyPair } from '../../core/types.ts';
import { openScan } from '../io/open.ts';
import { ProjectedScan } from '../../core/scan/projected-scan.ts';
import { MARK_COLUMN } from '../../core/output-schema.ts';
import { joinRelations, MARK_SQL_NAME, sidesOf, type FromPlan, type TreeContext } from './join-tree.ts';
import type { ExplainNode } from './explain.ts';
import { childrenOf, conjuncts, lookup, mapChildren, notYet, resolveIn, scanRelation, type Relation } from './relation.ts';
import { resolvesIn } from './scope.ts';

/** What the query runner offers the subquery planner. */
export interface SubqueryHost {
  readonly tree: TreeContext;
  /** Runs an uncorrelated subquery to a table, with its plan. */
  run(q: SelectQuery): Promise<{ readonly table: Table; readonly plan: ExplainNode }>;
  /** Binds a FROM clause's tables (CTEs and derived tables included). */
  bindFrom(q: SelectQuery): Promise<FromPlan>;
  /** Opens a bound FROM tree with its local WHERE placed (subqueries in it applied too). */
  open(plan: FromPlan, local: readonly SqlExpr[]): Promise<Relation>;
}

/** The subquery a conjunct tests, or null when the conjunct has none at its top. */
export function subqueryOf(c: SqlExpr): { kind: 'exists' | 'in'; query: SelectQuery; negated: boolean; arg: SqlExpr | null } | null {
  let negated = false;
  let e = c;
  while (e.kind === 'not') {
    negated = !negated;
    e = e.arg;
  }
  if (e.kind === 'exists') return { kind: 'exists', query: e.query, negated: negated !== e.negated, arg: null };
  if (e.kind === 'in-subquery') return { kind: 'in', query: e.query, negated: negated !== e.negated, arg: e.arg };
  return null;
}

type Sub = NonNullable<ReturnType<typeof subqueryOf>>;

/** `outer` filtered by the subquery conjunct `c`. */
export async function applySubquery(host: SubqueryHost, outer: Relation, c: SqlExpr): Promise<Relation> {
  const sub = subqueryOf(c);
  if (sub !== null) return subqueryJoin(host, outer, c, sub, sub.negated ? 'left-anti' : 'left-semi', []);
  // inside an expression: a mark join, then the conjunct with the subquery read off the mark
  const node = markedSubquery(c);
  const asSub: Sub = node.kind === 'exists' ? { kind: 'exists', query: node.query, negated: false, arg: null } : { kind: 'in', query: node.query, negated: false, arg: node.arg };
  const mark: SqlExpr = { kind: 'column', names: [MARK_SQL_NAME], at: node.at };
  const test = replaceNode(c, node, node.kind === 'exists' && node.negated ? { kind: 'not', arg: mark, at: node.at } : mark);
  if (outer.columns.some((v) => v.out === MARK_COLUMN)) return notYet(`a subquery inside an expression over a relation with a column named '${MARK_COLUMN}'`, c.at);
  const marked = await subqueryJoin(host, outer, c, asSub, 'left-mark', [test]);
  const columns = marked.columns.filter((v) => v.name !== MARK_SQL_NAME);
  return { ...marked, input: new ProjectedScan(marked.input, columns.map((v) => v.out)), columns };
}

/**
 * The one subquery of `c` a mark join can answer: EXISTS anywhere (it is two-valued), IN only
 * where UNKNOWN and FALSE mean the same — under AND / OR from the top of the WHERE conjunct (the
 * mark is never NULL, and `x IN (…)` can be).
 */
function markedSubquery(c: SqlExpr): Extract<SqlExpr, { kind: 'exists' | 'in-subquery' }> {
  const found: { node: Extract<SqlExpr, { kind: 'exists' | 'in-subquery' }>; positive: boolean }[] = [];
  const walk = (e: SqlExpr, positive: boolean): void => {
    if (e.kind === 'exists' || e.kind === 'in-subquery') found.push({ node: e, positive });
    for (const x of childrenOf(e)) walk(x, positive && (e.kind === 'and' || e.kind === 'or'));
  };
  walk(c, true);
  if (found.length !== 1) return notYet('more than one subquery in one WHERE conjunct', c.at);
  const { node, positive } = found[0]!;
  if (node.kind === 'in-subquery' && (node.negated || !positive)) return notYet('[NOT] IN (subquery) under NOT or inside an expression (its NULL would read as FALSE)', node.at);
  return node;
}

/** `e` with the node `target` replaced by `by`. */
function replaceNode(e: SqlExpr, target: SqlExpr, by: SqlExpr): SqlExpr {
  return e === target ? by : mapChildren(e, (x) => replaceNode(x, target, by));
}

/** The join answering one subquery: semi / anti (a conjunct) or mark (inside an expression, `rowFilter` reading the mark). */
async function subqueryJoin(host: SubqueryHost, outer: Relation, c: SqlExpr, sub: Sub, type: JoinType, rowFilter: readonly SqlExpr[]): Promise<Relation> {
  const q = sub.query;
  if (q.from === null) return notYet('a subquery without FROM', c.at);
  const plan = await host.bindFrom(q);
  const where = conjuncts(q.where);
  const correlated = where.filter((w) => readsOuter(w, plan));
  const keys: KeyPair[] = [];
  const conds: SqlExpr[] = [];
  let inner: Relation;
  if (correlated.length === 0) {
    // uncorrelated: the whole subquery, as a table
    // EXISTS reads no column of its subquery: its select list (often a constant) is not run
    const star = { kind: 'star', relation: null, at: null } as const;
    const plain = q.groupBy.length === 0 && q.having === null && !q.select.some((s) => hasAggregate(s.expr));
    const { table, plan: subPlan } = await host.run(sub.kind === 'exists' && plain ? { ...q, distinct: false, select: [{ expr: star, alias: null, name: null }] } : q);
    const scan = await openScan(table, 'subquery');
    inner = { ...scanRelation(scan, ''), describe: () => ({ label: 'SUBQUERY', details: [`rows: ${table.numRows}`], children: [subPlan] }) };
    if (sub.kind === 'in') {
      if (table.schema.fields.length !== 1) return notYet(`IN (subquery) selecting ${table.schema.fields.length} columns`, c.at);
      keys.push(inKey(sub.arg!, outer, inner.columns[0]!.out));
    }
  } else {
    if (q.groupBy.length > 0 || q.having !== null || q.distinct || q.limit !== null || q.offset !== null || q.select.some((s) => hasAggregate(s.expr))) {
      return notYet('a correlated subquery with GROUP BY, an aggregate, DISTINCT or LIMIT', c.at);
    }
    inner = await host.open(plan, where.filter((w) => !correlated.includes(w)));
    if (sub.kind === 'in') {
      const item = q.select.length === 1 ? q.select[0]!.expr : null;
      if (item === null || item.kind !== 'column') return notYet('a correlated IN subquery that selects anything but one column', c.at);
      if (!sub.negated) keys.push(inKey(sub.arg!, outer, resolveIn(inner, item.names, item.at).out));
      else {
        // x NOT IN S(o) holds iff no y of S(o) has x = y, x NULL or y NULL: an anti join on the
        // correlation keys with that residual (the null-aware anti join's NULL rule is global,
        // this one is per outer row's own subquery rows)
        const x = sub.arg!;
        if (x.kind !== 'column') return notYet('NOT IN (subquery) tested against an expression (only a column)', x.at);
        const at = c.at;
        // x is the outer query's column, item the subquery's, whatever their bare names say
        const ox = sideColumn(x, outer, inner, 'outer');
        const iy = sideColumn(item, inner, outer, 'subquery');
        conds.push({ kind: 'or', args: [{ kind: 'compare', op: '=', left: ox, right: iy, at }, { kind: 'is-null', arg: ox, negated: false, at }, { kind: 'is-null', arg: iy, negated: false, at }], at });
      }
    }
    for (const raw of correlated) {
      const w = innerFirst(raw, inner, outer);
      const key = w.kind === 'compare' && w.op === '=' && w.left.kind === 'column' && w.right.kind === 'column' ? sidesOf(w.left, w.right, outer, inner) : null;
      if (key !== null) keys.push(key);
      else conds.push(w);
    }
  }
  const nullAware = sub.negated && sub.kind === 'in' && correlated.length === 0;
  return joinRelations(host.tree, { type, keys, conds, nullEqualsNull: false, nullAware, merged: new Set(), rowFilter }, outer, inner, host.tree.opened);
}

/**
 * Column `e` of relation `own` (the subquery's, or the outer query's), named so that it resolves
 * there and not in `other` — the join condition sees both relations, and a bare `id` both have is
 * ambiguous to it though SQL's scoping says which one is meant. Refused (not guessed) when the
 * two relations use one table name.
 */
function sideColumn(e: Extract<SqlExpr, { kind: 'column' }>, own: Relation, other: Relation, what: string): Extract<SqlExpr, { kind: 'column' }> {
  const v = resolveIn(own, e.names, e.at);
  const named: Extract<SqlExpr, { kind: 'column' }> = v.rel === '' ? e : { ...e, names: [v.rel, v.name] };
  if (lookup(other, named.names) !== null) {
    return notYet(`a correlated subquery whose ${what} column '${e.names.join('.')}' has a same-named twin on the other side (give the tables different aliases)`, e.at);
  }
  return named;
}

/** A correlated conjunct with each column bound as SQL scopes it: the subquery's own first, then the outer query's. */
function innerFirst(e: SqlExpr, inner: Relation, outer: Relation): SqlExpr {
  if (e.kind === 'column') {
    const mine = lookup(inner, e.names);
    if (mine === null) return lookup(outer, e.names) === null ? e : sideColumn(e, outer, inner, 'outer');
    return sideColumn(e, inner, outer, 'subquery');
  }
  if (e.kind === 'exists' || e.kind === 'in-subquery' || e.kind === 'scalar-subquery') return e;
  return mapChildren(e, (x) => innerFirst(x, inner, outer));
}

function inKey(arg: SqlExpr, outer: Relation, innerColumn: string): KeyPair {
  if (arg.kind !== 'column') return notYet('IN (subquery) tested against an expression (only a column)', arg.at);
  return { left: resolveIn(outer, arg.names, arg.at).out, right: innerColumn };
}

/** Whether `e` names a column the subquery's FROM does not have (an outer reference). */
function readsOuter(e: SqlExpr, plan: FromPlan): boolean {
  if (e.kind === 'column') return !resolvesIn(plan, e.names);
  return childrenOf(e).some((x) => readsOuter(x, plan));
}

const AGGREGATES = new Set(['count', 'count_star', 'sum', 'min', 'max', 'avg']);

export function hasAggregate(e: SqlExpr): boolean {
  return (e.kind === 'call' && AGGREGATES.has(e.name.toLowerCase())) || childrenOf(e).some(hasAggregate);
}

