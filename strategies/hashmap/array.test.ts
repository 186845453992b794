/**
 * array layout: what it refuses (and why), exact 64-bit arithmetic without BigInt near the ends
 * of the int64/uint64 domains, dropping `next` when keys are unique, and misses outside [min, max].
 */
import { Float64, Int32, Int64, Uint64, Utf8 } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { ArrayHashTable, arrayLayout } from './array.ts';
import { oraclePairs, probeAll, sides } from './test-helpers.ts';
import type { Row } from './test-helpers.ts';

const rows = (xs: readonly (number | bigint | string | null)[]): Row[] => xs.map((x) => [x]);

describe('array layout', () => {
  it('refuses several keys, non-integers, wide ranges and NULL = NULL with NULL build keys', () => {
    const reason = (types: Parameters<typeof sides>[0], build: Row[], nen = false) => arrayLayout.unsupportedReason(sides(types, types, build, [], nen).build);
    expect(reason([new Int32(), new Int32()], [[1, 2]])).toMatch(/exactly one key column, got 2/);
    expect(reason([new Utf8()], rows(['a']))).toMatch(/integer or boolean key, got VARCHAR/);
    expect(reason([new Float64()], rows([1]))).toMatch(/got DOUBLE/);
    expect(reason([new Int64()], rows([-(2n ** 63n), 2n ** 63n - 1n]))).toMatch(/at most 2\^26/);
    expect(reason([new Int64()], rows([0n, 2n ** 26n]))).toMatch(/at most 2\^26/);
    expect(reason([new Int64()], rows([0n, 2n ** 26n - 1n]))).toBeNull();
    expect(reason([new Int32()], rows([1, null]), true)).toMatch(/NULL build keys under null-equals-null/);
    expect(reason([new Int32()], rows([1, null]), false)).toBeNull();
    expect(reason([new Int32()], rows([1, 2]), true)).toBeNull();
  });

  it('is exact at the ends of the int64 and uint64 domains and across word boundaries', () => {
    const cases: [Parameters<typeof sides>[0], bigint[], bigint[]][] = [
      [[new Int64()], [2n ** 63n - 1n, 2n ** 63n - 3n], [2n ** 63n - 1n, 2n ** 63n - 2n, 2n ** 63n - 3n, -(2n ** 63n), 0n, 2n ** 63n - 4n]],
      [[new Int64()], [-(2n ** 63n), -(2n ** 63n) + 2n], [-(2n ** 63n), -(2n ** 63n) + 1n, -(2n ** 63n) + 2n, 2n ** 63n - 1n, -1n]],
      [[new Int64()], [-1n, 1n], [-3n, -2n, -1n, 0n, 1n, 2n, 2n ** 32n - 2n, -(2n ** 32n) + 3n]],
      [[new Int64()], [2n ** 32n - 1n, 2n ** 32n + 1n], [2n ** 32n - 1n, 2n ** 32n, 2n ** 32n + 1n, 1n, -1n, 2n ** 33n - 1n]],
      [[new Uint64()], [2n ** 64n - 1n, 2n ** 64n - 2n], [2n ** 64n - 1n, 2n ** 64n - 2n, 0n, 2n ** 63n, 2n ** 63n - 2n]],
      [[new Uint64()], [2n ** 63n - 1n, 2n ** 63n + 1n], [2n ** 63n - 1n, 2n ** 63n, 2n ** 63n + 1n, 2n ** 63n - 2n, 1n]],
    ];
    for (const [types, build, probe] of cases) {
      const s = sides(types, types, rows(build), rows(probe), false);
      expect(arrayLayout.unsupportedReason(s.build)).toBeNull();
      const table = arrayLayout.build(s.build) as ArrayHashTable;
      const [a, b] = build as [bigint, bigint];
      expect(table.span).toBe(Number((a > b ? a - b : b - a) + 1n));
      expect(probeAll(table, s.probe, 2)).toEqual(oraclePairs(rows(build), rows(probe), false));
    }
  });

  it('keeps `next` only when a key repeats', () => {
    const unique = arrayLayout.build(sides([new Int32()], [new Int32()], rows([5, 1, 3]), [], false).build) as ArrayHashTable;
    expect(unique.hasDuplicates).toBe(false);
    expect(unique.memoryBytes).toBe(5 * 4 + 4); // 5 slots + 1 word of presence bits
    const dup = arrayLayout.build(sides([new Int32()], [new Int32()], rows([5, 1, 5]), [], false).build) as ArrayHashTable;
    expect(dup.hasDuplicates).toBe(true);
    expect(dup.memoryBytes).toBe(5 * 4 + 4 + 3 * 4);
  });

  it('misses outside [min, max] and on NULL probe keys; an empty build has no slots', () => {
    const s = sides([new Int32()], [new Int32()], rows([10, 12, null]), rows([9, 10, 11, 12, 13, null, -2147483648, 2147483647]), false);
    const table = arrayLayout.build(s.build);
    const out = new Uint8Array(8);
    table.contains(s.probe, out, null);
    expect(Array.from(out)).toEqual([0, 1, 0, 1, 0, 0, 0, 0]);
    // the array layout never reads probe hashes: an empty hash array is fine
    const unhashed = { ...s.probe, hashes: new Uint32Array(0) };
    const out2 = new Uint8Array(8);
    table.contains(unhashed, out2, null);
    expect(out2).toEqual(out);
    expect(probeAll(table, unhashed, 3)).toEqual([[1, 0], [3, 1]]);
    const empty = sides([new Int32()], [new Int32()], [], rows([1]), false);
    const t0 = arrayLayout.build(empty.build) as ArrayHashTable;
    expect(t0.span).toBe(0);
    expect(probeAll(t0, empty.probe, 1)).toEqual([]);
  });

  it('throws the refusal when built anyway', () => {
    const s = sides([new Utf8()], [new Utf8()], rows(['x']), [], false);
    expect(() => arrayLayout.build(s.build)).toThrow(/integer or boolean key/);
  });
});
