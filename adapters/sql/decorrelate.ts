/**
 * Correlated scalar subqueries in WHERE, decorrelated into a join with an aggregate — the plan
 * DuckDB makes for TPC-H q2, q17 and q20 (src/planner/subquery/flatten_dependent_join.cpp,
 * `PushDownAggregate`; Neumann & Kemper, "Unnesting Arbitrary Queries", BTW 2015):
 *
 *   WHERE l_quantity < (SELECT 0.2 * avg(l_quantity) FROM lineitem WHERE l_partkey = p_partkey)
 *
 * runs the subquery ONCE, grouped by its correlated inner columns —
 * `SELECT l_partkey AS k0, avg(l_quantity) AS a0 FROM lineitem GROUP BY l_partkey` — joins the
 * outer rows to it on `p_partkey = k0`, and evaluates the conjunct on the joined rows with the
 * subquery replaced by its select expression over the aggregates (`l_quantity < 0.2 * a0`). The
 * grouped result has at most one row per key, so the join never multiplies an outer row.
 *
 * The COUNT bug (an outer row whose key has no group): the subquery would aggregate an empty set,
 * where `count` is 0 but `sum` / `avg` / `min` / `max` are NULL. The join is therefore a LEFT
 * join, and each count in the select expression reads `COALESCE(count, 0)` — DuckDB's
 * `RewriteCountAggregates` (CASE WHEN x IS NULL THEN 0 ELSE count END). It is an INNER join (and
 * its build side's dynamic filter prunes the outer scan, as any join's does) only when a missing
 * group cannot change the answer: the select expression is NULL over an empty set (no count, only
 * arithmetic and casts around the aggregates) and the conjunct is NULL when it is (only
 * comparisons, arithmetic and casts between the conjunct's top and the subquery) — a WHERE
 * conjunct that is NULL drops the row, as the INNER join does. NULL keys: an outer row with a NULL
 * key matches no group (the subquery's `inner = NULL` selects nothing), and the NULL group
 * matches no outer row — exactly the equality join's NULL rule.
 *
 * The outer rows first, when few (DuckDB's duplicate-eliminated join, physical_delim_join.cpp):
 * the outer relation is read until it passes half the rows of the subquery's FROM tables
 * (small-relation.ts); if it ends first, each grouped subquery also gets `inner_key IN (SELECT
 * outer_key FROM <those rows>)` per key — a semi join whose build side's dynamic filter prunes the
 * subquery's scan, so q17 aggregates the lineitems of its 87 parts, not all of them. Otherwise the
 * rows read are replayed into the join and the subquery is grouped over all its rows.
 *
 * Decorrelated exactly, or refused (UnsupportedSqlError), never approximated. The subquery must be
 *  - an aggregate without GROUP BY, HAVING, LIMIT or OFFSET (one row per outer row; correlation
 *    through those is not a grouping), with one select item;
 *  - correlated only through WHERE conjuncts `inner_column = outer_column` (several: one key each,
 *    q20's `l_partkey = ps_partkey AND l_suppkey = ps_suppkey`), plus outer columns in its select
 *    expression outside the aggregates (evaluated on the joined row, which has them);
 *  - correlated with the query right around it (an outer column its FROM result has).
 * ORDER BY and DISTINCT on a one-row result change nothing and are dropped.
 */
import type { Table } from 'apache-arrow';
import { openScan } from '../io/open.ts';
import type { SelectItem, SelectQuery, SqlExpr, TableRef } from './ast.ts';
import { ProjectedScan } from '../../core/scan/projected-scan.ts';
import type { KeyPair, JoinType } from '../../core/types.ts';
import { isAggregate } from './aggregate-query.ts';
import { replaceNodes, scalarSubqueries, type ColumnRef, type ScalarSubquery } from './correlation.ts';
import type { ExplainNode } from './explain.ts';
import { joinRelations, leaves, type FromPlan, type TreeContext } from './join-tree.ts';
import { childrenOf, conjuncts, lookup, notYet, scanRelation, type Relation } from './relation.ts';
import { resolvesIn } from './scope.ts';
import { readIfSmall } from './small-relation.ts';

