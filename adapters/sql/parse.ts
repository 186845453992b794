/**
 * SQL text -> joinlab's SQL tree (adapters/sql/ast.ts), with DuckDB's own parser: `json_serialize_sql`
 * (the json extension inside `@duckdb/node-api`) returns the parse tree as JSON; this module only
 * walks it. No grammar is written here, so the dialect is exactly DuckDB's.
 *
 * Why a converter and not the raw JSON: the planner must never guess. Every node kind is matched
 * against the subset joinlab runs (the issue's list: SELECT [DISTINCT], joins of every kind with ON /
 * USING / NATURAL / commas, derived tables, non-recursive CTEs, the expressions the evaluator
 * covers, [NOT] EXISTS / IN / NOT IN and scalar subqueries, aggregates with GROUP BY / HAVING, ORDER BY,
 * LIMIT / OFFSET); anything else — a set operation, a window function, `> ALL (subquery)`,
 * QUALIFY, a recursive CTE, a table function — is an `UnsupportedSqlError` naming the construct
 * and its character offset, before any data is read. A text the parser rejects is a
 * `SqlSyntaxError` with DuckDB's message and position.
 *
 * Exactness: DuckDB writes integer constants as JSON numbers, and a JSON number past 2^53 would be
 * rounded by `JSON.parse`, so long digit runs outside strings are turned into marked strings before
 * parsing (`parseExactJson`) and read back as bigint. (The same trick reads `query_location`'s
 * "no location" value, 2^64 - 1, which becomes `null`.)
 */
import { SqlSyntaxError, UnsupportedSqlError } from '../../core/errors.ts';
import { quoteString } from '../../core/expr/sql.ts';
import type { ArithOp, At, CompareOp, JoinKind, OrderItem, SelectItem, SelectQuery, SqlConstant, SqlExpr, TableRef } from './ast.ts';
import type { DuckDBSession } from '../duckdb/session.ts';
import { childrenOf } from './relation.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Node = { readonly [k: string]: Json };

const BIG = '\u0000big:';

/** JSON.parse, with every integer of 16+ digits kept exact (as a `BIG`-marked string). */
export function parseExactJson(text: string): Json {
  let out = '';
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
      continue;
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      let j = i + (c === 45 ? 1 : 0);
      while (j < text.length && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
      const next = text.charCodeAt(j);
      const integer = next !== 46 /* . */ && next !== 101 && next !== 69; /* e E */
      if (integer && j - i >= 16) {
        out += `${text.slice(last, i)}"\\u0000big:${text.slice(i, j)}"`; // JSON's escape of BIG's NUL
        last = j;
      }
      i = j - 1;
    }
  }
  return JSON.parse(out + text.slice(last)) as Json;
}

function bigOf(v: Json | undefined): bigint | null {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : null;
  if (typeof v === 'string' && v.startsWith(BIG)) return BigInt(v.slice(BIG.length));
  return null;
}

/** Parses `sql` with DuckDB's parser and converts it; one SELECT statement. */
export async function parseSql(duck: DuckDBSession, sql: string): Promise<SelectQuery> {
  // skip_null: absent fields are absent, not null (the converter tests presence). NOT skip_empty:
  // it drops the empty grouping set, and ROLLUP (x) would then read as GROUP BY x.
  // The session's ORDER BY defaults come along: `SET default_order` / `default_null_order` there
  // decide what an ORDER BY without ASC/DESC or NULLS FIRST/LAST means, as DuckDB's binder does.
  const [row] = await duck.queryRows(
    `SELECT json_serialize_sql(${quoteString(sql)}, skip_null := true)::VARCHAR, current_setting('default_order')::VARCHAR, current_setting('default_null_order')::VARCHAR`,
  );
  const query = convertParseTree(String(row![0]), orderDefaults(String(row![1]), String(row![2])));
  await nameExpressions(duck, query);
  return query;
}

