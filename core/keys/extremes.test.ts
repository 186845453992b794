/** keyExtremes / wordExtremes: signed vs unsigned order, NULLs and skipped rows ignored, all-NULL -> null, cached per column. */
import { DataType, Float64, Int64, makeBuilder, Uint64, type Vector } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { compareWords, keyExtremes, wordExtremes } from './extremes.ts';
import { normalizeKeyColumn } from './normalize.ts';
import { keyKindOf } from './resolve.ts';
import type { FixedKeyColumn } from './types.ts';

function vector(type: DataType, values: readonly (number | bigint | null)[]): Vector {
  const b = makeBuilder({ type, nullValues: [null] });
  const wide = DataType.isInt(type) && type.bitWidth === 64;
  for (const v of values) b.append((wide && typeof v === 'number' ? BigInt(v) : v) as never);
  return b.finish().toVector();
}

const col = (type: Int64 | Uint64 | Float64, values: (bigint | number | null)[]) =>
  normalizeKeyColumn(vector(type, values), keyKindOf(type, 'k')) as FixedKeyColumn;

describe('keyExtremes', () => {
  it('orders int64 signed and uint64 unsigned, skipping NULLs', () => {
    expect(keyExtremes(col(new Int64(), [null, 5n, -(2n ** 40n), 2n ** 33n, null, 7n]))).toEqual({ minRow: 2, maxRow: 3, count: 4 });
    expect(keyExtremes(col(new Uint64(), [1n, 2n ** 63n, 0n, 2n ** 64n - 1n]))).toEqual({ minRow: 2, maxRow: 3, count: 4 });
    expect(keyExtremes(col(new Int64(), [4n, 4n, 4n]))).toEqual({ minRow: 0, maxRow: 0, count: 3 });
  });

  it('is null for an all-NULL or empty column, cached by column, and refuses other kinds', () => {
    expect(keyExtremes(col(new Int64(), [null, null]))).toBeNull();
    expect(keyExtremes(col(new Int64(), []))).toBeNull();
    const c = col(new Int64(), [3n, 1n]);
    expect(keyExtremes(c)).toBe(keyExtremes(c));
    expect(() => keyExtremes(col(new Float64(), [1.5]))).toThrow(RangeError);
  });
});

describe('wordExtremes', () => {
  it('orders 1-word values signed or unsigned, skipping NULL and skipped rows', () => {
    const w = new Int32Array([3, -5, 7, -1, 2]);
    expect(wordExtremes(w, 1, false, 5)).toEqual({ minRow: 1, maxRow: 2, count: 5 });
    expect(wordExtremes(w, 1, true, 5)).toEqual({ minRow: 4, maxRow: 3, count: 5 }); // -1 = 2^32 - 1 unsigned
    const nulls = new Uint8Array([0, 1, 0, 0, 0]);
    const skip = new Uint8Array([0, 0, 1, 0, 0]);
    expect(wordExtremes(w, 1, false, 5, nulls, skip)).toEqual({ minRow: 3, maxRow: 0, count: 3 });
    expect(wordExtremes(w, 1, false, 3, null, new Uint8Array([1, 1, 1]))).toBeNull();
    expect(wordExtremes(w, 1, false, 0)).toBeNull();
  });

  it('orders wide values by the signed top word, then unsigned lower words', () => {
    // 3-word rows (lo, mid, top): 2^64, -1, 5, -2^64
    const w = new Int32Array([0, 0, 1, -1, -1, -1, 5, 0, 0, 0, 0, -1]);
    expect(wordExtremes(w, 3, false, 4)).toEqual({ minRow: 3, maxRow: 0, count: 4 });
    expect(compareWords(w, 3, w, 6, 3, false)).toBe(-1);
    expect(compareWords(w, 3, w, 6, 3, true)).toBe(1);
    expect(compareWords(w, 6, new Int32Array([5, 0, 0]), 0, 3, false)).toBe(0);
  });
});
