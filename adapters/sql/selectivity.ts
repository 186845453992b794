/**
 * How many of a table's rows its static WHERE conjuncts keep, estimated for the join planner
 * (issue 26) from the table's profile (table-stats.ts). Two estimates, and the smaller wins:
 *  - the rows of the containers the compiled static predicate does not prune (exact as an upper
 *    bound: a date range on a date-sorted fact table keeps just its row groups);
 *  - the rows times the conjuncts' selectivity, by the textbook rules (and DuckDB's defaults):
 *    `col = c` 1/NDV (0 when c is outside [min, max]), `col <> c` 1 - 1/NDV, ranges on one column
 *    merged into one interval and taken as its share of [min, max] (uniform values), `IN` k/NDV,
 *    `IS [NOT] NULL` from the NULL count, AND a product, OR 1 - the product of the complements,
 *    NOT the complement, anything else 0.2 (DuckDB's DEFAULT_SELECTIVITY).
 * An estimate never says which rows a query returns; a bad one costs time, not correctness.
 */
import { DataType } from 'apache-arrow';
import type { SqlExpr } from './ast.ts';
import { rowsMaybeKept, type ScanPredicate } from '../../core/scan/scan.ts';
import { constantOf, type Const } from './static-prune.ts';
import { numericStat, type ColumnProfile, type TableProfile } from './table-stats.ts';

/** DuckDB's selectivity for a filter it cannot estimate (`DEFAULT_SELECTIVITY`, cardinality_estimator.hpp). */
export const DEFAULT_SELECTIVITY = 0.2;

/** A column of the table a conjunct names: its profile and type, or null when the name is not a plain column. */
export type ColumnResolver = (e: Extract<SqlExpr, { kind: 'column' }>) => { readonly profile: ColumnProfile; readonly type: DataType } | null;

/** Rows of the table its static conjuncts keep (see the module comment); at least 1 when the table has rows. */
export function estimateFilteredRows(table: TableProfile, conjuncts: readonly SqlExpr[], predicate: ScanPredicate | null, resolve: ColumnResolver): number {
  const rows = table.rows;
  if (rows === 0 || conjuncts.length === 0) return rows;
  let kept = rows;
  if (predicate !== null && table.containers !== null) kept = rowsMaybeKept(table.containers, predicate);
  const estimate = rows * conjunctionSelectivity(conjuncts, resolve, rows);
  return Math.max(1, Math.min(kept, estimate));
}

/** The selectivity of a conjunction: range conjuncts on one column merged into one interval, the rest multiplied. */
export function conjunctionSelectivity(conjuncts: readonly SqlExpr[], resolve: ColumnResolver, rows: number): number {
  const ranges = new Map<string, { col: ReturnType<ColumnResolver> & object; lo: number; hi: number }>();
  let sel = 1;
  for (const c of conjuncts) {
    const r = rangeBound(c, resolve);
    if (r === null) {
      sel *= selectivity(c, resolve, rows);
      continue;
    }
    const key = `${r.name}`;
    const prev = ranges.get(key) ?? { col: r.col, lo: -Infinity, hi: Infinity };
    ranges.set(key, { col: r.col, lo: Math.max(prev.lo, r.lo), hi: Math.min(prev.hi, r.hi) });
  }
  for (const { col, lo, hi } of ranges.values()) sel *= intervalShare(col, lo, hi);
  return Math.min(1, Math.max(0, sel));
}

/** The selectivity of one conjunct. */
export function selectivity(e: SqlExpr, resolve: ColumnResolver, rows: number): number {
  switch (e.kind) {
    case 'and':
      return conjunctionSelectivity(e.args, resolve, rows);
    case 'or': {
      let none = 1;
      for (const a of e.args) none *= 1 - selectivity(a, resolve, rows);
      return 1 - none;
    }
    case 'not':
      return 1 - selectivity(e.arg, resolve, rows);
    case 'is-null': {
      const col = e.arg.kind === 'column' ? resolve(e.arg) : null;
      if (col === null || rows === 0) return DEFAULT_SELECTIVITY;
      const share = col.profile.nullCount / rows;
      return e.negated ? 1 - share : share;
    }
    case 'in-list': {
      const col = e.arg.kind === 'column' ? resolve(e.arg) : null;
      if (col === null) return DEFAULT_SELECTIVITY;
      const hits = e.list.filter((v) => {
        const k = constantOf(v);
        return k === null || mayEqual(col, k);
      }).length;
      const s = Math.min(1, hits / col.profile.ndv);
      return e.negated ? 1 - s : s;
    }
    case 'compare': {
      const r = rangeBound(e, resolve);
      if (r !== null) return intervalShare(r.col, r.lo, r.hi);
      const side = columnAndConstant(e, resolve);
      if (side === null) return DEFAULT_SELECTIVITY;
      const { col, k } = side;
      if (e.op === '=') return mayEqual(col, k) ? 1 / col.profile.ndv : 0;
      if (e.op === '<>') return 1 - 1 / col.profile.ndv;
      return 1 / 3; // a range the profile cannot place (strings): the textbook third
    }
    default:
      return DEFAULT_SELECTIVITY;
  }
}

