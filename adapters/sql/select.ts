/**
 * The SELECT list, GROUP BY / aggregates / HAVING, DISTINCT, ORDER BY and LIMIT over a query's
 * FROM + WHERE result (issue 14), in SQL's logical order: aggregate, HAVING, project, DISTINCT,
 * ORDER BY, LIMIT / OFFSET. A HAVING conjunct with an [NOT] EXISTS / IN subquery is a join over
 * the groups that the caller makes (`Options.havingSubquery`, run.ts: only uncorrelated ones).
 *
 *  - Projection is batch at a time: a column (or `*`, `t.*`) is the input's own Arrow data, zero
 *    copy; an expression is compiled once by the expression evaluator (core/expr/project.ts,
 *    DuckDB's typing: exact integers and decimals, overflow is an error) and evaluated per batch.
 *    `*` shows a USING / NATURAL column once (the left input's, as DuckDB shows it for INNER and
 *    LEFT joins; under RIGHT / FULL DuckDB shows a coalesced column, which `*` refuses). A column
 *    is named as DuckDB names it (the parser's `SelectItem.name`).
 *  - Aggregates (aggregate-query.ts): the group keys and the aggregates' arguments are projected,
 *    the hash aggregate (operators/aggregate/) groups them, and the select list, HAVING and
 *    ORDER BY are then expressions over its output.
 *  - DISTINCT: the hash aggregate again, grouped by every output column, no aggregates.
 *  - ORDER BY: an output column (by name, alias or position) or any expression over the input,
 *    which is projected as a hidden column, sorted on (`Engine.sort`, DuckDB's default NULLS
 *    LAST) and dropped. Under DISTINCT only output columns can order (as in DuckDB).
 *  - ORDER BY … LIMIT n [OFFSET m]: the projected rows stream into a top-k of n + m rows
 *    (operators/sort/top-k.ts: the stable sort's first rows, ties and NULLs exactly as the full
 *    sort places them) unless n + m is large (`useTopK`, DuckDB's rule); nothing else is held.
 * Every row held counts against the query's memory pool.
 */
import { Field, Schema, Table, type Data, type RecordBatch } from 'apache-arrow';
import { makeRecordBatch } from '../../core/arrow/gather.ts';
import { heldBatchBytes } from '../../core/arrow/size.ts';
import type { JoinInput } from '../../core/engine.ts';
import { MissingColumnError, UnsupportedTypeError, UsageError } from '../../core/errors.ts';
import { compileProjection, type CompiledProjection } from '../../core/expr/project.ts';
import type { MemoryPool, Reservation } from '../../core/memory/pool.ts';
import type { SelectItem, SelectQuery, SqlExpr } from './ast.ts';
import { hashAggregate } from '../../operators/aggregate/hash-aggregate.ts';
import { topK } from '../../operators/sort/top-k.ts';
import { takeRows } from '../../core/scan/batch-shape.ts';
import { isAggregateQuery, planAggregate, withUserNames } from './aggregate-query.ts';
import { rowPredicate } from './join-tree.ts';
import { conjuncts, hasSubquery, NO_COLUMNS, notYet, resolveIn, toExpr, writtenOrder, type Relation, type Visible } from './relation.ts';

export interface SelectEngine {
  sort(input: JoinInput, keys: readonly { column: string; descending: boolean; nullsFirst: boolean }[], options?: { signal?: AbortSignal; pool?: MemoryPool }): Promise<{ readonly table: Table }>;
  readonly config: { readonly batchSize: number; readonly 'scan.lateMaterialization': 'auto' | 'on' | 'off' };
}

/** One step after the joins, for the plan (explain.ts). */
export interface SelectStep {
  readonly label: string;
  readonly rows: number;
  readonly ms: number;
}

export interface SelectOutput {
  readonly table: Table;
  readonly orderedBy: string[];
  /** Outermost first. */
  readonly steps: SelectStep[];
}

interface Options {
  readonly signal?: AbortSignal;
  readonly pool: MemoryPool;
  /** Filters the groups by a HAVING conjunct with an [NOT] EXISTS / IN subquery (run.ts: a semi / anti / mark join). */
  readonly havingSubquery?: (groups: Relation, conjunct: SqlExpr) => Promise<Relation>;
  /** SQL names the query mentions (run.ts `mentionedNames`); null or absent: every column is read. */
  readonly mentioned?: ReadonlySet<string> | null;
}

