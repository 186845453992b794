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

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Node = { readonly [k: string]: Json };

const BIG = '\u0000big:';
const FLOAT = '\u0000float:';

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
    // DuckDB writes an infinite or NaN DOUBLE as a bare `Infinity` / `NaN`, which is not JSON
    const special = c === 73 /* I */ || c === 78 /* N */ || c === 45 ? /^-?(?:Infinity|NaN)/.exec(text.slice(i, i + 9)) : null;
    if (special !== null) {
      out += `${text.slice(last, i)}"\\u0000float:${special[0]}"`;
      last = i + special[0].length;
      i = last - 1;
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
  let query: SelectQuery;
  sourceText = sql; // for the names of casts (namingCastType); convertParseTree is synchronous
  try {
    query = convertParseTree(String(row![0]), orderDefaults(String(row![1]), String(row![2])));
  } finally {
    sourceText = null;
  }
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
    (s as { name: string | null }).name = String(row![i]).replace(/^SELECT /, '').replace(new RegExp(`"${MARK}([A-Z]+)"`, 'g'), '$1');
  });
}

/**
 * How DuckDB names a cast in a result column: `CAST(x AS <type>)` where <type> is what the query
 * wrote, normalised — the types its grammar knows as keywords by their canonical name with the
 * modifiers as written (`DECIMAL`, `DECIMAL(5)`, `DECIMAL(5, 1)` for NUMERIC(5,1), `VARCHAR(10)`,
 * `VARCHAR(1)` for CHAR, `TIMESTAMP(3)`), every other type name in double quotes (`"UBIGINT"`,
 * `"DOUBLE"`, `"DATE"`). `json_serialize_sql` has resolved the type (`{"id":"UBIGINT"}`,
 * `TIMESTAMP(3)` as TIMESTAMP_MS, DECIMAL as DECIMAL(18,3), VARCHAR(10) as VARCHAR), so
 * `json_deserialize_sql` alone prints another name. Before naming, each cast type is put back as
 * an unbound type name: quoted types by their name, keyword types under a marked name
 * (`\u0001DECIMAL`) carrying the modifiers read from the query text at the cast's location, the
 * mark dropped from the printed name. Checked against DuckDB's names in result-names.test.ts.
 */
const QUOTED_CAST_TYPES = new Set(['TINYINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'HUGEINT', 'UHUGEINT', 'DOUBLE', 'DATE', 'BLOB', 'UUID', 'TIMESTAMP_S', 'TIMESTAMP_MS', 'TIMESTAMP_NS', 'TIMESTAMP WITH TIME ZONE', 'TIME WITH TIME ZONE']);
const MARK = '\u0001';

/** The query text being converted (set by `parseSql` around `convertParseTree`), for cast names. */
let sourceText: string | null = null;

function unboundType(name: string, modifiers: readonly number[]): Json {
  return {
    id: 'UNBOUND',
    type_info: { type: 'UNBOUND_TYPE_INFO', alias: '', name, catalog: '', schema: '', user_type_modifiers: modifiers.map((v) => ({ type: { id: 'INTEGER' }, is_null: false, value: v })) },
  };
}

/** Index of the quote closing the literal / identifier opened at `i`. */
function closingQuote(text: string, i: number): number {
  const q = text[i]!;
  let j = i + 1;
  while (j < text.length) {
    if (text[j] === q) {
      if (text[j + 1] === q) j += 2;
      else return j;
    } else j++;
  }
  return text.length;
}

/** The type name and numeric modifiers written for the cast at `at` (`CAST(… AS T(m))`, `x::T(m)`), or null. */
function writtenCastType(text: string, at: number): { word: string; mods: number[] | null } | null {
  let i: number;
  if (text.startsWith('::', at)) i = at + 2;
  else {
    const open = /^(?:TRY_)?CAST\s*\(/i.exec(text.slice(at));
    if (open === null) return null;
    let depth = 0;
    let as = -1;
    for (i = at + open[0].length; i < text.length; i++) {
      const ch = text[i]!;
      if (ch === "'" || ch === '"') i = closingQuote(text, i);
      else if (ch === '(') depth++;
      else if (ch === ')') {
        if (depth === 0) break;
        depth--;
      } else if (depth === 0 && /[\s)]/.test(text[i - 1]!) && /^AS\s/i.test(text.slice(i, i + 3))) as = i;
    }
    if (as < 0) return null;
    i = as + 2;
  }
  const t = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\(([^()]*)\))?/.exec(text.slice(i));
  if (t === null) return null;
  const mods = t[2] === undefined ? null : t[2].split(',').map((m) => m.trim());
  if (mods !== null && !mods.every((m) => /^\d+$/.test(m))) return null;
  return { word: t[1]!.toUpperCase(), mods: mods === null ? null : mods.map(Number) };
}

/** The cast type to name `cast` (a CAST node) by, per the comment above. */
function namingCastType(cast: Node): Json | undefined {
  const type = cast.cast_type as Node | undefined;
  const id = typeof type?.id === 'string' ? type.id : null;
  if (type === undefined || id === null) return type;
  const at = atOf(cast);
  const written = sourceText === null || at === null ? null : writtenCastType(sourceText, at);
  if (id === 'DECIMAL') {
    const info = type.type_info as Node | undefined;
    const full = [Number(info?.width ?? 18), Number(info?.scale ?? 3)];
    return unboundType(`${MARK}DECIMAL`, written === null ? full : (written.mods ?? []));
  }
  if (id === 'VARCHAR' && written !== null) {
    if (written.mods !== null) return unboundType(`${MARK}VARCHAR`, written.mods);
    if (['CHAR', 'CHARACTER', 'BPCHAR', 'NCHAR'].includes(written.word)) return unboundType(`${MARK}VARCHAR`, [1]);
  }
  if (id.startsWith('TIMESTAMP') && written?.word === 'TIMESTAMP' && written.mods !== null) return unboundType(`${MARK}TIMESTAMP`, written.mods);
  return QUOTED_CAST_TYPES.has(id) ? unboundType(id, []) : type;
}

/** `node` with every cast's type as DuckDB's result name prints it (a copy; `node` is kept). */
function withNamingCastTypes(node: Json): Json {
  if (Array.isArray(node)) return node.map(withNamingCastTypes);
  if (node === null || typeof node !== 'object') return node;
  const out: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(node)) out[k] = withNamingCastTypes(v);
  if (node.class === 'CAST' && node.cast_type !== undefined) out.cast_type = namingCastType(node as Node) ?? null;
  return out;
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
  return text.replace(/"\\u0000big:(-?[\d.e+-]+)"/g, '$1').replace(/"\\u0000float:(-?(?:Infinity|NaN))"/g, '$1');
}

