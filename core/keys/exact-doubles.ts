/**
 * Integer key columns as exact doubles, for the inner loops of range joins (the ASOF join's
 * searches, the IEJoin's merge) that compare keys millions of times: a double comparison is one
 * instruction inline, where the normalised columns' comparators (compare.ts) are a call each over
 * one or two 32-bit words. Only where it is exact: signed integer kinds of one or two words (ints,
 * dates, timestamps) whose every value lies within ±2^53, so the doubles order exactly as the
 * integers do. Anything else (floats, whose NaN / -0.0 order is DuckDB's, decimals, strings, or a
 * value beyond ±2^53 such as a nanosecond timestamp) gets null and the caller keeps its
 * comparators. A NULL row's words are whatever normalisation left there: the caller skips NULL
 * rows, and a garbage value out of range only costs the fast path.
 */
import { isBytesKey, type KeyColumn } from './types.ts';

/** 2^53 / 2^32: a 64-bit integer's top word within ±this has an exact double. */
const SAFE_TOP = 2_097_152;

/**
 * A signed integer key column (1 or 2 words a row: ints, dates, timestamps) as exact doubles, in
 * the same order; null for other kinds, or when a value is beyond ±2^53 (nanosecond timestamps).
 */
export function intsAsDoubles(c: KeyColumn, scratch?: Float64Array): Float64Array | null {
  if (isBytesKey(c) || c.kind.order !== 'int' || c.kind.width > 2) return null;
  const n = c.length;
  const w = c.words;
  const out = scratch === undefined ? new Float64Array(n) : scratch.subarray(0, n);
  if (c.kind.width === 1) {
    for (let i = 0; i < n; i++) out[i] = w[i]!;
    return out;
  }
  for (let i = 0; i < n; i++) {
    const top = w[2 * i + 1]!;
    if (top < -SAFE_TOP || top >= SAFE_TOP) return null;
    out[i] = top * 4294967296 + (w[2 * i]! >>> 0);
  }
  return out;
}

