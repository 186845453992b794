/**
 * Running SQL on joinlab's own operators (issue 14, first slice): DuckDB parses (parse.ts), this
 * module binds the tree against the given tables and runs it as a left-deep tree of
 * `Engine.join`s, in the order the query writes the joins, then projects, sorts (`Engine.sort`)
 * and cuts (LIMIT / OFFSET).
 *
 * What binds today, and why each rule is right:
 *  - FROM: base tables (Arrow tables, or Parquet / Arrow files by path), joined INNER / LEFT /
 *    RIGHT / FULL with ON, USING or NATURAL, and CROSS / comma joins. A join's ON conjuncts that
 *    equate a column of its left input with one of its right input become the join's keys; the
 *    other conjuncts become its residual filter (`filter` of the join spec: evaluated on matched
 *    pairs, which is exactly ON's meaning for every join type).
 *  - WHERE, per conjunct: one that reads ONE table that no outer join above pads with NULLs goes
 *    into that table's scan as a static predicate (static-filter.ts: it filters rows and prunes
 *    containers by min/max; core/scan/filtered-scan.ts ANDs it with the join's dynamic filter) —
 *    filtering before the joins keeps exactly the rows filtering after them would. Any other is
 *    placed at the lowest join whose inputs hold every column it names, when every join from there
 *    up is INNER or CROSS — there a predicate on the join's output is the same as a predicate on
 *    its matched pairs (a cross/comma join with an equality in WHERE becomes an equi-join). One
 *    above an outer join (it would filter NULL-padded rows) is refused for now.
 *  - SELECT: `*`, `t.*`, column references with aliases; a USING / NATURAL column appears once
 *    in `*` (the left input's, as DuckDB shows it for INNER and LEFT joins; RIGHT / FULL with
 *    USING under `*` is refused: DuckDB shows a coalesced column there).
 *  - ORDER BY output columns or positions (DuckDB's default NULLS LAST), LIMIT / OFFSET.
 * Everything else of the subset the parser accepts (expressions in SELECT, DISTINCT, aggregates,
 * subqueries, CTEs, derived tables) is an `UnsupportedSqlError` saying it is not planned yet.
 * `x IN (a, b)` in a condition becomes `x = a OR x = b` (the same under three-valued logic).
 *
 * Column resolution follows DuckDB: `t.c` names relation `t` (its alias, else its table name);
 * a bare `c` must name exactly one visible column (a USING column counts once), else it is an
 * `UsageError` (ambiguous) or `MissingColumnError`.
 */
import { Schema, Table, type Data, type Field, type RecordBatch } from 'apache-arrow';
import { makeRecordBatch } from '../../core/arrow/gather.ts';
import type { JoinInput, JoinMetrics } from '../../core/engine.ts';
import { MissingColumnError, UnsupportedSqlError, UsageError } from '../../core/errors.ts';
import type { Expr, Literal } from '../../core/expr/ast.ts';
import { outputColumnNames } from '../../core/output-schema.ts';
import { FilteredScan } from '../../core/scan/filtered-scan.ts';
import type { Scan } from '../../core/scan/scan.ts';
import type { SelectQuery, SqlExpr, TableRef } from '../../core/sql/ast.ts';
import type { JoinType } from '../../core/types.ts';
import type { JoinSpecInput } from '../../core/spec.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { openScan } from '../io/open.ts';
import { parseSql } from './parse.ts';
import { staticPredicate, type StaticConjunct } from './static-filter.ts';

/** What running SQL needs of an engine: its joins and its sort (composition.ts's `Engine`). */
export interface SqlEngine {
  join(spec: JoinSpecInput, left: JoinInput, right: JoinInput): Promise<{ readonly table: Table; readonly metrics: JoinMetrics }>;
  sort(input: JoinInput, keys: readonly { column: string; descending: boolean; nullsFirst: boolean }[]): Promise<{ readonly table: Table }>;
}