/**
 * Totality. Every JSON object of the parse tree the converter visits is read through `Fields`,
 * which records the keys it consumed; `done()` then refuses every other key unless its value is
 * null or the node class's known default (`DEFAULTS`). So a clause DuckDB writes into a node
 * joinlab reads — TABLESAMPLE on a table, QUALIFY, a FILTER on an aggregate, `* EXCLUDE`, a named
 * argument — is an UnsupportedSqlError naming it, never silently dropped; and a field a newer
 * DuckDB adds refuses the query until the converter reads it or lists its default here.
 * (`traceFields` lets a test check that the walk reached every object and accounted for every key.)
 */
const ALWAYS_READ = ['type', 'class', 'query_location'];

/** Per node class: a field whose value is this default says nothing (null / absent is the same). */
const DEFAULTS: Record<string, Record<string, Json>> = {
  expression: { alias: '' },
  STAR: { exclude_list: [], replace_list: [], columns: false, qualified_exclude_list: [], rename_list: [] },
  FUNCTION: { order_bys: { type: 'ORDER_MODIFIER', orders: [] }, export_state: false },
  SUBQUERY_EXPR: { comparison_type: 'INVALID' },
  CAST: { try_cast: false },
  table: { alias: '', column_name_alias: [] },
  JOIN: { delim_flipped: false, duplicate_eliminated_columns: [] },
  cte: { key_targets: [], aliases: [] },
  statement: { named_param_map: [] },
  type_info: { alias: '' },
};

/** What a refused field is, for the message (else `<node class> field '<key>'`). */
const FIELD_CONSTRUCTS: Record<string, string> = {
  sample: 'TABLESAMPLE / USING SAMPLE',
  qualify: 'QUALIFY',
  filter: 'FILTER (WHERE …) on an aggregate',
  order_bys: 'ORDER BY inside an aggregate',
  export_state: 'EXPORT_STATE',
  exclude_list: '* EXCLUDE',
  qualified_exclude_list: '* EXCLUDE',
  replace_list: '* REPLACE',
  rename_list: '* RENAME',
  columns: 'COLUMNS(...)',
  expr: 'COLUMNS(...)',
  try_cast: 'TRY_CAST',
  key_targets: 'USING KEY on a CTE',
  named_param_map: 'prepared-statement parameters',
  alias: 'a name or alias inside an expression (named argument)',
  column_name_alias: 'column aliases on this table reference',
  with_ordinality: 'WITH ORDINALITY',
  delim_flipped: 'a delim join',
  duplicate_eliminated_columns: 'a delim join',
  at_clause: 'AT (time travel)',
  ignore_nulls: 'IGNORE NULLS',
  collation: 'COLLATE',
};

