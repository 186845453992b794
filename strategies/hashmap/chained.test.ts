/**
 * chained layout: size bound at 1M keys, a million duplicates probed with capacity 8, head sizing
 * and argument errors. (Equality and NULL rules are covered differentially in layouts.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { ProbeCursor } from '../../core/hashmap.ts';
import { arrayLayout } from './array.ts';
import { ChainedHashTable, chainedLayout, headBits } from './chained.ts';
import { expectStream, heavyPairs, int64BuildInput, int64ProbeInput, oraclePairs, probeAll, sides } from './test-helpers.ts';
import type { Row } from './test-helpers.ts';
import { Int32, Utf8 } from 'apache-arrow';
import { Rng } from '../../core/random.ts';

describe('chained layout', () => {
  it('holds 1M unique int64 keys in <= 40 MB of its own arrays', () => {
    const n = 1_000_000;
    const table = new ChainedHashTable(int64BuildInput(n, (i) => i * 10));
    expect(table.inserted).toBe(n);
    expect(table.buckets).toBe(2 ** 21);
    expect(table.memoryBytes).toBe(2 ** 21 * 4 + n * 8);
    expect(table.memoryBytes).toBeLessThanOrEqual(40 * 1024 * 1024);
    // spot-check membership on the big table
    const probe = int64ProbeInput([0, 5, 10, 9_999_990, 10_000_000, -10]);
    const out = new Uint8Array(6);
    table.contains(probe, out, null);
    expect(Array.from(out)).toEqual([1, 0, 1, 1, 0, 0]);
  });

  for (const layout of [chainedLayout, arrayLayout]) {
    it(`${layout.name}: a probe row with 1M duplicate matches resumes with capacity 8`, () => {
      const n = 1_000_000;
      const table = layout.build(int64BuildInput(n, () => 7));
      const total = expectStream(table, int64ProbeInput([7, 8, 7]), heavyPairs(n, [0, 2]));
      expect(total).toBe(2 * n);
    });
  }

  for (const [name, type, wrap] of [
    ['int32', new Int32(), (v: number) => v],
    ['utf8 (generic path)', new Utf8(), (v: number) => `k${v}`],
  ] as const) {
    it(`${name}: batches larger than one gather window agree with the oracle`, () => {
      const rng = new Rng(7);
      const value = (lo: number, hi: number): Row => [rng.chance(0.05) ? null : wrap(rng.int(lo, hi))];
      const build = Array.from({ length: 3000 }, () => value(0, 4000));
      const probe = Array.from({ length: 5000 }, () => value(-100, 4100));
      for (const nen of [false, true]) {
        const s = sides([type], [type], build, probe, nen);
        const table = chainedLayout.build(s.build);
        const expected = oraclePairs(build, probe, nen);
        for (const cap of [7, 1000, 100_000]) expect(probeAll(table, s.probe, cap)).toEqual(expected);
        const member = new Uint8Array(probe.length);
        for (const [i] of expected) member[i] = 1;
        const out = new Uint8Array(probe.length).fill(9);
        table.contains(s.probe, out, null);
        expect(out).toEqual(member);
        const list = Int32Array.from({ length: 1700 }, (_, k) => 3 * k + 1);
        const some = new Uint8Array(probe.length).fill(9);
        table.contains(s.probe, some, list);
        expect(some).toEqual(member.map((m, i) => (i % 3 === 1 && i < 5100 ? m : 9)));
      }
    });
  }

  it('rebuilds the generic comparator when a reused keys array holds another batch', () => {
    const build: Row[] = [['a'], ['b'], ['c']];
    const p1: Row[] = [['b'], ['x']];
    const p2: Row[] = [['x'], ['c'], ['a']];
    const s1 = sides([new Utf8()], [new Utf8()], build, p1, false);
    const s2 = sides([new Utf8()], [new Utf8()], build, p2, false);
    const table = chainedLayout.build(s1.build);
    const keys = [...s1.probe.keys];
    expect(probeAll(table, { keys, hashes: s1.probe.hashes, rows: 2 }, 4)).toEqual([[0, 1]]);
    keys[0] = s2.probe.keys[0]!;
    expect(probeAll(table, { keys, hashes: s2.probe.hashes, rows: 3 }, 4)).toEqual([[1, 2], [2, 0]]);
  });

  it('sizes the head table to the next power of two >= 2 x rows (at least 16)', () => {
    expect(headBits(0)).toBe(4);
    expect(headBits(8)).toBe(4);
    expect(headBits(9)).toBe(5);
    expect(headBits(1_000_000)).toBe(21);
    expect(headBits(1_000_000, 1)).toBe(20);
  });

  it('an empty or all-NULL build only advances the cursor', () => {
    for (const build of [[], [[null], [null]]]) {
      const s = sides([new Int32()], [new Int32()], build, [[1], [null]], false);
      const table = chainedLayout.build(s.build);
      expect(table.inserted).toBe(0);
      const cursor = new ProbeCursor();
      expect(table.probe(s.probe, cursor, new Int32Array(4), new Int32Array(4), 4)).toBe(0);
      expect(cursor.done).toBe(true);
    }
  });

  it('rejects bad arguments with a RangeError naming the problem', () => {
    const s = sides([new Int32()], [new Int32()], [[1]], [[1]], false);
    const table = chainedLayout.build(s.build);
    const cursor = new ProbeCursor();
    expect(() => table.probe(s.probe, cursor, new Int32Array(4), new Int32Array(4), 0)).toThrow(/capacity/);
    expect(() => table.probe(s.probe, cursor, new Int32Array(2), new Int32Array(4), 4)).toThrow(/smaller than capacity/);
    const two = sides([new Int32(), new Int32()], [new Int32(), new Int32()], [[1, 1]], [[1, 1]], false);
    expect(() => table.probe(two.probe, cursor, new Int32Array(4), new Int32Array(4), 4)).toThrow(/key columns/);
    expect(() => chainedLayout.build({ ...s.build, keys: [] })).toThrow(/at least one key/);
  });
});