/** An empty `SELECT <item>` statement as json_serialize_sql writes it, for `nameExpressions`. */
const NAMING_STATEMENT = (item: string): string =>
  `{"error":false,"statements":[{"node":{"type":"SELECT_NODE","modifiers":[],"cte_map":{"map":[]},"select_list":[${item}],"from_table":{"type":"EMPTY","alias":"","sample":null,"query_location":0},"where_clause":null,"group_expressions":[],"group_sets":[],"aggregate_handling":"STANDARD_HANDLING","having":null,"sample":null,"qualify":null},"named_param_map":[]}]}`;

/**
 * Names each unaliased expression of a select list as DuckDB names its result column: the
 * expression's own SQL text (`(a.k + 1)`, `count_star()`, `CAST(k AS BIGINT)`), which
 * `json_deserialize_sql` prints from the item's parse tree — so `--compare` and derived tables
 * see the same column names in both engines. One DuckDB call for every item of the query.
 */
async function nameExpressions(duck: DuckDBSession, q: SelectQuery): Promise<void> {
  const pending: SelectItem[] = [];
  const walk = (sq: SelectQuery): void => {
    for (const c of sq.ctes) walk(c.query);
    for (const s of sq.select) if (s.name === null && s.source !== undefined) pending.push(s);
    const from = (r: TableRef | null): void => {
      if (r === null) return;
      if (r.kind === 'derived') walk(r.query);
      else if (r.kind === 'join') {
        from(r.left);
        from(r.right);
        if (r.on !== null) subqueries(r.on);
      }
    };
    // subqueries in expressions name their items too (a derived table inside one is read by name)
    const subqueries = (e: SqlExpr): void => {
      if (e.kind === 'exists' || e.kind === 'in-subquery' || e.kind === 'scalar-subquery') walk(e.query);
      for (const c of childrenOf(e)) subqueries(c);
    };
    from(sq.from);
    for (const e of [...sq.select.map((s) => s.expr), ...sq.groupBy, ...sq.orderBy.map((o) => o.expr)]) subqueries(e);
    if (sq.where !== null) subqueries(sq.where);
    if (sq.having !== null) subqueries(sq.having);
  };
  walk(q);
  if (pending.length === 0) return;
  const calls = pending.map((s) => `json_deserialize_sql(${quoteString(NAMING_STATEMENT(s.source!))})`).join(', ');
  const [row] = await duck.queryRows(`SELECT ${calls}`);
  pending.forEach((s, i) => {
    (s as { name: string | null }).name = String(row![i]).replace(/^SELECT /, '');
  });
}

/**
 * `node` as JSON text: the exact integers `parseExactJson` kept as marked strings written back as
 * integers, and an integral DOUBLE / FLOAT constant with a fraction or exponent (`1500.0`,
 * `1e+20`) — written as digits, DuckDB would read it back as an integer where its tree has a
 * double.
 */
function exactJsonText(node: Json): string {
  const text = JSON.stringify(node, function (this: { type?: { id?: string } }, key, v: unknown) {
    const float = key === 'value' && (this.type?.id === 'DOUBLE' || this.type?.id === 'FLOAT');
    if (typeof v === 'number' && Number.isInteger(v) && (float || !Number.isSafeInteger(v))) return `${BIG}${Number.isSafeInteger(v) ? `${v}.0` : v.toExponential()}`;
    return v;
  });
  return text.replace(/"\\u0000big:(-?[\d.e+-]+)"/g, '$1');
}

/**
 * What an ORDER BY item without a direction / a null order means: DuckDB's `default_order`
 * (ASCENDING) and `default_null_order` (NULLS_LAST; also NULLS_FIRST,
 * NULLS_FIRST_ON_ASC_LAST_ON_DESC, NULLS_LAST_ON_ASC_FIRST_ON_DESC), resolved as DuckDB's
 * `DBConfig::ResolveOrder` / `ResolveNullOrder` (src/main/config.cpp) do: the null order of an
 * item depends on its direction after the direction is resolved.
 */
