/**
 * swiss layout: size at 1M keys, a million duplicates probed with capacity 8 (and the table shrunk
 * to the distinct keys), adversarial hashes (every key in one home group so groups fill and the
 * probe walks across the table end; salts that always collide), NULL = NULL in both storage modes,
 * windows larger than one resolve pass, refusals and argument errors. Equality and NULL rules are
 * also covered differentially, for every key shape, in layouts.test.ts.
 */
import { Bool, Dictionary, Float64, Int32, Int64, Utf8, makeVector } from 'apache-arrow';
import type { DataType } from 'apache-arrow';
import { afterEach, describe, expect, it } from 'vitest';
import { ProbeCursor } from '../../core/hashmap.ts';
import { hashKeys } from '../../core/keys/hash.ts';
import { normalizeKeyColumn } from '../../core/keys/normalize.ts';
import { TABLE_SEED } from '../../core/keys/partition.ts';
import { keyKindOf } from '../../core/keys/resolve.ts';
import { Rng } from '../../core/random.ts';
import { cachedBytes, clearBufferCache } from '../../core/memory/buffer-cache.ts';
import { SwissHashTable, swissLayout } from './swiss.ts';
import { expectStream, heavyPairs, int64BuildInput, int64ProbeInput, membership, oraclePairs, probeAll, sides } from './test-helpers.ts';
import type { Row } from './test-helpers.ts';

const BIGINT = keyKindOf(new Int64(), 'k');
const MB = 1024 * 1024;

function int64Words(values: readonly { lo: number; hi: number }[]) {
  const words = new Int32Array(2 * values.length);
  values.forEach((v, i) => {
    words[2 * i] = v.lo;
    words[2 * i + 1] = v.hi;
  });
  return normalizeKeyColumn(makeVector(new BigInt64Array(words.buffer)), BIGINT);
}

function membershipOf(expected: readonly [number, number][], rows: number): number[] {
  const m = new Array<number>(rows).fill(0);
  for (const [i] of expected) m[i] = 1;
  return m;
}

const rows = (xs: readonly (number | bigint | string | boolean | null)[]): Row[] => xs.map((x) => [x]);
const dict = () => new Dictionary(new Utf8(), new Int32());

