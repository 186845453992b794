/**
 * rank layout: what it refuses, exact offsets without BigInt in both of its 2-word modes (narrow:
 * one high word; wide: the range crosses a high-word boundary) and for 1-word keys near the int32
 * ends, the wrap-arounds its int32 range test must reject, windows and 32-row masks longer than one,
 * row lists with NULLs, and that it never reads probe hashes. The differential over every key shape
 * is in layouts.test.ts.
 */
import { Float64, Int32, Int64, Uint64, Utf8 } from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NO_PROBE_HASHES } from '../../core/hashmap.ts';
import { Rng } from '../../core/random.ts';
import { RankHashTable, rankLayout } from './rank.ts';
import { oraclePairs, probeAll, sides } from './test-helpers.ts';
import type { Row } from './test-helpers.ts';

const rows = (xs: readonly (number | bigint | string | null)[]): Row[] => xs.map((x) => [x]);

/** Builds and probes with no hashes at all, checking probe pairs and `contains` against the oracle. */
function expectExact(types: Parameters<typeof sides>[0], build: readonly (bigint | number | null)[], probe: readonly (bigint | number | null)[], capacity = 3): RankHashTable {
  const s = sides(types, types, rows(build), rows(probe), false);
  expect(rankLayout.unsupportedReason(s.build)).toBeNull();
  const table = rankLayout.build(s.build) as RankHashTable;
  const unhashed = { ...s.probe, hashes: NO_PROBE_HASHES };
  const want = oraclePairs(rows(build), rows(probe), false);
  expect(probeAll(table, unhashed, capacity)).toEqual(want);
  const out = new Uint8Array(probe.length).fill(7);
  table.contains(unhashed, out, null);
  const member = probe.map((_, i) => (want.some(([p]) => p === i) ? 1 : 0));
  expect(Array.from(out)).toEqual(member);
  return table;
}

