/**
 * auto: DataFusion's rule for array (array iff supported and (range <= 1024 or rows/range > 0.15)),
 * else linear for one fixed-width key, else chained.
 */
import { Float64, Int32, Int64, Uint64, Utf8 } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { autoLayout, chooseLayout, explainLayout } from './auto.ts';
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

  it('picks array for dense keys (rows/range > 0.15) and linear for sparse ones', () => {
    expect(chooseLayout(input(range(0, 200, 5)))).toBe('array'); // 200 rows over 996: 0.2
    expect(chooseLayout(input(range(0, 200, 10)))).toBe('linear'); // 200 over 1991: 0.1
    expect(explainLayout(input(range(0, 200, 10))).reason).toMatch(/sparse keys: .*; one fixed-width key: linear probing/);
    expect(chooseLayout(input(range(0, 10_000, 7)))).toBe('linear');
    expect(chooseLayout(input(range(0, 10_000, 6)))).toBe('array'); // 10000 / 59995 = 0.167
    const wide = sides([new Int64()], [new Int64()], [[0n], [2n ** 40n]], [], false).build;
    expect(chooseLayout(wide)).toBe('linear');
    expect(explainLayout(wide).reason).toMatch(/2\^26.*linear probing/);
  });

  it('picks linear for floats and for NULL = NULL with NULL build keys (array refuses both)', () => {
    const float = sides([new Float64()], [new Float64()], [[1.5], [2.5]], [], false).build;
    expect(chooseLayout(float)).toBe('linear');
    expect(explainLayout(float).reason).toMatch(/integer or boolean key, got DOUBLE; one fixed-width key/);
    expect(chooseLayout(input([1, 2, null], true))).toBe('linear');
    expect(explainLayout(input([1, 2, null], true)).reason).toMatch(/NULL build keys under null-equals-null/);
    expect(chooseLayout(input([1, 2, null], false))).toBe('array');
  });

  it('picks chained for several keys, strings and HUGEINT (neither array nor linear index them)', () => {
    const two: Row[] = [[1, 2]];
    const multi = sides([new Int32(), new Int32()], [new Int32(), new Int32()], two, [], false).build;
    expect(chooseLayout(multi)).toBe('chained');
    expect(explainLayout(multi).reason).toMatch(/exactly one key column, got 2; the linear layout needs exactly one key column/);
    expect(chooseLayout(sides([new Utf8()], [new Utf8()], [['a']], [], false).build)).toBe('chained');
    const huge = sides([new Int64()], [new Uint64()], [[1n]], [], false).build;
    expect(chooseLayout(huge)).toBe('chained');
    expect(explainLayout(huge).reason).toMatch(/got HUGEINT$/);
  });

  it('builds the chosen layout’s table', () => {
    expect(autoLayout.build(input([1, 2, 3])).layout).toBe('array');
    expect(autoLayout.build(input([1, 2, null], true)).layout).toBe('linear');
    expect(autoLayout.build(input(range(0, 200, 10))).layout).toBe('linear');
    expect(autoLayout.build(sides([new Utf8()], [new Utf8()], [['a']], [], false).build).layout).toBe('chained');
  });
});