export interface OrderDefaults {
  readonly descending: boolean;
  readonly nulls: 'NULLS_LAST' | 'NULLS_FIRST' | 'NULLS_FIRST_ON_ASC_LAST_ON_DESC' | 'NULLS_LAST_ON_ASC_FIRST_ON_DESC';
}

export const DUCKDB_ORDER_DEFAULTS: OrderDefaults = { descending: false, nulls: 'NULLS_LAST' };

/** The session's settings as `current_setting` prints them; an unknown value is refused, never guessed. */
export function orderDefaults(order: string, nullOrder: string): OrderDefaults {
  const o = order.toUpperCase();
  const n = nullOrder.toUpperCase().replace(/ /g, '_');
  if (o !== 'ASCENDING' && o !== 'DESCENDING' && o !== 'ASC' && o !== 'DESC') throw new UnsupportedSqlError(`default_order '${order}'`, null);
  if (n !== 'NULLS_LAST' && n !== 'NULLS_FIRST' && n !== 'NULLS_FIRST_ON_ASC_LAST_ON_DESC' && n !== 'NULLS_LAST_ON_ASC_FIRST_ON_DESC') throw new UnsupportedSqlError(`default_null_order '${nullOrder}'`, null);
  return { descending: o.startsWith('DESC'), nulls: n };
}

/** Set for the duration of one (synchronous) `convertParseTree`. */
let currentOrderDefaults: OrderDefaults = DUCKDB_ORDER_DEFAULTS;

/** The tree of `json_serialize_sql`'s output (exported for tests and for callers with their own DuckDB). */
export function convertParseTree(json: string, defaults: OrderDefaults = DUCKDB_ORDER_DEFAULTS): SelectQuery {
  const saved = currentOrderDefaults;
  currentOrderDefaults = defaults;
  try {
    return convertTree(json);
  } finally {
    currentOrderDefaults = saved;
  }
}

function convertTree(json: string): SelectQuery {
  const doc = parseExactJson(json) as Node;
  if (doc.error === true) {
    const pos = bigOf(doc.position ?? null) ?? (typeof doc.position === 'string' && /^\d+$/.test(doc.position) ? BigInt(doc.position) : null);
    const message = String(doc.error_message ?? 'the SQL does not parse');
    if (doc.error_type === 'not implemented' || /only SELECT statements/i.test(message)) throw new UnsupportedSqlError(`statement (${message})`, pos === null ? null : Number(pos));
    throw new SqlSyntaxError(message, pos === null ? null : Number(pos));
  }
  const statements = doc.statements as Json[];
  if (!Array.isArray(statements) || statements.length !== 1) throw new UnsupportedSqlError(`${Array.isArray(statements) ? statements.length : 0} statements (exactly one SELECT is supported)`, null);
  return queryNode(((statements[0] as Node).node as Node) ?? {});
}

function atOf(n: Node | null | undefined): At {
  const v = n === null || n === undefined ? null : bigOf(n.query_location);
  return v === null || v >= 2n ** 53n ? null : Number(v);
}

function unsupported(what: string, n: Node): never {
  throw new UnsupportedSqlError(what, atOf(n));
}

function list(v: Json | undefined): Node[] {
  return Array.isArray(v) ? (v as Node[]) : [];
}

