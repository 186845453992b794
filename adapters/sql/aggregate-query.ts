/**
 * GROUP BY, aggregates and HAVING (issue 14) as a hash aggregate over projected columns.
 *
 * Binding, as DuckDB's binder does it:
 *  - a GROUP BY item is an expression over the FROM result, an output alias or a select-list
 *    position (`GROUP BY 1`);
 *  - the aggregates `count(*)`, `count`, `sum`, `min`, `max`, `avg` ([DISTINCT] x) may appear in
 *    the select list, HAVING and ORDER BY; each distinct call is computed once;
 *  - after aggregating, an expression may only read the group keys (matched as expressions: `a.k`
 *    and `k` are the same column) and aggregates; another column is a UsageError, as DuckDB's
 *    "must appear in the GROUP BY clause".
 * The operator's input is one column per group key and one per aggregate argument (hidden names),
 * so a key or an argument may be any expression; its output is a relation whose columns are those
 * keys and the aggregates' results, and the select list, HAVING and ORDER BY are rewritten into
 * expressions over it.
 */
import type { Table } from 'apache-arrow';
import type { AggregateCall, AggregateFunction, AggregateSpec } from '../../core/aggregate.ts';
import { JoinlabError, MissingColumnError, UnsupportedTypeError, UsageError } from '../../core/errors.ts';
import type { SelectItem, SelectQuery, SqlExpr } from './ast.ts';
import { openScan } from '../io/open.ts';
import { childrenOf, mapChildren, notYet, resolveIn, scanRelation, type Relation } from './relation.ts';
import { sqlText } from './sql-text.ts';

const FUNCTIONS: Record<string, AggregateFunction> = { count: 'count', count_star: 'count_star', sum: 'sum', min: 'min', max: 'max', avg: 'avg' };

export function isAggregateQuery(q: SelectQuery): boolean {
  return q.groupBy.length > 0 || q.having !== null || [...q.select.map((s) => s.expr), ...q.orderBy.map((o) => o.expr)].some(isAggregateIn);
}

export function isAggregate(e: SqlExpr): e is Extract<SqlExpr, { kind: 'call' }> {
  return e.kind === 'call' && FUNCTIONS[e.name.toLowerCase()] !== undefined;
}

function isAggregateIn(e: SqlExpr): boolean {
  return isAggregate(e) || childrenOf(e).some(isAggregateIn);
}

export interface AggregatePlan {
  /** The operator's input: the FROM result's group keys and aggregate arguments, as select items. */
  readonly inputItems: readonly SelectItem[];
  readonly spec: AggregateSpec;
  readonly label: string;
  /** The query over the aggregate's output: its select list and ORDER BY rewritten, no GROUP BY. */
  readonly query: SelectQuery;
  /** HAVING, rewritten over the output (null: none). */
  readonly having: SqlExpr | null;
  /** The aggregate's output table as the relation `query` reads. */
  output(table: Table): Promise<Relation>;
  /** An error of the aggregate, its hidden column names replaced by the user's expressions. */
  userError(e: unknown): unknown;
}

/**
 * `e` with the hidden column names of `names` (an operator's input columns, e.g. `\u0000a0`) replaced
 * by the SQL text the user wrote for them, so a refusal names `sum(x)` and not `sum(\u0000a0)`.
 */
export function withUserNames(e: unknown, names: ReadonlyMap<string, string>): unknown {
  if (!(e instanceof JoinlabError) || names.size === 0) return e;
  const user = (n: string): string => names.get(n) ?? n;
  if (e instanceof UnsupportedTypeError) return new UnsupportedTypeError(user(e.column), e.type, e.context);
  if (e instanceof MissingColumnError) return new MissingColumnError(user(e.column), e.where, e.available.map(user));
  let message = e.message;
  for (const [hidden, text] of names) message = message.split(`column '${hidden}'`).join(`'${text}'`).split(hidden).join(text);
  e.message = message;
  return e;
}

const G = (i: number) => `\u0000g${i}`;
const A = (i: number) => `\u0000a${i}`;
const R = (i: number) => `\u0000r${i}`;

