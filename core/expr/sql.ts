/**
 * Render a residual-filter `Expr` as DuckDB SQL, so the parity harness can hand DuckDB exactly the
 * predicate joinlab evaluates.
 *
 * The rendering is chosen to *mean the same thing* as joinlab's evaluator, not just to parse:
 * - every node is fully parenthesised, so precedence never depends on DuckDB's grammar;
 * - identifiers are always double-quoted (a column called `order` or `a b` just works);
 * - arithmetic is float64 in joinlab, so both operands of `+ - * /` are cast to DOUBLE (otherwise
 *   DuckDB would do INTEGER arithmetic, which overflows with an error or truncates);
 * - integer-valued number literals in the safe range are written as plain integers (exact
 *   comparisons against integer and decimal columns); every other number is written as a string
 *   cast to DOUBLE (`'0.1'::DOUBLE`, `'nan'::DOUBLE`, `'-inf'::DOUBLE`), because DuckDB parses a
 *   bare `0.1` as a DECIMAL and because `String(x)` is the shortest text that round-trips.
 */
import type { Expr, Literal } from './ast.ts';
import { ExpressionError } from '../errors.ts';

/** `name` as a DuckDB quoted identifier (`"a""b"` for `a"b`). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `s` as a DuckDB string literal (single quotes doubled; backslashes are not special). */
export function quoteString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** A JS number as a DuckDB literal that evaluates to exactly the same float64 (or integer). */
export function numberToSql(n: number): string {
  if (Number.isNaN(n)) return "'nan'::DOUBLE";
  if (n === Infinity) return "'inf'::DOUBLE";
  if (n === -Infinity) return "'-inf'::DOUBLE";
  if (Object.is(n, -0)) return "'-0.0'::DOUBLE";
  if (Number.isSafeInteger(n)) return n < 0 ? `(${n})` : String(n);
  return `'${String(n)}'::DOUBLE`;
}

export function literalToSql(value: Literal): string {
  if (value === null) return 'NULL';
  switch (typeof value) {
    case 'boolean':
      return value ? 'TRUE' : 'FALSE';
    case 'number':
      return numberToSql(value);
    case 'string':
      return quoteString(value);
    default:
      throw new ExpressionError(`cannot render literal of type ${typeof value} as SQL`);
  }
}

/** `alias."column"` with the alias quoted only when it is not a plain identifier. */
export function qualifiedColumn(alias: string, name: string): string {
  const qualifier = /^[a-z_][a-z0-9_]*$/.test(alias) ? alias : quoteIdent(alias);
  return `${qualifier}.${quoteIdent(name)}`;
}

function asDouble(e: Expr, l: string, r: string): string {
  // Already DOUBLE: nested arithmetic, or a number literal we render as ::DOUBLE anyway.
  if (e.kind === 'arith') return exprToSql(e, l, r);
  return `CAST(${exprToSql(e, l, r)} AS DOUBLE)`;
}

/**
 * DuckDB SQL for `e`, with `side: 'left'` columns qualified by `leftAlias` and `side: 'right'`
 * columns by `rightAlias`.
 */
export function exprToSql(e: Expr, leftAlias = 'l', rightAlias = 'r'): string {
  switch (e.kind) {
    case 'column':
      return qualifiedColumn(e.side === 'left' ? leftAlias : rightAlias, e.name);
    case 'literal':
      return literalToSql(e.value);
    case 'compare':
      return `(${exprToSql(e.left, leftAlias, rightAlias)} ${e.op} ${exprToSql(e.right, leftAlias, rightAlias)})`;
    case 'arith':
      return `(${asDouble(e.left, leftAlias, rightAlias)} ${e.op} ${asDouble(e.right, leftAlias, rightAlias)})`;
    case 'and':
      if (e.args.length === 0) return 'TRUE';
      return `(${e.args.map((a) => exprToSql(a, leftAlias, rightAlias)).join(' AND ')})`;
    case 'or':
      if (e.args.length === 0) return 'FALSE';
      return `(${e.args.map((a) => exprToSql(a, leftAlias, rightAlias)).join(' OR ')})`;
    case 'not':
      return `(NOT ${exprToSql(e.arg, leftAlias, rightAlias)})`;
    case 'is-null':
      return `(${exprToSql(e.arg, leftAlias, rightAlias)} IS ${e.negated ? 'NOT ' : ''}NULL)`;
    default: {
      const never: never = e;
      throw new ExpressionError(`unknown expression kind: ${JSON.stringify(never)}`);
    }
  }
}
