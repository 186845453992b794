/** auto: DataFusion's rule (array iff supported and (range <= 1024 or rows/range > 0.15)). */
import { Int32, Int64, Utf8 } from 'apache-arrow';
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

  it('picks array for dense keys (rows/range > 0.15) and chained for sparse ones', () => {
    expect(chooseLayout(input(range(0, 200, 5)))).toBe('array'); // 200 rows over 996: 0.2
    expect(chooseLayout(input(range(0, 200, 10)))).toBe('chained'); // 200 over 1991: 0.1
    expect(explainLayout(input(range(0, 200, 10))).reason).toMatch(/sparse/);
    expect(chooseLayout(input(range(0, 10_000, 7)))).toBe('chained');
    expect(chooseLayout(input(range(0, 10_000, 6)))).toBe('array'); // 10000 / 59995 = 0.167
    const wide = sides([new Int64()], [new Int64()], [[0n], [2n ** 40n]], [], false).build;
    expect(chooseLayout(wide)).toBe('chained');
    expect(explainLayout(wide).reason).toMatch(/2\^26/);
  });

  it('picks chained for NULL = NULL with NULL build keys, several keys and non-integers', () => {
    expect(chooseLayout(input([1, 2, null], true))).toBe('chained');
    expect(chooseLayout(input([1, 2, null], false))).toBe('array');
    const two: Row[] = [[1, 2]];
    expect(chooseLayout(sides([new Int32(), new Int32()], [new Int32(), new Int32()], two, [], false).build)).toBe('chained');
    expect(chooseLayout(sides([new Utf8()], [new Utf8()], [['a']], [], false).build)).toBe('chained');
  });

  it('builds the chosen layout’s table', () => {
    expect(autoLayout.build(input([1, 2, 3])).layout).toBe('array');
    expect(autoLayout.build(input([1, 2, null], true)).layout).toBe('chained');
  });
});