export interface SqlResult {
  readonly table: Table;
  /** Each join's metrics, in the order they ran (innermost first). */
  readonly joins: readonly JoinMetrics[];
  /** The output columns the rows are ordered by (ORDER BY), in order; empty: no order promised. */
  readonly orderedBy: readonly string[];
}

/** A column visible in a relation: its relation name, its SQL name, its name in the relation's data. */
interface Visible {
  readonly rel: string;
  readonly name: string;
  readonly out: string;
  /** Hidden from `*` and bare names: the right copy of a USING / NATURAL column. */
  readonly merged: boolean;
}

interface Relation {
  input: JoinInput;
  readonly columns: readonly Visible[];
  /** Relation names inside (for `t.c` and for placing WHERE conjuncts). */
  readonly rels: ReadonlySet<string>;
  /** Set when a RIGHT / FULL join merged USING columns (then `*` is refused). */
  readonly coalescedUsing: boolean;
}

/** A node of the FROM tree after binding the names of its leaves. */
type Plan =
  | { readonly kind: 'leaf'; rel: Relation; readonly scan: Scan; readonly statics: SqlExpr[]; nullable: boolean }
  | { readonly kind: 'join'; readonly type: JoinType | 'cross'; readonly left: Plan; readonly right: Plan; readonly on: SqlExpr | null; readonly using: readonly string[] | null; readonly natural: boolean; readonly where: SqlExpr[]; readonly rels: ReadonlySet<string> };

const notYet = (what: string, at: number | null = null): never => {
  throw new UnsupportedSqlError(`${what} (not planned yet)`, at);
};

/**
 * Runs `sql` over `tables` (name -> Arrow table or file path). `duck` parses; without one, an
 * in-memory DuckDB is opened for the parse and closed again.
 */
export async function runSql(engine: SqlEngine, sql: string, tables: Readonly<Record<string, JoinInput>>, options: { duck?: DuckDBSession } = {}): Promise<SqlResult> {
  const duck = options.duck ?? (await DuckDBSession.open({ threads: 1 }));
  let query: SelectQuery;
  try {
    query = await parseSql(duck, sql);
  } finally {
    if (options.duck === undefined) await duck.close();
  }
  checkSubset(query);
  if (query.from === null) notYet('SELECT without FROM');
  const plan = await bindFrom(query.from!, tables);
  markNullable(plan, false);
  for (const conjunct of conjuncts(query.where)) {
    const leaf = staticLeaf(plan, conjunct);
    if (leaf !== null) leaf.statics.push(conjunct);
    else placeWhere(plan, conjunct);
  }
  applyStatics(plan);
  const joins: JoinMetrics[] = [];
  const rel = await execute(engine, plan, joins);
  if (!(rel.input instanceof Table)) rel.input = await collect(rel.input as Scan);
  let table = project(rel, query);
  let orderedBy: string[] = [];
  if (query.orderBy.length > 0) {
    const names = table.schema.fields.map((f) => f.name);
    const keys = query.orderBy.map((o) => ({ column: orderColumn(o.expr, names, rel, query), descending: o.descending, nullsFirst: o.nullsFirst ?? false }));
    table = (await engine.sort(table, keys)).table;
    orderedBy = keys.map((k) => k.column);
  }
  if (query.limit !== null || query.offset !== null) {
    const from = Number(query.offset ?? 0n);
    const to = query.limit === null ? table.numRows : from + Number(query.limit);
    table = table.slice(from, to);
  }
  return { table, joins, orderedBy };
}

function checkSubset(q: SelectQuery): void {
  if (q.ctes.length > 0) notYet('WITH (CTEs)');
  if (q.distinct) notYet('SELECT DISTINCT');
  if (q.groupBy.length > 0 || q.having !== null) notYet('GROUP BY / HAVING');
  for (const s of q.select) if (s.expr.kind !== 'column' && s.expr.kind !== 'star') notYet(`${s.expr.kind} expression in SELECT`, s.expr.at);
}