/**
 * The columns of `rel`'s scan the query can need: those it mentions by name (a scan then decodes
 * only these — `SELECT count(*) FROM lineitem` reads one column, not sixteen); undefined: all.
 */
function readColumns(rel: Relation, mentioned: ReadonlySet<string> | null | undefined): string[] | undefined {
  if (mentioned === null || mentioned === undefined) return undefined;
  const fields = new Set(rel.input.schema.fields.map((f) => f.name));
  const out = [...new Set(rel.columns.filter((c) => mentioned.has(c.name) && fields.has(c.out)).map((c) => c.out))];
  // nothing mentioned (count(*)): no column at all — a Parquet scan then takes row counts from the
  // footer, decoding nothing; every scan yields zero-column batches that keep their row counts
  if (out.length === 0) return [];
  return out;
}

/** A hidden column's name prefix (no SQL name starts with NUL). */
const HIDDEN = '\u0000';

export async function finishSelect(engine: SelectEngine, rel: Relation, query: SelectQuery, options: Options): Promise<SelectOutput> {
  let q = query;
  const steps: SelectStep[] = [];
  const held = options.pool.reservation('SQL query rows');
  const batchSize = engine.config.batchSize;
  let started = performance.now();
  let source = rel;
  // `*` (also the one an EXISTS subquery is run with, after the names were collected) reads all
  const columns = q.select.some((s) => s.expr.kind === 'star') ? undefined : readColumns(rel, options.mentioned);
  let rows: AsyncIterable<RecordBatch> = rel.input.batches({ signal: options.signal, lateMaterialization: engine.config['scan.lateMaterialization'], ...(columns !== undefined ? { columns } : {}) });
  if (isAggregateQuery(q)) {
    const agg = planAggregate(rel, q);
    const input = project(rows, agg.inputItems, rel, 'aggregate input', options.pool);
    let table = await hashAggregate(input.batches, input.schema, agg.spec, { pool: options.pool, signal: options.signal, batchSize }).catch((e: unknown) => {
      throw agg.userError(e);
    });
    // HAVING: plain conjuncts filter the groups; [NOT] EXISTS / IN ones are the caller's semi / anti joins
    const having = conjuncts(agg.having);
    const plain = having.filter((c) => !hasSubquery(c));
    if (plain.length > 0) {
      const filter = rowPredicate(plain, await agg.output(table), table.schema, options.pool);
      const kept = table.batches.map((b) => {
        const sel = filter.selectRows(b);
        return sel === null ? b : takeRows(b, sel);
      });
      table = kept.length === 0 ? table : new Table(table.schema, kept);
    }
    source = await agg.output(table);
    rows = fromArray(table.batches);
    const joined = having.filter(hasSubquery);
    for (const c of joined) source = await (options.havingSubquery ?? notYet('a subquery in HAVING here', c.at))(source, c);
    if (joined.length > 0) rows = source.input.batches({ signal: options.signal });
    steps.unshift({ label: `${agg.label}${agg.having !== null ? ' HAVING' : ''}`, rows: table.numRows, ms: performance.now() - started });
    started = performance.now();
    q = agg.query;
  }
  // ORDER BY items that are not output columns become hidden ones (not under DISTINCT)
  const outNames = outputNames(source, q.select);
  const order = q.orderBy.map((o, i) => ({ ...o, column: orderColumn(o.expr, outNames, source, q) ?? (q.distinct ? notYet('ORDER BY an expression that is not a column of SELECT DISTINCT', o.expr.at) : `${HIDDEN}order${i}`) }));
  const hidden: SelectItem[] = order.filter((o) => o.column.startsWith(HIDDEN)).map((o) => ({ expr: o.expr, alias: o.column, name: o.column }));
  const projected = project(rows, [...q.select, ...hidden], source, 'SELECT', options.pool);
  const keys = order.map((o) => ({ column: o.column, descending: o.descending, nullsFirst: o.nullsFirst ?? false }));
  const orderLabel = `ORDER BY ${q.orderBy.map((o, i) => `${order[i]!.column.startsWith(HIDDEN) ? '(expression)' : order[i]!.column}${o.descending ? ' DESC' : ''}${o.nullsFirst ? ' NULLS FIRST' : ''}`).join(', ')}`;
  let orderedBy = keys.map((k) => k.column).filter((c) => !c.startsWith(HIDDEN));
  if (orderedBy.length < keys.length) orderedBy = orderedBy.slice(0, keys.findIndex((k) => k.column.startsWith(HIDDEN)));
  const k = q.limit === null ? null : Number(q.offset ?? 0n) + Number(q.limit);
  if (keys.length > 0 && k !== null && !q.distinct && useTopK(k, source.input.numRows)) {
    // ORDER BY … LIMIT: the best k rows as they stream by, never all of them (operators/sort/top-k.ts)
    const counted = countRows(projected);
    const byPosition = positional(projected.schema, keys);
    const sorted = topK(byPosition === null ? counted : { schema: byPosition.schema, batches: renameStream(counted.batches, byPosition.schema) }, byPosition?.keys ?? keys, k, { pool: options.pool, batchSize, signal: options.signal, offset: Number(q.offset ?? 0n) });
    let table = await collect({ schema: projected.schema, batches: byPosition === null ? sorted : renameStream(sorted, projected.schema) }, held);
    steps.unshift({ label: `PROJECT ${outNames.join(', ')}`, rows: counted.rows, ms: performance.now() - started });
    if (hidden.length > 0) table = dropHidden(table);
    steps.unshift({ label: `${orderLabel} LIMIT ${q.limit}${q.offset !== null ? ` OFFSET ${q.offset}` : ''} (top-k)`, rows: table.numRows, ms: 0 });
    return { table, orderedBy, steps };
  }
  let table = await collect(projected, held);
  steps.unshift({ label: `PROJECT ${outNames.join(', ')}`, rows: table.numRows, ms: performance.now() - started });
  if (q.distinct) {
    started = performance.now();
    table = await distinct(table, options, batchSize);
    steps.unshift({ label: 'DISTINCT', rows: table.numRows, ms: performance.now() - started });
  }
  if (keys.length > 0) {
    started = performance.now();
    const byPosition = positional(table.schema, keys);
    if (byPosition === null) table = (await engine.sort(table, keys, { signal: options.signal, pool: options.pool })).table;
    else table = renamed((await engine.sort(renamed(table, byPosition.schema), byPosition.keys, { signal: options.signal, pool: options.pool })).table, table.schema);
    if (hidden.length > 0) table = dropHidden(table);
    steps.unshift({ label: orderLabel, rows: table.numRows, ms: performance.now() - started });
  }
  if ((q.limit !== null || q.offset !== null) && table.numRows > 0) {
    const from = Number(q.offset ?? 0n);
    const to = q.limit === null ? table.numRows : from + Number(q.limit);
    table = table.slice(from, to);
    steps.unshift({ label: `LIMIT ${q.limit ?? 'ALL'}${q.offset !== null ? ` OFFSET ${q.offset}` : ''}`, rows: table.numRows, ms: 0 });
  }
  return { table, orderedBy, steps };
}