type Resolved = NonNullable<ReturnType<ColumnResolver>>;

function columnAndConstant(e: Extract<SqlExpr, { kind: 'compare' }>, resolve: ColumnResolver): { col: Resolved; k: Const; flipped: boolean } | null {
  if (e.left.kind === 'column') {
    const k = constantOf(e.right);
    const col = k === null ? null : resolve(e.left);
    if (col !== null) return { col, k: k!, flipped: false };
  }
  if (e.right.kind === 'column') {
    const k = constantOf(e.left);
    const col = k === null ? null : resolve(e.right);
    if (col !== null) return { col, k: k!, flipped: true };
  }
  return null;
}

/** `col < c` and friends on a numeric or date column as an interval of the column's values, or null. */
function rangeBound(e: SqlExpr, resolve: ColumnResolver): { name: string; col: Resolved; lo: number; hi: number } | null {
  if (e.kind !== 'compare' || !(e.op === '<' || e.op === '<=' || e.op === '>' || e.op === '>=')) return null;
  const side = columnAndConstant(e, resolve);
  if (side === null) return null;
  const v = constantOnScale(side.k, side.col.type);
  if (v === null) return null;
  const name = ((side.flipped ? e.right : e.left) as Extract<SqlExpr, { kind: 'column' }>).names.join('.');
  const op = side.flipped ? ({ '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const)[e.op] : e.op;
  return op === '<' || op === '<=' ? { name, col: side.col, lo: -Infinity, hi: v } : { name, col: side.col, lo: v, hi: Infinity };
}

/** The share of [min, max] that [lo, hi] covers (values taken as uniform), on the column's scale. */
function intervalShare(col: Resolved, lo: number, hi: number): number {
  const min = statOnScale(col.profile.min, col.type);
  const max = statOnScale(col.profile.max, col.type);
  if (min === null || max === null) return 1 / 3;
  const a = Math.max(lo, min);
  const b = Math.min(hi, max);
  if (b < a) return 0;
  if (max === min) return 1;
  // an integral domain: [a, b] holds b - a + 1 of the max - min + 1 values
  const integral = DataType.isInt(col.type) || DataType.isDate(col.type);
  return integral ? (b - a + 1) / (max - min + 1) : (b - a) / (max - min);
}

function mayEqual(col: Resolved, k: Const): boolean {
  if (k.k === 'null') return false;
  const v = constantOnScale(k, col.type);
  const min = statOnScale(col.profile.min, col.type);
  const max = statOnScale(col.profile.max, col.type);
  if (v === null || min === null || max === null) return true;
  return v >= min && v <= max;
}

/** A statistic of a column of `type` as a number on the column's value scale (decimals unscaled to their value). */
function statOnScale(v: ColumnProfile['min'], type: DataType): number | null {
  const n = numericStat(v);
  if (n === null || DataType.isTimestamp(type)) return null;
  return DataType.isDecimal(type) ? n / 10 ** type.scale : n;
}

/** A constant compared with a column of `type`, on the scale `statOnScale` uses (a DATE: days), or null. */
function constantOnScale(k: Const, type: DataType): number | null {
  if (DataType.isDate(type)) return k.k === 'time' && k.perSecond === 0n ? Number(k.v) : null;
  if (DataType.isTimestamp(type)) return null;
  if (k.k === 'exact') return Number(k.v) / 10 ** k.scale;
  if (k.k === 'double') return k.v;
  return null;
}
