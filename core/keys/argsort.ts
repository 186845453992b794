/**
 * Stable argsort of normalised key columns: the row indices in `KeySortOrder` order (`order.ts`),
 * equal keys in input order. The sort operator, the sort-merge join and the piecewise merge join
 * sort with it.
 *
 * Two algorithms, chosen once per call:
 *
 *  - LSD radix sort (DuckDB sorts normalised, order-preserving key bytes with a radix sort for
 *    the same reason: no comparator call per pair). Used when every key column is fixed-width
 *    (int, uint, float, bool, decimal; any width) or a dictionary-encoded bytes column whose
 *    dictionary is no larger than the rows sorted, and there are at least `RADIX_MIN_ROWS` rows.
 *    Multi-column keys are sorted column by column from the last to the first, each pass stable,
 *    which yields the lexicographic order. Each column's words become unsigned, order-preserving
 *    keys: the top word's sign bit flipped for int/decimal; floats mapped to their sortable bit
 *    pattern (sign set: all bits inverted, else the sign bit flipped) with -0.0 mapped to +0.0 and
 *    every NaN to one value above +Inf; a dictionary column's rows become the rank of their entry
 *    (entries sorted once, equal entries one rank); DESC inverts every bit. NULL rows are split
 *    off first, stably, and placed before or after the sorted values. Digits are 8 bits; all digit
 *    histograms are counted in one read of the keys, and a pass whose digit is the same in every
 *    row is skipped (small domains and narrow types cost few passes).
 *  - a stable bottom-up merge sort over an Int32Array of row indices with the comparator of
 *    `makeSortComparator` (insertion-sorted runs of 16, a merge skipped when its halves are
 *    already in order, so sorted input costs n comparisons). Used for plain bytes columns, for
 *    multi-column keys with one, and for fewer than `RADIX_MIN_ROWS` rows (where the histograms
 *    would cost more than the comparisons). DataFusion's lexsort is the same shape: a comparator
 *    over columns applied to an index array.
 *
 * Degenerate cases: no key columns -> the input order; 0 or 1 rows -> a copy of the input. `rows`
 * (default: every row) selects and orders the input — duplicates allowed; stability is relative to
 * its order. The result is always a fresh array. No BigInt, no per-row object or closure.
 */
import { compareByteRanges } from './byte-order.ts';
import { checkOrders, makeSortComparator } from './order.ts';
import type { KeySortOrder } from './order.ts';
import type { BytesKeyColumn, FixedKeyColumn, KeyColumn } from './types.ts';
import { isBytesKey } from './types.ts';

/** Below this many rows the merge sort is used even when the keys could be radix sorted. */
export const RADIX_MIN_ROWS = 64;

export type ArgsortMethod = 'auto' | 'radix' | 'merge';

/**
 * Row indices of `cols` sorted stably by `orders` (one per column). `method` forces an algorithm
 * (for tests and benchmarks); 'radix' throws a RangeError when `canRadixSort` is false.
 */
export function argsortKeys(cols: readonly KeyColumn[], orders: readonly KeySortOrder[], rows?: Int32Array, method: ArgsortMethod = 'auto'): Int32Array {
  checkOrders(cols, orders);
  const n = cols[0]?.length ?? 0;
  for (const c of cols) if (c.length !== n) throw new RangeError(`key columns differ in length: ${c.length} vs ${n}`);
  const out = rows ? rows.slice() : iota(n);
  if (method === 'radix' && !canRadixSort(cols, out.length)) throw new RangeError('key columns cannot be radix sorted');
  if (out.length < 2 || cols.length === 0) return out;
  const radix = method === 'radix' || (method === 'auto' && out.length >= RADIX_MIN_ROWS && canRadixSort(cols, out.length));
  if (radix) {
    const scratch = new Int32Array(out.length);
    for (let k = cols.length - 1; k >= 0; k--) radixSortColumn(cols[k]!, orders[k]!, out, scratch);
    return out;
  }
  return mergeSort(out, makeSortComparator(cols, cols, orders).compare);
}

/** Whether `argsortKeys` can radix sort `cols` (sorting `rows` rows; dictionaries must not be larger). */
export function canRadixSort(cols: readonly KeyColumn[], rows: number): boolean {
  for (const c of cols) {
    if (!isBytesKey(c)) continue;
    if (c.codes === null || c.offsets.length - 1 > Math.max(rows, 1)) return false;
  }
  return true;
}

