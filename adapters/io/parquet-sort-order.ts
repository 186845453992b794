/**
 * The order a Parquet file's rows follow, from its footer: `ParquetScan.sortedOn`.
 *
 * Parquet declares order per row group — `RowGroup.sorting_columns`, a list of (leaf column
 * index, descending, nulls_first) — and a row group's declaration only says the rows *within*
 * it are sorted. Two row groups that are each sorted may still overlap (a file appended to, or
 * written from unsorted data in sorted chunks), so a file-wide claim needs more than the
 * declaration: the row groups must also follow each other in that order, which the footer's
 * min/max statistics can show without reading a page. The claim made here is therefore:
 *
 * 1. the longest common prefix of the non-empty row groups' declarations (all must declare one;
 *    empty row groups hold no rows and are ignored), cut at the first column that is not a
 *    top-level primitive column (a leaf inside a struct/list/map), has a type without a key order
 *    (time, interval, …: core/keys/resolve.ts), is out of range or is listed twice;
 * 2. then cut, per pair of consecutive non-empty row groups A, B, to the prefix the statistics
 *    prove: on the first column, A's last value in the declared order (its max, or min when
 *    DESC; NULL when A has NULLs and they go last) must not sort after B's first one. Strictly
 *    before: the whole prefix holds across the boundary. Equal (ties at the boundary, e.g.
 *    max(A) == min(B), or NULLs on both sides): this column holds, and the next column decides
 *    the same way — because the tied rows at A's end and B's start are ordered by the next
 *    column, which only its bounds can show. After: the claim stops before this column. Missing
 *    statistics (or an unknown NULL count) on a column that must decide stop the claim there.
 *
 * Bounds are compared in DuckDB's order (core/keys/order.ts: NULLs first or last whatever the
 * direction, strings and binary byte-wise, NaN above every number). Truncated string bounds stay
 * valid: a truncated min is below every value, a truncated max above, and the argument above
 * only uses that. A float column never holds across a boundary: parquet-stats.ts reports every
 * float max as NaN (writers leave NaN out of min/max, so one may hide in any chunk), which sorts
 * after every bound — conservative, as a claim must be; a float sort column is claimed only for a
 * file with one non-empty row group. That case needs no boundary check: its declaration is the
 * claim.
 *
 * A claim is still only a claim (the file may lie about its rows): the sort-merge join checks
 * every row against its predecessor.
 */
import type { Schema } from 'apache-arrow';
import { compareBytes, compareFloats } from '../../core/keys/byte-order.ts';
import { keyKindOf } from '../../core/keys/resolve.ts';
import type { ColumnStats, ScanSortColumn, StatValue } from '../../core/scan/scan.ts';
import type { Footer } from './parquet-footer.ts';

/** What the order check needs of a row group (ParquetRowGroupInfo has it). */
export interface SortOrderRowGroup {
  readonly numRows: number;
  columnStats(name: string): ColumnStats | undefined;
}

const utf8 = new TextEncoder();

/** The file-wide order (see the module doc), or `undefined` when nothing can be claimed. */
export function parquetSortOrder(footer: Footer, schema: Schema, rowGroups: readonly SortOrderRowGroup[]): readonly ScanSortColumn[] | undefined {
  const nonEmpty: number[] = [];
  rowGroups.forEach((rg, r) => {
    if (rg.numRows > 0) nonEmpty.push(r);
  });
  if (nonEmpty.length === 0) return undefined;
  let order = declaredColumns(footer, schema, nonEmpty);
  for (let k = 1; k < nonEmpty.length && order.length > 0; k++) {
    const keep = boundaryPrefix(rowGroups[nonEmpty[k - 1]!]!, rowGroups[nonEmpty[k]!]!, order);
    if (keep < order.length) order = order.slice(0, keep);
  }
  return order.length > 0 ? Object.freeze(order) : undefined;
}

