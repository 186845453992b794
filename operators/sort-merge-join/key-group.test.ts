import { describe, expect, it } from 'vitest';
import { findKeyGroupEnd } from './key-group.ts';

describe('findKeyGroupEnd', () => {
  it('finds the end of every group of every sorted run, within ceil(log2) + 2 comparisons', () => {
    for (let len = 1; len <= 40; len++) {
      for (let groups = 1; groups <= Math.min(len, 6); groups++) {
        // `groups` runs of (nearly) equal length covering the len rows
        const keys = Array.from({ length: len }, (_, i) => Math.floor((i * groups) / len));
        for (let start = 0; start < len; start++) {
          let comparisons = 0;
          const equal = (i: number, j: number) => {
            comparisons++;
            return keys[i] === keys[j];
          };
          let naive = start + 1;
          while (naive < len && keys[naive] === keys[start]) naive++;
          expect(findKeyGroupEnd(equal, start, len), `len ${len} start ${start}`).toBe(naive);
          const span = len - start;
          expect(comparisons).toBeLessThanOrEqual(2 + Math.ceil(Math.log2(Math.max(2, span))));
        }
      }
    }
  });

  it('costs one comparison for a unique key and two for a group that fills the rest', () => {
    let n = 0;
    const keys = [1, 2, 2, 2];
    const eq = (i: number, j: number) => (n++, keys[i] === keys[j]);
    expect(findKeyGroupEnd(eq, 0, 4)).toBe(1);
    expect(n).toBe(1);
    n = 0;
    expect(findKeyGroupEnd(eq, 1, 4)).toBe(4);
    expect(n).toBe(2);
    expect(findKeyGroupEnd(eq, 3, 4)).toBe(4); // the last row: no comparison needed
  });
});
