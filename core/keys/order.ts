/**
 * Sort orders over normalised key columns: the comparator of ORDER BY, sorts, sort-merge and
 * piecewise merge joins, with a direction and a NULL placement per key column.
 *
 * Semantics are DuckDB's:
 *  - each column's value order is `compare.ts`'s (ints of any width through their common kind,
 *    unsigned, 128-bit decimals, floats with -0.0 == 0.0 and NaN above +Inf with NaN == NaN,
 *    false < true, bytes memcmp with a proper prefix first; dates and timestamps are ints);
 *  - `descending` reverses the value order only; NULL placement does not follow it: NULLS LAST
 *    puts NULLs after every value in ASC and in DESC alike (DuckDB's `ORDER BY x DESC NULLS LAST`);
 *  - NULL ties NULL (so the next column decides), which is the ORDER BY meaning of NULL, not the
 *    join meaning: a join that must not match NULL keys filters them before comparing;
 *  - the default is ASC NULLS LAST (DuckDB's `default_order` / `default_null_order`).
 *
 * The comparator is built once per pair of batches (row i of `a`, row j of `b`): the NULL handling
 * (none, one side's mask, both), the direction and the column order are chosen at build time, so a
 * call is a few typed-array reads with no allocation, no dispatch on the kind and no BigInt.
 * With no NULL masks and every column ascending it orders exactly like `makeKeyComparator`.
 */
import { checkSameKinds, combineKeyColumns, keyColumnEquality, keyColumnOrder } from './compare.ts';
import type { ColumnEquality, ColumnOrder } from './compare.ts';
import type { KeyColumn, KeyComparator } from './types.ts';

/** Direction and NULL placement of one sort key column. */
export interface KeySortOrder {
  /** DESC: values from largest to smallest (NaN first, then +Inf, …). */
  readonly descending: boolean;
  /** NULLS FIRST: NULLs before every value, whatever the direction. */
  readonly nullsFirst: boolean;
}

/** DuckDB's default: ASC NULLS LAST. */
export const ASC_NULLS_LAST: KeySortOrder = Object.freeze({ descending: false, nullsFirst: false });

/** `n` columns in DuckDB's default order (ASC NULLS LAST). */
export function defaultSortOrders(n: number): KeySortOrder[] {
  return Array.from({ length: n }, () => ASC_NULLS_LAST);
}

/**
 * Comparator between rows of `a` (i) and rows of `b` (j) under `orders` (one per column), both
 * normalised to the same kinds. `compare` is < 0 when row i sorts before row j; `equal` is
 * `compare(i, j) === 0` (NULL equals NULL).
 */
export function makeSortComparator(a: readonly KeyColumn[], b: readonly KeyColumn[], orders: readonly KeySortOrder[]): KeyComparator {
  checkSameKinds(a, b);
  checkOrders(a, orders);
  const cmps: ColumnOrder[] = [];
  const equals: ColumnEquality[] = [];
  for (let k = 0; k < a.length; k++) {
    cmps.push(sortedColumnOrder(a[k]!, b[k]!, orders[k]!));
    equals.push(nullableEquality(a[k]!, b[k]!));
  }
  return combineKeyColumns(cmps, equals);
}

/** True when `rows` (default: every row) is in `orders` order: no row sorts before its predecessor. */
export function isSorted(cols: readonly KeyColumn[], orders: readonly KeySortOrder[], rows?: Int32Array): boolean {
  const n = rows ? rows.length : (cols[0]?.length ?? 0);
  if (n < 2 || cols.length === 0) return true;
  const cmp = makeSortComparator(cols, cols, orders).compare;
  if (rows) {
    for (let k = 1; k < n; k++) if (cmp(rows[k - 1]!, rows[k]!) > 0) return false;
  } else {
    for (let k = 1; k < n; k++) if (cmp(k - 1, k) > 0) return false;
  }
  return true;
}

export function checkOrders(cols: readonly KeyColumn[], orders: readonly KeySortOrder[]): void {
  if (orders.length !== cols.length) throw new RangeError(`${cols.length} key columns but ${orders.length} sort orders`);
}

/**
 * One column's order under a direction and NULL placement. `nullSign` is the result when only the
 * left row is NULL; the value order is multiplied by `dir` (±1) — NULLs are decided before it.
 */
function sortedColumnOrder(a: KeyColumn, b: KeyColumn, o: KeySortOrder): ColumnOrder {
  const base = keyColumnOrder(a, b);
  const dir = o.descending ? -1 : 1;
  const nullSign = o.nullsFirst ? -1 : 1;
  const na = a.nulls;
  const nb = b.nulls;
  if (na === null && nb === null) return o.descending ? (i, j) => -base(i, j) : base;
  if (nb === null) return (i, j) => (na![i] === 1 ? nullSign : dir * base(i, j));
  if (na === null) return (i, j) => (nb[j] === 1 ? -nullSign : dir * base(i, j));
  return (i, j) => {
    const p = na[i]!;
    const q = nb[j]!;
    if ((p | q) === 0) return dir * base(i, j);
    return (p - q) * nullSign; // both NULL: 0
  };
}

function nullableEquality(a: KeyColumn, b: KeyColumn): ColumnEquality {
  const eq = keyColumnEquality(a, b);
  const na = a.nulls;
  const nb = b.nulls;
  if (na === null && nb === null) return eq;
  if (nb === null) return (i, j) => na![i] !== 1 && eq(i, j);
  if (na === null) return (i, j) => nb[j] !== 1 && eq(i, j);
  return (i, j) => {
    const p = na[i]!;
    const q = nb[j]!;
    return (p | q) === 0 ? eq(i, j) : p === q;
  };
}
