/**
 * linear layout: size at 1M keys, a million duplicates probed with capacity 8 (and the table
 * shrunk to the distinct keys), adversarial hashes (one cluster wrapping the table end, salts that
 * always collide), NULL = NULL chains, windows larger than one resolve pass, sizing, refusals and
 * argument errors. (Equality and NULL rules are also covered differentially in layouts.test.ts.)
 */
import { Bool, Decimal, Float64, Int32, Int64, Uint64, Utf8 } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { ProbeCursor } from '../../core/hashmap.ts';
import { Rng } from '../../core/random.ts';
import { ChainedHashTable } from './chained.ts';
import { LinearHashTable, linearLayout, SLOT_WORDS } from './linear.ts';
import { ROOMY_MAX_SLOTS, slotBits } from './table-support.ts';
import { expectStream, heavyPairs, int64BuildInput, int64ProbeInput, membership, oraclePairs, probeAll, sides } from './test-helpers.ts';
import type { Row } from './test-helpers.ts';

const MB = 1024 * 1024;

const rows = (xs: readonly (number | bigint | string | null)[]): Row[] => xs.map((x) => [x]);

describe('linear layout', () => {
  it('holds 1M unique int64 keys (multiples of 10) in <= 40 MB of its own arrays', () => {
    const n = 1_000_000;
    const input = int64BuildInput(n, (i) => i * 10);
    const table = new LinearHashTable(input);
    const chained = new ChainedHashTable(input);
    console.info(`linear: 1M unique int64 keys -> ${table.slots} slots, memoryBytes ${table.memoryBytes} (${(table.memoryBytes / MB).toFixed(1)} MB); chained ${(chained.memoryBytes / MB).toFixed(1)} MB`);
    expect(table.inserted).toBe(n);
    expect(table.distinct).toBe(n);
    expect(table.hasDuplicates).toBe(false);
    expect(table.slots).toBe(2 ** 21);
    expect(table.memoryBytes).toBe(2 ** 21 * (1 + 4 * SLOT_WORDS)); // 1-byte tag + 12-byte slot, no `next`
    expect(table.memoryBytes).toBeLessThanOrEqual(40 * MB);
    const probe = int64ProbeInput([0, 5, 10, 9_999_990, 10_000_000, -10, 123_450, 123_451]);
    expect(membership(table, probe)).toEqual([1, 0, 1, 1, 0, 0, 1, 0]);
    expect(probeAll(table, probe, 3)).toEqual([[0, 0], [2, 1], [3, 999_999], [6, 12_345]]);
  });

  it('a probe row with 1M duplicate matches resumes with capacity 8; the table shrinks to the distinct keys', () => {
    const n = 1_000_000;
    const table = new LinearHashTable(int64BuildInput(n, () => 7));
    expect(table.distinct).toBe(1);
    expect(table.slots).toBe(16);
    expect(table.memoryBytes).toBe(16 * (1 + 4 * SLOT_WORDS) + 4 * n);
    expect(expectStream(table, int64ProbeInput([7, 8, 7]), heavyPairs(n, [0, 2]))).toBe(2 * n);
  });

  it('agrees with the oracle when every key has the same hash (one cluster across the table end, salts always equal)', () => {
    const rng = new Rng(11);
    const shapes = [
      { type: new Int32(), n: 300, value: (lo: number, hi: number) => rng.int(lo, hi) }, // 2 words
      { type: new Bool(), n: 30, value: () => rng.chance(0.5) }, // 1 word
    ];
    for (const { type, n, value } of shapes) {
      const build = Array.from({ length: n }, () => [rng.chance(0.05) ? null : value(0, 120)] as Row);
      const probe = Array.from({ length: 2 * n }, () => [rng.chance(0.05) ? null : value(-10, 130)] as Row);
      for (const h of [0xffffffff, 0x80000000, 0, 0x7f]) {
        for (const nen of [false, true]) {
          const s = sides([type], [type], build, probe, nen);
          s.build.hashes.fill(h);
          s.probe.hashes.fill(h);
          const table = linearLayout.build(s.build);
          const expected = oraclePairs(build, probe, nen);
          for (const cap of [1, 7, 1024]) expect(probeAll(table, s.probe, cap)).toEqual(expected);
          const member = new Array<number>(probe.length).fill(0);
          for (const [i] of expected) member[i] = 1;
          expect(membership(table, s.probe)).toEqual(member);
        }
      }
    }
  });

  it('agrees with the oracle when salts collide but homes differ (hash low 7 bits constant)', () => {
    const rng = new Rng(12);
    const build = Array.from({ length: 2000 }, () => [rng.int(0, 3000)] as Row);
    const probe = Array.from({ length: 3000 }, () => [rng.int(-100, 3100)] as Row);
    const s = sides([new Int64()], [new Int64()], build, probe, false);
    for (const hs of [s.build.hashes, s.probe.hashes]) for (let i = 0; i < hs.length; i++) hs[i] = (hs[i]! & ~0x7f) >>> 0;
    const table = linearLayout.build(s.build);
    const expected = oraclePairs(build, probe, false);
    expect(probeAll(table, s.probe, 5)).toEqual(expected);
    expect(probeAll(table, s.probe, 100_000)).toEqual(expected);
  });

  it('NULL = NULL: NULL build rows form one ascending chain; a NULL never equals 0', () => {
    const build = rows([null, 0, 1, null, 0, null]);
    const probe = rows([null, 0, 2, null, 1]);
    for (const nen of [false, true]) {
      const s = sides([new Int64()], [new Int64()], build, probe, nen);
      const table = linearLayout.build(s.build) as LinearHashTable;
      expect(table.inserted).toBe(nen ? 6 : 3);
      expect(table.distinct).toBe(2);
      const expected = oraclePairs(build, probe, nen);
      if (nen) expect(expected.slice(0, 3)).toEqual([[0, 0], [0, 3], [0, 5]]);
      for (const cap of [1, 2, 64]) expect(probeAll(table, s.probe, cap)).toEqual(expected);
      expect(membership(table, s.probe)).toEqual(nen ? [1, 1, 0, 1, 1] : [0, 1, 0, 0, 1]);
    }
    // null-equals-null without NULL build rows: a NULL probe row matches nothing
    const s = sides([new Int32()], [new Int32()], rows([0, 1]), rows([null, 0]), true);
    expect(probeAll(linearLayout.build(s.build), s.probe, 4)).toEqual([[1, 0]]);
  });

  for (const [name, type, wrap] of [
    ['int64', new Int64(), (v: number) => v],
    ['float64', new Float64(), (v: number) => v / 4],
  ] as const) {
    it(`${name}: batches larger than one resolve window agree with the oracle`, () => {
      const rng = new Rng(7);
      const value = (lo: number, hi: number): Row => [rng.chance(0.05) ? null : wrap(rng.int(lo, hi))];
      const build = Array.from({ length: 3000 }, () => value(0, 4000));
      const probe = Array.from({ length: 5000 }, () => value(-100, 4100));
      for (const nen of [false, true]) {
        const s = sides([type], [type], build, probe, nen);
        const table = linearLayout.build(s.build);
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

  it('sizes the table at 4 slots per key up to 2^20 slots, then 2 (at least 16; load factor <= 1/2)', () => {
    expect(slotBits(0)).toBe(4);
    expect(slotBits(4)).toBe(4);
    expect(slotBits(5)).toBe(5);
    expect(slotBits(1000)).toBe(12);
    expect(2 ** slotBits(ROOMY_MAX_SLOTS / 4)).toBe(ROOMY_MAX_SLOTS);
    expect(slotBits(ROOMY_MAX_SLOTS / 4 + 1)).toBe(20); // 2 per key from here
    expect(slotBits(ROOMY_MAX_SLOTS / 2 + 1)).toBe(21);
    expect(slotBits(1_000_000)).toBe(21);
    for (const k of [1, 3, 100, 262_145, 700_000, 1_048_576]) expect(2 ** slotBits(k)).toBeGreaterThanOrEqual(2 * k);
  });

  it('refuses several keys, bytes, decimals and HUGEINT with a reason', () => {
    const reason = (b: Parameters<typeof sides>[0], p: Parameters<typeof sides>[1], build: Row[]) => linearLayout.unsupportedReason(sides(b, p, build, [], false).build);
    expect(reason([new Int32(), new Int32()], [new Int32(), new Int32()], [[1, 2]])).toMatch(/exactly one key column, got 2/);
    expect(reason([new Utf8()], [new Utf8()], rows(['a']))).toMatch(/fixed-width key .* got VARCHAR/);
    expect(reason([new Int64()], [new Uint64()], rows([1n]))).toMatch(/got HUGEINT/);
    expect(reason([new Decimal(2, 10, 128)], [new Decimal(2, 10, 128)], [])).toMatch(/got DECIMAL/);
    expect(reason([new Float64()], [new Float64()], rows([1.5]))).toBeNull();
    expect(linearLayout.unsupportedReason(sides([new Int32()], [new Int32()], rows([1, null]), [], true).build)).toBeNull();
    expect(() => linearLayout.build(sides([new Utf8()], [new Utf8()], rows(['a']), [], false).build)).toThrow(RangeError);
  });

  it('an empty or all-NULL build only advances the cursor', () => {
    for (const build of [[], [[null], [null]]] as Row[][]) {
      const s = sides([new Int32()], [new Int32()], build, [[1], [null]], false);
      const table = linearLayout.build(s.build);
      expect(table.inserted).toBe(0);
      const cursor = new ProbeCursor();
      expect(table.probe(s.probe, cursor, new Int32Array(4), new Int32Array(4), 4)).toBe(0);
      expect(cursor.done).toBe(true);
      expect(membership(table, s.probe)).toEqual([0, 0]);
    }
  });

  it('rejects bad arguments with a RangeError naming the problem', () => {
    const s = sides([new Int32()], [new Int32()], [[1]], [[1]], false);
    const table = linearLayout.build(s.build);
    const cursor = new ProbeCursor();
    expect(() => table.probe(s.probe, cursor, new Int32Array(4), new Int32Array(4), 0)).toThrow(/capacity/);
    expect(() => table.probe(s.probe, cursor, new Int32Array(2), new Int32Array(4), 4)).toThrow(/smaller than capacity/);
    const two = sides([new Int32(), new Int32()], [new Int32(), new Int32()], [[1, 1]], [[1, 1]], false);
    expect(() => table.probe(two.probe, cursor, new Int32Array(4), new Int32Array(4), 4)).toThrow(/key columns/);
    expect(() => linearLayout.build({ ...s.build, keys: [] })).toThrow(/at least one key/);
  });
});