describe('swiss layout', () => {
  it('holds 1M unique int64 keys (multiples of 10) in <= 40 MB: 2 MB of tag groups + inline slots', () => {
    const n = 1_000_000;
    const table = new SwissHashTable(int64BuildInput(n, (i) => i * 10));
    console.info(`swiss: 1M unique int64 keys -> ${table.slots} slots, memoryBytes ${table.memoryBytes} (${(table.memoryBytes / MB).toFixed(1)} MB)`);
    expect(table.storage).toBe('inline');
    expect(table.narrow).toBe(true); // every key < 2^32: slots keep the low word
    expect(table.inserted).toBe(n);
    expect(table.distinct).toBe(n);
    expect(table.hasDuplicates).toBe(false);
    expect(table.slots).toBe(2 ** 21);
    expect(table.memoryBytes).toBe(2 ** 21 * (1 + 8)); // a tag byte + [row, lo] per slot, no `next`
    expect(table.memoryBytes).toBeLessThanOrEqual(40 * MB);
    const probe = int64ProbeInput([0, 5, 10, 9_999_990, 10_000_000, -10, 123_450, 123_451]);
    expect(membership(table, probe)).toEqual([1, 0, 1, 1, 0, 0, 1, 0]);
    expect(probeAll(table, probe, 3)).toEqual([[0, 0], [2, 1], [3, 999_999], [6, 12_345]]);
  });

  it('a probe row with 1M duplicate matches resumes with capacity 8; the table shrinks to the distinct keys', () => {
    const n = 1_000_000;
    const table = new SwissHashTable(int64BuildInput(n, () => 7));
    expect(table.distinct).toBe(1);
    expect(table.slots).toBe(16);
    expect(table.memoryBytes).toBe(16 * 9 + 4 * n);
    expect(expectStream(table, int64ProbeInput([7, 8, 7]), heavyPairs(n, [0, 2]))).toBe(2 * n);
  });

  it('narrow keys: a probe key with the right low word but another high word never matches', () => {
    const wide = (lo: number, hi: number) => ({ lo, hi });
    for (const [build, narrow] of [
      [[wide(5, 0), wide(7, 0), wide(5, 0)], true],
      [[wide(5, -1), wide(-3, -1)], true], // small negatives share hi = -1
      [[wide(5, 0), wide(5, 1)], false], // 5 and 5 + 2^32
    ] as const) {
      const keys = [int64Words(build)];
      const table = new SwissHashTable({ keys, hashes: hashKeys(keys, TABLE_SEED), rows: build.length, nullEqualsNull: false });
      expect(table.narrow).toBe(narrow);
      const probe = [wide(5, 0), wide(5, 1), wide(5, -1), wide(7, 0), wide(-3, -1), wide(-3, 0)];
      const pk = [int64Words(probe)];
      const input = { keys: pk, hashes: hashKeys(pk, TABLE_SEED), rows: probe.length };
      const expected: [number, number][] = [];
      probe.forEach((p, i) => build.forEach((b, j) => p.lo === b.lo && p.hi === b.hi && expected.push([i, j])));
      expect(probeAll(table, input, 2)).toEqual(expected);
      const out = new Uint8Array(probe.length);
      table.contains(input, out, null);
      expect(Array.from(out)).toEqual(membershipOf(expected, probe.length));
    }
  });

  it('narrow keys: the key-range pre-check agrees with the table while on, after it switches itself off, and for row lists', () => {
    const n = 200_000;
    const build = int64BuildInput(1000, (i) => 3 * i + 100); // keys 100, 103, …, 3097
    const table = new SwissHashTable(build);
    // the first 100K probe keys mostly in range (the check switches off), the rest mostly outside
    const values = Array.from({ length: n }, (_, i) => (i < n / 2 ? 100 + ((i * 7) % 3000) : (i % 10 === 0 ? 100 + ((i * 7) % 3000) : 5000 + i)));
    const probe = int64ProbeInput(values);
    const expected = values.map((v) => (v >= 100 && v <= 3097 && (v - 100) % 3 === 0 ? 1 : 0));
    expect(membership(table, probe)).toEqual(expected);
    let pairs = 0;
    const cursor = new ProbeCursor();
    const op = new Int32Array(4096);
    const ob = new Int32Array(4096);
    let bad = 0;
    while (!cursor.done) {
      const got = table.probe(probe, cursor, op, ob, 4096);
      for (let k = 0; k < got; k++) if (expected[op[k]!] !== 1 || 3 * ob[k]! + 100 !== values[op[k]!]) bad++;
      pairs += got;
    }
    expect(bad).toBe(0);
    expect(pairs).toBe(expected.reduce((a: number, b) => a + b, 0));
    const list = Int32Array.from({ length: n / 2 }, (_, k) => 2 * k + 1);
    const some = new Uint8Array(n).fill(9);
    table.contains(probe, some, list);
    expect(Array.from(some)).toEqual(expected.map((e, i) => (i % 2 === 1 ? e : 9)));
  });

  const SHAPES: { name: string; type: DataType; value: (rng: Rng, lo: number, hi: number) => number | boolean | string }[] = [
    { name: 'int32 (inline, 2 words)', type: new Int32(), value: (rng, lo, hi) => rng.int(lo, hi) },
    { name: 'bool (inline, 1 word)', type: new Bool(), value: (rng) => rng.chance(0.5) },
    { name: 'utf8 (hashed)', type: new Utf8(), value: (rng, lo, hi) => `s${rng.int(lo, hi)}` },
    { name: 'dictionary utf8 (hashed)', type: dict(), value: (rng, lo, hi) => `d${rng.int(lo, hi)}` },
  ];

  for (const shape of SHAPES) {
    it(`${shape.name}: agrees with the oracle when every key has the same hash (full groups, walk across the table end)`, () => {
      const rng = new Rng(11);
      const n = shape.type instanceof Bool ? 30 : 300;
      const build = Array.from({ length: n }, () => [rng.chance(0.05) ? null : shape.value(rng, 0, 120)] as Row);
      const probe = Array.from({ length: 2 * n }, () => [rng.chance(0.05) ? null : shape.value(rng, -10, 130)] as Row);
      for (const h of [0xffffffff, 0x80000000, 0, 0x7f]) {
        for (const nen of [false, true]) {
          const s = sides([shape.type], [shape.type], build, probe, nen);
          s.build.hashes.fill(h);
          s.probe.hashes.fill(h);
          const table = swissLayout.build(s.build);
          const expected = oraclePairs(build, probe, nen);
          for (const cap of [1, 7, 1024]) expect(probeAll(table, s.probe, cap)).toEqual(expected);
          expect(membership(table, s.probe)).toEqual(membershipOf(expected, probe.length));
        }
      }
    });
  }

  it('agrees with the oracle when salts collide but homes differ (hash low 7 bits constant)', () => {
    const rng = new Rng(12);
    for (const type of [new Int64(), new Utf8()]) {
      const v = (lo: number, hi: number) => (type instanceof Utf8 ? `k${rng.int(lo, hi)}` : rng.int(lo, hi));
      const build = Array.from({ length: 2000 }, () => [v(0, 3000)] as Row);
      const probe = Array.from({ length: 3000 }, () => [v(-100, 3100)] as Row);
      const s = sides([type], [type], build, probe, false);
      for (const hs of [s.build.hashes, s.probe.hashes]) for (let i = 0; i < hs.length; i++) hs[i] = (hs[i]! & ~0x7f) >>> 0;
      const table = swissLayout.build(s.build);
      const expected = oraclePairs(build, probe, false);
      expect(probeAll(table, s.probe, 5)).toEqual(expected);
      expect(probeAll(table, s.probe, 100_000)).toEqual(expected);
    }
  });

  it('NULL = NULL: inline tables chain NULL build rows apart (a NULL never equals 0); hashed tables slot them', () => {
    const cases: [DataType, Row[], Row[], 'inline' | 'hashed'][] = [
      [new Int64(), rows([null, 0, 1, null, 0, null]), rows([null, 0, 2, null, 1]), 'inline'],
      [new Utf8(), rows([null, '', 'a', null, '', null]), rows([null, '', 'b', null, 'a']), 'hashed'],
    ];
    for (const [type, build, probe, storage] of cases) {
      for (const nen of [false, true]) {
        const s = sides([type], [type], build, probe, nen);
        const table = swissLayout.build(s.build) as SwissHashTable;
        expect(table.storage).toBe(storage);
        expect(table.inserted).toBe(nen ? 6 : 3);
        const expected = oraclePairs(build, probe, nen);
        if (nen) expect(expected.slice(0, 3)).toEqual([[0, 0], [0, 3], [0, 5]]);
        for (const cap of [1, 2, 64]) expect(probeAll(table, s.probe, cap)).toEqual(expected);
        expect(membership(table, s.probe)).toEqual(nen ? [1, 1, 0, 1, 1] : [0, 1, 0, 0, 1]);
      }
    }
    // null-equals-null without NULL build rows: a NULL probe row matches nothing
    const s = sides([new Int32()], [new Int32()], rows([0, 1]), rows([null, 0]), true);
    expect(probeAll(swissLayout.build(s.build), s.probe, 4)).toEqual([[1, 0]]);
  });

  it('multi-column keys with NULLs in some columns, both NULL rules', () => {
    const rng = new Rng(5);
    const row = (): Row => [rng.chance(0.1) ? null : rng.int(0, 4), rng.chance(0.1) ? null : `v${rng.int(0, 3)}`];
    const build = Array.from({ length: 400 }, row);
    const probe = Array.from({ length: 700 }, row);
    for (const nen of [false, true]) {
      const s = sides([new Int32(), new Utf8()], [new Int64(), new Utf8()], build, probe, nen);
      const table = swissLayout.build(s.build) as SwissHashTable;
      expect(table.storage).toBe('hashed');
      const expected = oraclePairs(build, probe, nen);
      for (const cap of [3, 4096]) expect(probeAll(table, s.probe, cap)).toEqual(expected);
      expect(membership(table, s.probe)).toEqual(membershipOf(expected, probe.length));
    }
  });

  for (const [name, type, wrap] of [
    ['int64', new Int64(), (v: number) => v],
    ['float64', new Float64(), (v: number) => v / 4],
    ['utf8', new Utf8(), (v: number) => `key-${v}`],
  ] as const) {
    it(`${name}: batches larger than one resolve window agree with the oracle (row lists too)`, () => {
      const rng = new Rng(7);
      const value = (lo: number, hi: number): Row => [rng.chance(0.05) ? null : (wrap as (v: number) => number | string)(rng.int(lo, hi))];
      const build = Array.from({ length: 3000 }, () => value(0, 4000));
      const probe = Array.from({ length: 5000 }, () => value(-100, 4100));
      for (const nen of [false, true]) {
        const s = sides([type], [type], build, probe, nen);
        const table = swissLayout.build(s.build);
        const expected = oraclePairs(build, probe, nen);
        for (const cap of [7, 1000, 100_000]) expect(probeAll(table, s.probe, cap)).toEqual(expected);
        const member = Uint8Array.from(membershipOf(expected, probe.length));
        const out = new Uint8Array(probe.length).fill(9);
        table.contains(s.probe, out, null);
        expect(out).toEqual(member);
        const list = Int32Array.from({ length: 1666 }, (_, k) => 3 * k + 1);
        const some = new Uint8Array(probe.length).fill(9);
        table.contains(s.probe, some, list);
        expect(some).toEqual(member.map((m, i) => (i % 3 === 1 && i <= 3 * 1665 + 1 ? m : 9)));
      }
    });
  }

  it('indexes every key shape; refuses only an empty key list', () => {
    expect(swissLayout.unsupportedReason(sides([new Utf8()], [new Utf8()], rows(['a']), [], false).build)).toBeNull();
    expect(swissLayout.unsupportedReason(sides([new Int32(), new Utf8()], [new Int32(), new Utf8()], [[1, 'a']], [], true).build)).toBeNull();
    expect(swissLayout.unsupportedReason({ keys: [], hashes: new Uint32Array(0), rows: 0, nullEqualsNull: false })).toMatch(/no key columns/);
  });

  it('an empty or all-NULL build only advances the cursor', () => {
    for (const type of [new Int32(), new Utf8()]) {
      for (const build of [[], [[null], [null]]] as Row[][]) {
        const s = sides([type], [type], build, [[type instanceof Utf8 ? 'x' : 1], [null]], false);
        const table = swissLayout.build(s.build);
        expect(table.inserted).toBe(0);
        const cursor = new ProbeCursor();
        expect(table.probe(s.probe, cursor, new Int32Array(4), new Int32Array(4), 4)).toBe(0);
        expect(cursor.done).toBe(true);
        expect(membership(table, s.probe)).toEqual([0, 0]);
      }
    }
  });

  it('rejects bad arguments with a RangeError naming the problem', () => {
    const s = sides([new Int32()], [new Int32()], [[1]], [[1]], false);
    const table = swissLayout.build(s.build);
    const cursor = new ProbeCursor();
    expect(() => table.probe(s.probe, cursor, new Int32Array(4), new Int32Array(4), 0)).toThrow(/capacity/);
    expect(() => table.probe(s.probe, cursor, new Int32Array(2), new Int32Array(4), 4)).toThrow(/smaller than capacity/);
    const two = sides([new Int32(), new Int32()], [new Int32(), new Int32()], [[1, 1]], [[1, 1]], false);
    expect(() => table.probe(two.probe, cursor, new Int32Array(4), new Int32Array(4), 4)).toThrow(/key columns/);
    expect(() => swissLayout.build({ ...s.build, keys: [] })).toThrow(/at least one key/);
  });
});

describe('swiss and the buffer cache', () => {
  afterEach(() => clearBufferCache());

  it('a released swiss table refuses to be probed, and its arrays serve the next table', () => {
    const kind = keyKindOf(new Int64(), 'k');
    const col = normalizeKeyColumn(makeVector(BigInt64Array.from({ length: 300_000 }, (_, i) => BigInt(i * 3))), kind);
    const input = { keys: [col], hashes: hashKeys([col], TABLE_SEED), rows: 300_000, nullEqualsNull: false };
    const t1 = new SwissHashTable(input);
    t1.release();
    expect(cachedBytes()).toBeGreaterThan(0);
    const probe = { keys: [col], hashes: input.hashes, rows: 10 };
    expect(() => t1.probe(probe, new ProbeCursor(), new Int32Array(8), new Int32Array(8), 8)).toThrow(/after release/);
    const t2 = new SwissHashTable(input); // reuses the cached arrays
    const out = new Uint8Array(10);
    t2.contains(probe, out, null);
    expect(Array.from(out)).toEqual(new Array(10).fill(1));
  });
});