function queryNode(n: Node): SelectQuery {
  const type = String(n.type ?? '');
  if (type === 'SET_OPERATION_NODE') unsupported(`set operation ${String(n.setop_type ?? '')}`.trim(), n);
  if (type === 'RECURSIVE_CTE_NODE') unsupported('recursive CTE', n);
  if (type !== 'SELECT_NODE') unsupported(`query node ${type}`, n);
  const ctes = cteList(n);
  let distinct = false;
  let orderBy: OrderItem[] = [];
  let limit: bigint | null = null;
  let offset: bigint | null = null;
  for (const m of list(n.modifiers)) {
    switch (m.type) {
      case 'DISTINCT_MODIFIER':
        if (list(m.distinct_on_targets).length > 0) unsupported('DISTINCT ON', m);
        distinct = true;
        break;
      case 'ORDER_MODIFIER':
        orderBy = list(m.orders).map(orderItem);
        break;
      case 'LIMIT_MODIFIER':
        if (m.limit !== undefined) limit = nonNegative(m.limit as Node, 'LIMIT');
        if (m.offset !== undefined) offset = nonNegative(m.offset as Node, 'OFFSET');
        break;
      default:
        unsupported(`${String(m.type).replace(/_MODIFIER$/, '')} clause`, m);
    }
  }
  if (n.qualify !== undefined) unsupported('QUALIFY', n.qualify as Node);
  if (n.sample !== undefined) unsupported('USING SAMPLE', n);
  if (list(n.group_sets).length > 1) unsupported('GROUPING SETS / ROLLUP / CUBE', n);
  const aggregate = String(n.aggregate_handling ?? 'STANDARD_HANDLING');
  if (aggregate !== 'STANDARD_HANDLING') unsupported(aggregate === 'FORCE_AGGREGATES' ? 'GROUP BY ALL' : aggregate, n);
  const select: SelectItem[] = list(n.select_list).map((e) => {
    const x = expr(e);
    const alias = typeof e.alias === 'string' && e.alias !== '' ? e.alias : null;
    const name = alias ?? (x.kind === 'column' ? x.names[x.names.length - 1]! : null);
    return { expr: x, alias, name, ...(name === null && x.kind !== 'star' ? { source: exactJsonText(e) } : {}) };
  });
  const fromNode = n.from_table as Node | undefined;
  const from = fromNode === undefined || fromNode.type === 'EMPTY' ? null : tableRef(fromNode);
  return {
    ctes,
    distinct,
    select,
    from,
    where: n.where_clause === undefined ? null : expr(n.where_clause as Node),
    groupBy: list(n.group_expressions).map(expr),
    having: n.having === undefined ? null : expr(n.having as Node),
    orderBy,
    limit,
    offset,
  };
}

function cteList(n: Node): SelectQuery['ctes'][number][] {
  const map = (n.cte_map as Node | undefined)?.map;
  return list(map).map((entry) => {
    const info = entry.value as Node;
    if (info.materialized === 'CTE_MATERIALIZE_ALWAYS') unsupported('MATERIALIZED CTE', info);
    const aliases = (info.aliases as Json[] | undefined) ?? [];
    const query = queryNode(((info.query as Node).node as Node) ?? {});
    return { name: String(entry.key), query, ...(Array.isArray(aliases) && aliases.length > 0 ? { columnAliases: aliases.map(String) } : {}) };
  });
}

function nonNegative(e: Node, clause: string): bigint {
  const c = e.class === 'CONSTANT' ? constantOf(e) : null;
  if (c === null || c.type !== 'INTEGER' || c.value < 0n) unsupported(`${clause} that is not a non-negative integer constant`, e);
  return c.value;
}

function orderItem(o: Node): OrderItem {
  const dir = String(o.type ?? 'ORDER_DEFAULT');
  const nulls = String(o.null_order ?? 'ORDER_DEFAULT');
  const d = currentOrderDefaults;
  const descending = dir === 'DESCENDING' ? true : dir === 'ASCENDING' ? false : d.descending;
  const explicit = nulls === 'NULLS FIRST' || nulls === 'NULLS_FIRST' ? true : nulls === 'NULLS LAST' || nulls === 'NULLS_LAST' ? false : null;
  // DuckDB's own default (NULLS LAST in either direction) stays `null`, as before
  const byDefault = d.nulls === 'NULLS_LAST' ? null : d.nulls === 'NULLS_FIRST' ? true : d.nulls === 'NULLS_FIRST_ON_ASC_LAST_ON_DESC' ? !descending : descending;
  return { expr: expr(o.expression as Node), descending, nullsFirst: explicit ?? byDefault };
}