/** What the query runner offers the decorrelation. */
export interface ScalarHost {
  readonly tree: TreeContext;
  /** Binds a subquery's FROM in its scope (to tell its own columns from the outer query's). */
  bind(q: SelectQuery): Promise<FromPlan | null>;
  /** The column references of a subquery that point outside it (correlation.ts). */
  outerReferences(q: SelectQuery): Promise<ColumnRef[]>;
  /** Runs a query to a table, with its plan; `extra` tables are in its scope by name (like CTEs). */
  run(q: SelectQuery, extra?: ReadonlyMap<string, Table>): Promise<{ readonly table: Table; readonly plan: ExplainNode }>;
  /** A number no other decorrelated subquery of the run has (for hidden column names). */
  fresh(): number;
}

/** `outer` filtered by the WHERE conjunct `c`, whose scalar subqueries are all correlated. */
export async function applyCorrelatedScalars(host: ScalarHost, outer: Relation, c: SqlExpr): Promise<Relation> {
  const nodes = scalarSubqueries(c);
  const analyses: Analysis[] = [];
  for (const node of nodes) analyses.push(await analyze(host, outer, node));
  // the outer rows first, when they are fewer than half the subqueries' input: then each subquery
  // reads only the outer rows' keys (DuckDB's duplicate-eliminated join; small-relation.ts)
  const limit = Math.floor(Math.min(...analyses.map((a) => a.inputRows)) / 2);
  const small = await readIfSmall(outer, limit, host.tree.pool, host.tree.signal);
  const outerTable = small.table === null ? null : { name: `\u0000outer${host.fresh()}`, table: small.table };
  const values = new Map<SqlExpr, SqlExpr>();
  const added = new Set<string>();
  let rel = small.relation;
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    const a = analyses[i]!;
    const relation = await runGrouped(host, a, outerTable === null ? null : { ...outerTable, columns: a.outerKeys.map((o) => keyColumn(rel, o, a.at)) });
    // names the joins above must keep: the aggregates, until the conjunct reading them has run
    for (const n of a.columns) added.add(n);
    const tree: TreeContext = host.tree.mentioned === null ? host.tree : { ...host.tree, mentioned: new Set([...host.tree.mentioned, ...added]) };
    values.set(node, a.value);
    const last = i === nodes.length - 1;
    const inner = nodes.length === 1 && a.nullWhenEmpty && nullWhenNull(c, node);
    const type: JoinType = inner ? 'inner' : 'left';
    const rowFilter = last ? [replaceNodes(c, values)] : [];
    const keys: KeyPair[] = a.outerKeys.map((o, k) => ({ left: keyColumn(rel, o, a.at), right: a.key(k) }));
    rel = await joinRelations(tree, { type, keys, conds: [], nullEqualsNull: false, merged: new Set(), rowFilter }, rel, relation, host.tree.opened);
  }
  // the aggregates' columns are projected away once the conjunct ran
  const columns = rel.columns.filter((v) => !added.has(v.name));
  return { ...rel, input: new ProjectedScan(rel.input, columns.map((v) => v.out)), columns };
}

/** What a correlated scalar subquery decorrelates to, before it runs. */
interface Analysis {
  readonly at: number | null;
  /** The subquery grouped by its correlated inner columns (hidden output names). */
  readonly grouped: SelectQuery;
  readonly innerKeys: readonly SqlExpr[];
  readonly outerKeys: readonly ColumnRef[];
  /** The hidden name of key column k of the grouped result. */
  key(k: number): string;
  /** The grouped result's hidden column names. */
  readonly columns: readonly string[];
  /** Rows of the subquery's FROM tables (what reading only the outer keys may save). */
  readonly inputRows: number;
  /** The subquery's value over a joined row (aggregates read from the relation, counts COALESCEd to 0). */
  readonly value: SqlExpr;
  /** Whether the value is NULL for an outer row without a group. */
  readonly nullWhenEmpty: boolean;
}

