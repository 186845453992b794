/**
 * Names in a SQL query, bound to the columns of joinlab's inputs (issue 14).
 *
 * A `Relation` is what a FROM item (a table, a derived table, a join of them) offers the query:
 * its scan and its visible columns, each with the relation name it is qualified by (`t.c`: the
 * table's alias, else its name), its SQL name, and the name it has in the scan's data (a join's
 * output renames a clashing right column `c_right`, see core/output-schema.ts).
 *
 * Resolution follows DuckDB: `t.c` names relation `t`; a bare `c` must name exactly one visible
 * column (a USING / NATURAL column counts once), else it is a `UsageError` (ambiguous) or a
 * `MissingColumnError`. In a condition over two relations (a join's), a column that both could
 * answer is ambiguous too.
 *
 * `toExpr` turns a SQL condition into the engine's expression (core/expr/ast.ts) over the two
 * inputs of one join — or over one input (`NO_COLUMNS` as the right) for a scan's row filter.
 * `x IN (a, b)` becomes `x = a OR x = b`: the same under three-valued logic (no match and a NULL
 * in the list: NULL). Scalar functions the evaluator has (core/expr/functions.ts: LIKE and its kin,
 * date parts, substring, `||`, concat) pass through by name; date / interval arithmetic of
 * constants is folded first (temporal-fold.ts), and an interval that remains is refused.
 */
import type { Expr, Literal } from '../../core/expr/ast.ts';
import { FUNCTION_NAMES } from '../../core/expr/functions.ts';
import { decimalText } from '../../core/expr/numeric-nodes.ts';
import { MissingColumnError, UnsupportedSqlError, UsageError } from '../../core/errors.ts';
import type { Scan } from '../../core/scan/scan.ts';
import type { SqlExpr } from './ast.ts';
import type { ExplainNode } from './explain.ts';
import type { Route } from './stream-scan.ts';
import { foldTemporal, isIntervalFunction } from './temporal-fold.ts';

/** A column visible in a relation. */
export interface Visible {
  readonly rel: string;
  readonly name: string;
  /** Its name in the relation's data. */
  readonly out: string;
  /** Hidden from `*` and bare names: the right copy of a USING / NATURAL column. */
  readonly merged: boolean;
  /** The FROM table it comes from unchanged, when a filter on it may go to that table's scan. */
  readonly route: Route | null;
  /**
   * Its FROM table's place in the order the query wrote the tables (absent: a column no table
   * has, e.g. a mark). The join planner may join tables in any order, and a join's output holds its
   * left input's columns first; `*` lists columns in this order instead, as DuckDB does.
   */
  readonly written?: number;
}

/** `columns` stably sorted by their tables' written order (`Visible.written`; columns without one last). */
export function writtenOrder(columns: readonly Visible[]): Visible[] {
  const rank = (c: Visible): number => c.written ?? Number.MAX_SAFE_INTEGER;
  return columns.map((c, i) => ({ c, i })).sort((a, b) => rank(a.c) - rank(b.c) || a.i - b.i).map((x) => x.c);
}

export interface Relation {
  readonly input: Scan;
  readonly columns: readonly Visible[];
  /** Relation names inside (for `t.c` and for placing WHERE conjuncts). */
  readonly rels: ReadonlySet<string>;
  /** Set when a RIGHT / FULL join merged USING columns (then `*` is refused). */
  readonly coalescedUsing: boolean;
  /** USING / NATURAL columns of a FULL join: DuckDB's bare name is COALESCE(l.k, r.k), refused here. */
  readonly coalesced?: ReadonlySet<string>;
  /** The plan below this relation, read after the run (explain.ts). */
  readonly describe: () => ExplainNode;
}

export const notYet = (what: string, at: number | null = null): never => {
  throw new UnsupportedSqlError(`${what} (not supported)`, at);
};

/** An empty relation: the right side of a one-input condition. */
export const NO_COLUMNS: Pick<Relation, 'columns'> = { columns: [] };

export function conjuncts(e: SqlExpr | null): SqlExpr[] {
  if (e === null) return [];
  return e.kind === 'and' ? e.args.flatMap((a) => conjuncts(a)) : [e];
}