function conjuncts(e: SqlExpr | null): SqlExpr[] {
  if (e === null) return [];
  return e.kind === 'and' ? e.args.flatMap((a) => conjuncts(a)) : [e];
}

async function bindFrom(ref: TableRef, tables: Readonly<Record<string, JoinInput>>): Promise<Plan> {
  switch (ref.kind) {
    case 'table': {
      const source = tables[ref.name];
      if (source === undefined) throw new UsageError(`unknown table '${ref.name}'; tables: ${Object.keys(tables).join(', ') || '(none)'}`);
      const scan: Scan = typeof source === 'string' || source instanceof Table ? await openScan(source, ref.name) : source;
      const name = ref.alias ?? ref.name;
      const columns = scan.schema.fields.map((f) => ({ rel: name, name: f.name, out: f.name, merged: false }));
      return { kind: 'leaf', rel: { input: scan, columns, rels: new Set([name]), coalescedUsing: false }, scan, statics: [], nullable: false };
    }
    case 'derived':
      return notYet('a derived table (subquery in FROM)', ref.at);
    case 'join': {
      const left = await bindFrom(ref.left, tables);
      const right = await bindFrom(ref.right, tables);
      const rels = new Set([...relsOf(left), ...relsOf(right)]);
      return { kind: 'join', type: ref.type, left, right, on: ref.on, using: ref.using, natural: ref.natural, where: [], rels };
    }
  }
}

/** Leaves on the NULL-padded side of an outer join above them (a WHERE on them cannot go to their scan). */
function markNullable(p: Plan, nullable: boolean): void {
  if (p.kind === 'leaf') {
    p.nullable = nullable;
    return;
  }
  markNullable(p.left, nullable || p.type === 'right' || p.type === 'full');
  markNullable(p.right, nullable || p.type === 'left' || p.type === 'full');
}

function leaves(p: Plan): Extract<Plan, { kind: 'leaf' }>[] {
  return p.kind === 'leaf' ? [p] : [...leaves(p.left), ...leaves(p.right)];
}

/**
 * The leaf whose scan can take a WHERE conjunct: the conjunct reads that one table only (or, in
 * a query of one table, nothing at all), and no outer join above pads the table with NULLs —
 * then filtering before the joins keeps exactly the rows filtering after them would.
 */
function staticLeaf(plan: Plan, conjunct: SqlExpr): Extract<Plan, { kind: 'leaf' }> | null {
  const needs = relsRead(conjunct, plan);
  const all = leaves(plan);
  if (needs.size === 0) return plan.kind === 'leaf' ? plan : null;
  if (needs.size !== 1) return null;
  const [rel] = needs;
  const leaf = all.find((l) => l.rel.rels.has(rel!));
  return leaf === undefined || leaf.nullable ? null : leaf;
}

const NO_COLUMNS: Relation = { input: new Table(), columns: [], rels: new Set(), coalescedUsing: false };

/** Wraps each leaf's scan with its static predicate (static-filter.ts). */
function applyStatics(p: Plan): void {
  for (const leaf of leaves(p)) {
    if (leaf.statics.length === 0) continue;
    const rel = leaf.rel;
    const parts: StaticConjunct[] = leaf.statics.map((sql) => ({
      sql,
      expr: toExpr(sql, rel, NO_COLUMNS),
      column: (c) => {
        const v = lookup(rel, c.names);
        return v === null || v === 'ambiguous' ? null : v.out;
      },
    }));
    const predicate = staticPredicate(parts, leaf.scan.schema, `WHERE on ${[...rel.rels].join(', ')}`);
    leaf.rel = { ...rel, input: new FilteredScan(leaf.scan, predicate) };
  }
}

async function collect(scan: Scan): Promise<Table> {
  const batches: RecordBatch[] = [];
  for await (const b of scan.batches()) batches.push(b);
  return batches.length === 0 ? new Table(scan.schema) : new Table(batches);
}