describe('rank layout', () => {
  it('refuses what array refuses for the key itself, and spans over 2^30 (not over 2^26)', () => {
    const reason = (types: Parameters<typeof sides>[0], build: Row[], nen = false) => rankLayout.unsupportedReason(sides(types, types, build, [], nen).build);
    expect(reason([new Int32(), new Int32()], [[1, 2]])).toMatch(/the rank layout needs exactly one key column, got 2/);
    expect(reason([new Utf8()], rows(['a']))).toMatch(/rank layout needs an integer or boolean key, got VARCHAR/);
    expect(reason([new Float64()], rows([1]))).toMatch(/got DOUBLE/);
    expect(reason([new Int32()], rows([1, null]), true)).toMatch(/NULL build keys under null-equals-null/);
    expect(reason([new Int64()], rows([0n, 2n ** 26n]))).toBeNull();
    expect(reason([new Int64()], rows([0n, 2n ** 30n - 1n]))).toBeNull();
    expect(reason([new Int64()], rows([0n, 2n ** 30n]))).toMatch(/at most 2\^30 values, got ~1.074e\+9/);
    expect(reason([new Int64()], rows([-(2n ** 63n), 2n ** 63n - 1n]))).toMatch(/at most 2\^30/);
    expect(() => rankLayout.build(sides([new Utf8()], [new Utf8()], rows(['x']), [], false).build)).toThrow(/integer or boolean key/);
  });

  it('is exact at the ends of the int64 and uint64 domains and across high-word boundaries', () => {
    const cases: [Parameters<typeof sides>[0], bigint[], bigint[]][] = [
      [[new Int64()], [2n ** 63n - 1n, 2n ** 63n - 3n], [2n ** 63n - 1n, 2n ** 63n - 2n, 2n ** 63n - 3n, -(2n ** 63n), 0n, 2n ** 63n - 4n]],
      [[new Int64()], [-(2n ** 63n), -(2n ** 63n) + 2n], [-(2n ** 63n), -(2n ** 63n) + 1n, -(2n ** 63n) + 2n, 2n ** 63n - 1n, -1n]],
      // wide: -1 and 1 have high words -1 and 0
      [[new Int64()], [-1n, 1n], [-3n, -2n, -1n, 0n, 1n, 2n, 2n ** 32n - 2n, -(2n ** 32n) + 3n, 2n ** 32n + 1n, -(2n ** 32n) - 1n]],
      [[new Int64()], [2n ** 32n - 1n, 2n ** 32n + 1n], [2n ** 32n - 1n, 2n ** 32n, 2n ** 32n + 1n, 1n, -1n, 2n ** 33n - 1n, 2n ** 33n + 1n]],
      [[new Uint64()], [2n ** 64n - 1n, 2n ** 64n - 2n], [2n ** 64n - 1n, 2n ** 64n - 2n, 0n, 2n ** 63n, 2n ** 63n - 2n]],
      // wide in the sign-flipped high word
      [[new Uint64()], [2n ** 63n - 1n, 2n ** 63n + 1n], [2n ** 63n - 1n, 2n ** 63n, 2n ** 63n + 1n, 2n ** 63n - 2n, 1n, 2n ** 64n - 1n]],
    ];
    for (const [types, build, probe] of cases) {
      const table = expectExact(types, build, probe, 2);
      const [a, b] = build as [bigint, bigint];
      expect(table.span).toBe(Number((a > b ? a - b : b - a) + 1n));
    }
  });

  it('rejects the keys its int32 range test would wrap onto the range', () => {
    const H = 7n * 2n ** 32n;
    // narrow, low words at the top of their word: a small low word with the same high word wraps to
    // 2^32 - minLo (>= span); the next high word's keys differ in the high word
    expectExact([new Int64()], [H + 0xfffffff0n, H + 0xffffffffn, H + 0xfffffff5n], [H + 1n, H + 0x10n, H, H + 0xfffffff0n, H + 0xfffffff5n, H + 2n ** 32n + 3n, H - 1n, H + 0xffffffffn]);
    // narrow, low words at the bottom: keys far above wrap negative
    expectExact([new Int64()], [H + 0n, H + 5n], [H + 0x80000000n, H + 0xffffffffn, H + 0x7fffffffn, H + 5n, H + 6n, H + 2n ** 32n, H - 2n ** 32n]);
    // wide: probes one high word too far on either side with in-range low words
    const W = 2n ** 32n;
    expectExact([new Int64()], [W - 4n, W + 4n, W], [W - 4n, W + 4n, W, 2n * W - 4n, 2n * W + 4n, 4n, -4n, W + 5n, W - 5n, 2n * W, 0n]);
    // 1-word keys at the int32 ends: differences that overflow int32 wrap
    const I32_MIN = -(2 ** 31);
    const I32_MAX = 2 ** 31 - 1;
    expectExact([new Int32()], [I32_MIN, I32_MIN + 5], [I32_MAX, I32_MAX - 5, I32_MIN, I32_MIN + 5, I32_MIN + 6, 0, -1, I32_MIN + 3]);
    expectExact([new Int32()], [I32_MAX, I32_MAX - 5], [I32_MIN, I32_MIN + 5, I32_MAX, I32_MAX - 5, I32_MAX - 6, 0, 1]);
  });

  it('matches the oracle over many windows and masks: sparse keys straddling a word, duplicates, NULLs, row lists', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.constantFrom(-(2 ** 32), -5, 0, 2 ** 32 - 3000), fc.constantFrom(1, 7, 64, 5000), (seed, base, capacity) => {
        const rng = new Rng(seed);
        const key = () => (rng.next() < 0.05 ? null : BigInt(base + Math.floor(rng.next() * 6000)));
        const build = Array.from({ length: 700 }, key);
        const probe = Array.from({ length: 3000 }, () => (rng.next() < 0.3 ? BigInt(base - 100 + Math.floor(rng.next() * 6200)) : key()));
        const s = sides([new Int64()], [new Int64()], rows(build), rows(probe), false);
        const table = rankLayout.build(s.build);
        const unhashed = { ...s.probe, hashes: NO_PROBE_HASHES };
        const want = oraclePairs(rows(build), rows(probe), false);
        expect(probeAll(table, unhashed, capacity)).toEqual(want);
        const hit = new Uint8Array(probe.length);
        for (const [p] of want) hit[p] = 1;
        const listed = Int32Array.from({ length: probe.length }, (_, i) => i).filter((i) => i % 3 !== 0);
        const out = new Uint8Array(probe.length).fill(9);
        table.contains(unhashed, out, listed);
        expect(Array.from(out)).toEqual(Array.from(hit, (h, i) => (i % 3 !== 0 ? h : 9)));
      }),
      { seed: 0x4a4b, numRuns: 40 },
    );
  });

  it('counts distinct keys, keeps `next` only when a key repeats, and refuses probes once released', () => {
    const unique = rankLayout.build(sides([new Int32()], [new Int32()], rows([5, 100, 37]), [], false).build) as RankHashTable;
    expect(unique.hasDuplicates).toBe(false);
    expect(unique.distinctKeys).toBe(3);
    expect(unique.memoryBytes).toBe(3 * 8 + 3 * 4); // 96 values: 3 directory entries of 8 bytes, 3 firsts
    const dup = rankLayout.build(sides([new Int32()], [new Int32()], rows([5, 100, 5, null]), [], false).build) as RankHashTable;
    expect(dup.hasDuplicates).toBe(true);
    expect(dup.distinctKeys).toBe(2);
    expect(dup.inserted).toBe(3);
    const s = sides([new Int32()], [new Int32()], rows([5, 100, 5]), rows([5, 6]), false);
    const t = rankLayout.build(s.build);
    t.release!();
    expect(() => probeAll(t, s.probe, 4)).toThrow(/used after release/);
    const empty = sides([new Int64()], [new Int64()], rows([null]), rows([1n, null]), false);
    expect(probeAll(rankLayout.build(empty.build), empty.probe, 1)).toEqual([]);
  });
});