/** `read`: the keys the converter read (their values are walked on); `checked`: keys refused unless at their default. */
export type FieldsTrace = (node: Node, read: ReadonlySet<string>, checked: ReadonlySet<string>) => void;
let trace: FieldsTrace | null = null;

/** Runs `f` with `t` told of every node read, with the keys it read and those it checked. For tests. */
export function traceFields<T>(t: FieldsTrace, f: () => T): T {
  trace = t;
  try {
    return f();
  } finally {
    trace = null;
  }
}

function isDefault(v: Json | undefined, d: Json | undefined): boolean {
  if (v === null || v === undefined) return true;
  return d !== undefined && JSON.stringify(v) === JSON.stringify(d);
}

class Fields {
  private readonly consumed = new Set<string>(ALWAYS_READ);
  private readonly checked = new Set<string>();
  private readonly defaults: Record<string, Json>[];
  constructor(
    readonly node: Node,
    private readonly what: string,
    classes: readonly string[],
  ) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) throw new UnsupportedSqlError(`a ${what} that is not an object in the parse tree`, null);
    this.defaults = classes.map((c) => DEFAULTS[c] ?? {});
  }

  /** Reads (consumes) `key`. */
  get(key: string): Json | undefined {
    this.consumed.add(key);
    return this.node[key];
  }

  /** Reads `key` as an object node (absent / null: undefined). */
  node_(key: string): Node | undefined {
    const v = this.get(key);
    return v === null || v === undefined ? undefined : (v as Node);
  }

  /** Refuses `key` (naming `construct`) unless it is null / absent or at its default. */
  refuse(key: string, construct = FIELD_CONSTRUCTS[key] ?? `${this.what} field '${key}'`): void {
    this.checked.add(key);
    const v = this.node[key];
    if (isDefault(v, this.defaultOf(key))) return;
    const at = v !== null && typeof v === 'object' && !Array.isArray(v) && 'query_location' in v ? atOf(v as Node) : null;
    throw new UnsupportedSqlError(construct, at ?? atOf(this.node));
  }

  /** Every key not consumed must be at its default. */
  done(): void {
    const keys = Object.keys(this.node);
    for (const k of keys) if (!this.consumed.has(k) && !this.checked.has(k)) this.refuse(k);
    if (trace !== null) trace(this.node, this.consumed, this.checked);
  }

  private defaultOf(key: string): Json | undefined {
    for (const d of this.defaults) if (key in d) return d[key];
    return undefined;
  }
}

function fields(n: Node, what: string, ...classes: string[]): Fields {
  return new Fields(n, what, classes);
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
  return convertDocument(parseExactJson(json), defaults);
}

/** `convertParseTree` of the parsed document (what `parseExactJson` returns). */
export function convertDocument(parsed: Json, defaults: OrderDefaults = DUCKDB_ORDER_DEFAULTS): SelectQuery {
  const saved = currentOrderDefaults;
  currentOrderDefaults = defaults;
  try {
    return convertDoc(parsed);
  } finally {
    currentOrderDefaults = saved;
  }
}

function convertDoc(parsed: Json): SelectQuery {
  const doc = parsed as Node;
  if (doc.error === true) {
    const pos = bigOf(doc.position ?? null) ?? (typeof doc.position === 'string' && /^\d+$/.test(doc.position) ? BigInt(doc.position) : null);
    const message = String(doc.error_message ?? 'the SQL does not parse');
    if (doc.error_type === 'not implemented' || /only SELECT statements/i.test(message)) throw new UnsupportedSqlError(`statement (${message})`, pos === null ? null : Number(pos));
    // DuckDB parsed the text but cannot serialise its tree (`(SELECT … LIMIT 3) ORDER BY …`)
    if (/NOT IMPLEMENTED/.test(message)) throw new UnsupportedSqlError(`a statement DuckDB cannot write as a parse tree (${message}), e.g. ORDER BY / LIMIT on a parenthesised query`, pos === null ? null : Number(pos));
    throw new SqlSyntaxError(message, pos === null ? null : Number(pos));
  }
  const statements = doc.statements as Json[];
  if (!Array.isArray(statements) || statements.length !== 1) throw new UnsupportedSqlError(`${Array.isArray(statements) ? statements.length : 0} statements (exactly one SELECT is supported)`, null);
  return statement(statements[0] as Node);
}