/**
 * Whether ORDER BY … LIMIT keeps the best k rows (top-k) rather than sorting every row: DuckDB's
 * rule (src/optimizer/topn_optimizer.cpp, `TopN::CanOptimize`) — always unless k is both above 5000
 * and above 0.7% of the input's estimated rows, where sorting everything is faster.
 */
export function useTopK(k: number, estimatedRows: number): boolean {
  return Number.isSafeInteger(k) && (k <= 5000 || k <= 0.007 * estimatedRows);
}

/** `input`'s batches, counting their rows as they pass. */
function countRows(input: { readonly schema: Schema; readonly batches: AsyncIterable<RecordBatch> }): { readonly schema: Schema; readonly batches: AsyncIterable<RecordBatch>; readonly rows: number } {
  const counter = { rows: 0 };
  async function* batches(): AsyncGenerator<RecordBatch> {
    for await (const b of input.batches) {
      counter.rows += b.numRows;
      yield b;
    }
  }
  return {
    schema: input.schema,
    batches: batches(),
    get rows() {
      return counter.rows;
    },
  };
}

async function* fromArray(batches: readonly RecordBatch[]): AsyncGenerator<RecordBatch> {
  yield* batches;
}

/** What one select item produces: the input's columns (`*`), or one column, or one expression. */
type Output = { readonly kind: 'column'; readonly out: string; readonly name: string } | { readonly kind: 'expr'; readonly compiled: CompiledProjection; readonly name: string };

