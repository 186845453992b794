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
 * Interruptible: the work is a generator of steps (`argsortSteps`), each at most `ARGSORT_SLICE`
 * rows of one loop (a histogram, a scatter pass, a run of merges, a slice of one long merge), the
 * hot loops plain functions over a row range. `argsortKeys` runs the steps back to back (one
 * generator resume per 64K rows: nothing measurable); `argsortKeysPaced` asks its pacer between
 * two steps whether a turn of the event loop is due and, under an aborted signal, throws its
 * reason there — so a sort of tens of millions of rows (seconds) is cancelled within a step of the
 * abort. The algorithm and the result are the same either way.
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

/** The most rows one step of the sort works on (one `due()` check per step when paced). */
export const ARGSORT_SLICE = 1 << 16;

export type ArgsortMethod = 'auto' | 'radix' | 'merge';

/** Where a paced sort asks for turns of the event loop (core/next-turn.ts `Pacer`). */
export interface ArgsortPacer {
  /** True when a turn is due (cheap; false at once without a signal). */
  due(): boolean;
  /** A turn of the event loop; throws the signal's reason if it was aborted. */
  turn(): Promise<void>;
}

/**
 * Row indices of `cols` sorted stably by `orders` (one per column). `method` forces an algorithm
 * (for tests and benchmarks); 'radix' throws a RangeError when `canRadixSort` is false.
 */
export function argsortKeys(cols: readonly KeyColumn[], orders: readonly KeySortOrder[], rows?: Int32Array, method: ArgsortMethod = 'auto'): Int32Array {
  const steps = argsortSteps(cols, orders, rows, method);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * `argsortKeys` giving the event loop a turn whenever `pacer` says one is due (between two steps
 * of at most `ARGSORT_SLICE` rows) — the pacer throws the abort's reason there. The same order.
 */
export async function argsortKeysPaced(
  cols: readonly KeyColumn[],
  orders: readonly KeySortOrder[],
  pacer: ArgsortPacer,
  rows?: Int32Array,
  method: ArgsortMethod = 'auto',
): Promise<Int32Array> {
  const steps = argsortSteps(cols, orders, rows, method);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (pacer.due()) await pacer.turn();
  }
}