async function analyze(host: ScalarHost, outer: Relation, node: ScalarSubquery): Promise<Analysis> {
  const q = node.query;
  const at = node.at;
  const refuse = (why: string): never => notYet(`a correlated scalar subquery ${why}`, at);
  if (q.from === null) return refuse('without FROM');
  if (q.groupBy.length > 0 || q.having !== null || q.limit !== null || q.offset !== null) return refuse('with GROUP BY, HAVING, LIMIT or OFFSET');
  if (q.select.length !== 1 || q.select[0]!.expr.kind === 'star') return refuse('selecting more than one column');
  const item = q.select[0]!.expr;
  const aggregates = aggregateCalls(item);
  if (aggregates.length === 0) return refuse('that is not an aggregate (it may return more than one row per outer row)');
  const plan = (await host.bind(q))!;
  // WHERE: correlated conjuncts are `inner_column = outer_column` keys, the rest stays in the subquery
  const innerKeys: SqlExpr[] = [];
  const outerKeys: ColumnRef[] = [];
  const local: SqlExpr[] = [];
  for (const w of conjuncts(q.where)) {
    if (!readsOutside(w, plan)) {
      local.push(w);
      continue;
    }
    const pair = w.kind === 'compare' && w.op === '=' && w.left.kind === 'column' && w.right.kind === 'column' ? splitKey(w.left, w.right, plan) : null;
    if (pair === null) return refuse('correlated through anything but inner_column = outer_column conjuncts of its WHERE');
    innerKeys.push(pair.inner);
    outerKeys.push(pair.outer);
  }
  if (innerKeys.length === 0) return refuse('correlated outside its WHERE');
  // every outer reference must be a key's outer side or a column of the select expression outside the aggregates
  const allowed = new Set<SqlExpr>([...outerKeys, ...columnsOutsideAggregates(item)]);
  for (const r of await host.outerReferences(q)) {
    if (!allowed.has(r)) return refuse(`reading the outer column ${r.names.join('.')} outside a WHERE key or its select expression`);
    const found = lookup(outer, r.names);
    if (found === null || found === 'ambiguous') return refuse(`reading ${r.names.join('.')}, which is not a column of the query right around it`);
  }
  const id = host.fresh();
  const K = (i: number) => `\u0000s${id}k${i}`;
  const A = (j: number) => `\u0000s${id}a${j}`;
  const select: SelectItem[] = [...innerKeys.map((k, i) => ({ expr: k, alias: K(i), name: K(i) })), ...aggregates.map((a, j) => ({ expr: a, alias: A(j), name: A(j) }))];
  const by = new Map<SqlExpr, SqlExpr>(
    aggregates.map((a, j) => {
      const column: SqlExpr = { kind: 'column', names: [A(j)], at: a.at };
      const count = a.name === 'count' || a.name === 'count_star';
      const zero: SqlExpr = { kind: 'constant', constant: { type: 'INTEGER', value: 0n, sqlType: 'INTEGER' }, at: a.at };
      return [a, count ? { kind: 'call', name: 'coalesce', args: [column, zero], distinct: false, star: false, at: a.at } : column];
    }),
  );
  return {
    at,
    grouped: { ...q, distinct: false, select, where: and(local), groupBy: innerKeys, orderBy: [] },
    innerKeys,
    outerKeys,
    key: K,
    columns: select.map((s) => s.name!),
    inputRows: leaves(plan).reduce((n, l) => n + l.scan.numRows, 0),
    value: replaceNodes(item, by),
    nullWhenEmpty: nullOverEmpty(item),
  };
}

/**
 * Runs the grouped subquery; with `outer` (the outer rows, held), it reads only rows whose keys
 * the outer rows have: `inner_key IN (SELECT outer_key FROM <outer rows>)` per key — a semi join
 * whose build side's dynamic filter prunes the subquery's scan. Per key column, so a superset of
 * the groups the outer rows join (each such group's key values are all in the outer rows).
 */
