/**
 * The smallest and largest key of a 2-word integer key column (int, uint, date, timestamp), NULL
 * rows ignored — computed in one pass and cached per column, because three consumers of a hash
 * join's build side want it: the `array` layout's range test, the `swiss` layout's "do all keys
 * share a high word" test, and the bounds pushdown. Without the cache a 1M-row build made three
 * identical passes.
 *
 * Order: (high word, low word), the high word signed for `int` and unsigned for `uint`, the low word
 * unsigned — the keys' own order. A column is cached by identity: normalised key columns are never
 * mutated.
 */
import type { FixedKeyColumn } from './types.ts';

export interface KeyExtremes {
  readonly minRow: number;
  readonly maxRow: number;
  /** Non-NULL rows. */
  readonly count: number;
}

const cache = new WeakMap<FixedKeyColumn, KeyExtremes | null>();

/** Extremes of a 2-word int/uint column, or null when every row is NULL (or there are none). */
export function keyExtremes(col: FixedKeyColumn): KeyExtremes | null {
  let e = cache.get(col);
  if (e === undefined) cache.set(col, (e = scan(col)));
  return e;
}

function scan(col: FixedKeyColumn): KeyExtremes | null {
  if (col.kind.width !== 2 || (col.kind.order !== 'int' && col.kind.order !== 'uint')) {
    throw new RangeError(`keyExtremes needs a 2-word integer key, got ${col.kind.sqlType}`);
  }
  const w = col.words;
  const nulls = col.nulls;
  const n = col.length;
  const flip = col.kind.order === 'uint' ? 0x80000000 | 0 : 0; // unsigned order of hi = signed order of hi ^ 2^31
  let first = 0;
  if (nulls !== null) while (first < n && nulls[first] !== 0) first++;
  if (first >= n) return null;
  let minRow = first;
  let maxRow = first;
  let minH = w[2 * first + 1]! ^ flip;
  let minL = w[2 * first]! >>> 0;
  let maxH = minH;
  let maxL = minL;
  let count = 1;
  for (let r = first + 1; r < n; r++) {
    if (nulls !== null && nulls[r] !== 0) continue;
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
