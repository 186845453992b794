import { describe, expect, it } from 'vitest';
import { dateText, floatText, intervalText, timestampText } from './text.ts';

describe('DuckDB-style text', () => {
  it('intervals, floats, dates and timestamps read like DuckDB prints them', () => {
    expect(intervalText(14, 3, 4n * 3600n * 10n ** 9n)).toBe('1 year 2 months 3 days 04:00:00');
    expect(intervalText(1, 2, 1_500_000_000n)).toBe('1 month 2 days 00:00:01.5');
    expect(intervalText(0, 0, 0n)).toBe('00:00:00');
    expect(intervalText(-1, -2, -3_000_000_000n)).toBe('-1 month -2 days -00:00:03');
    expect(intervalText(0, 0, 100n * 3600n * 10n ** 9n + 1_000_000n)).toBe('100:00:00.001');
    expect([1.5, 1, 1e20, 0.1, NaN, Infinity, -0, 1e-7, 123456789012345678, 1e16, 1e15, 1e-5, 0.0001].map((v) => floatText(v, false))).toEqual([
      '1.5', '1.0', '1e+20', '0.1', 'nan', 'inf', '-0.0', '1e-07', '1.2345678901234568e+17', '1e+16', '1000000000000000.0', '1e-05', '0.0001',
    ]);
    expect(floatText(Math.fround(0.1), true)).toBe('0.1');
    expect(dateText(2147483647)).toBe('infinity');
    expect(dateText(Date.UTC(-44, 2, 15) / 86_400_000)).toBe('0045-03-15 (BC)'); // ISO year -44
    expect(dateText(0)).toBe('1970-01-01');
    expect(timestampText(1_704_164_645_500_000n, 2, true)).toBe('2024-01-02 03:04:05.5+00');
  });
});