function relsOf(p: Plan): ReadonlySet<string> {
  return p.kind === 'leaf' ? p.rel.rels : p.rels;
}

/** Relation names a conjunct reads (`t.c` directly; a bare `c` through the visible leaves). */
function relsRead(e: SqlExpr, plan: Plan, out = new Set<string>()): Set<string> {
  if (e.kind === 'column') {
    if (e.names.length === 2) out.add(e.names[0]!);
    else for (const r of leavesWith(plan, e.names[0]!)) out.add(r);
    return out;
  }
  for (const child of childrenOf(e)) relsRead(child, plan, out);
  return out;
}

function leavesWith(p: Plan, column: string): string[] {
  if (p.kind === 'leaf') return p.rel.columns.some((c) => c.name === column) ? [...p.rel.rels] : [];
  return [...leavesWith(p.left, column), ...leavesWith(p.right, column)];
}

function childrenOf(e: SqlExpr): SqlExpr[] {
  switch (e.kind) {
    case 'compare':
      return [e.left, e.right];
    case 'and':
    case 'or':
      return [...e.args];
    case 'not':
    case 'is-null':
      return [e.arg];
    case 'arith':
      return [...e.args];
    case 'in-list':
      return [e.arg, ...e.list];
    case 'cast':
      return [e.arg];
    case 'call':
      return [...e.args];
    case 'case':
      return [...e.whens.flatMap((w) => [w.when, w.then]), ...(e.otherwise === null ? [] : [e.otherwise])];
    default:
      return [];
  }
}

/** Puts a WHERE conjunct on the lowest join holding its relations, if only INNER/CROSS joins lie above. */
function placeWhere(plan: Plan, conjunct: SqlExpr): void {
  const needs = relsRead(conjunct, plan);
  let node: Plan = plan;
  for (;;) {
    if (node.kind !== 'join' || (node.type !== 'inner' && node.type !== 'cross')) {
      notYet(node.kind === 'leaf' ? 'a WHERE predicate on a query of one table' : 'a WHERE predicate above an outer join', conjunct.at);
    }
    const join = node as Extract<Plan, { kind: 'join' }>;
    const inLeft = [...needs].every((r) => relsOf(join.left).has(r));
    const inRight = [...needs].every((r) => relsOf(join.right).has(r));
    if (needs.size > 0 && inLeft && join.left.kind === 'join') node = join.left;
    else if (needs.size > 0 && inRight && join.right.kind === 'join') node = join.right;
    else {
      join.where.push(conjunct);
      return;
    }
  }
}

async function execute(engine: SqlEngine, plan: Plan, joins: JoinMetrics[]): Promise<Relation> {
  if (plan.kind === 'leaf') return plan.rel;
  const left = await execute(engine, plan.left, joins);
  const right = await execute(engine, plan.right, joins);
  const using = plan.natural ? naturalColumns(left, right) : plan.using;
  const keys: { left: string; right: string }[] = [];
  const residual: Expr[] = [];
  const merged = new Set<string>();
  if (using !== null) {
    for (const name of using) {
      keys.push({ left: resolveIn(left, [name], null).out, right: resolveIn(right, [name], null).out });
      merged.add(name);
    }
  }
  for (const c of [...conjuncts(plan.on), ...plan.where]) {
    const key = c.kind === 'compare' && c.op === '=' && c.left.kind === 'column' && c.right.kind === 'column' ? equiKey(c.left, c.right, left, right) : null;
    if (key !== null) keys.push(key);
    else residual.push(toExpr(c, left, right));
  }
  const type: JoinType = plan.type === 'cross' ? 'inner' : plan.type;
  const filter: Expr | undefined = residual.length === 0 ? undefined : residual.length === 1 ? residual[0] : { kind: 'and', args: residual };
  const { table, metrics } = await engine.join({ type, ...(keys.length > 0 ? { on: keys } : {}), ...(filter !== undefined ? { filter } : {}) }, left.input, right.input);
  joins.push(metrics);
  const outs = outputColumnNames(
    left.columns.map((c) => c.out),
    right.columns.map((c) => c.out),
  );
  const columns: Visible[] = [
    ...left.columns,
    ...right.columns.map((c, i) => ({ ...c, out: outs[left.columns.length + i]!, merged: c.merged || merged.has(c.name) })),
  ];
  return { input: table, columns, rels: new Set([...left.rels, ...right.rels]), coalescedUsing: left.coalescedUsing || right.coalescedUsing || (merged.size > 0 && (type === 'right' || type === 'full')) };
}

