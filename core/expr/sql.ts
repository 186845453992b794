/**
 * Render a residual-filter `Expr` as DuckDB SQL, so the parity harness can hand DuckDB exactly the
 * predicate joinlab evaluates.
 *
 * The rendering is chosen to *mean the same thing* as joinlab's evaluator, not just to parse.
 * joinlab types filter arithmetic as DuckDB does (numeric-types.ts), so the expression is handed
 * over as it is — no casts — and DuckDB computes the same exact integers and decimals, with the
 * same result types and the same overflow errors:
 * - every node is fully parenthesised, so precedence never depends on DuckDB's grammar;
 * - identifiers are always double-quoted (a column called `order` or `a b` just works);
 * - `+ - * / // %` are DuckDB's operators of the same names;
 * - number literals are spelled so DuckDB gives them the type joinlab does (`literalType`): an
 *   integer as its exact digits (DuckDB's adaptive integer literal: `1`, `9223372036854775808`),
 *   a decimal as the digits of `String(x)` (`0.5` is DECIMAL(2,1) in both), and a DOUBLE as a
 *   string cast to DOUBLE (`'1e+300'::DOUBLE`, `'nan'::DOUBLE`, `'-0.0'::DOUBLE`), because the
 *   shortest text that round-trips a double is what `String(x)` prints. Negative literals are
 *   parenthesised (`(-7)`), which DuckDB folds into one constant of the same type.
 * - CASE, COALESCE and CAST are DuckDB's own (a cast's type in its canonical spelling, e.g.
 *   `DECIMAL(10,2)`, `TIMESTAMP`), unary minus is `(-(x))`;
 * - a function call is DuckDB's function of that name (`date_part('year', x)`, `substring(s, 1, 2)`),
 *   the LIKE family and `||` in their infix spelling (`(x NOT ILIKE p)`, `(x LIKE p ESCAPE e)`).
 */
import { checkDepth, type Expr, type Literal } from './ast.ts';
import { ExpressionError } from '../errors.ts';
import { parseTypeName } from './casts.ts';
import { LIKE_ESCAPE_OPERATORS, LIKE_OPERATORS } from './functions.ts';
import { literalType } from './numeric-types.ts';

/** `name` as a DuckDB quoted identifier (`"a""b"` for `a"b`). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `s` as a DuckDB string literal (single quotes doubled; backslashes are not special). */
export function quoteString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

function doubleToSql(n: number): string {
  if (Number.isNaN(n)) return "'nan'::DOUBLE";
  if (n === Infinity) return "'inf'::DOUBLE";
  if (n === -Infinity) return "'-inf'::DOUBLE";
  if (Object.is(n, -0)) return "'-0.0'::DOUBLE";
  return `'${String(n)}'::DOUBLE`;
}

/** A number literal as DuckDB SQL of the same value and the same type as joinlab gives it (see the module comment). */
export function numberToSql(n: number | bigint): string {
  const lt = literalType(n, String(n));
  if (lt.unscaled === null) return doubleToSql(Number(n));
  const text = lt.int !== null ? lt.int.toString() : String(n);
  return text.startsWith('-') ? `(${text})` : text;
}

export function literalToSql(value: Literal): string {
  if (value === null) return 'NULL';
  switch (typeof value) {
    case 'boolean':
      return value ? 'TRUE' : 'FALSE';
    case 'number':
    case 'bigint':
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

/**
 * DuckDB SQL for `e`, with `side: 'left'` columns qualified by `leftAlias` and `side: 'right'`
 * columns by `rightAlias`. An AST deeper than MAX_EXPR_DEPTH is an ExpressionError.
 */
export function exprToSql(e: Expr, leftAlias = 'l', rightAlias = 'r'): string {
  checkDepth(e);
  return render(e, leftAlias, rightAlias);
}

function render(e: Expr, l: string, r: string): string {
  switch (e.kind) {
    case 'column':
      return qualifiedColumn(e.side === 'left' ? l : r, e.name);
    case 'literal':
      return literalToSql(e.value);
    case 'compare':
      return `(${render(e.left, l, r)} ${e.op} ${render(e.right, l, r)})`;
    case 'arith':
      return `(${render(e.left, l, r)} ${e.op} ${render(e.right, l, r)})`;
    case 'and':
      if (e.args.length === 0) return 'TRUE';
      return `(${e.args.map((a) => render(a, l, r)).join(' AND ')})`;
    case 'or':
      if (e.args.length === 0) return 'FALSE';
      return `(${e.args.map((a) => render(a, l, r)).join(' OR ')})`;
    case 'not':
      return `(NOT ${render(e.arg, l, r)})`;
    case 'is-null':
      return `(${render(e.arg, l, r)} IS ${e.negated ? 'NOT ' : ''}NULL)`;
    case 'negate':
      // `-(5)` is a constant in DuckDB too (its parser folds a negated literal)
      return `(-(${render(e.arg, l, r)}))`;
    case 'case': {
      const whens = e.whens.map((w) => `WHEN ${render(w.when, l, r)} THEN ${render(w.then, l, r)}`).join(' ');
      return `(CASE ${whens}${e.otherwise === null ? '' : ` ELSE ${render(e.otherwise, l, r)}`} END)`;
    }
    case 'coalesce':
      return `COALESCE(${e.args.map((a) => render(a, l, r)).join(', ')})`;
    case 'cast':
      // the canonical spelling of a type joinlab knows (an unknown one is an ExpressionError)
      return `CAST(${render(e.arg, l, r)} AS ${parseTypeName(e.type, 'CAST').sql})`;
    case 'call': {
      const args = e.args.map((a) => render(a, l, r));
      const op = LIKE_OPERATORS[e.name];
      if (op !== undefined && args.length === 2) return `(${args[0]} ${op} ${args[1]})`;
      const escaped = LIKE_ESCAPE_OPERATORS[e.name];
      if (escaped !== undefined && args.length === 3) return `(${args[0]} ${escaped} ${args[1]} ESCAPE ${args[2]})`;
      if (e.name === '||' && args.length === 2) return `(${args[0]} || ${args[1]})`;
      if (!/^[a-z_][a-z0-9_]*$/.test(e.name)) throw new ExpressionError(`cannot render the function ${e.name} with ${args.length} arguments as SQL`);
      return `${e.name}(${args.join(', ')})`;
    }
    default: {
      const never: never = e;
      throw new ExpressionError(`unknown expression kind: ${JSON.stringify(never)}`);
    }
  }
}