export function planAggregate(rel: Relation, q: SelectQuery): AggregatePlan {
  if (q.select.some((s) => s.expr.kind === 'star')) notYet('* in an aggregate query', null);
  // GROUP BY items: expressions, aliases or positions
  const groups = q.groupBy.map((g) => {
    if (g.kind === 'constant' && g.constant.type === 'INTEGER') {
      const item = q.select[Number(g.constant.value) - 1];
      if (item === undefined) throw new UsageError(`GROUP BY position ${g.constant.value} is not in the select list (1..${q.select.length})`);
      return item.expr;
    }
    if (g.kind === 'column' && g.names.length === 1 && !rel.columns.some((c) => c.name === g.names[0])) {
      const item = q.select.find((s) => s.alias === g.names[0]);
      if (item !== undefined) return item.expr;
    }
    return g;
  });
  for (const g of groups) if (isAggregateIn(g)) throw new UsageError('GROUP BY cannot hold an aggregate');
  const groupKeys = groups.map((g) => canon(g, rel));
  const calls: { key: string; call: AggregateCall; arg: SqlExpr | null }[] = [];
  const callIndex = (e: Extract<SqlExpr, { kind: 'call' }>): number => {
    const key = canon(e, rel);
    const found = calls.findIndex((c) => c.key === key);
    if (found >= 0) return found;
    let fn = FUNCTIONS[e.name.toLowerCase()]!;
    if (fn === 'count' && (e.star || e.args.length === 0)) fn = 'count_star';
    const arg = fn === 'count_star' ? null : e.args.length === 1 ? e.args[0]! : notYet(`${e.name} with ${e.args.length} arguments`, e.at);
    if (arg !== null && isAggregateIn(arg)) throw new UsageError(`aggregate function calls cannot be nested (${e.name} at character ${e.at ?? '?'})`);
    const i = calls.length;
    calls.push({ key, arg, call: { fn, column: arg === null ? null : A(i), distinct: e.distinct, as: R(i) } });
    return i;
  };
  const rewrite = (e: SqlExpr): SqlExpr => {
    const g = groupKeys.indexOf(canon(e, rel));
    if (g >= 0) return { kind: 'column', names: [G(g)], at: e.at };
    if (isAggregate(e)) return { kind: 'column', names: [R(callIndex(e))], at: e.at };
    if (e.kind === 'column') {
      throw new UsageError(`column "${e.names.join('.')}" must appear in the GROUP BY clause or be used in an aggregate function${e.at === null ? '' : ` (at character ${e.at})`}`);
    }
    return mapChildren(e, rewrite);
  };
  const select = q.select.map((s) => ({ ...s, expr: rewrite(s.expr) }));
  // HAVING may name a select-list alias that is no column of FROM (`sum(v) AS s … HAVING s > 20`), as in DuckDB
  const aliased = (e: SqlExpr): SqlExpr => {
    if (e.kind === 'column' && e.names.length === 1 && safeResolve(rel, e.names) === undefined) {
      const item = q.select.find((s) => s.alias === e.names[0]);
      if (item !== undefined) return item.expr;
    }
    return mapChildren(e, aliased);
  };
  const having = q.having === null ? null : rewrite(aliased(q.having));
  const orderBy = q.orderBy.map((o) => {
    // ORDER BY a position or an output alias stays as written
    const e = o.expr;
    if ((e.kind === 'constant' && e.constant.type === 'INTEGER') || (e.kind === 'column' && e.names.length === 1 && q.select.some((s) => s.alias === e.names[0]))) return o;
    return { ...o, expr: rewrite(e) };
  });
  // HAVING without GROUP BY or aggregates (`SELECT 1 FROM t HAVING true`) is still an aggregate
  // query: one group of all the rows, one output row — count(*) gives the operator something to compute
  if (groups.length === 0 && calls.length === 0) calls.push({ key: 'count(*)', arg: null, call: { fn: 'count_star', column: null, distinct: false, as: R(0) } });
  const inputItems: SelectItem[] = [
    ...groups.map((g, i) => ({ expr: g, alias: G(i), name: G(i) })),
    ...calls.filter((c) => c.arg !== null).map((c) => ({ expr: c.arg!, alias: c.call.column!, name: c.call.column! })),
  ];
  const spec: AggregateSpec = { groupBy: groups.map((_g, i) => G(i)), aggregates: calls.map((c) => c.call) };
  const label = `AGGREGATE ${calls.map((c) => `${c.call.fn}${c.call.distinct ? ' distinct' : ''}`).join(', ') || '(none)'}${groups.length > 0 ? ` GROUP BY ${groups.length} key${groups.length > 1 ? 's' : ''}` : ''}`;
  return {
    inputItems,
    spec,
    label,
    query: { ...q, select, orderBy, groupBy: [], having: null },
    having,
    output: async (table) => scanRelation(await openScan(table, 'aggregate'), ''),
    userError: (e) => withUserNames(e, new Map([...groups.map((g, i) => [G(i), sqlText(g)] as const), ...calls.flatMap((c) => (c.arg === null ? [] : [[c.call.column!, sqlText(c.arg)] as const]))])),
  };
}

/** A canonical text of `e`: column references by what they resolve to, positions dropped. */
function canon(e: SqlExpr, rel: Relation): string {
  if (e.kind === 'column') {
    const hit = rel.columns.find((c) => c === safeResolve(rel, e.names));
    return hit === undefined ? `?${e.names.join('.')}` : `#${hit.rel}.${hit.out}`;
  }
  const parts: string[] = [e.kind];
  for (const [k, v] of Object.entries(e)) {
    if (k === 'at' || k === 'kind' || k === 'args' || k === 'arg' || k === 'left' || k === 'right' || k === 'list' || k === 'whens' || k === 'otherwise' || k === 'query') continue;
    parts.push(`${k}=${typeof v === 'bigint' ? `${v}n` : JSON.stringify(v, (_x, y) => (typeof y === 'bigint' ? `${y}n` : y))}`);
  }
  if (e.kind === 'call' || e.kind === 'and' || e.kind === 'or' || e.kind === 'arith') parts.push(`(${e.args.map((a) => canon(a, rel)).join(',')})`);
  else parts.push(`(${childrenOf(e).map((a) => canon(a, rel)).join(',')})`);
  return parts.join(' ');
}

function safeResolve(rel: Relation, names: readonly string[]) {
  try {
    return resolveIn(rel, names, null);
  } catch {
    return undefined;
  }
}
