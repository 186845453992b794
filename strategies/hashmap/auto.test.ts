/**
 * auto: DataFusion's rule for array (array iff supported and (range <= 1024 or rows/range > 0.15)),
 * then rank for the same keys while its directory is <= 6 bytes per row (range <= ~24 x rows),
 * else swiss (any key; chained only past 2^26 build rows).
 */
import { Float64, Int32, Int64, Uint64, Utf8 } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { autoLayout, chooseLayout, explainLayout } from './auto.ts';
import { SWISS_MAX_ROWS } from './swiss.ts';
import { sides } from './test-helpers.ts';
import type { Row } from './test-helpers.ts';

const input = (values: readonly (number | null)[], nullEqualsNull = false) =>
  sides([new Int32()], [new Int32()], values.map((v) => [v]), [], nullEqualsNull).build;
const range = (lo: number, n: number, step: number) => Array.from({ length: n }, (_, i) => lo + i * step);

describe('auto layout', () => {
  it('picks array for a range <= 1024 whatever the density', () => {
    expect(chooseLayout(input([0, 1023]))).toBe('array');
    expect(explainLayout(input([0, 1023])).reason).toMatch(/key range 1024 <= 1024/);
    expect(chooseLayout(input([-500, 500, 0]))).toBe('array');
    expect(chooseLayout(input([]))).toBe('array');
  });

  it('picks array for dense keys (rows/range > 0.15), rank for sparser ones, swiss past ~24 values per row', () => {
    expect(chooseLayout(input(range(0, 200, 5)))).toBe('array'); // 200 rows over 996: 0.2
    expect(chooseLayout(input(range(0, 200, 10)))).toBe('rank'); // 200 over 1991: 0.1; 504 B of directory
    expect(explainLayout(input(range(0, 200, 10))).reason).toMatch(/sparse keys: .*; rank directory 2.52 bytes per row \(<= 6\)/);
    expect(chooseLayout(input(range(0, 10_000, 7)))).toBe('rank');
    expect(chooseLayout(input(range(0, 10_000, 6)))).toBe('array'); // 10000 / 59995 = 0.167
    // 1 key in 24 values: 6 bytes of directory per row, the most rank takes; one more value per key tips it
    expect(chooseLayout(input(range(0, 1000, 24)))).toBe('rank');
    expect(chooseLayout(input(range(0, 1000, 25)))).toBe('swiss');
    expect(explainLayout(input(range(0, 1000, 25))).reason).toMatch(/rank directory 6.25 bytes per row \(> 6\); swiss table/);
    const wide = sides([new Int64()], [new Int64()], [[0n], [2n ** 40n]], [], false).build;
    expect(chooseLayout(wide)).toBe('swiss');
    expect(explainLayout(wide).reason).toMatch(/2\^26.*2\^30.*swiss table/);
  });

  it('picks swiss for floats and for NULL = NULL with NULL build keys (array refuses both)', () => {
    const float = sides([new Float64()], [new Float64()], [[1.5], [2.5]], [], false).build;
    expect(chooseLayout(float)).toBe('swiss');
    expect(explainLayout(float).reason).toMatch(/integer or boolean key, got DOUBLE; swiss table/);
    expect(chooseLayout(input([1, 2, null], true))).toBe('swiss');
    expect(explainLayout(input([1, 2, null], true)).reason).toMatch(/NULL build keys under null-equals-null/);
    expect(chooseLayout(input([1, 2, null], false))).toBe('array');
  });

  it('picks swiss for several keys, strings and HUGEINT (the array layout refuses them)', () => {
    const two: Row[] = [[1, 2]];
    const multi = sides([new Int32(), new Int32()], [new Int32(), new Int32()], two, [], false).build;
    expect(chooseLayout(multi)).toBe('swiss');
    expect(explainLayout(multi).reason).toMatch(/exactly one key column, got 2; swiss table/);
    expect(chooseLayout(sides([new Utf8()], [new Utf8()], [['a']], [], false).build)).toBe('swiss');
    const huge = sides([new Int64()], [new Uint64()], [[1n]], [], false).build;
    expect(chooseLayout(huge)).toBe('swiss');
    expect(explainLayout(huge).reason).toMatch(/got HUGEINT; swiss table$/);
  });

  it('picks chained past the swiss row limit', () => {
    // two key columns: the array layout refuses without scanning, so the oversized row count is never read
    const multi = sides([new Int32(), new Int32()], [new Int32(), new Int32()], [[1, 2]], [], false).build;
    const choice = explainLayout({ ...multi, rows: SWISS_MAX_ROWS + 1 });
    expect(choice.layout).toBe('chained');
    expect(choice.reason).toMatch(/at most 2\^26 build rows/);
  });

  it('builds the chosen layout’s table', () => {
    expect(autoLayout.build(input([1, 2, 3])).layout).toBe('array');
    expect(autoLayout.build(input([1, 2, null], true)).layout).toBe('swiss');
    expect(autoLayout.build(input(range(0, 200, 10))).layout).toBe('rank');
    expect(autoLayout.build(input(range(0, 200, 1000))).layout).toBe('swiss');
    expect(autoLayout.build(sides([new Utf8()], [new Utf8()], [['a']], [], false).build).layout).toBe('swiss');
  });
});