function iota(n: number): Int32Array {
  const a = new Int32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  return a;
}

// --- radix sort ----------------------------------------------------------------------------------

/** Sorts `rows` in place, stably, by one column; `scratch` is as long as `rows`. */
function radixSortColumn(col: KeyColumn, order: KeySortOrder, rows: Int32Array, scratch: Int32Array): void {
  const n = rows.length;
  const nulls = col.nulls;
  let start = 0; // the non-NULL rows are rows[start, end)
  let end = n;
  if (nulls !== null) {
    let nullCount = 0;
    for (let p = 0; p < n; p++) nullCount += nulls[rows[p]!]!;
    if (nullCount > 0) {
      // stable partition through scratch: values and NULLs each keep their order
      let v = order.nullsFirst ? nullCount : 0;
      let z = order.nullsFirst ? 0 : n - nullCount;
      for (let p = 0; p < n; p++) {
        const r = rows[p]!;
        if (nulls[r] === 1) scratch[z++] = r;
        else scratch[v++] = r;
      }
      rows.set(scratch);
      if (order.nullsFirst) start = nullCount;
      else end = n - nullCount;
    }
  }
  if (end - start < 2) return;
  const part = rows.subarray(start, end);
  const tmp = scratch.subarray(start, end);
  const m = end - start;
  const { keys, width } = isBytesKey(col) ? rankKeys(col, part) : fixedKeys(col, part);
  if (order.descending) for (let k = 0; k < keys.length; k++) keys[k] = ~keys[k]!;
  radixSort(part, tmp, keys, width, m);
}

/** Order-preserving unsigned words of `rows` of a fixed-width column, `width` per row, word 0 least significant. */
function fixedKeys(col: FixedKeyColumn, rows: Int32Array): { keys: Uint32Array; width: number } {
  const w = col.kind.width;
  const m = rows.length;
  const src = col.words;
  const keys = new Uint32Array(m * w);
  switch (col.kind.order) {
    case 'float': {
      // w === 2: lo, hi words of a double
      for (let p = 0; p < m; p++) {
        const r = rows[p]!;
        let lo = src[2 * r]! >>> 0;
        let hi = src[2 * r + 1]! >>> 0;
        const mag = hi & 0x7fffffff;
        if (mag > 0x7ff00000 || (mag === 0x7ff00000 && lo !== 0)) {
          hi = 0xfff80000; // every NaN, above +Inf (0xfff00000_00000000)
          lo = 0;
        } else if (mag === 0 && lo === 0) {
          hi = 0x80000000; // -0.0 and +0.0
        } else if (hi & 0x80000000) {
          hi = ~hi >>> 0;
          lo = ~lo >>> 0;
        } else {
          hi = (hi | 0x80000000) >>> 0;
        }
        keys[2 * p] = lo;
        keys[2 * p + 1] = hi;
      }
      break;
    }
    case 'uint':
    case 'bool':
      for (let p = 0; p < m; p++) {
        const r = rows[p]! * w;
        for (let k = 0; k < w; k++) keys[p * w + k] = src[r + k]!;
      }
      break;
    default: {
      // int, decimal: two's complement, the top word signed
      const top = w - 1;
      for (let p = 0; p < m; p++) {
        const r = rows[p]! * w;
        for (let k = 0; k < top; k++) keys[p * w + k] = src[r + k]!;
        keys[p * w + top] = src[r + top]! ^ 0x80000000;
      }
    }
  }
  return { keys, width: w };
}

/** The rank of each row's dictionary entry (equal entries share a rank): one word per row. */
function rankKeys(col: BytesKeyColumn, rows: Int32Array): { keys: Uint32Array; width: number } {
  const { offsets: o, bytes: b } = col;
  const codes = col.codes!;
  const entries = o.length - 1;
  const sorted = mergeSort(iota(entries), (x, y) => compareByteRanges(b, o[x]!, o[x + 1]!, b, o[y]!, o[y + 1]!));
  const rank = new Uint32Array(entries);
  let r = 0;
  for (let k = 0; k < entries; k++) {
    const e = sorted[k]!;
    if (k > 0) {
      const d = sorted[k - 1]!;
      if (compareByteRanges(b, o[d]!, o[d + 1]!, b, o[e]!, o[e + 1]!) !== 0) r++;
    }
    rank[e] = r;
  }
  const m = rows.length;
  const keys = new Uint32Array(m);
  for (let p = 0; p < m; p++) keys[p] = rank[codes[rows[p]!]!]!;
  return { keys, width: 1 };
}

