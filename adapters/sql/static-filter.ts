/**
 * A query's WHERE conjuncts on ONE table as a static scan predicate: they filter the table's rows
 * as its scan decodes them, and prune containers by their min/max / null counts the way a dynamic
 * filter does — before the table reaches a join (DuckDB's filter pushdown into the scan).
 *
 * Rows: the conjunction is compiled by the expression evaluator (core/expr, DuckDB's typing and
 * three-valued logic: a row passes only when it is TRUE) against the schema of each batch the scan
 * yields (a scan decodes only the columns asked for, so batch schemas may differ; one compile per
 * schema).
 *
 * Containers, conservatively (a pruning answer may only ever be "maybe"): a conjunct prunes only
 * in the forms whose statistics comparison is exact —
 *  - `col <op> constant` (either order) for an integer column and an integer constant (bigint
 *    comparison; also under a cast to an integer type: an integer scalar subquery's value), or
 *    for a string column and a string constant when the statistics and the constant are ASCII
 *    (JavaScript's order is then byte order, DuckDB's string order);
 *  - `col IS NULL` (prunes when the null count is 0) and `col IS NOT NULL` (when every row is NULL);
 *  - `col IN (constants)` as the OR of equalities.
 * Anything else, or unknown statistics, keeps the container.
 */
import { DataType, Schema, type RecordBatch } from 'apache-arrow';
import { children, type Expr } from '../../core/expr/ast.ts';
import { compileRowFilter } from '../../core/expr/project.ts';
import type { ColumnStats, ContainerStats, ScanPredicate, StatValue } from '../../core/scan/scan.ts';
import type { SqlConstant, SqlExpr } from '../../core/sql/ast.ts';
import { constantThroughCast } from './typed-constant.ts';

/** One conjunct: its engine expression (columns on side `left`) and its SQL form (for containers). */
export interface StaticConjunct {
  readonly expr: Expr;
  readonly sql: SqlExpr;
  /** The column a `col op constant` / `col IS NULL` / `col IN (...)` conjunct tests, as named in the scan. */
  readonly column: (e: Extract<SqlExpr, { kind: 'column' }>) => string | null;
}

type RowFilter = ReturnType<typeof compileRowFilter>;

export function staticPredicate(conjuncts: readonly StaticConjunct[], schema: Schema, description: string): ScanPredicate {
  const expr: Expr = conjuncts.length === 1 ? conjuncts[0]!.expr : { kind: 'and', args: conjuncts.map((c) => c.expr) };
  compileRowFilter(expr, schema); // type errors surface before any data is read
  const compiled = new WeakMap<Schema, RowFilter>();
  const columns = [...new Set(conjuncts.flatMap((c) => columnsOf(c.expr)))];
  const types = new Map(schema.fields.map((f) => [f.name, f.type]));
  return {
    description,
    label: 'where',
    columns,
    mayContain(stats: ContainerStats): boolean {
      if (stats.numRows === 0) return false;
      for (const c of conjuncts) if (!conjunctMayHold(c, stats, types)) return false;
      return true;
    },
    selectRows(batch: RecordBatch): Int32Array | null {
      const n = batch.numRows;
      if (n === 0) return null;
      let f = compiled.get(batch.schema);
      if (f === undefined) compiled.set(batch.schema, (f = compileRowFilter(expr, batch.schema)));
      const rows = f.select(batch);
      return rows.length === n ? null : rows;
    },
  };
}

/** The columns `e` names, in the order written (every expression kind, via ast.ts's children). */
function columnsOf(e: Expr): string[] {
  const out: string[] = [];
  const stack: Expr[] = [e];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (x.kind === 'column') out.push(x.name);
    else {
      const cs = children(x);
      for (let i = cs.length - 1; i >= 0; i--) stack.push(cs[i]!);
    }
  }
  return out;
}

const FLIP = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const;

function conjunctMayHold(c: StaticConjunct, stats: ContainerStats, types: ReadonlyMap<string, DataType>): boolean {
  const e = c.sql;
  if (e.kind === 'is-null' && e.arg.kind === 'column') {
    const name = c.column(e.arg);
    const s = name === null ? undefined : stats.column(name);
    if (s === undefined || s.nullCount === null) return true;
    return e.negated ? s.nullCount < stats.numRows : s.nullCount > 0;
  }
  if (e.kind === 'in-list' && !e.negated && e.arg.kind === 'column') {
    const name = c.column(e.arg);
    if (name === null) return true;
    return e.list.some((v) => v.kind !== 'constant' || rangeMayHold('=', stats.column(name), types.get(name), v.constant));
  }
  if (e.kind === 'compare' && (e.op in FLIP)) {
    const op = e.op as keyof typeof FLIP;
    const right = constantThroughCast(e.right);
    const left = constantThroughCast(e.left);
    if (e.left.kind === 'column' && right !== null) {
      const name = c.column(e.left);
      return name === null || rangeMayHold(op, stats.column(name), types.get(name), right);
    }
    if (e.right.kind === 'column' && left !== null) {
      const name = c.column(e.right);
      return name === null || rangeMayHold(FLIP[op], stats.column(name), types.get(name), left);
    }
  }
  return true;
}

/** Whether some value in [min, max] may satisfy `value <op> constant` (exact comparisons only). */
function rangeMayHold(op: keyof typeof FLIP, s: ColumnStats | undefined, type: DataType | undefined, k: SqlConstant): boolean {
  if (k.type === 'NULL') return false; // `x op NULL` is NULL, never TRUE
  if (s === undefined || type === undefined || s.min === null || s.max === null) return true;
  const cmp = comparator(type, s.min, s.max, k);
  if (cmp === null) return true;
  const [lo, hi] = cmp; // sign of (min - k), (max - k)
  switch (op) {
    case '=':
      return lo <= 0 && hi >= 0;
    case '<>':
      return !(lo === 0 && hi === 0);
    case '<':
      return lo < 0;
    case '<=':
      return lo <= 0;
    case '>':
      return hi > 0;
    case '>=':
      return hi >= 0;
  }
}

function sign(a: bigint | string, b: bigint | string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const ASCII = /^[\x00-\x7f]*$/;

function comparator(type: DataType, min: StatValue, max: StatValue, k: SqlConstant): [number, number] | null {
  if (DataType.isInt(type) && k.type === 'INTEGER') {
    const lo = typeof min === 'bigint' ? min : typeof min === 'number' && Number.isInteger(min) ? BigInt(min) : null;
    const hi = typeof max === 'bigint' ? max : typeof max === 'number' && Number.isInteger(max) ? BigInt(max) : null;
    return lo === null || hi === null ? null : [sign(lo, k.value), sign(hi, k.value)];
  }
  if (DataType.isUtf8(type) && k.type === 'VARCHAR' && typeof min === 'string' && typeof max === 'string') {
    if (!ASCII.test(min) || !ASCII.test(max) || !ASCII.test(k.value)) return null;
    return [sign(min, k.value), sign(max, k.value)];
  }
  return null;
}
