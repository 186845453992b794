/**
 * A query's WHERE conjuncts on ONE table as a static scan predicate: they filter the table's rows
 * as its scan decodes them, and prune containers by their min/max / null counts the way a dynamic
 * filter does — before the table reaches a join (DuckDB's filter pushdown into the scan).
 *
 * Rows: the conjunction is compiled by the expression evaluator (core/expr, DuckDB's typing and
 * three-valued logic: a row passes only when it is TRUE) against the schema of each batch the scan
 * yields (a scan decodes only the columns asked for, so batch schemas may differ; one compile per
 * distinct list of names and types — not per Schema object, which every decoded run brings anew:
 * compiling per run cost fresh buffers, garbage and cold code on every row group).
 *
 * Containers, conservatively (a pruning answer may only ever be "maybe"): each conjunct is tested
 * against the container's min/max and null counts by static-prune.ts — comparisons with constants
 * (integers, decimals, floats where exact, strings in byte order, dates and timestamps, casts,
 * folded date arithmetic), BETWEEN, IN lists, IS [NOT] NULL, LIKE prefixes, and AND / OR of those;
 * a container is dropped only when the statistics prove no row can pass. Anything else, or
 * unknown statistics, keeps the container.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { children, type Expr } from '../../core/expr/ast.ts';
import { compileRowFilter } from '../../core/expr/project.ts';
import type { MemoryPool } from '../../core/memory/pool.ts';
import type { ContainerStats, ScanPredicate } from '../../core/scan/scan.ts';
import type { SqlExpr } from './ast.ts';
import { mayHold } from './static-prune.ts';

/** One conjunct: its engine expression (columns on side `left`) and its SQL form (for containers). */
export interface StaticConjunct {
  readonly expr: Expr;
  readonly sql: SqlExpr;
  /** A column of the conjunct as named in the scan (null: not one of the scan's: nothing prunes on it). */
  readonly column: (e: Extract<SqlExpr, { kind: 'column' }>) => string | null;
}

type RowFilter = ReturnType<typeof compileRowFilter>;

/**
 * `pool`: the query's pool; each compiled row filter's scratch (its node buffers, identity rows
 * and mask: core/expr/scratch.ts) then counts against it as it grows, for as long as the query
 * runs — the filter chunks its rows when the pool refuses, a MemoryLimitError past that.
 */
export function staticPredicate(conjuncts: readonly StaticConjunct[], schema: Schema, description: string, pool?: MemoryPool): ScanPredicate {
  const expr: Expr = conjuncts.length === 1 ? conjuncts[0]!.expr : { kind: 'and', args: conjuncts.map((c) => c.expr) };
  compileRowFilter(expr, schema); // type errors surface before any data is read
  const compiled = new WeakMap<Schema, RowFilter>();
  const bySignature = new Map<string, RowFilter>();
  const columns = [...new Set(conjuncts.flatMap((c) => columnsOf(c.expr)))];
  const types = new Map(schema.fields.map((f) => [f.name, f.type]));
  return {
    description,
    label: 'where',
    columns,
    mayContain(stats: ContainerStats): boolean {
      if (stats.numRows === 0) return false;
      for (const c of conjuncts) if (!mayHold(c.sql, stats, { column: c.column, types })) return false;
      return true;
    },
    selectRows(batch: RecordBatch): Int32Array | null {
      const n = batch.numRows;
      if (n === 0) return null;
      let f = compiled.get(batch.schema);
      if (f === undefined) {
        // a scan's batches carry equal schemas in new objects (one per decoded run): compile once per shape
        const shape = batch.schema.fields.map((x) => `${x.name}\u0000${String(x.type)}`).join('\u0001');
        f = bySignature.get(shape);
        if (f === undefined) {
          bySignature.set(shape, (f = compileRowFilter(expr, batch.schema)));
          if (pool !== undefined) f.scratch.attach(pool.reservation(`${description} filter scratch`));
        }
        compiled.set(batch.schema, f);
      }
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