export function lookup(rel: Pick<Relation, 'columns' | 'coalesced'>, names: readonly string[]): Visible | null | 'ambiguous' {
  if (names.length > 2) return null;
  const [q, name] = names.length === 2 ? [names[0]!, names[1]!] : [null, names[0]!];
  if (q === null && rel.coalesced?.has(name)) notYet(`the column '${name}' of a FULL JOIN … USING / NATURAL (DuckDB's COALESCE of both sides; name one side, e.g. t.${name})`);
  const hits = rel.columns.filter((c) => c.name === name && (q === null ? !c.merged : c.rel === q));
  if (hits.length === 0) return null;
  return hits.length === 1 ? hits[0]! : 'ambiguous';
}

/**
 * SQL keywords DuckDB's parser writes as column references (`current_date` is `COLUMN_REF
 * current_date`) and its binder turns into values when no column has the name. joinlab runs none:
 * they are time- or session-dependent (a parity check against DuckDB would race the clock).
 */
export const SPECIAL_VALUES: ReadonlySet<string> = new Set(['current_date', 'current_time', 'current_timestamp', 'localtime', 'localtimestamp', 'now', 'current_user', 'current_role', 'session_user', 'user', 'current_catalog', 'current_schema']);

/** The error for a column no relation has: an unsupported special value (`current_date`) or `rowid`, else MissingColumnError. */
export function missingColumn(names: readonly string[], available: readonly string[], at: number | null): Error {
  if (names.length === 1 && SPECIAL_VALUES.has(names[0]!.toLowerCase())) {
    return new UnsupportedSqlError(`${names[0]!.toLowerCase()} (a time- or session-dependent special value; not supported)`, at);
  }
  // DuckDB's pseudo-column of a table's row ids: a column no relation lists, and not one joinlab has
  if (names.at(-1)!.toLowerCase() === 'rowid') return new UnsupportedSqlError(`${names.join('.')} (DuckDB's rowid pseudo-column; not supported)`, at);
  return new MissingColumnError(names.join('.'), 'the query', available);
}

/** A column of `rel` by SQL name (`[c]` or `[t, c]`). */
export function resolveIn(rel: Pick<Relation, 'columns'>, names: readonly string[], at: number | null): Visible {
  const found = lookup(rel, names);
  if (found === 'ambiguous') throw new UsageError(`column reference '${names.join('.')}' is ambiguous${at === null ? '' : ` (at character ${at})`}`);
  if (found === null) throw missingColumn(names, rel.columns.filter((c) => !c.merged).map((c) => `${c.rel}.${c.name}`), at);
  return found;
}

/** The sub-expressions of `e` (subqueries are not entered). */
export function childrenOf(e: SqlExpr): SqlExpr[] {
  switch (e.kind) {
    case 'compare':
      return [e.left, e.right];
    case 'and':
    case 'or':
    case 'arith':
    case 'call':
      return [...e.args];
    case 'not':
    case 'is-null':
    case 'cast':
      return [e.arg];
    case 'in-list':
      return [e.arg, ...e.list];
    case 'in-subquery':
      return [e.arg];
    case 'case':
      return [...e.whens.flatMap((w) => [w.when, w.then]), ...(e.otherwise === null ? [] : [e.otherwise])];
    default:
      return [];
  }
}

/** `e` with each direct sub-expression replaced by `f` of it (subqueries are not entered). */
export function mapChildren(e: SqlExpr, f: (x: SqlExpr) => SqlExpr): SqlExpr {
  switch (e.kind) {
    case 'compare':
      return { ...e, left: f(e.left), right: f(e.right) };
    case 'and':
    case 'or':
    case 'arith':
    case 'call':
      return { ...e, args: e.args.map(f) };
    case 'not':
    case 'is-null':
    case 'cast':
      return { ...e, arg: f(e.arg) };
    case 'in-list':
      return { ...e, arg: f(e.arg), list: e.list.map(f) };
    case 'in-subquery':
      return { ...e, arg: f(e.arg) };
    case 'case':
      return { ...e, whens: e.whens.map((w) => ({ when: f(w.when), then: f(w.then) })), otherwise: e.otherwise === null ? null : f(e.otherwise) };
    default:
      return e;
  }
}

/** A scan's columns, unqualified (`rel` ''), as a relation. */
export function scanRelation(scan: Scan, rel: string, describe: () => ExplainNode = () => ({ label: `SCAN ${scan.source}`, details: [], children: [] })): Relation {
  return {
    input: scan,
    columns: scan.schema.fields.map((f) => ({ rel, name: f.name, out: f.name, merged: false, route: null })),
    rels: new Set(rel === '' ? [] : [rel]),
    coalescedUsing: false,
    describe,
  };
}

/** Whether `e` holds an EXISTS / IN subquery anywhere. */
export function hasSubquery(e: SqlExpr): boolean {
  return e.kind === 'exists' || e.kind === 'in-subquery' || childrenOf(e).some(hasSubquery);
}