/** `{node, named_param_map}`: a statement, a subquery, a CTE's query. */
function statement(n: Node): SelectQuery {
  const f = fields(n, 'statement', 'statement');
  const q = queryNode(f.node_('node') ?? {});
  f.done();
  return q;
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

function strings(v: Json | undefined): string[] {
  return list(v).map(String);
}

/** The modifiers joinlab applies, in the order it applies them (DuckDB applies its list in order). */
const MODIFIER_ORDER = ['DISTINCT_MODIFIER', 'ORDER_MODIFIER', 'LIMIT_MODIFIER'];

function queryNode(n: Node): SelectQuery {
  const type = String(n.type ?? '');
  if (type === 'SET_OPERATION_NODE') unsupported(`set operation ${String(n.setop_type ?? '')}${n.setop_all === true ? ' ALL' : ''}`.trim(), n);
  if (type === 'RECURSIVE_CTE_NODE') unsupported('recursive CTE', n);
  if (type !== 'SELECT_NODE') unsupported(`query node ${type}`, n);
  const f = fields(n, 'SELECT');
  const ctes = cteList(f.node_('cte_map'));
  let distinct = false;
  let orderBy: OrderItem[] = [];
  let limit: bigint | null = null;
  let offset: bigint | null = null;
  let last = -1;
  for (const m of list(f.get('modifiers'))) {
    const mt = String(m.type);
    const rank = MODIFIER_ORDER.indexOf(mt);
    if (rank === -1) unsupported(mt === 'LIMIT_PERCENT_MODIFIER' ? 'LIMIT … %' : `${mt.replace(/_MODIFIER$/, '')} clause`, m);
    // `(SELECT … LIMIT 3) LIMIT 1`, or LIMIT before ORDER BY: not the order joinlab applies them in
    if (rank <= last) unsupported(`${mt.replace(/_MODIFIER$/, '')} applied after ${MODIFIER_ORDER[last]!.replace(/_MODIFIER$/, '')} (nested modifiers)`, m);
    last = rank;
    const mf = fields(m, mt);
    switch (mt) {
      case 'DISTINCT_MODIFIER':
        if (list(mf.get('distinct_on_targets')).length > 0) unsupported('DISTINCT ON', m);
        distinct = true;
        break;
      case 'ORDER_MODIFIER':
        orderBy = list(mf.get('orders')).map(orderItem);
        break;
      case 'LIMIT_MODIFIER': {
        const l = mf.node_('limit');
        const o = mf.node_('offset');
        if (l !== undefined) limit = nonNegative(l, 'LIMIT');
        if (o !== undefined) offset = nonNegative(o, 'OFFSET');
        break;
      }
    }
    mf.done();
  }
  f.refuse('qualify');
  f.refuse('sample');
  const aggregate = String(f.get('aggregate_handling') ?? 'STANDARD_HANDLING');
  if (aggregate !== 'STANDARD_HANDLING') unsupported(aggregate === 'FORCE_AGGREGATES' ? 'GROUP BY ALL' : aggregate, n);
  const groupBy = list(f.get('group_expressions')).map((e) => expr(e));
  groupSets(f.get('group_sets'), groupBy.length, n);
  const select: SelectItem[] = list(f.get('select_list')).map((e) => {
    const x = expr(e, true);
    const alias = typeof e.alias === 'string' && e.alias !== '' ? e.alias : null;
    const name = alias ?? (x.kind === 'column' ? x.names[x.names.length - 1]! : null);
    return { expr: x, alias, name, ...(name === null && x.kind !== 'star' ? { source: exactJsonText(withNamingCastTypes(e)) } : {}) };
  });
  const fromNode = f.node_('from_table');
  const from = fromNode === undefined ? null : fromNode.type === 'EMPTY' ? emptyFrom(fromNode) : tableRef(fromNode);
  const where = f.node_('where_clause');
  const having = f.node_('having');
  const q: SelectQuery = {
    ctes,
    distinct,
    select,
    from,
    where: where === undefined ? null : expr(where),
    groupBy,
    having: having === undefined ? null : expr(having),
    orderBy,
    limit,
    offset,
  };
  f.done();
  return q;
}

/**
 * GROUP BY as DuckDB writes it: `group_sets` lists index sets into `group_expressions`. joinlab
 * runs one set holding every expression (`GROUP BY x, y`, `GROUPING SETS ((x, y))`), or none (no
 * GROUP BY); `GROUP BY ()` ([[]]), ROLLUP, CUBE and several sets are refused.
 */
function groupSets(v: Json | undefined, expressions: number, n: Node): void {
  const sets = Array.isArray(v) ? v : [];
  if (sets.length === 0 && expressions === 0) return;
  if (sets.length === 1 && Array.isArray(sets[0])) {
    const one = (sets[0] as Json[]).map(Number);
    if (one.length === 0) unsupported('GROUP BY ()', n);
    if (one.length === expressions && new Set(one).size === expressions && one.every((i) => Number.isInteger(i) && i >= 0 && i < expressions)) return;
  }
  unsupported('GROUPING SETS / ROLLUP / CUBE', n);
}

function emptyFrom(n: Node): null {
  fields(n, 'FROM', 'table').done();
  return null;
}

function cteList(map: Node | undefined): SelectQuery['ctes'][number][] {
  if (map === undefined) return [];
  const mf = fields(map, 'WITH');
  const out = list(mf.get('map')).map((entry) => {
    const ef = fields(entry, 'WITH entry');
    const info = ef.node_('value') ?? {};
    const name = String(ef.get('key'));
    ef.done();
    const f = fields(info, 'CTE', 'cte');
    const materialized = String(f.get('materialized') ?? 'CTE_MATERIALIZE_DEFAULT');
    if (materialized === 'CTE_MATERIALIZE_ALWAYS') unsupported('MATERIALIZED CTE', info);
    if (materialized !== 'CTE_MATERIALIZE_DEFAULT' && materialized !== 'CTE_MATERIALIZE_NEVER') unsupported(`CTE ${materialized}`, info);
    const aliases = strings(f.get('aliases'));
    const query = statement(f.node_('query') ?? {});
    f.done();
    return { name, query, ...(aliases.length > 0 ? { columnAliases: aliases } : {}) };
  });
  mf.done();
  return out;
}

function nonNegative(e: Node, clause: string): bigint {
  const c = e.class === 'CONSTANT' ? constantOf(e) : null;
  if (c === null || c.type !== 'INTEGER' || c.value < 0n) unsupported(`${clause} that is not a non-negative integer constant`, e);
  return c.value;
}

function orderItem(o: Node): OrderItem {
  const f = fields(o, 'ORDER BY item');
  const dir = String(f.get('type') ?? 'ORDER_DEFAULT');
  const nulls = String(f.get('null_order') ?? 'ORDER_DEFAULT');
  const e = f.node_('expression') ?? {};
  if (e.class === 'STAR' && e.columns === true) unsupported('ORDER BY ALL', o.expression as Node);
  if (dir !== 'ORDER_DEFAULT' && dir !== 'ASCENDING' && dir !== 'DESCENDING') unsupported(`ORDER BY … ${dir}`, e);
  const d = currentOrderDefaults;
  const descending = dir === 'DESCENDING' ? true : dir === 'ASCENDING' ? false : d.descending;
  const explicit = nulls === 'NULLS FIRST' || nulls === 'NULLS_FIRST' ? true : nulls === 'NULLS LAST' || nulls === 'NULLS_LAST' ? false : null;
  if (explicit === null && nulls !== 'ORDER_DEFAULT') unsupported(`ORDER BY … ${nulls}`, e);
  // DuckDB's own default (NULLS LAST in either direction) stays `null`, as before
  const byDefault = d.nulls === 'NULLS_LAST' ? null : d.nulls === 'NULLS_FIRST' ? true : d.nulls === 'NULLS_FIRST_ON_ASC_LAST_ON_DESC' ? !descending : descending;
  const item = { expr: expr(e), descending, nullsFirst: explicit ?? byDefault };
  f.done();
  return item;
}

// SEMI / ANTI: DuckDB's `a SEMI JOIN b ON …` keeps the rows of a with a match (without one), a's columns only
const JOIN_TYPES: Record<string, JoinKind> = { INNER: 'inner', LEFT: 'left', RIGHT: 'right', OUTER: 'full', FULL: 'full', SEMI: 'left-semi', ANTI: 'left-anti' };

function tableRef(n: Node): TableRef {
  const at = atOf(n);
  const type = String(n.type ?? '');
  switch (type) {
    case 'BASE_TABLE': {
      const f = fields(n, 'table', 'table');
      const alias = aliasOf(f);
      if (f.get('schema_name') || f.get('catalog_name')) unsupported('a schema- or catalog-qualified table name', n);
      f.refuse('sample');
      const ref: TableRef = { kind: 'table', name: String(f.get('table_name')), alias, ...columnAliasesOf(f), at };
      f.done();
      return ref;
    }
    case 'SUBQUERY': {
      const f = fields(n, 'derived table', 'table');
      const alias = aliasOf(f);
      f.refuse('sample');
      const ref: TableRef = { kind: 'derived', query: statement(f.node_('subquery') ?? {}), alias, ...columnAliasesOf(f), at };
      f.done();
      return ref;
    }
    case 'JOIN': {
      const f = fields(n, 'join', 'table', 'JOIN');
      f.refuse('alias', 'an alias on a join');
      f.refuse('column_name_alias', 'column aliases on a join');
      f.refuse('sample');
      const ref = String(f.get('ref_type') ?? 'REGULAR');
      const jt = String(f.get('join_type') ?? 'INNER');
      const left = tableRef(f.node_('left') ?? {});
      const right = tableRef(f.node_('right') ?? {});
      const using = strings(f.get('using_columns'));
      const cond = f.node_('condition');
      if (ref === 'CROSS') {
        if (cond !== undefined || using.length > 0) unsupported('a CROSS join with a condition', n);
        f.done();
        return { kind: 'join', type: 'cross', left, right, on: null, using: null, natural: false, at };
      }
      if (ref !== 'REGULAR' && ref !== 'NATURAL' && ref !== 'ASOF') unsupported(`${ref} join`, n);
      const kind = JOIN_TYPES[jt];
      if (kind === undefined) unsupported(`${jt} join`, n);
      // ASOF: inner and left only here (DuckDB 1.5.5's ASOF RIGHT / FULL disagree with its own NULL rule: docs/asof.md)
      if (ref === 'ASOF' && ((kind !== 'inner' && kind !== 'left') || (cond === undefined && using.length === 0))) unsupported(`ASOF ${jt} join${cond === undefined && using.length === 0 ? ' without ON or USING' : ''}`, n);
      const out: TableRef = { kind: 'join', type: kind, left, right, on: cond === undefined ? null : expr(cond), using: using.length > 0 ? using : null, natural: ref === 'NATURAL', ...(ref === 'ASOF' ? { asof: true } : {}), at };
      f.done();
      return out;
    }
    case 'EMPTY':
      unsupported('an empty FROM inside a join', n);
      break;
    case 'TABLE_FUNCTION':
      unsupported(`table function ${String(((n.function as Node | undefined)?.function_name as string | undefined) ?? '')}`.trim(), n);
      break;
    case 'EXPRESSION_LIST':
      unsupported('VALUES', n);
      break;
    default:
      unsupported(`table reference ${type}`, n);
  }
}

function aliasOf(f: Fields): string | null {
  const a = f.get('alias');
  return typeof a === 'string' && a !== '' ? a : null;
}

/** `t AS x(a, b)`: the binder renames the table's first columns (join-tree.ts `leafColumns`). */
function columnAliasesOf(f: Fields): { columnAliases?: string[] } {
  const names = strings(f.get('column_name_alias'));
  return names.length > 0 ? { columnAliases: names } : {};
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

/** One expression; `selectItem`: its `alias` is read by the caller (the select list). */
function expr(n: Node, selectItem = false): SqlExpr {
  const at = atOf(n);
  const cls = String(n.class ?? '');
  const type = String(n.type ?? '');
  switch (cls) {
    case 'COLUMN_REF': {
      const f = exprFields(n, 'column reference', selectItem);
      const out: SqlExpr = { kind: 'column', names: strings(f.get('column_names')), at };
      f.done();
      return out;
    }
    case 'STAR': {
      const f = exprFields(n, '*', selectItem, 'STAR');
      if (n.columns === true || n.expr !== undefined) unsupported('COLUMNS(...)', n);
      const rel = f.get('relation_name');
      f.done();
      return { kind: 'star', relation: typeof rel === 'string' && rel !== '' ? rel : null, at };
    }
    case 'CONSTANT':
      return { kind: 'constant', constant: constantOf(n, selectItem), at };
    case 'COMPARISON': {
      const op = COMPARE[type];
      if (op === undefined) unsupported(`comparison ${type}`, n);
      const f = exprFields(n, 'comparison', selectItem);
      const out: SqlExpr = { kind: 'compare', op, left: expr(f.node_('left') ?? {}), right: expr(f.node_('right') ?? {}), at };
      f.done();
      return out;
    }
    case 'BETWEEN': {
      // x BETWEEN lo AND hi is x >= lo AND x <= hi, three-valued logic included
      const f = exprFields(n, 'BETWEEN', selectItem);
      const x = expr(f.node_('input') ?? {});
      const out: SqlExpr = { kind: 'and', args: [{ kind: 'compare', op: '>=', left: x, right: expr(f.node_('lower') ?? {}), at }, { kind: 'compare', op: '<=', left: x, right: expr(f.node_('upper') ?? {}), at }], at };
      f.done();
      return out;
    }
    case 'CONJUNCTION': {
      if (type !== 'CONJUNCTION_AND' && type !== 'CONJUNCTION_OR') unsupported(type, n);
      const f = exprFields(n, type, selectItem);
      const out: SqlExpr = { kind: type === 'CONJUNCTION_AND' ? 'and' : 'or', args: list(f.get('children')).map((c) => expr(c)), at };
      f.done();
      return out;
    }
    case 'OPERATOR':
      return operator(n, type, at, selectItem);
    case 'FUNCTION':
      return call(n, at, selectItem);
    case 'CASE': {
      const f = exprFields(n, 'CASE', selectItem);
      const whens = list(f.get('case_checks')).map((c) => {
        const cf = fields(c, 'CASE WHEN');
        const w = { when: expr(cf.node_('when_expr') ?? {}), then: expr(cf.node_('then_expr') ?? {}) };
        cf.done();
        return w;
      });
      const otherwise = f.node_('else_expr');
      const out: SqlExpr = { kind: 'case', whens, otherwise: otherwise === undefined ? null : expr(otherwise), at };
      f.done();
      return out;
    }
    case 'CAST': {
      const f = exprFields(n, 'CAST', selectItem, 'CAST');
      f.refuse('try_cast');
      const out: SqlExpr = { kind: 'cast', arg: expr(f.node_('child') ?? {}), type: typeName(f.node_('cast_type') ?? {}, n), at };
      f.done();
      return out;
    }
    case 'SUBQUERY':
      return subquery(n, at, selectItem);
    case 'WINDOW':
      unsupported(`window function ${String(n.function_name ?? type)}`, n);
      break;
    case 'COLLATE':
      unsupported(`COLLATE ${String(n.collation ?? '')}`.trim(), n);
      break;
    case 'LAMBDA':
      unsupported('lambda', n);
      break;
    case 'PARAMETER':
      unsupported('a prepared-statement parameter', n);
      break;
    case 'POSITIONAL_REFERENCE':
      unsupported(`positional reference #${String(n.index ?? '')}`, n);
      break;
    default:
      unsupported(`expression ${cls || type}`, n);
  }
}

/** An expression node's reader: `alias` is the select list's (read by it) and must be empty elsewhere. */
function exprFields(n: Node, what: string, selectItem: boolean, ...classes: string[]): Fields {
  const f = fields(n, what, 'expression', ...classes);
  if (selectItem) f.get('alias');
  return f;
}

function call(n: Node, at: At, selectItem: boolean): SqlExpr {
  const f = exprFields(n, 'function call', selectItem, 'FUNCTION');
  const name = String(f.get('function_name'));
  if (f.get('filter') !== undefined) unsupported(`FILTER clause on ${name}`, n);
  const orders = f.node_('order_bys');
  if (orders !== undefined) {
    const of = fields(orders, `ORDER BY inside ${name}(...)`);
    if (list(of.get('orders')).length > 0) unsupported(`ORDER BY inside ${name}(...)`, n);
    of.done();
  }
  f.refuse('export_state');
  // the parser itself qualifies what it writes for syntax (`extract`, `substring(… FROM …)`, ESCAPE) with main
  const schema = f.get('schema');
  if ((schema && !(schema === 'main' && SYNTAX_FUNCTIONS.has(name))) || f.get('catalog')) unsupported(`qualified function ${name}`, n);
  const args = list(f.get('children')).map((c) => expr(c));
  const isOperator = f.get('is_operator') === true;
  const distinct = f.get('distinct') === true;
  f.done();
  if (isOperator && ARITH.has(name)) {
    if (distinct) unsupported(`DISTINCT on operator ${name}`, n);
    return { kind: 'arith', op: name as ArithOp, args, at };
  }
  const callName = isOperator ? OPERATOR_FUNCTIONS[name] : undefined;
  if (callName !== undefined) return { kind: 'call', name: callName, args, distinct: false, star: false, at };
  if (isOperator) unsupported(`operator ${name}`, n);
  const star = name.toLowerCase() === 'count_star';
  return { kind: 'call', name: star ? 'count' : name.toLowerCase(), args, distinct, star, at };
}

function operator(n: Node, type: string, at: At, selectItem: boolean): SqlExpr {
  const f = exprFields(n, 'operator', selectItem);
  const args = list(f.get('children')).map((c) => expr(c));
  f.done();
  const arity = (k: number): void => {
    if (args.length !== k) unsupported(`operator ${type} with ${args.length} operands`, n);
  };
  switch (type) {
    case 'OPERATOR_NOT':
      arity(1);
      return { kind: 'not', arg: args[0]!, at };
    case 'OPERATOR_IS_NULL':
    case 'OPERATOR_IS_NOT_NULL':
      arity(1);
      return { kind: 'is-null', arg: args[0]!, negated: type === 'OPERATOR_IS_NOT_NULL', at };
    case 'COMPARE_IN':
    case 'COMPARE_NOT_IN':
      if (args.length < 2) unsupported(`${type} with no list`, n);
      return { kind: 'in-list', arg: args[0]!, list: args.slice(1), negated: type === 'COMPARE_NOT_IN', at };
    case 'OPERATOR_COALESCE':
      return { kind: 'call', name: 'coalesce', args, distinct: false, star: false, at };
    case 'ARRAY_EXTRACT':
      unsupported('subscript x[i]', n);
      break;
    case 'ARRAY_SLICE':
      unsupported('slice x[i:j]', n);
      break;
    case 'ARRAY_CONSTRUCTOR':
      unsupported('ARRAY[...]', n);
      break;
    case 'GROUPING_FUNCTION':
      unsupported('GROUPING(...)', n);
      break;
    default:
      unsupported(`operator ${type.replace(/^OPERATOR_/, '')}`, n);
  }
}

function subquery(n: Node, at: At, selectItem: boolean): SqlExpr {
  const f = exprFields(n, 'subquery', selectItem, 'SUBQUERY_EXPR');
  const kind = String(f.get('subquery_type') ?? '');
  const comparison = String(f.get('comparison_type') ?? 'INVALID');
  const child = f.node_('child');
  if (kind === 'ANY' && comparison !== 'COMPARE_EQUAL') unsupported(`${comparison} ANY (subquery)`, n);
  if (kind !== 'ANY' && (comparison !== 'INVALID' || child !== undefined)) unsupported(`${kind.toLowerCase()} subquery with a comparison`, n);
  if (kind !== 'EXISTS' && kind !== 'NOT_EXISTS' && kind !== 'ANY' && kind !== 'SCALAR') unsupported(`${kind.toLowerCase() || 'unknown'} subquery`, n);
  const query = statement(f.node_('subquery') ?? {});
  const arg = kind === 'ANY' ? expr(child ?? {}) : null;
  f.done();
  switch (kind) {
    case 'EXISTS':
      return { kind: 'exists', query, negated: false, at };
    case 'NOT_EXISTS':
      return { kind: 'exists', query, negated: true, at };
    case 'ANY':
      return { kind: 'in-subquery', arg: arg!, query, negated: false, at };
    default:
      return { kind: 'scalar-subquery', query, at };
  }
}

/** DuckDB's name of a cast target (`BIGINT`, `DECIMAL(10,2)`, `VARCHAR`). */
function typeName(t: Node, at: Node): string {
  const f = fields(t, 'type');
  const id = String(f.get('id') ?? '');
  const info = f.node_('type_info');
  f.done();
  if (id === 'USER') unsupported(`cast to a user type ${String(info?.user_type_name ?? '')}`.trim(), at);
  if (info === undefined) return id;
  if (id !== 'DECIMAL') unsupported(`cast to ${id} with type parameters`, at);
  const d = decimalInfo(info);
  return `DECIMAL(${d.width},${d.scale})`;
}

function decimalInfo(info: Node): { width: number; scale: number } {
  const f = fields(info, 'DECIMAL type', 'type_info');
  if (f.get('type') !== 'DECIMAL_TYPE_INFO') unsupported(`DECIMAL type info ${String(info.type)}`, info);
  const out = { width: Number(f.get('width')), scale: Number(f.get('scale')) };
  f.done();
  return out;
}

const INTEGER_TYPES = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT']);

/** An integer value as DuckDB serialises it: a number, or a 128-bit `{upper, lower}` (two's complement). */
function exactInteger(raw: Json | undefined): bigint | null {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const f = fields(raw as Node, '128-bit integer');
    const upper = bigOf(f.get('upper'));
    const lower = bigOf(f.get('lower'));
    f.done();
    return upper === null || lower === null ? null : upper * 2n ** 64n + lower;
  }
  return bigOf(raw);
}

function constantOf(n: Node, selectItem = false): SqlConstant {
  const f = exprFields(n, 'constant', selectItem);
  const v = f.node_('value') ?? {};
  f.done();
  const vf = fields(v, 'constant value');
  const t = vf.node_('type') ?? {};
  const isNull = vf.get('is_null') === true;
  const raw = vf.get('value');
  const tf = fields(t, 'type');
  const id = String(tf.get('id') ?? '');
  const info = tf.node_('type_info');
  tf.done();
  vf.done();
  if (info !== undefined && id !== 'DECIMAL') unsupported(`${id} constant with type parameters`, n);
  if (isNull) return { type: 'NULL', value: null };
  if (id === 'BOOLEAN') return { type: 'BOOLEAN', value: raw === true };
  if (id === 'VARCHAR') return { type: 'VARCHAR', value: String(raw) };
  if (id === 'DOUBLE' || id === 'FLOAT') {
    const x = typeof raw === 'string' && raw.startsWith(FLOAT) ? Number(raw.slice(FLOAT.length)) : Number(raw);
    if (!Number.isFinite(x)) unsupported(`a ${id} constant out of range (${String(x)})`, n);
    return { type: 'DOUBLE', value: x, sqlType: id };
  }
  if (INTEGER_TYPES.has(id)) {
    const value = exactInteger(raw);
    if (value === null) unsupported(`${id} constant`, n);
    return { type: 'INTEGER', value, sqlType: id };
  }
  if (id === 'DECIMAL' && info !== undefined) {
    const d = decimalInfo(info);
    const value = exactInteger(raw);
    if (value === null) unsupported('DECIMAL constant', n);
    return { type: 'DECIMAL', value, width: d.width, scale: d.scale };
  }
  unsupported(`${id} constant`, n);
}