// SEMI / ANTI: DuckDB's `a SEMI JOIN b ON …` keeps the rows of a with a match (without one), a's columns only
const JOIN_TYPES: Record<string, JoinKind> = { INNER: 'inner', LEFT: 'left', RIGHT: 'right', OUTER: 'full', FULL: 'full', SEMI: 'left-semi', ANTI: 'left-anti' };

function tableRef(n: Node): TableRef {
  const at = atOf(n);
  const alias = typeof n.alias === 'string' && n.alias !== '' ? n.alias : null;
  // `t AS x(a, b)`: the binder renames the table's first columns (join-tree.ts `leafColumns`)
  const names = (n.column_name_alias as Json[] | undefined) ?? [];
  const columnAliases = Array.isArray(names) && names.length > 0 ? { columnAliases: names.map(String) } : {};
  switch (n.type) {
    case 'BASE_TABLE':
      if (n.schema_name || n.catalog_name) unsupported('a schema- or catalog-qualified table name', n);
      return { kind: 'table', name: String(n.table_name), alias, ...columnAliases, at };
    case 'SUBQUERY':
      return { kind: 'derived', query: queryNode(((n.subquery as Node).node as Node) ?? {}), alias, ...columnAliases, at };
    case 'JOIN': {
      if (list(n.column_name_alias).length > 0) unsupported('column aliases on a join', n);
      const ref = String(n.ref_type ?? 'REGULAR');
      const jt = String(n.join_type ?? 'INNER');
      const left = tableRef(n.left as Node);
      const right = tableRef(n.right as Node);
      if (ref === 'CROSS') return { kind: 'join', type: 'cross', left, right, on: null, using: null, natural: false, at };
      if (ref !== 'REGULAR' && ref !== 'NATURAL') unsupported(`${ref} join`, n);
      const type = JOIN_TYPES[jt];
      if (type === undefined) unsupported(`${jt} join`, n);
      const using = list(n.using_columns as Json[] as Node[]).length > 0 ? (n.using_columns as string[]).map(String) : null;
      return { kind: 'join', type, left, right, on: n.condition === undefined ? null : expr(n.condition as Node), using, natural: ref === 'NATURAL', at };
    }
    case 'EMPTY':
      unsupported('an empty FROM inside a join', n);
      break;
    case 'TABLE_FUNCTION':
      unsupported(`table function ${String(((n.function as Node | undefined)?.function_name as string | undefined) ?? '')}`.trim(), n);
      break;
    default:
      unsupported(`table reference ${String(n.type)}`, n);
  }
}

const COMPARE: Record<string, CompareOp> = {
  COMPARE_EQUAL: '=',
  COMPARE_NOTEQUAL: '<>',
  COMPARE_LESSTHAN: '<',
  COMPARE_LESSTHANOREQUALTO: '<=',
  COMPARE_GREATERTHAN: '>',
  COMPARE_GREATERTHANOREQUALTO: '>=',
  COMPARE_DISTINCT_FROM: 'IS DISTINCT FROM',
  COMPARE_NOT_DISTINCT_FROM: 'IS NOT DISTINCT FROM',
};

const ARITH = new Set<string>(['+', '-', '*', '/', '//', '%']);

/** Operators that are function calls to joinlab (`x LIKE p` is DuckDB's `~~`; `^@` is starts_with). */
const OPERATOR_FUNCTIONS: Record<string, string> = { '~~': '~~', '!~~': '!~~', '~~*': '~~*', '!~~*': '!~~*', '||': '||', '^@': 'starts_with' };

