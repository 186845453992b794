/**
 * A SQL condition of the bound tree (adapters/sql/ast.ts) printed back as text, for `--explain` and
 * the scan reports: the filters a scan received, as the query wrote them (`l_shipdate >=
 * '1994-01-01'`), not an internal label. Display only — never parsed again, so it favours
 * readability: an AND / OR nested in another is parenthesised, subqueries print as `(subquery)`,
 * DuckDB's operator calls as operators (`~~` as LIKE) and date arithmetic of constants folded.
 */
import { decimalText } from '../../core/expr/numeric-nodes.ts';
import { quoteString } from '../../core/expr/sql.ts';
import type { SqlConstant, SqlExpr } from './ast.ts';
import { foldTemporal } from './temporal-fold.ts';

/** DuckDB's names of operators its parse tree writes as function calls. */
const OPERATOR_CALLS: Readonly<Record<string, string>> = { '~~': 'LIKE', '!~~': 'NOT LIKE', '~~*': 'ILIKE', '!~~*': 'NOT ILIKE', '||': '||', '^@': '^@' };

const ESCAPE_CALLS: Readonly<Record<string, string>> = { like_escape: 'LIKE', not_like_escape: 'NOT LIKE', ilike_escape: 'ILIKE', not_ilike_escape: 'NOT ILIKE' };

function constantText(c: SqlConstant): string {
  switch (c.type) {
    case 'NULL':
      return 'NULL';
    case 'BOOLEAN':
      return c.value ? 'TRUE' : 'FALSE';
    case 'VARCHAR':
      return quoteString(c.value);
    case 'DECIMAL':
      return decimalText(c.value, c.scale);
    default:
      return String(c.value);
  }
}

/** `e` folded (temporal-fold.ts), or null when it does not fold (or its value is out of range: shown as written). */
function foldedOrNull(e: SqlExpr): SqlExpr | null {
  try {
    return foldTemporal(e);
  } catch {
    return null;
  }
}

/**
 * A column the planner made itself (its name starts with a NUL, which no query can write) as what
 * it stands for: a decorrelated subquery's value or key, a mark, an aggregate — not a NUL on the
 * terminal.
 */
function internalName(name: string): string {
  const n = name.slice(1);
  if (/^s\d+a\d+$/.test(n)) return '(subquery)';
  if (/^s\d+k\d+$/.test(n)) return '(subquery key)';
  if (n === 'mark') return '(mark)';
  if (/^[agr]\d+$/.test(n)) return '(aggregate)';
  return `(${n})`;
}

/** `e` as SQL text (see the module comment). */
export function sqlText(e: SqlExpr): string {
  const inner = (x: SqlExpr): string => (x.kind === 'and' || x.kind === 'or' ? `(${sqlText(x)})` : sqlText(x));
  switch (e.kind) {
    case 'column':
      return e.names.some((n) => n.startsWith('\u0000')) ? internalName(e.names.find((n) => n.startsWith('\u0000'))!) : e.names.join('.');
    case 'star':
      return e.relation === null ? '*' : `${e.relation}.*`;
    case 'constant':
      return constantText(e.constant);
    case 'compare':
      return `${inner(e.left)} ${e.op} ${inner(e.right)}`;
    case 'and':
    case 'or':
      return e.args.map(inner).join(e.kind === 'and' ? ' AND ' : ' OR ');
    case 'not':
      return `NOT ${inner(e.arg)}`;
    case 'is-null':
      return `${inner(e.arg)} IS ${e.negated ? 'NOT ' : ''}NULL`;
    case 'in-list':
      return `${inner(e.arg)} ${e.negated ? 'NOT ' : ''}IN (${e.list.map(sqlText).join(', ')})`;
    case 'arith': {
      // date and interval constants as the planner folded them (`CAST('1995-01-01 00:00:00' AS TIMESTAMP)`)
      const folded = foldedOrNull(e);
      if (folded !== null) return sqlText(folded);
      return e.args.length === 1 ? `-${inner(e.args[0]!)}` : `(${inner(e.args[0]!)} ${e.op} ${inner(e.args[1]!)})`;
    }
    case 'call': {
      const op = OPERATOR_CALLS[e.name];
      if (op !== undefined && e.args.length === 2) return `${inner(e.args[0]!)} ${op} ${inner(e.args[1]!)}`;
      const escaped = ESCAPE_CALLS[e.name];
      if (escaped !== undefined && e.args.length === 3) return `${inner(e.args[0]!)} ${escaped} ${inner(e.args[1]!)} ESCAPE ${inner(e.args[2]!)}`;
      return `${e.name}(${e.star ? '*' : `${e.distinct ? 'DISTINCT ' : ''}${e.args.map(sqlText).join(', ')}`})`;
    }
    case 'case':
      return `CASE ${e.whens.map((w) => `WHEN ${sqlText(w.when)} THEN ${sqlText(w.then)}`).join(' ')}${e.otherwise === null ? '' : ` ELSE ${sqlText(e.otherwise)}`} END`;
    case 'cast':
      return `CAST(${sqlText(e.arg)} AS ${e.type})`;
    case 'exists':
      return `${e.negated ? 'NOT ' : ''}EXISTS (subquery)`;
    case 'in-subquery':
      return `${inner(e.arg)} ${e.negated ? 'NOT ' : ''}IN (subquery)`;
    case 'scalar-subquery':
      return '(subquery)';
  }
}
