import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Rng } from '../random.ts';
import { copyRanges, repeatRows, runnable } from './runs.ts';

/** Columns of every fixed-width layout the kernels see: 1, 2, 4, 8 and 16 bytes a row. */
function columns(rng: Rng, n: number): [string, arrow.Data][] {
  const ints = Array.from({ length: n }, () => rng.int(-100, 100));
  return [
    ['int8', arrow.vectorFromArray(ints, new arrow.Int8()).data[0]!],
    ['int16', arrow.vectorFromArray(ints, new arrow.Int16()).data[0]!],
    ['int32', arrow.vectorFromArray(ints, new arrow.Int32()).data[0]!],
    ['int64', arrow.vectorFromArray(ints.map((v) => BigInt(v) * 2n ** 40n), new arrow.Int64()).data[0]!],
    ['float64', arrow.vectorFromArray(ints.map((v) => v / 3), new arrow.Float64()).data[0]!],
    ['decimal', arrow.makeData({ type: new arrow.Decimal(2, 20, 128), length: n, data: Uint32Array.from({ length: 4 * n }, () => rng.int(0, 2 ** 31)) })],
    ['date', arrow.vectorFromArray(ints.map((v) => new Date(Date.UTC(2020, 0, 1 + v))), new arrow.DateDay()).data[0]!],
  ];
}

describe('column assembly from runs', () => {
  it('copyRanges and repeatRows equal a row-by-row copy, for every width, sliced sources and runs of any length', () => {
    const rng = new Rng(5);
    for (let round = 0; round < 20; round++) {
      const n = rng.int(1, 200);
      for (const [name, whole] of columns(rng, n + 7)) {
        const d = whole.slice(3, n); // an offset into the buffers
        expect(runnable(d), name).toBe(true);
        const runs = rng.int(0, 30);
        const starts = new Int32Array(runs);
        const rows = new Int32Array(runs);
        const lens = new Int32Array(runs);
        let count = 0;
        for (let i = 0; i < runs; i++) {
          starts[i] = rng.int(0, n - 1);
          lens[i] = rng.int(0, n - starts[i]!);
          rows[i] = rng.int(0, n - 1);
          count += lens[i]!;
        }
        const src = new arrow.Vector([d]);
        const ranges = new arrow.Vector([copyRanges(d, starts, lens, runs, count)]);
        const repeats = new arrow.Vector([repeatRows(d, rows, lens, runs, count)]);
        const wantRanges: unknown[] = [];
        const wantRepeats: unknown[] = [];
        for (let i = 0; i < runs; i++) {
          for (let k = 0; k < lens[i]!; k++) {
            wantRanges.push(src.get(starts[i]! + k));
            wantRepeats.push(src.get(rows[i]!));
          }
        }
        expect(ranges.length).toBe(count);
        expect([...ranges].map(String), name).toEqual(wantRanges.map(String));
        expect([...repeats].map(String), name).toEqual(wantRepeats.map(String));
      }
    }
  });

  it('refuses what a block copy is not exact for: NULLs, dictionaries, strings, booleans', () => {
    expect(runnable(arrow.vectorFromArray([1, null, 3], new arrow.Int32()).data[0]!)).toBe(false);
    expect(runnable(arrow.vectorFromArray(['a', 'b'], new arrow.Utf8()).data[0]!)).toBe(false);
    expect(runnable(arrow.vectorFromArray([true, false], new arrow.Bool()).data[0]!)).toBe(false);
    expect(runnable(arrow.vectorFromArray(['a', 'b', 'a'], new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32())).data[0]!)).toBe(false);
  });

  it('runs that do not cover the count are a RangeError, not a short column', () => {
    const d = arrow.vectorFromArray([1, 2, 3], new arrow.Int32()).data[0]!;
    expect(() => copyRanges(d, Int32Array.of(0), Int32Array.of(2), 1, 3)).toThrow(RangeError);
    expect(() => repeatRows(d, Int32Array.of(0), Int32Array.of(2), 1, 3)).toThrow(RangeError);
  });
});