function naturalColumns(left: Relation, right: Relation): string[] {
  const names = new Set(left.columns.filter((c) => !c.merged).map((c) => c.name));
  return [...new Set(right.columns.filter((c) => !c.merged && names.has(c.name)).map((c) => c.name))];
}

/** A column of `rel` by SQL name (`[c]` or `[t, c]`); null `at` when unknown. */
function resolveIn(rel: Relation, names: readonly string[], at: number | null): Visible {
  const found = lookup(rel, names);
  if (found === 'ambiguous') throw new UsageError(`column reference '${names.join('.')}' is ambiguous${at === null ? '' : ` (at character ${at})`}`);
  if (found === null) throw new MissingColumnError(names.join('.'), 'the query', rel.columns.filter((c) => !c.merged).map((c) => `${c.rel}.${c.name}`));
  return found;
}

function lookup(rel: Relation, names: readonly string[]): Visible | null | 'ambiguous' {
  if (names.length > 2) return null;
  const [q, name] = names.length === 2 ? [names[0]!, names[1]!] : [null, names[0]!];
  const hits = rel.columns.filter((c) => c.name === name && (q === null ? !c.merged : c.rel === q));
  if (hits.length === 0) return null;
  return hits.length === 1 ? hits[0]! : 'ambiguous';
}

function equiKey(a: Extract<SqlExpr, { kind: 'column' }>, b: Extract<SqlExpr, { kind: 'column' }>, left: Relation, right: Relation): { left: string; right: string } | null {
  const al = lookup(left, a.names);
  const br = lookup(right, b.names);
  if (al !== null && al !== 'ambiguous' && br !== null && br !== 'ambiguous' && lookup(right, a.names) === null && lookup(left, b.names) === null) return { left: al.out, right: br.out };
  const bl = lookup(left, b.names);
  const ar = lookup(right, a.names);
  if (bl !== null && bl !== 'ambiguous' && ar !== null && ar !== 'ambiguous' && lookup(right, b.names) === null && lookup(left, a.names) === null) return { left: bl.out, right: ar.out };
  return null;
}