/**
 * LSD radix sort of `rows` (m rows) by `keys` (`width` words per row, word 0 least significant),
 * 8-bit digits; `tmp` is m long. The result is left in `rows`.
 */
function radixSort(rows: Int32Array, tmp: Int32Array, keys: Uint32Array, width: number, m: number): void {
  const digits = width * 4;
  const counts = new Int32Array(digits * 256);
  for (let p = 0; p < m; p++) {
    for (let k = 0; k < width; k++) {
      const v = keys[p * width + k]!;
      const base = k * 1024;
      counts[base + (v & 255)]++;
      counts[base + 256 + ((v >>> 8) & 255)]++;
      counts[base + 512 + ((v >>> 16) & 255)]++;
      counts[base + 768 + (v >>> 24)]++;
    }
  }
  let srcRows = rows;
  let dstRows = tmp;
  let srcKeys = keys;
  let dstKeys: Uint32Array | null = null;
  const pos = new Int32Array(256);
  for (let d = 0; d < digits; d++) {
    const base = d * 256;
    let trivial = false;
    let sum = 0;
    for (let x = 0; x < 256; x++) {
      const c = counts[base + x]!;
      if (c === m) trivial = true;
      pos[x] = sum;
      sum += c;
    }
    if (trivial) continue; // every row has this digit: the pass would not move a row
    const word = d >> 2;
    const shift = (d & 3) * 8;
    if (dstKeys === null) dstKeys = new Uint32Array(keys.length);
    if (width === 1) {
      for (let p = 0; p < m; p++) {
        const v = srcKeys[p]!;
        const q = pos[(v >>> shift) & 255]++;
        dstRows[q] = srcRows[p]!;
        dstKeys[q] = v;
      }
    } else if (width === 2) {
      // 64-bit keys (every integer, timestamp and float key): the two words moved without a loop
      for (let p = 0; p < m; p++) {
        const lo = srcKeys[2 * p]!;
        const hi = srcKeys[2 * p + 1]!;
        const q = pos[((word === 0 ? lo : hi) >>> shift) & 255]++;
        dstRows[q] = srcRows[p]!;
        dstKeys[2 * q] = lo;
        dstKeys[2 * q + 1] = hi;
      }
    } else {
      for (let p = 0; p < m; p++) {
        const q = pos[(srcKeys[p * width + word]! >>> shift) & 255]++;
        dstRows[q] = srcRows[p]!;
        for (let k = 0; k < width; k++) dstKeys[q * width + k] = srcKeys[p * width + k]!;
      }
    }
    const r = srcRows;
    srcRows = dstRows;
    dstRows = r;
    const kk = srcKeys;
    srcKeys = dstKeys;
    dstKeys = kk;
  }
  if (srcRows !== rows) rows.set(srcRows);
}

// --- merge sort ----------------------------------------------------------------------------------

const RUN = 16;

/** Stable bottom-up merge sort of `a` by `cmp` over its elements; returns the sorted array (`a` or a new one). */
function mergeSort(a: Int32Array, cmp: (i: number, j: number) => number): Int32Array {
  const n = a.length;
  for (let lo = 0; lo < n; lo += RUN) {
    const hi = Math.min(lo + RUN, n);
    for (let p = lo + 1; p < hi; p++) {
      const x = a[p]!;
      let q = p - 1;
      while (q >= lo && cmp(a[q]!, x) > 0) {
        a[q + 1] = a[q]!;
        q--;
      }
      a[q + 1] = x;
    }
  }
  if (n <= RUN) return a;
  let src: Int32Array = a;
  let dst: Int32Array = new Int32Array(n);
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      if (mid >= hi || cmp(src[mid - 1]!, src[mid]!) <= 0) {
        dst.set(src.subarray(lo, hi), lo); // already in order (or a lone run)
        continue;
      }
      let i = lo;
      let j = mid;
      let o = lo;
      while (i < mid && j < hi) {
        const x = src[i]!;
        const y = src[j]!;
        if (cmp(x, y) <= 0) {
          dst[o++] = x;
          i++;
        } else {
          dst[o++] = y;
          j++;
        }
      }
      while (i < mid) dst[o++] = src[i++]!;
      while (j < hi) dst[o++] = src[j++]!;
    }
    const t = src;
    src = dst;
    dst = t;
  }
  return src;
}