/** Functions DuckDB's parser writes, schema-qualified with `main`, for SQL syntax. */
const SYNTAX_FUNCTIONS = new Set(['like_escape', 'not_like_escape', 'ilike_escape', 'not_ilike_escape', 'date_part', 'substring']);

function expr(n: Node): SqlExpr {
  const at = atOf(n);
  const cls = String(n.class ?? '');
  const type = String(n.type ?? '');
  switch (cls) {
    case 'COLUMN_REF':
      return { kind: 'column', names: (n.column_names as string[]).map(String), at };
    case 'STAR':
      if (n.columns === true || list(n.exclude_list).length > 0 || list(n.replace_list as Json[] as Node[]).length > 0 || n.expr !== undefined) unsupported('COLUMNS(...) / * EXCLUDE / * REPLACE', n);
      return { kind: 'star', relation: typeof n.relation_name === 'string' && n.relation_name !== '' ? n.relation_name : null, at };
    case 'CONSTANT':
      return { kind: 'constant', constant: constantOf(n), at };
    case 'COMPARISON': {
      const op = COMPARE[type];
      if (op === undefined) unsupported(`comparison ${type}`, n);
      return { kind: 'compare', op, left: expr(n.left as Node), right: expr(n.right as Node), at };
    }
    case 'BETWEEN': {
      // x BETWEEN lo AND hi is x >= lo AND x <= hi, three-valued logic included
      const x = expr(n.input as Node);
      return { kind: 'and', args: [{ kind: 'compare', op: '>=', left: x, right: expr(n.lower as Node), at }, { kind: 'compare', op: '<=', left: x, right: expr(n.upper as Node), at }], at };
    }
    case 'CONJUNCTION':
      if (type !== 'CONJUNCTION_AND' && type !== 'CONJUNCTION_OR') unsupported(type, n);
      return { kind: type === 'CONJUNCTION_AND' ? 'and' : 'or', args: list(n.children).map(expr), at };
    case 'OPERATOR':
      return operator(n, type, at);
    case 'FUNCTION': {
      const name = String(n.function_name);
      if (n.filter !== undefined) unsupported(`FILTER clause on ${name}`, n);
      if (list((n.order_bys as Node | undefined)?.orders).length > 0) unsupported(`ORDER BY inside ${name}(...)`, n);
      // the parser itself qualifies what it writes for syntax (`extract`, `substring(… FROM …)`, ESCAPE) with main
      if ((n.schema && !(n.schema === 'main' && SYNTAX_FUNCTIONS.has(name))) || n.catalog) unsupported(`qualified function ${name}`, n);
      const args = list(n.children).map(expr);
      if (n.is_operator === true && ARITH.has(name)) return { kind: 'arith', op: name as ArithOp, args, at };
      const callName = n.is_operator === true ? OPERATOR_FUNCTIONS[name] : undefined;
      if (callName !== undefined) return { kind: 'call', name: callName, args, distinct: false, star: false, at };
      if (n.is_operator === true) unsupported(`operator ${name}`, n);
      const star = name.toLowerCase() === 'count_star';
      return { kind: 'call', name: star ? 'count' : name.toLowerCase(), args, distinct: n.distinct === true, star, at };
    }
    case 'CASE':
      return {
        kind: 'case',
        whens: list(n.case_checks).map((c) => ({ when: expr(c.when_expr as Node), then: expr(c.then_expr as Node) })),
        otherwise: n.else_expr === undefined ? null : expr(n.else_expr as Node),
        at,
      };
    case 'CAST':
      if (n.try_cast === true) unsupported('TRY_CAST', n);
      return { kind: 'cast', arg: expr(n.child as Node), type: typeName(n.cast_type as Node, n), at };
    case 'SUBQUERY':
      return subquery(n, at);
    case 'WINDOW':
      unsupported(`window function ${String(n.function_name ?? type)}`, n);
      break;
    default:
      unsupported(`expression ${cls || type}`, n);
  }
}