/** The sort as steps (see the module doc); the generator's return value is the order. */
function* argsortSteps(cols: readonly KeyColumn[], orders: readonly KeySortOrder[], rows: Int32Array | undefined, method: ArgsortMethod): Generator<void, Int32Array> {
  checkOrders(cols, orders);
  const n = cols[0]?.length ?? 0;
  for (const c of cols) if (c.length !== n) throw new RangeError(`key columns differ in length: ${c.length} vs ${n}`);
  const out = rows ? rows.slice() : iota(n);
  if (method === 'radix' && !canRadixSort(cols, out.length)) throw new RangeError('key columns cannot be radix sorted');
  if (out.length < 2 || cols.length === 0) return out;
  const radix = method === 'radix' || (method === 'auto' && out.length >= RADIX_MIN_ROWS && canRadixSort(cols, out.length));
  if (radix) {
    const scratch = new Int32Array(out.length);
    for (let k = cols.length - 1; k >= 0; k--) yield* radixSortColumn(cols[k]!, orders[k]!, out, scratch);
    return out;
  }
  return yield* mergeSort(out, makeSortComparator(cols, cols, orders).compare);
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
function* radixSortColumn(col: KeyColumn, order: KeySortOrder, rows: Int32Array, scratch: Int32Array): Generator<void, void> {
  const n = rows.length;
  const nulls = col.nulls;
  let start = 0; // the non-NULL rows are rows[start, end)
  let end = n;
  if (nulls !== null) {
    let nullCount = 0;
    for (let p = 0; p < n; p += ARGSORT_SLICE) {
      nullCount += countNulls(nulls, rows, p, Math.min(p + ARGSORT_SLICE, n));
      yield;
    }
    if (nullCount > 0) {
      // stable partition through scratch: values and NULLs each keep their order
      const at = new Int32Array([order.nullsFirst ? nullCount : 0, order.nullsFirst ? 0 : n - nullCount]); // next value, next NULL
      for (let p = 0; p < n; p += ARGSORT_SLICE) {
        partitionNulls(nulls, rows, scratch, at, p, Math.min(p + ARGSORT_SLICE, n));
        yield;
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
  const { keys, width } = isBytesKey(col) ? yield* rankKeys(col, part) : yield* fixedKeys(col, part);
  if (order.descending) {
    for (let k = 0; k < keys.length; k += ARGSORT_SLICE) {
      invert(keys, k, Math.min(k + ARGSORT_SLICE, keys.length));
      yield;
    }
  }
  yield* radixSort(part, tmp, keys, width, m);
}

function countNulls(nulls: Uint8Array, rows: Int32Array, p0: number, p1: number): number {
  let c = 0;
  for (let p = p0; p < p1; p++) c += nulls[rows[p]!]!;
  return c;
}

/** Rows [p0, p1) to their place in `scratch`: values at `at[0]`, NULLs at `at[1]` (both advanced). */
function partitionNulls(nulls: Uint8Array, rows: Int32Array, scratch: Int32Array, at: Int32Array, p0: number, p1: number): void {
  let v = at[0]!;
  let z = at[1]!;
  for (let p = p0; p < p1; p++) {
    const r = rows[p]!;
    if (nulls[r] === 1) scratch[z++] = r;
    else scratch[v++] = r;
  }
  at[0] = v;
  at[1] = z;
}

function invert(keys: Uint32Array, k0: number, k1: number): void {
  for (let k = k0; k < k1; k++) keys[k] = ~keys[k]!;
}

/** Order-preserving unsigned words of `rows` of a fixed-width column, `width` per row, word 0 least significant. */
function* fixedKeys(col: FixedKeyColumn, rows: Int32Array): Generator<void, { keys: Uint32Array; width: number }> {
  const w = col.kind.width;
  const m = rows.length;
  const keys = new Uint32Array(m * w);
  for (let p = 0; p < m; p += ARGSORT_SLICE) {
    fixedKeyRange(col, rows, keys, p, Math.min(p + ARGSORT_SLICE, m));
    yield;
  }
  return { keys, width: w };
}

/** `fixedKeys` for rows [p0, p1). */
function fixedKeyRange(col: FixedKeyColumn, rows: Int32Array, keys: Uint32Array, p0: number, p1: number): void {
  const w = col.kind.width;
  const src = col.words;
  switch (col.kind.order) {
    case 'float': {
      // w === 2: lo, hi words of a double
      for (let p = p0; p < p1; p++) {
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
      for (let p = p0; p < p1; p++) {
        const r = rows[p]! * w;
        for (let k = 0; k < w; k++) keys[p * w + k] = src[r + k]!;
      }
      break;
    default: {
      // int, decimal: two's complement, the top word signed
      const top = w - 1;
      for (let p = p0; p < p1; p++) {
        const r = rows[p]! * w;
        for (let k = 0; k < top; k++) keys[p * w + k] = src[r + k]!;
        keys[p * w + top] = src[r + top]! ^ 0x80000000;
      }
    }
  }
}

/** The rank of each row's dictionary entry (equal entries share a rank): one word per row. */
function* rankKeys(col: BytesKeyColumn, rows: Int32Array): Generator<void, { keys: Uint32Array; width: number }> {
  const { offsets: o, bytes: b } = col;
  const codes = col.codes!;
  const entries = o.length - 1;
  const sorted = yield* mergeSort(iota(entries), (x, y) => compareByteRanges(b, o[x]!, o[x + 1]!, b, o[y]!, o[y + 1]!));
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
  yield;
  const m = rows.length;
  const keys = new Uint32Array(m);
  for (let p = 0; p < m; p += ARGSORT_SLICE) {
    rankRange(keys, rank, codes, rows, p, Math.min(p + ARGSORT_SLICE, m));
    yield;
  }
  return { keys, width: 1 };
}

function rankRange(keys: Uint32Array, rank: Uint32Array, codes: Int32Array, rows: Int32Array, p0: number, p1: number): void {
  for (let p = p0; p < p1; p++) keys[p] = rank[codes[rows[p]!]!]!;
}

/**
 * LSD radix sort of `rows` (m rows) by `keys` (`width` words per row, word 0 least significant),
 * 8-bit digits; `tmp` is m long. The result is left in `rows`.
 */
function* radixSort(rows: Int32Array, tmp: Int32Array, keys: Uint32Array, width: number, m: number): Generator<void, void> {
  const digits = width * 4;
  const counts = new Int32Array(digits * 256);
  for (let p = 0; p < m; p += ARGSORT_SLICE) {
    countDigits(keys, width, counts, p, Math.min(p + ARGSORT_SLICE, m));
    yield;
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
    for (let p = 0; p < m; p += ARGSORT_SLICE) {
      scatter(srcRows, dstRows, srcKeys, dstKeys, pos, width, word, shift, p, Math.min(p + ARGSORT_SLICE, m));
      yield;
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

/** All digit histograms of rows [p0, p1), in one read of their keys. */
function countDigits(keys: Uint32Array, width: number, counts: Int32Array, p0: number, p1: number): void {
  for (let p = p0; p < p1; p++) {
    for (let k = 0; k < width; k++) {
      const v = keys[p * width + k]!;
      const base = k * 1024;
      counts[base + (v & 255)]++;
      counts[base + 256 + ((v >>> 8) & 255)]++;
      counts[base + 512 + ((v >>> 16) & 255)]++;
      counts[base + 768 + (v >>> 24)]++;
    }
  }
}

/** One pass's moves of rows [p0, p1) by the digit at (`word`, `shift`); `pos` advances. */
function scatter(
  srcRows: Int32Array,
  dstRows: Int32Array,
  srcKeys: Uint32Array,
  dstKeys: Uint32Array,
  pos: Int32Array,
  width: number,
  word: number,
  shift: number,
  p0: number,
  p1: number,
): void {
  if (width === 1) {
    for (let p = p0; p < p1; p++) {
      const v = srcKeys[p]!;
      const q = pos[(v >>> shift) & 255]++;
      dstRows[q] = srcRows[p]!;
      dstKeys[q] = v;
    }
  } else if (width === 2) {
    // 64-bit keys (every integer, timestamp and float key): the two words moved without a loop
    for (let p = p0; p < p1; p++) {
      const lo = srcKeys[2 * p]!;
      const hi = srcKeys[2 * p + 1]!;
      const q = pos[((word === 0 ? lo : hi) >>> shift) & 255]++;
      dstRows[q] = srcRows[p]!;
      dstKeys[2 * q] = lo;
      dstKeys[2 * q + 1] = hi;
    }
  } else {
    for (let p = p0; p < p1; p++) {
      const q = pos[(srcKeys[p * width + word]! >>> shift) & 255]++;
      dstRows[q] = srcRows[p]!;
      for (let k = 0; k < width; k++) dstKeys[q * width + k] = srcKeys[p * width + k]!;
    }
  }
}

// --- merge sort ----------------------------------------------------------------------------------

const RUN = 16;

/** Stable bottom-up merge sort of `a` by `cmp` over its elements; returns the sorted array (`a` or a new one). */
function* mergeSort(a: Int32Array, cmp: (i: number, j: number) => number): Generator<void, Int32Array> {
  const n = a.length;
  for (let lo = 0; lo < n; lo += ARGSORT_SLICE) {
    insertionSortRuns(a, cmp, lo, Math.min(lo + ARGSORT_SLICE, n)); // (ARGSORT_SLICE is a multiple of RUN)
    yield;
  }
  if (n <= RUN) return a;
  let src: Int32Array = a;
  let dst: Int32Array = new Int32Array(n);
  // where a merge stands: [next of the left half, next of the right half, next output]
  const at = new Int32Array(3);
  for (let width = RUN; width < n; width *= 2) {
    let budget = ARGSORT_SLICE;
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      if (mid >= hi || cmp(src[mid - 1]!, src[mid]!) <= 0) {
        dst.set(src.subarray(lo, hi), lo); // already in order (or a lone run)
      } else {
        at[0] = lo;
        at[1] = mid;
        at[2] = lo;
        // a long merge in slices; short ones share a slice
        while (!mergeSome(src, dst, cmp, at, mid, hi, at[2]! + budget)) {
          yield;
          budget = ARGSORT_SLICE;
        }
      }
      budget -= hi - lo;
      if (budget <= 0) {
        yield;
        budget = ARGSORT_SLICE;
      }
    }
    yield;
    const t = src;
    src = dst;
    dst = t;
  }
  return src;
}

/** Insertion sort of each `RUN` elements of a[lo0, hi0). */
function insertionSortRuns(a: Int32Array, cmp: (i: number, j: number) => number, lo0: number, hi0: number): void {
  for (let lo = lo0; lo < hi0; lo += RUN) {
    const hi = Math.min(lo + RUN, hi0);
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
}

/**
 * Merges src[at[0], mid) and src[at[1], hi) into dst from at[2] until the output reaches `until`
 * (or the end): true when the merge is complete, else `at` says where to resume.
 */
function mergeSome(src: Int32Array, dst: Int32Array, cmp: (i: number, j: number) => number, at: Int32Array, mid: number, hi: number, until: number): boolean {
  let i = at[0]!;
  let j = at[1]!;
  let o = at[2]!;
  const stop = Math.min(until, hi);
  while (o < stop && i < mid && j < hi) {
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
  if (i >= mid || j >= hi) {
    while (i < mid) dst[o++] = src[i++]!;
    while (j < hi) dst[o++] = src[j++]!;
    return true;
  }
  at[0] = i;
  at[1] = j;
  at[2] = o;
  return false;
}
