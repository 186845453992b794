/**
 * The value of an uncorrelated scalar subquery as a constant of the subquery's own type, so the
 * outer query is planned with a literal in its place: a WHERE conjunct `col > (SELECT …)` becomes
 * `col > <constant>`, a static predicate that filters rows and prunes containers like any other.
 *
 * Type: exactly what the evaluator would give a column of the subquery's Arrow type
 * (core/expr/column-types.ts) — DuckDB's type: `count(*)` BIGINT, `avg` DOUBLE, `sum` of an
 * integer DECIMAL(38,0) (DuckDB's HUGEINT, which joinlab's aggregate writes as Decimal128(38,0)),
 * `sum(x) * 0.0001` of a DECIMAL(15,2) DECIMAL(38,6). Written as `CAST(<exact text> AS <type>)`:
 *  - integers: `CAST(<bigint> AS BIGINT)` (static-prune.ts reads constants through casts);
 *  - decimals, floats, dates, timestamps: the value's text as the evaluator's VARCHAR cast prints
 *    it (DuckDB's format: every digit of a decimal, the shortest round-trip digits of a double,
 *    `nan` / `inf`), which the cast from a string literal reads back exactly, at compile time;
 *  - VARCHAR and BOOLEAN: the constant itself;
 *  - no row, or a NULL: `CAST(NULL AS <type>)`, so `x + (SELECT …)` keeps its type.
 * A type the evaluator cannot take as a constant (BLOB, a time-zoned timestamp, nested types) is
 * an UnsupportedSqlError.
 *
 * Row counts are DuckDB 1.5.6's (`scalar_subquery_error_on_multiple_rows`, on by default): more
 * than one row is its "Invalid Input Error: More than one row returned by a subquery used as an
 * expression", raised as an ExpressionError (the evaluator's kind of runtime error) whether or
 * not the outer query has rows — DuckDB computes the subquery before it looks; more than one
 * column is its binder error "Subquery returns N columns - expected 1" (a UsageError).
 */
import type { Data, Table } from 'apache-arrow';
import { ExpressionError, UsageError } from '../../core/errors.ts';
import { columnType } from '../../core/expr/column-types.ts';
import { compileProjection } from '../../core/expr/project.ts';
import type { At, SqlConstant, SqlExpr } from './ast.ts';
import { notYet } from './relation.ts';

const INTEGER_SQL = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'HUGEINT']);

/** The one value of a scalar subquery's result, as a typed constant expression (see the module comment). */
export function scalarConstant(table: Table, at: At): SqlExpr {
  const fields = table.schema.fields;
  if (fields.length !== 1) throw new UsageError(`Subquery returns ${fields.length} columns - expected 1${at === null ? '' : ` (the subquery at character ${at})`}`);
  if (table.numRows > 1) throw new ExpressionError('Invalid Input Error: More than one row returned by a subquery used as an expression - scalar subqueries can only return a single row.');
  const field = fields[0]!;
  const type = columnType(field.type);
  if (type === null || (type.cls.c === 'time' && type.cls.tz !== undefined) || type.cls.c === 'bin' || type.cls.sql === 'DATE64') return notYet(`a scalar subquery of type ${String(field.type)}`, at);
  const sql = type.cls.sql;
  const constant = (c: SqlConstant): SqlExpr => ({ kind: 'constant', constant: c, at });
  const cast = (c: SqlConstant): SqlExpr => ({ kind: 'cast', arg: constant(c), type: sql, at });
  const column = table.getChildAt(0)!;
  const value: unknown = table.numRows === 0 ? null : column.get(0);
  if (value === null || value === undefined) return cast({ type: 'NULL', value: null });
  if (type.cls.c === 'bool') return constant({ type: 'BOOLEAN', value: value === true });
  if (type.cls.c === 'str') return constant({ type: 'VARCHAR', value: String(value) });
  if (INTEGER_SQL.has(sql) && (typeof value === 'number' || typeof value === 'bigint')) return cast({ type: 'INTEGER', value: BigInt(value), sqlType: sql });
  return cast({ type: 'VARCHAR', value: valueText(table) });
}

/** Row 0 of the one column, as the evaluator's `CAST(… AS VARCHAR)` prints it (DuckDB's text). */
function valueText(table: Table): string {
  const batch = table.batches.find((b) => b.numRows > 0)!;
  const name = table.schema.fields[0]!.name;
  const text: Data = compileProjection({ kind: 'cast', arg: { kind: 'column', side: 'left', name }, type: 'VARCHAR' }, batch.schema).evaluate(batch.slice(0, 1));
  const offsets = text.valueOffsets as Int32Array;
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode((text.values as Uint8Array).subarray(offsets[text.offset]!, offsets[text.offset + 1]!));
}