/** A conjunct over the join's two inputs as the engine's filter expression. */
function toExpr(e: SqlExpr, left: Relation, right: Relation): Expr {
  switch (e.kind) {
    case 'column': {
      const l = lookup(left, e.names);
      const r = lookup(right, e.names);
      if (l === 'ambiguous' || r === 'ambiguous' || (l !== null && r !== null)) throw new UsageError(`column reference '${e.names.join('.')}' is ambiguous${e.at === null ? '' : ` (at character ${e.at})`}`);
      if (l !== null) return { kind: 'column', side: 'left', name: l.out };
      if (r !== null) return { kind: 'column', side: 'right', name: r.out };
      throw new MissingColumnError(e.names.join('.'), 'the join', [...left.columns, ...right.columns].map((c) => `${c.rel}.${c.name}`));
    }
    case 'constant': {
      const c = e.constant;
      if (c.type === 'DECIMAL') return notYet('a DECIMAL constant in a join condition', e.at);
      return { kind: 'literal', value: c.value as Literal };
    }
    case 'compare':
      if (e.op === 'IS DISTINCT FROM' || e.op === 'IS NOT DISTINCT FROM') return notYet(e.op, e.at);
      return { kind: 'compare', op: e.op, left: toExpr(e.left, left, right), right: toExpr(e.right, left, right) };
    case 'and':
    case 'or':
      return { kind: e.kind, args: e.args.map((a) => toExpr(a, left, right)) };
    case 'not':
      return { kind: 'not', arg: toExpr(e.arg, left, right) };
    case 'is-null':
      return { kind: 'is-null', arg: toExpr(e.arg, left, right), negated: e.negated };
    case 'in-list': {
      // x IN (a, b) is x = a OR x = b under three-valued logic too (no match and a NULL: NULL)
      const x = toExpr(e.arg, left, right);
      const any: Expr = { kind: 'or', args: e.list.map((v) => ({ kind: 'compare', op: '=', left: x, right: toExpr(v, left, right) }) as Expr) };
      return e.negated ? { kind: 'not', arg: any } : any;
    }
    case 'arith':
      if (e.args.length !== 2) return notYet('unary minus in a join condition', e.at);
      return { kind: 'arith', op: e.op, left: toExpr(e.args[0]!, left, right), right: toExpr(e.args[1]!, left, right) };
    default:
      return notYet(`${e.kind} in a join condition`, e.at);
  }
}

/** The SELECT list over the final relation, named as DuckDB names it (alias, else column name). */
function project(rel: Relation, q: SelectQuery): Table {
  const table = rel.input as Table;
  const picked: { out: string; name: string }[] = [];
  for (const item of q.select) {
    const e = item.expr;
    if (e.kind === 'star') {
      if (rel.coalescedUsing && e.relation === null) notYet('* over a RIGHT / FULL join with USING (a coalesced column)', e.at);
      // `*` shows a USING column once; `t.*` shows all of t's columns
      const cols = rel.columns.filter((c) => (e.relation === null ? !c.merged : c.rel === e.relation));
      if (e.relation !== null && cols.length === 0) throw new MissingColumnError(`${e.relation}.*`, 'the query', [...rel.rels]);
      for (const c of cols) picked.push({ out: c.out, name: c.name });
    } else if (e.kind === 'column') {
      const c = resolveIn(rel, e.names, e.at);
      picked.push({ out: c.out, name: item.alias ?? c.name });
    }
  }
  const index = new Map(table.schema.fields.map((f, i) => [f.name, i]));
  const fields: Field[] = picked.map((p) => table.schema.fields[index.get(p.out)!]!.clone({ name: p.name }));
  const schema = new Schema(fields);
  const batches = table.batches.map((b) => {
    const datas: Data[] = picked.map((p) => b.data.children[index.get(p.out)!]!);
    return makeRecordBatch(schema, datas, b.numRows);
  });
  return batches.length === 0 ? new Table(schema) : new Table(batches);
}

/** An ORDER BY item as an output column name: a position (`ORDER BY 2`) or a name / alias. */
function orderColumn(e: SqlExpr, names: readonly string[], rel: Relation, q: SelectQuery): string {
  if (e.kind === 'constant' && e.constant.type === 'INTEGER') {
    const i = Number(e.constant.value);
    if (i < 1 || i > names.length) throw new UsageError(`ORDER BY position ${i} is not in the select list (1..${names.length})`);
    if (names.filter((n) => n === names[i - 1]).length > 1) notYet(`ORDER BY a position whose column name '${names[i - 1]}' repeats`, e.at);
    return names[i - 1]!;
  }
  if (e.kind === 'column') {
    const alias = e.names.length === 1 ? q.select.find((s) => s.alias === e.names[0]) : undefined;
    const name = alias !== undefined ? e.names[0]! : resolveIn(rel, e.names, e.at).name;
    if (names.filter((n) => n === name).length !== 1) notYet(`ORDER BY '${e.names.join('.')}' that is not exactly one output column`, e.at);
    return name;
  }
  return notYet(`ORDER BY ${e.kind} expression`, e.at);
}
