/**
 * The smallest and largest value of a column of integer key words, NULL (and skipped) rows
 * ignored — the one min/max pass every consumer uses: the `array` / `rank` layouts' key range, the
 * `swiss` layout's "do all keys share a high word" test, the bounds pushdown, the key-range bitmap
 * and the zone maps of in-memory batches (Arrow's Int64/UInt64/timestamp/decimal words read as
 * the same little-endian 32-bit words).
 *
 * Order of a `width`-word value: the top word signed (unsigned when `unsignedTop`), every lower
 * word unsigned — the order of signed / unsigned integers of 32 x width bits, hence of normalised
 * int, uint, bool and decimal keys. Rows compare without BigInt and without a call per row for
 * widths 1 and 2 (the keys of every single-column integer join).
 *
 * `keyExtremes` caches the pass per normalised 2-word int/uint column, because three consumers of a
 * hash join's build side want it (without the cache a 1M-row build made three identical passes).
 * A column is cached by identity: normalised key columns are never mutated.
 */
import type { FixedKeyColumn } from './types.ts';

export interface KeyExtremes {
  readonly minRow: number;
  readonly maxRow: number;
  /** Rows considered (neither NULL nor skipped). */
  readonly count: number;
}

const SIGN = 0x80000000 | 0;
const cache = new WeakMap<FixedKeyColumn, KeyExtremes | null>();

/** Extremes of a 2-word int/uint column, or null when every row is NULL (or there are none). Cached. */
export function keyExtremes(col: FixedKeyColumn): KeyExtremes | null {
  let e = cache.get(col);
  if (e === undefined) {
    if (col.kind.width !== 2 || (col.kind.order !== 'int' && col.kind.order !== 'uint')) {
      throw new RangeError(`keyExtremes needs a 2-word integer key, got ${col.kind.sqlType}`);
    }
    cache.set(col, (e = wordExtremes(col.words, 2, col.kind.order === 'uint', col.length, col.nulls)));
  }
  return e;
}

/**
 * Rows of the smallest and largest `width`-word value among rows [0, rows) whose `nulls` and
 * `skip` bytes are both 0 (a null mask omits no row), with their count; null when no row qualifies.
 * Ties keep the first row. See the module comment for the order.
 */
export function wordExtremes(
  words: Int32Array,
  width: number,
  unsignedTop: boolean,
  rows: number,
  nulls: Uint8Array | null = null,
  skip: Uint8Array | null = null,
): KeyExtremes | null {
  // the loops test one mask per row (a second test slowed the 1M-row pass); both given: merged (rare)
  const omit = nulls === null || nulls === skip ? skip : skip === null ? nulls : orMasks(nulls, skip, rows);
  const flip = unsignedTop ? SIGN : 0; // unsigned order of a word = signed order of the word ^ 2^31
  if (width === 2) return extremes2(words, flip, rows, omit);
  if (width === 1) return extremes1(words, flip, rows, omit);
  return extremesWide(words, width, unsignedTop, rows, omit);
}

function orMasks(a: Uint8Array, b: Uint8Array, rows: number): Uint8Array {
  const m = new Uint8Array(rows);
  for (let r = 0; r < rows; r++) m[r] = a[r]! | b[r]!;
  return m;
}

/** Order of the `w`-word values at a[ao, ao + w) and b[bo, bo + w): -1, 0 or 1 (see the module comment). */
export function compareWords(a: Int32Array, ao: number, b: Int32Array, bo: number, w: number, unsignedTop: boolean): number {
  const top = w - 1;
  let x = a[ao + top]!;
  let y = b[bo + top]!;
  if (unsignedTop) {
    x >>>= 0;
    y >>>= 0;
  }
  if (x !== y) return x < y ? -1 : 1;
  for (let k = top - 1; k >= 0; k--) {
    const p = a[ao + k]! >>> 0;
    const q = b[bo + k]! >>> 0;
    if (p !== q) return p < q ? -1 : 1;
  }
  return 0;
}

// One loop per width: the 1- and 2-word passes run over build sides of millions of rows, with the
// compare inlined (no call per row); wider values (HUGEINT, decimals) go through compareWords.

function extremes2(w: Int32Array, flip: number, n: number, omit: Uint8Array | null): KeyExtremes | null {
  let first = 0;
  if (omit !== null) while (first < n && omit[first] !== 0) first++;
  if (first >= n) return null;
  let minRow = first;
  let maxRow = first;
  let minH = w[2 * first + 1]! ^ flip;
  let minL = w[2 * first]! >>> 0;
  let maxH = minH;
  let maxL = minL;
  let count = 1;
  for (let r = first + 1; r < n; r++) {
    if (omit !== null && omit[r] !== 0) continue;
    count++;
    const h = w[2 * r + 1]! ^ flip;
    const l = w[2 * r]! >>> 0;
    if (h < minH || (h === minH && l < minL)) {
      minRow = r;
      minH = h;
      minL = l;
    } else if (h > maxH || (h === maxH && l > maxL)) {
      maxRow = r;
      maxH = h;
      maxL = l;
    }
  }
  return { minRow, maxRow, count };
}

function extremes1(w: Int32Array, flip: number, n: number, omit: Uint8Array | null): KeyExtremes | null {
  let first = 0;
  if (omit !== null) while (first < n && omit[first] !== 0) first++;
  if (first >= n) return null;
  let minRow = first;
  let maxRow = first;
  let min = w[first]! ^ flip;
  let max = min;
  let count = 1;
  for (let r = first + 1; r < n; r++) {
    if (omit !== null && omit[r] !== 0) continue;
    count++;
    const x = w[r]! ^ flip;
    if (x < min) {
      minRow = r;
      min = x;
    } else if (x > max) {
      maxRow = r;
      max = x;
    }
  }
  return { minRow, maxRow, count };
}

function extremesWide(w: Int32Array, width: number, unsignedTop: boolean, n: number, omit: Uint8Array | null): KeyExtremes | null {
  let first = 0;
  if (omit !== null) while (first < n && omit[first] !== 0) first++;
  if (first >= n) return null;
  let minRow = first;
  let maxRow = first;
  let count = 1;
  for (let r = first + 1; r < n; r++) {
    if (omit !== null && omit[r] !== 0) continue;
    count++;
    if (compareWords(w, r * width, w, minRow * width, width, unsignedTop) < 0) minRow = r;
    else if (compareWords(w, r * width, w, maxRow * width, width, unsignedTop) > 0) maxRow = r;
  }
  return { minRow, maxRow, count };
}
