/**
 * The SELECT list, ORDER BY and LIMIT over a query's FROM + WHERE result (issue 14).
 *
 *  - `*` shows a USING / NATURAL column once (the left input's, as DuckDB shows it for INNER and
 *    LEFT joins; under RIGHT / FULL DuckDB shows a coalesced column, which `*` refuses); `t.*`
 *    shows all of t's columns; a column keeps its name unless aliased.
 *  - ORDER BY output columns, aliases or positions (DuckDB's default NULLS LAST) through
 *    `Engine.sort`; LIMIT / OFFSET cut the (ordered) rows.
 * Degenerate cases: an ORDER BY name that is not exactly one output column is refused rather
 * than guessed.
 */
import { Schema, Table, type Data, type Field, type RecordBatch } from 'apache-arrow';
import { makeRecordBatch } from '../../core/arrow/gather.ts';
import { heldBatchBytes } from '../../core/arrow/size.ts';
import type { MemoryPool, Reservation } from '../../core/memory/pool.ts';
import type { JoinInput } from '../../core/engine.ts';
import { MissingColumnError, UsageError } from '../../core/errors.ts';
import type { SelectQuery, SqlExpr } from '../../core/sql/ast.ts';
import { notYet, resolveIn, type Relation } from './relation.ts';
import { hasAggregate } from './subquery.ts';

export interface SelectEngine {
  sort(input: JoinInput, keys: readonly { column: string; descending: boolean; nullsFirst: boolean }[], options?: { signal?: AbortSignal; pool?: MemoryPool }): Promise<{ readonly table: Table }>;
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

export async function finishSelect(engine: SelectEngine, rel: Relation, q: SelectQuery, options: { signal?: AbortSignal; pool: MemoryPool }): Promise<SelectOutput> {
  if (q.distinct) notYet('SELECT DISTINCT');
  const agg = q.select.find((s) => hasAggregate(s.expr));
  if (q.groupBy.length > 0 || q.having !== null || agg !== undefined) notYet('GROUP BY / HAVING / aggregates', agg?.expr.at ?? q.groupBy[0]?.at ?? null);
  for (const s of q.select) if (s.expr.kind !== 'column' && s.expr.kind !== 'star') notYet(`${s.expr.kind} expression in SELECT`, s.expr.at);
  const steps: SelectStep[] = [];
  let started = performance.now();
  const held = options.pool.reservation('SQL query rows');
  const input = await collect(rel, held, options.signal);
  let table = project(rel, input, q);
  steps.unshift({ label: `PROJECT ${table.schema.fields.map((f) => f.name).join(', ')}`, rows: table.numRows, ms: performance.now() - started });
  let orderedBy: string[] = [];
  if (q.orderBy.length > 0) {
    started = performance.now();
    const names = table.schema.fields.map((f) => f.name);
    const keys = q.orderBy.map((o) => ({ column: orderColumn(o.expr, names, rel, q), descending: o.descending, nullsFirst: o.nullsFirst ?? false }));
    table = (await engine.sort(table, keys, { signal: options.signal, pool: options.pool })).table;
    orderedBy = keys.map((k) => k.column);
    steps.unshift({ label: `ORDER BY ${keys.map((k) => `${k.column}${k.descending ? ' DESC' : ''}${k.nullsFirst ? ' NULLS FIRST' : ''}`).join(', ')}`, rows: table.numRows, ms: performance.now() - started });
  }
  if (q.limit !== null || q.offset !== null) {
    const from = Number(q.offset ?? 0n);
    const to = q.limit === null ? table.numRows : from + Number(q.limit);
    table = table.slice(from, to);
    steps.unshift({ label: `LIMIT ${q.limit ?? 'ALL'}${q.offset !== null ? ` OFFSET ${q.offset}` : ''}`, rows: table.numRows, ms: 0 });
  }
  return { table, orderedBy, steps };
}

/** The relation's rows, held (and counted against the query's memory limit) in `held`. */
async function collect(rel: Relation, held: Reservation, signal?: AbortSignal): Promise<Table> {
  const batches: RecordBatch[] = [];
  for await (const b of rel.input.batches({ signal })) {
    held.grow(heldBatchBytes(b));
    batches.push(b);
  }
  return batches.length === 0 ? new Table(rel.input.schema) : new Table(batches);
}

/** The SELECT list over the final relation, named as DuckDB names it (alias, else column name). */
function project(rel: Relation, table: Table, q: SelectQuery): Table {
  const picked: { out: string; name: string }[] = [];
  for (const item of q.select) {
    const e = item.expr;
    if (e.kind === 'star') {
      if (rel.coalescedUsing && e.relation === null) notYet('* over a RIGHT / FULL join with USING (a coalesced column)', e.at);
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
