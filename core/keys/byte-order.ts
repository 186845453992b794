/**
 * The two orders every key comparison bottoms out in, written once:
 *
 *  - unsigned byte order (memcmp, a proper prefix first) over byte ranges — the order of
 *    VARCHAR (UTF-8 byte order is code point order, DuckDB's default collation) and BLOB;
 *  - float order with NaN above every number and NaN == NaN, -0.0 == 0.0 — DuckDB's order of
 *    REAL/DOUBLE, and the reason a float key cannot be compared with `<` alone;
 *
 * and the float view of a normalised float key column (two words per row reinterpreted as
 * doubles, without a copy when the words are 8-byte aligned, as normalisation allocates them).
 *
 * Hot loops inline these where a call per element measurably costs (each such copy says so).
 */
import type { FixedKeyColumn } from './types.ts';

/** Order of bytes a[aStart, aEnd) and b[bStart, bEnd): < 0, 0, > 0; a proper prefix sorts first. */
export function compareByteRanges(a: Uint8Array, aStart: number, aEnd: number, b: Uint8Array, bStart: number, bEnd: number): number {
  const la = aEnd - aStart;
  const lb = bEnd - bStart;
  const m = la < lb ? la : lb;
  for (let k = 0; k < m; k++) {
    const d = a[aStart + k]! - b[bStart + k]!;
    if (d !== 0) return d;
  }
  return la - lb;
}

/** Order of two whole byte arrays (see `compareByteRanges`). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return compareByteRanges(a, 0, a.length, b, 0, b.length);
}

/** Numeric order with NaN above every number and NaN == NaN; -0 == 0. Returns -1, 0 or 1. */
export function compareFloats(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) return 0;
  const an = a !== a;
  const bn = b !== b;
  return an === bn ? 0 : an ? 1 : -1;
}

/** A normalised float key column's words as doubles (a view when aligned, else a copy). */
export function floatKeyView(c: FixedKeyColumn): Float64Array {
  const w = c.words;
  if (w.byteOffset % 8 === 0) return new Float64Array(w.buffer, w.byteOffset, c.length);
  return new Float64Array(w.slice(0, 2 * c.length).buffer);
}