async function runGrouped(host: ScalarHost, a: Analysis, outer: { readonly name: string; readonly table: Table; readonly columns: readonly string[] } | null): Promise<Relation> {
  let q = a.grouped;
  if (outer !== null) {
    const from: TableRef = { kind: 'table', name: outer.name, alias: null, at: null };
    const among = a.innerKeys.map((k, i): SqlExpr => ({ kind: 'in-subquery', arg: k, query: { ...EMPTY_QUERY, select: [{ expr: { kind: 'column', names: [outer.columns[i]!], at: null }, alias: null, name: outer.columns[i]! }], from }, negated: false, at: a.at }));
    q = { ...q, where: and([...conjuncts(q.where), ...among]) };
  }
  const { table, plan } = await host.run(q, outer === null ? undefined : new Map([[outer.name, outer.table]]));
  const scan = await openScan(table, 'subquery');
  const how = outer === null ? 'grouped by its correlated columns' : "grouped by its correlated columns, over the outer rows' keys only";
  return { ...scanRelation(scan, ''), describe: () => ({ label: `SCALAR SUBQUERY (decorrelated: ${how})`, details: [`rows: ${table.numRows}`], children: [plan] }) };
}

const EMPTY_QUERY: SelectQuery = { ctes: [], distinct: false, select: [], from: null, where: null, groupBy: [], having: null, orderBy: [], limit: null, offset: null };

/** The data name of an outer key column in `rel`. */
function keyColumn(rel: Relation, o: ColumnRef, at: number | null): string {
  const v = lookup(rel, o.names);
  return v === null || v === 'ambiguous' ? notYet(`a correlated scalar subquery reading ${o.names.join('.')}, which is not a column of the query right around it`, at) : v.out;
}

function and(parts: readonly SqlExpr[]): SqlExpr | null {
  return parts.length === 0 ? null : parts.length === 1 ? parts[0]! : { kind: 'and', args: parts, at: parts[0]!.at };
}

/** The aggregate calls of `e` (not entering them: an aggregate inside one is the binder's error). */
function aggregateCalls(e: SqlExpr, out: Extract<SqlExpr, { kind: 'call' }>[] = []): Extract<SqlExpr, { kind: 'call' }>[] {
  if (isAggregate(e)) out.push(e);
  else for (const c of childrenOf(e)) aggregateCalls(c, out);
  return out;
}

function columnsOutsideAggregates(e: SqlExpr, out: SqlExpr[] = []): SqlExpr[] {
  if (e.kind === 'column') out.push(e);
  else if (!isAggregate(e)) for (const c of childrenOf(e)) columnsOutsideAggregates(c, out);
  return out;
}

/** Whether `e` reads a column the subquery's FROM does not have (nested subqueries: host.outerReferences checks them). */
function readsOutside(e: SqlExpr, plan: FromPlan): boolean {
  if (e.kind === 'column') return !resolvesIn(plan, e.names);
  return childrenOf(e).some((x) => readsOutside(x, plan));
}

function splitKey(a: ColumnRef, b: ColumnRef, plan: FromPlan): { inner: ColumnRef; outer: ColumnRef } | null {
  const ai = resolvesIn(plan, a.names);
  const bi = resolvesIn(plan, b.names);
  if (ai && !bi) return { inner: a, outer: b };
  if (bi && !ai) return { inner: b, outer: a };
  return null;
}

/** Whether `e` (a subquery's select expression) is NULL when every aggregate ran over no rows. */
function nullOverEmpty(e: SqlExpr): boolean {
  if (isAggregate(e)) return e.name !== 'count' && e.name !== 'count_star';
  if (e.kind === 'arith' || e.kind === 'cast') return childrenOf(e).some(nullOverEmpty);
  return false;
}

/** Whether the conjunct `c` is NULL (drops the row) whenever `node` is NULL. */
function nullWhenNull(c: SqlExpr, node: SqlExpr): boolean {
  if (c === node) return true;
  if (c.kind !== 'compare' && c.kind !== 'arith' && c.kind !== 'cast') return false;
  if (c.kind === 'compare' && (c.op === 'IS DISTINCT FROM' || c.op === 'IS NOT DISTINCT FROM')) return false;
  return childrenOf(c).some((x) => nullWhenNull(x, node));
}