function outputsOf(rel: Relation, items: readonly SelectItem[]): Output[] {
  const out: Output[] = [];
  for (const item of items) {
    const e = item.expr;
    if (e.kind === 'star') {
      if (rel.coalescedUsing && e.relation === null) notYet('* over a RIGHT / FULL join with USING (a coalesced column)', e.at);
      const cols = starColumns(rel, e.relation);
      if (e.relation !== null && cols.length === 0) throw new MissingColumnError(`${e.relation}.*`, 'the query', [...rel.rels]);
      for (const c of cols) out.push({ kind: 'column', out: c.out, name: c.name });
    } else if (e.kind === 'column') {
      const c = resolveIn(rel, e.names, e.at);
      out.push({ kind: 'column', out: c.out, name: item.name ?? c.name });
    } else {
      out.push({ kind: 'expr', compiled: compileProjection(toExpr(e, rel, NO_COLUMNS), rel.input.schema), name: item.name ?? '?column?' });
    }
  }
  return out;
}

/** The columns `*` (relation null) or `t.*` shows, in the order the query wrote its tables (relation.ts `writtenOrder`). */
function starColumns(rel: Relation, relation: string | null): Visible[] {
  return writtenOrder(rel.columns.filter((c) => (relation === null ? !c.merged && !c.name.startsWith(HIDDEN) : c.rel === relation)));
}

function outputNames(rel: Relation, items: readonly SelectItem[]): string[] {
  const names: string[] = [];
  for (const item of items) {
    const e = item.expr;
    if (e.kind === 'star') for (const c of starColumns(rel, e.relation)) names.push(c.name);
    else names.push(item.name ?? '?column?');
  }
  return names;
}

/** The select items over `rows` (batches of `rel`'s scan), batch by batch, and their schema. */
function project(
  rows: AsyncIterable<RecordBatch>,
  items: readonly SelectItem[],
  rel: Relation,
  where: string,
  pool: MemoryPool,
): { readonly schema: Schema; readonly batches: AsyncIterable<RecordBatch> } {
  const outputs = outputsOf(rel, items);
  const schema = projectedSchema(outputs, rel.input.schema);
  return { schema, batches: projectBatches(rows, outputs, schema, where, pool) };
}

async function* projectBatches(rows: AsyncIterable<RecordBatch>, outputs: readonly Output[], schema: Schema, where: string, pool: MemoryPool): AsyncGenerator<RecordBatch> {
  // each expression's node buffers count against the query's limit as they grow (core/expr/scratch.ts)
  const metered = outputs.flatMap((o) => (o.kind === 'expr' ? [o.compiled.scratch] : []));
  for (const m of metered) m.attach(pool.reservation(`${where} expression scratch`));
  try {
    yield* projectEach(rows, outputs, schema, where);
  } finally {
    for (const m of metered) m.detach();
  }
}

async function* projectEach(rows: AsyncIterable<RecordBatch>, outputs: readonly Output[], schema: Schema, where: string): AsyncGenerator<RecordBatch> {
  for await (const b of rows) {
    const index = new Map(b.schema.fields.map((f, i) => [f.name, i]));
    const datas: Data[] = outputs.map((o) => {
      if (o.kind === 'expr') return o.compiled.evaluate(b);
      const i = index.get(o.out);
      if (i === undefined) throw new MissingColumnError(o.out, where, [...index.keys()]);
      return b.data.children[i]!;
    });
    yield makeRecordBatch(schema, datas, b.numRows);
  }
}

function projectedSchema(outputs: readonly Output[], input: Schema): Schema {
  const index = new Map(input.fields.map((f) => [f.name, f]));
  const fields: Field[] = outputs.map((o) => (o.kind === 'column' ? index.get(o.out)!.clone({ name: o.name }) : new Field(o.name, o.compiled.type, true)));
  return new Schema(fields);
}

/** The rows, held (and counted against the query's memory limit) in `held`. */
async function collect(rows: { readonly schema: Schema; readonly batches: AsyncIterable<RecordBatch> }, held: Reservation): Promise<Table> {
  const batches: RecordBatch[] = [];
  for await (const b of rows.batches) {
    held.grow(heldBatchBytes(b));
    batches.push(b);
  }
  return batches.length === 0 ? new Table(rows.schema) : new Table(batches);
}

