/** keyExtremes: signed vs unsigned order, NULLs skipped, all-NULL -> null, cached per column. */
import { DataType, Float64, Int64, makeBuilder, Uint64, type Vector } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { keyExtremes } from './extremes.ts';
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
