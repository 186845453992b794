/**
 * One key column as one JS number per row whose `<` / `===` are exactly the column's sort order
 * (direction and NULL placement included), when such numbers exist: the merge joins then compare
 * and find key groups with plain number comparisons instead of a comparator call per row pair.
 *
 * Exact only where every value is a double without rounding: signed and unsigned 64-bit integers
 * (dates, times, timestamps and every narrower int are normalised to those) within ±2^53, booleans,
 * and finite floats (normalisation already folds -0.0 into 0.0, so equal keys are equal numbers;
 * NaN, which sorts above +Inf, has no number to stand for it). DESC negates; a NULL becomes
 * +Infinity (NULLS LAST) or -Infinity (NULLS FIRST), so NULLs are equal to each other and sort
 * where the comparator puts them. Infinite values get no numbers, so that in *every* batch an
 * infinite number means NULL: the merge compares numbers of two batches (one may have NULLs, the
 * other an infinite value) and tells a NULL key by `!isFinite`. Anything else (decimals, 96-bit ints, bytes, values
 * past 2^53) returns null and the caller keeps its comparator: this is a fast path, never a
 * second definition of the order.
 */
import { floatKeyView } from './byte-order.ts';
import type { KeySortOrder } from './order.ts';
import { isBytesKey, type KeyColumn } from './types.ts';

const TWO_32 = 4294967296;
/** |hi word| below this keeps hi * 2^32 + lo within 2^53. */
const HI_LIMIT = 1 << 21;

export function orderedNumbers(col: KeyColumn, order: KeySortOrder, out?: Float64Array): Float64Array | null {
  if (isBytesKey(col)) return null;
  const n = col.length;
  const w = col.words;
  const nums = out !== undefined && out.length >= n ? out.subarray(0, n) : new Float64Array(n);
  switch (col.kind.order) {
    case 'int':
      if (col.kind.width !== 2) return null;
      for (let i = 0; i < n; i++) {
        const hi = w[2 * i + 1]!;
        if (hi >= HI_LIMIT || hi < -HI_LIMIT) return null;
        nums[i] = hi * TWO_32 + (w[2 * i]! >>> 0);
      }
      break;
    case 'uint':
      if (col.kind.width !== 2) return null;
      for (let i = 0; i < n; i++) {
        const hi = w[2 * i + 1]! >>> 0;
        if (hi >= HI_LIMIT) return null;
        nums[i] = hi * TWO_32 + (w[2 * i]! >>> 0);
      }
      break;
    case 'bool':
      for (let i = 0; i < n; i++) nums[i] = w[i]!;
      break;
    case 'float': {
      const f = floatKeyView(col);
      const nulls = col.nulls;
      for (let i = 0; i < n; i++) {
        if (nulls !== null && nulls[i] === 1) {
          nums[i] = 0; // replaced by the NULL's infinity below
          continue;
        }
        const v = f[i]!;
        if (v !== v || v === Infinity || v === -Infinity) return null;
        nums[i] = v;
      }
      break;
    }
    default:
      return null;
  }
  if (order.descending) for (let i = 0; i < n; i++) nums[i] = -nums[i]!;
  const nulls = col.nulls;
  if (nulls !== null) {
    const at = order.nullsFirst ? -Infinity : Infinity;
    for (let i = 0; i < n; i++) if (nulls[i] === 1) nums[i] = at;
  }
  return nums;
}

/** `findKeyGroupEnd` over ordered numbers: adjacent row, rest of the range, binary search. */
export function numberGroupEnd(nums: Float64Array, start: number, end: number): number {
  const v = nums[start]!;
  if (start + 1 >= end || nums[start + 1] !== v) return start + 1;
  if (nums[end - 1] === v) return end;
  let lo = start + 1;
  let hi = end - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (nums[mid] === v) lo = mid;
    else hi = mid;
  }
  return hi;
}