function operator(n: Node, type: string, at: At): SqlExpr {
  const args = list(n.children).map(expr);
  switch (type) {
    case 'OPERATOR_NOT':
      return { kind: 'not', arg: args[0]!, at };
    case 'OPERATOR_IS_NULL':
    case 'OPERATOR_IS_NOT_NULL':
      return { kind: 'is-null', arg: args[0]!, negated: type === 'OPERATOR_IS_NOT_NULL', at };
    case 'COMPARE_IN':
    case 'COMPARE_NOT_IN':
      return { kind: 'in-list', arg: args[0]!, list: args.slice(1), negated: type === 'COMPARE_NOT_IN', at };
    case 'OPERATOR_COALESCE':
      return { kind: 'call', name: 'coalesce', args, distinct: false, star: false, at };
    default:
      unsupported(`operator ${type.replace(/^OPERATOR_/, '')}`, n);
  }
}

function subquery(n: Node, at: At): SqlExpr {
  const query = queryNode(((n.subquery as Node).node as Node) ?? {});
  switch (n.subquery_type) {
    case 'EXISTS':
      return { kind: 'exists', query, negated: false, at };
    case 'NOT_EXISTS':
      return { kind: 'exists', query, negated: true, at };
    case 'ANY':
      if (n.comparison_type !== 'COMPARE_EQUAL') unsupported(`${String(n.comparison_type)} ANY (subquery)`, n);
      return { kind: 'in-subquery', arg: expr(n.child as Node), query, negated: false, at };
    case 'SCALAR':
      return { kind: 'scalar-subquery', query, at };
    default:
      unsupported(`${String(n.subquery_type ?? 'scalar').toLowerCase()} subquery`, n);
  }
}

/** DuckDB's name of a cast target (`BIGINT`, `DECIMAL(10,2)`, `VARCHAR`). */
function typeName(t: Node, at: Node): string {
  const id = String(t.id ?? '');
  const info = t.type_info as Node | undefined;
  if (id === 'DECIMAL' && info !== undefined) return `DECIMAL(${String(info.width)},${String(info.scale)})`;
  if (info !== undefined && id !== 'VARCHAR') unsupported(`cast to ${id} with type parameters`, at);
  if (id === 'USER') unsupported(`cast to a user type ${String((info as Node | undefined)?.user_type_name ?? '')}`.trim(), at);
  return id;
}

const INTEGER_TYPES = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT']);

/** An integer value as DuckDB serialises it: a number, or a 128-bit `{upper, lower}` (two's complement). */
function exactInteger(raw: Json | undefined): bigint | null {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const upper = bigOf((raw as Node).upper);
    const lower = bigOf((raw as Node).lower);
    return upper === null || lower === null ? null : upper * 2n ** 64n + lower;
  }
  return bigOf(raw);
}

function constantOf(n: Node): SqlConstant {
  const v = n.value as Node;
  const t = v.type as Node;
  const id = String(t.id ?? '');
  if (v.is_null === true) return { type: 'NULL', value: null };
  if (id === 'BOOLEAN') return { type: 'BOOLEAN', value: v.value === true };
  if (id === 'VARCHAR') return { type: 'VARCHAR', value: String(v.value) };
  if (id === 'DOUBLE' || id === 'FLOAT') return { type: 'DOUBLE', value: Number(v.value), sqlType: id };
  if (INTEGER_TYPES.has(id)) {
    const value = exactInteger(v.value);
    if (value === null) unsupported(`${id} constant`, n);
    return { type: 'INTEGER', value, sqlType: id };
  }
  if (id === 'DECIMAL') {
    const info = t.type_info as Node;
    const value = exactInteger(v.value);
    if (value === null) unsupported('DECIMAL constant', n);
    return { type: 'DECIMAL', value, width: Number(info.width), scale: Number(info.scale) };
  }
  unsupported(`${id} constant`, n);
}