const intervalRefusal = 'an INTERVAL outside date arithmetic of constants (e.g. a column + interval)';

/** A condition over a join's two inputs (or one input and NO_COLUMNS) as the engine's expression. */
export function toExpr(e: SqlExpr, left: Pick<Relation, 'columns'>, right: Pick<Relation, 'columns'>): Expr {
  switch (e.kind) {
    case 'column': {
      const l = lookup(left, e.names);
      const r = lookup(right, e.names);
      if (l === 'ambiguous' || r === 'ambiguous' || (l !== null && r !== null)) throw new UsageError(`column reference '${e.names.join('.')}' is ambiguous${e.at === null ? '' : ` (at character ${e.at})`}`);
      if (l !== null) return { kind: 'column', side: 'left', name: l.out };
      if (r !== null) return { kind: 'column', side: 'right', name: r.out };
      throw missingColumn(e.names, [...left.columns, ...right.columns].filter((c) => !c.merged).map((c) => `${c.rel}.${c.name}`), e.at);
    }
    case 'constant': {
      const c = e.constant;
      if (c.type === 'DECIMAL') {
        // the evaluator types a fractional JS number by its shortest digits (`1.50` -> DECIMAL(2,1)
        // as DuckDB's literal typing does), so a decimal whose digits a double keeps is exact
        const text = decimalText(c.value, c.scale);
        const n = Number(text);
        if (String(n) !== text.replace(/\.?0+$/, '') && String(n) !== text) return notYet(`the DECIMAL constant ${text} (more digits than a double keeps)`, e.at);
        return { kind: 'literal', value: n };
      }
      return { kind: 'literal', value: c.value as Literal };
    }
    case 'compare':
      if (e.op === 'IS DISTINCT FROM' || e.op === 'IS NOT DISTINCT FROM') return notYet(`${e.op} outside a join key`, e.at);
      return { kind: 'compare', op: e.op, left: toExpr(e.left, left, right), right: toExpr(e.right, left, right) };
    case 'and':
    case 'or':
      return { kind: e.kind, args: e.args.map((a) => toExpr(a, left, right)) };
    case 'not':
      return { kind: 'not', arg: toExpr(e.arg, left, right) };
    case 'is-null':
      return { kind: 'is-null', arg: toExpr(e.arg, left, right), negated: e.negated };
    case 'in-list': {
      const x = toExpr(e.arg, left, right);
      const any: Expr = { kind: 'or', args: e.list.map((v) => ({ kind: 'compare', op: '=', left: x, right: toExpr(v, left, right) }) as Expr) };
      return e.negated ? { kind: 'not', arg: any } : any;
    }
    case 'arith': {
      const folded = foldTemporal(e);
      if (folded !== null) return toExpr(folded, left, right);
      if (e.args.length === 1) return { kind: 'negate', arg: toExpr(e.args[0]!, left, right) };
      return { kind: 'arith', op: e.op, left: toExpr(e.args[0]!, left, right), right: toExpr(e.args[1]!, left, right) };
    }
    case 'case':
      return { kind: 'case', whens: e.whens.map((w) => ({ when: toExpr(w.when, left, right), then: toExpr(w.then, left, right) })), otherwise: e.otherwise === null ? null : toExpr(e.otherwise, left, right) };
    case 'cast':
      if (e.type === 'INTERVAL') return notYet(intervalRefusal, e.at);
      return { kind: 'cast', arg: toExpr(e.arg, left, right), type: e.type };
    case 'call':
      if (e.name.toLowerCase() === 'coalesce' && !e.distinct && !e.star) return { kind: 'coalesce', args: e.args.map((a) => toExpr(a, left, right)) };
      if (FUNCTION_NAMES.has(e.name) && !e.distinct && !e.star) return { kind: 'call', name: e.name, args: e.args.map((a) => toExpr(a, left, right)) };
      if (isIntervalFunction(e.name)) return notYet(intervalRefusal, e.at);
      return notYet(`the function ${e.name}()${['count', 'count_star', 'sum', 'min', 'max', 'avg'].includes(e.name.toLowerCase()) ? ' outside a SELECT list, HAVING or ORDER BY' : ''}`, e.at);
    case 'exists':
    case 'in-subquery':
      return notYet('a subquery inside OR, NOT or an expression (only as a WHERE conjunct)', e.at);
    default:
      return notYet(`${e.kind} in a condition`, e.at);
  }
}