/** Step 1: the common declaration of row groups `groups`, mapped to top-level columns. */
function declaredColumns(footer: Footer, schema: Schema, groups: readonly number[]): ScanSortColumn[] {
  const lists = groups.map((r) => footer.meta.row_groups[r]?.sorting_columns ?? []);
  let n = Math.min(...lists.map((l) => l.length));
  const first = lists[0]!;
  for (const l of lists) {
    for (let k = 0; k < n; k++) {
      const a = first[k]!;
      const b = l[k]!;
      if (a.column_idx !== b.column_idx || (a.descending === true) !== (b.descending === true) || (a.nulls_first === true) !== (b.nulls_first === true)) {
        n = k;
        break;
      }
    }
  }
  const out: ScanSortColumn[] = [];
  for (let k = 0; k < n; k++) {
    const sc = first[k]!;
    const leaf = sc.column_idx;
    const t = footer.tops.findIndex((top) => top.leafStart <= leaf && leaf < top.leafEnd);
    if (!Number.isInteger(leaf) || t < 0) break;
    const top = footer.tops[t]!;
    if (top.leafElement === undefined) break; // a leaf of a nested column: no top-level order
    const field = schema.fields[t];
    if (field === undefined || out.some((c) => c.column === top.name)) break;
    try {
      keyKindOf(field.type, field.name);
    } catch {
      break; // no key order for the type: nothing could use (or check) the claim
    }
    out.push(Object.freeze({ column: top.name, descending: sc.descending === true, nullsFirst: sc.nulls_first === true }));
  }
  return out;
}

/** NULL, a value, or unknown (`undefined`): one end of a row group's range in the sort order. */
type End = StatValue | null;

/** [first, last] of a row group's values of one column in the declared order, if known. */
function ends(rg: SortOrderRowGroup, c: ScanSortColumn): [End, End] | undefined {
  const s = rg.columnStats(c.column);
  if (s === undefined || s.nullCount === null) return undefined;
  if (s.nullCount >= rg.numRows) return [null, null];
  if (s.min === null || s.max === null) return undefined;
  const first = c.descending ? s.max : s.min;
  const last = c.descending ? s.min : s.max;
  if (s.nullCount === 0) return [first, last];
  return c.nullsFirst ? [null, last] : [first, null];
}

/** Step 2 for one boundary: how many leading columns of `order` hold from `a` into `b`. */
function boundaryPrefix(a: SortOrderRowGroup, b: SortOrderRowGroup, order: readonly ScanSortColumn[]): number {
  for (let k = 0; k < order.length; k++) {
    const c = order[k]!;
    const ea = ends(a, c);
    const eb = ends(b, c);
    if (ea === undefined || eb === undefined) return k;
    const cmp = compareInOrder(ea[1], eb[0], c);
    if (cmp === undefined || cmp > 0) return k;
    if (cmp < 0) return order.length;
    // a tie at the boundary: this column holds; the next one decides
  }
  return order.length;
}

/** x vs y in the declared order of `c` (NULL ties NULL); `undefined` if they cannot be compared. */
function compareInOrder(x: End, y: End, c: ScanSortColumn): number | undefined {
  if (x === null || y === null) {
    if (x === y) return 0;
    const nullFirst = c.nullsFirst ? -1 : 1;
    return x === null ? nullFirst : -nullFirst;
  }
  const v = compareValues(x, y);
  return v === undefined ? undefined : c.descending ? -v : v;
}

function compareValues(x: StatValue, y: StatValue): number | undefined {
  if (typeof x === 'number' && typeof y === 'number') return compareFloats(x, y);
  if (typeof x === 'bigint' && typeof y === 'bigint') return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === 'string' && typeof y === 'string') return x === y ? 0 : Math.sign(compareBytes(utf8.encode(x), utf8.encode(y)));
  if (typeof x === 'boolean' && typeof y === 'boolean') return Number(x) - Number(y);
  if (x instanceof Uint8Array && y instanceof Uint8Array) return Math.sign(compareBytes(x, y));
  return undefined;
}
