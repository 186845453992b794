import { tableFromArrays, type RecordBatch } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Rng } from '../random.ts';
import { AdaptiveStackedFilter } from './adaptive-filter.ts';
import { DynamicFilter, type ScanPredicate } from './scan.ts';
import { StackedFilter } from './stacked-filter.ts';

/** Keeps the rows whose `column` value v has v % m === r (a filter of pass rate ~1/m). */
function modFilter(column: string, m: number, r: number): DynamicFilter {
  const p: ScanPredicate = {
    description: `${column} % ${m} = ${r}`,
    columns: [column],
    mayContain: () => true,
    selectRows(batch: RecordBatch) {
      const v = batch.getChild(column)!.toArray() as Int32Array;
      const out: number[] = [];
      for (let i = 0; i < batch.numRows; i++) if (v[i]! % m === r) out.push(i);
      return out.length === batch.numRows ? null : Int32Array.from(out);
    },
  };
  const f = new DynamicFilter();
  f.publish(p);
  return f;
}

function batch(rng: Rng, n: number): RecordBatch {
  const a = Int32Array.from({ length: n }, () => rng.int(0, 999));
  const b = Int32Array.from({ length: n }, () => rng.int(0, 999));
  const c = Int32Array.from({ length: n }, () => rng.int(0, 999));
  return tableFromArrays({ a, b, c }).batches[0]!;
}

describe('AdaptiveStackedFilter (LIP ordering)', () => {
  it('keeps exactly the rows the fixed-order stack keeps, whatever order it picks', () => {
    const rng = new Rng(11);
    for (let trial = 0; trial < 50; trial++) {
      const parts = [modFilter('a', rng.int(1, 4), 0), modFilter('b', rng.int(1, 20), 1 % 2), modFilter('c', rng.int(1, 3), 0)];
      const adaptive = new AdaptiveStackedFilter(parts);
      const fixed = new StackedFilter(parts);
      for (let k = 0; k < 5; k++) {
        const b = batch(rng, rng.int(0, 300));
        const want = fixed.current()!.selectRows(b);
        const got = adaptive.current()!.selectRows(b);
        expect(got === null ? null : [...got]).toEqual(want === null ? null : [...want]);
      }
    }
  });
  it('runs the most selective filter first once it has seen it, so the others test few rows', () => {
    const rng = new Rng(3);
    const loose = modFilter('a', 2, 0); // keeps ~1/2
    const tight = modFilter('b', 50, 7); // keeps ~1/50
    const f = new AdaptiveStackedFilter([loose, tight]);
    for (let k = 0; k < 20; k++) f.current()!.selectRows(batch(rng, 1000));
    const [l, t] = f.partCounts;
    expect(t!.tested).toBeGreaterThan(19_000); // the tight one sees (nearly) every row
    expect(l!.tested).toBeLessThan(2_000); // the loose one only the tight one's survivors
    expect(t!.kept / t!.tested).toBeLessThan(0.05);
  });
  it('counts into the objects it is given; without reordering it keeps the given order', () => {
    const b = batch(new Rng(1), 100);
    const given = { tested: 0, kept: 0 };
    new AdaptiveStackedFilter([modFilter('a', 3, 0), modFilter('b', 3, 0)], [given]).current()!.selectRows(b);
    expect(given.tested).toBeGreaterThan(0);
    const rng = new Rng(3);
    const fixed = new AdaptiveStackedFilter([modFilter('a', 2, 0), modFilter('b', 50, 7)], [], { reorder: false });
    for (let k = 0; k < 5; k++) fixed.current()!.selectRows(batch(rng, 1000));
    expect(fixed.partCounts[0]!.tested).toBe(5000); // the loose filter stays first
    expect(fixed.partCounts[1]!.tested).toBeLessThan(5000);
  });
  it('no part published: keeps everything; one part: that part alone', () => {
    expect(new AdaptiveStackedFilter([new DynamicFilter()]).current()).toBeNull();
    const one = new AdaptiveStackedFilter([new DynamicFilter(), modFilter('a', 2, 0)]);
    expect(one.current()!.description).toBe('a % 2 = 0');
  });
});