/** The rows of `table`, each once (the hash aggregate grouped by every column; names kept). */
async function distinct(table: Table, options: Options, batchSize: number): Promise<Table> {
  const names = table.schema.fields.map((f) => f.name);
  // the aggregate needs distinct column names: group under positional ones, then rename back
  const renamed = new Schema(table.schema.fields.map((f, i) => f.clone({ name: `${HIDDEN}d${i}` })));
  const rows = fromArray(table.batches.map((b) => makeRecordBatch(renamed, b.data.children as Data[], b.numRows)));
  const out = await hashAggregate(rows, renamed, { groupBy: renamed.fields.map((f) => f.name), aggregates: [] }, { pool: options.pool, signal: options.signal, batchSize }).catch((e: unknown) => {
    // name the user's column and what it was for, not the hidden positional name and "group-by"
    if (e instanceof UnsupportedTypeError && e.column.startsWith(`${HIDDEN}d`)) throw new UnsupportedTypeError(names[Number(e.column.slice(HIDDEN.length + 1))] ?? e.column, e.type, 'in SELECT DISTINCT');
    throw withUserNames(e, new Map(names.map((n, i) => [`${HIDDEN}d${i}`, n])));
  });
  const back = new Schema(out.schema.fields.map((f, i) => f.clone({ name: names[i]! })));
  const batches = out.batches.map((b) => makeRecordBatch(back, b.data.children as Data[], b.numRows));
  return batches.length === 0 ? new Table(back) : new Table(batches);
}

/**
 * The sort operators find columns by name, so output columns that share one (`SELECT a.k, b.k …
 * ORDER BY a.id`) would be gathered as the first of them twice: such a table is sorted under
 * positional names (the keys mapped to the first column of their name, as they resolve), then
 * given its names back. Null when every name is distinct.
 */
function positional<K extends { readonly column: string }>(schema: Schema, keys: readonly K[]): { schema: Schema; keys: K[] } | null {
  const names = schema.fields.map((f) => f.name);
  if (new Set(names).size === names.length) return null;
  const byPosition = new Schema(schema.fields.map((f, i) => f.clone({ name: `${HIDDEN}p${i}` })));
  return { schema: byPosition, keys: keys.map((key) => ({ ...key, column: `${HIDDEN}p${names.indexOf(key.column)}` })) };
}

/** `table`'s columns under `schema`'s names (same types, same order). */
function renamed(table: Table, schema: Schema): Table {
  const batches = table.batches.map((b) => makeRecordBatch(schema, b.data.children as Data[], b.numRows));
  return batches.length === 0 ? new Table(schema) : new Table(schema, batches);
}

async function* renameStream(rows: AsyncIterable<RecordBatch>, schema: Schema): AsyncGenerator<RecordBatch> {
  for await (const b of rows) yield makeRecordBatch(schema, b.data.children as Data[], b.numRows);
}

function dropHidden(table: Table): Table {
  const keep = table.schema.fields.map((f, i) => [f, i] as const).filter(([f]) => !f.name.startsWith(HIDDEN));
  const schema = new Schema(keep.map(([f]) => f));
  const batches = table.batches.map((b) => makeRecordBatch(schema, keep.map(([, i]) => b.data.children[i]!), b.numRows));
  return batches.length === 0 ? new Table(schema) : new Table(batches);
}

/** An ORDER BY item as an output column name (a position, an alias or a selected column), or null: an expression. */
function orderColumn(e: SqlExpr, names: readonly string[], rel: Relation, q: SelectQuery): string | null {
  const one = (name: string): string => {
    if (names.filter((n) => n === name).length > 1) notYet(`ORDER BY '${name}', a name that repeats in the select list`, e.at);
    return name;
  };
  if (e.kind === 'constant' && e.constant.type === 'INTEGER') {
    const i = Number(e.constant.value);
    if (i < 1 || i > names.length) throw new UsageError(`ORDER BY position ${i} is not in the select list (1..${names.length})`);
    return one(names[i - 1]!);
  }
  if (e.kind !== 'column') return null;
  if (e.names.length === 1 && q.select.some((s) => s.alias === e.names[0])) return one(e.names[0]!);
  // a selected column, by any of its names (`a.k` or `k`)
  const v = resolveIn(rel, e.names, e.at);
  const at = q.select.findIndex((s) => s.expr.kind === 'column' && s.alias === null && resolveIn(rel, s.expr.names, s.expr.at) === v);
  if (at >= 0) return one(q.select[at]!.name!);
  if (q.select.some((s) => s.expr.kind === 'star' && (s.expr.relation === null ? !v.merged : s.expr.relation === v.rel))) return one(v.name);
  return null;
}
