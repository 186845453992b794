/**
 * Selection vectors: ascending Int32Array row lists, made from per-row flags (a keep mask, a
 * "matched" byte per row, a NULL mask). The pushdown composer, the key filters and the joins
 * all turn flags into row lists the same way, so there is one set of these loops.
 *
 * The keep-mask loops are branch-free: every row is written and the count advances by
 * `(-flag) >>> 31` (1 for any nonzero byte). Filters keep unpredictable halves, where a branch
 * (and V8 compiles `x ? 1 : 0` as one) mispredicts.
 */

/** Rows r in [0, n) with `flags[r]` nonzero (`value` 1) or zero (`value` 0); `null` flags are all zero. */
export function rowsWhere(flags: Uint8Array | null, n: number, value: 0 | 1): Int32Array {
  if (flags === null) {
    if (value === 1) return new Int32Array(0);
    const all = new Int32Array(n);
    for (let r = 0; r < n; r++) all[r] = r;
    return all;
  }
  let count = 0;
  for (let r = 0; r < n; r++) count += flags[r] === 0 ? 1 - value : value;
  const out = new Int32Array(count);
  let j = 0;
  for (let r = 0; r < n; r++) if ((flags[r] === 0 ? 0 : 1) === value) out[j++] = r;
  return out;
}

/**
 * The listed rows (all `n` rows when `rows` is null) whose `keep` entry is not 0, ascending. One
 * branch-free pass: every row is written and the count advances by `(-keep) >>> 31` (1 for any
 * nonzero byte) — filters keep unpredictable halves, where a branch (and V8 compiles `x ? 1 : 0` as
 * one) mispredicts. Written into `into` when it is large enough (it may be `rows` itself: the
 * compaction never overtakes its input), else into a new array; the result is a view of its head.
 */
export function liveRows(rows: Int32Array | null, keep: Uint8Array, n: number, into?: Int32Array): Int32Array {
  const count = rows === null ? n : rows.length;
  const out = into !== undefined && into.length >= count ? into : new Int32Array(count);
  let j = 0;
  if (rows === null) {
    for (let i = 0; i < count; i++) {
      out[j] = i;
      j += -keep[i]! >>> 31;
    }
  } else {
    for (let i = 0; i < count; i++) {
      const r = rows[i]!;
      out[j] = r;
      j += -keep[r]! >>> 31;
    }
  }
  return j === out.length ? out : out.subarray(0, j);
}

/**
 * `liveRows(null, keep, n)` when the number of kept rows is already known (`countKept`): an array of
 * exactly `kept` rows (one spare slot absorbs the branch-free loop's last unconditional write).
 */
export function keptRows(keep: Uint8Array, n: number, kept: number): Int32Array {
  const out = new Int32Array(kept + 1);
  let j = 0;
  for (let i = 0; i < n; i++) {
    out[j] = i;
    j += ((keep[i]! !== 0) as unknown as number) | 0; // branch-free; ~2x faster than `-keep[i] >>> 31` here
  }
  return out.subarray(0, kept);
}

/** The number of nonzero entries of keep[0, n) (branch-free). */
export function countKept(keep: Uint8Array, n: number): number {
  let k = 0;
  for (let i = 0; i < n; i++) k += ((keep[i]! !== 0) as unknown as number) | 0;
  return k;
}

/** The indices in both ascending lists `x` and `y` (a new ascending list). */
export function intersectRows(x: Int32Array, y: Int32Array): Int32Array {
  const out = new Int32Array(Math.min(x.length, y.length));
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < x.length && j < y.length) {
    const a = x[i]!;
    const b = y[j]!;
    if (a < b) i++;
    else if (a > b) j++;
    else {
      out[n++] = a;
      i++;
      j++;
    }
  }
  return out.subarray(0, n);
}
