/**
 * Unit tests of the individual filters: bounds, IN list (incl. its fallback to map at the
 * distinct / byte limits), map (+ KeyRangeBitmap), and the AND combinator — including that they
 * DO prune in easy cases.
 */
import { Dictionary, Float64, Int32, Int64, Utf8, type DataType } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { hashKeys } from '../../core/keys/hash.ts';
import { normalizeKeys } from '../../core/keys/normalize.ts';
import type { KeyFilter } from '../../core/pushdown/policy.ts';
import type { ColumnStats } from '../../core/scan/scan.ts';
import { andFilters, FALSE_FILTER } from './and.ts';
import { autoPushdown } from './auto.ts';
import { BoundsFilter, boundsFilter, boundsPushdown } from './bounds.ts';
import { InList, inlistPushdown, membershipFilter } from './inlist.ts';
import { MapFilter, mapFilter, mapPushdown } from './map.ts';
import { batchOf, buildPartitions, contextFor, kindsFor, testConfig, vec, type Val } from './test-support.ts';
import type { ConfigInput } from '../../core/config/schema.ts';

/** One build partition + a probe batch over the same single key type. */
function setup(type: DataType, build: readonly Val[], probe: readonly Val[], config: ConfigInput = {}, buildType: DataType = type) {
  const kinds = kindsFor([type], [buildType]);
  const [part] = buildPartitions(batchOf({ b: vec(buildType, build) }), ['b'], kinds, 1);
  const ctx = contextFor([type], kinds, ['k'], testConfig(config));
  const batch = batchOf({ k: vec(type, probe) });
  const keys = normalizeKeys(batch, ['k'], kinds);
  const hashes = hashKeys(keys, part!.seed);
  return { part: part!, ctx, keys, hashes, kinds };
}

function run(f: KeyFilter, s: ReturnType<typeof setup>, rows: Int32Array | null = null): number[] {
  const keep = new Uint8Array(s.keys[0]!.length).fill(1);
  f.test(s.keys, f.needsHashes ? s.hashes : null, rows, keep);
  return [...keep];
}

const st = (min: ColumnStats['min'], max: ColumnStats['max'], nullCount = 0): ColumnStats => ({ min, max, nullCount });

describe('bounds', () => {
  it('prunes rows and containers outside [min, max] (easy case)', () => {
    const s = setup(new Int32(), [10, 20, 30], [5, 10, 25, 31, 30]);
    const f = boundsFilter(s.part, s.ctx);
    expect(f.description).toBe('k BETWEEN 10 AND 30');
    expect(run(f, s)).toEqual([0, 1, 1, 0, 1]);
    expect(f.mayContain([st(0, 9)])).toBe(false);
    expect(f.mayContain([st(31, 100)])).toBe(false);
    expect(f.mayContain([st(0, 10)])).toBe(true);
    expect(f.mayContain([st(30, 40)])).toBe(true);
    expect(f.mayContain([undefined])).toBe(true);
    expect(f.mayContain([st(null, null, 4)])).toBe(true);
    expect(f.mayContain([st(null, 9)])).toBe(false);
  });

  it('int64 bounds across the sign and 32-bit boundaries', () => {
    const s = setup(new Int64(), [-(2n ** 40n), 2n ** 33n], [-(2n ** 40n) - 1n, -1n, 0n, 2n ** 33n, 2n ** 33n + 1n, 2n ** 62n]);
    expect(run(boundsFilter(s.part, s.ctx), s)).toEqual([0, 1, 1, 1, 0, 0]);
  });

  it('int32 probe stats vs an int64 build key compare in the widened domain', () => {
    const s = setup(new Int32(), [2n ** 40n], [1], {}, new Int64());
    const f = boundsFilter(s.part, s.ctx);
    expect(f.mayContain([st(-(2 ** 31), 2 ** 31 - 1)])).toBe(false);
    expect(run(f, s)).toEqual([0]);
  });

  it('floats: NaN sits above every number; -0.0 equals 0.0', () => {
    const s = setup(new Float64(), [-0, 5], [0, -0, 5, 5.5, NaN, -1]);
    expect(run(boundsFilter(s.part, s.ctx), s)).toEqual([1, 1, 1, 0, 0, 0]);
    const t = setup(new Float64(), [1, NaN], [NaN, 1e300, 0.5, Infinity]);
    const f = boundsFilter(t.part, t.ctx);
    expect(run(f, t)).toEqual([1, 1, 0, 1]);
    expect(f.mayContain([st(-5, 0.5)])).toBe(false);
    expect(f.mayContain([st(-5, NaN)])).toBe(true); // NaN max: may hold a NaN
    const u = setup(new Float64(), [NaN, NaN], [NaN, 1, Infinity]);
    expect(run(boundsFilter(u.part, u.ctx), u)).toEqual([1, 0, 0]);
  });

  it('strings byte-wise, dictionary probe tested per entry', () => {
    const s = setup(new Utf8(), ['b', 'd'], ['a', 'b', 'c', 'd', 'e', 'bz']);
    expect(run(boundsFilter(s.part, s.ctx), s)).toEqual([0, 1, 1, 1, 0, 1]);
    const d = setup(new Dictionary(new Utf8(), new Int32()), ['b', 'd'], ['a', 'b', 'c', 'a', 'e', 'b', 'c', 'c'], {}, new Utf8());
    expect(run(boundsFilter(d.part, d.ctx), d)).toEqual([0, 1, 1, 0, 0, 1, 1, 1]);
    const f = boundsFilter(s.part, s.ctx);
    expect(f.mayContain([st('e', 'z')])).toBe(false);
    expect(f.mayContain([st('a', 'b')])).toBe(true);
    expect(f.mayContain([st('\uFFFD', 'z')])).toBe(true); // lossy stat: unknown lower side... upper 'z' overlaps
  });

  it('a partition whose keys are all NULL publishes FALSE', () => {
    const s = setup(new Int32(), [null, null], [1, 2]);
    expect(boundsFilter(s.part, s.ctx)).toBe(FALSE_FILTER);
    expect(boundsPushdown.planPartition(s.part, s.ctx)).toBe(FALSE_FILTER);
    expect(run(FALSE_FILTER, s)).toEqual([0, 0]);
  });

  it('honours the row list (unlisted rows untouched)', () => {
    const s = setup(new Int32(), [10], [1, 2, 3]);
    expect(run(boundsFilter(s.part, s.ctx), s, Int32Array.from([1]))).toEqual([1, 0, 1]);
  });
});

describe('inlist', () => {
  it('drops probe rows that miss the list (easy case) and prunes containers between values', () => {
    const s = setup(new Int32(), [1, 10, 10, 100], [1, 2, 10, 50, 100, 101]);
    const r = InList.build(s.part, s.ctx);
    expect(r.list).not.toBeNull();
    const list = r.list!;
    expect(list.size).toBe(3);
    expect(list.description).toBe('k IN (1, 10, 100)');
    expect(run(list, s)).toEqual([1, 0, 1, 0, 1, 0]);
    expect(list.mayContain([st(11, 99)])).toBe(false); // inside the bounds, but no listed value
    expect(list.mayContain([st(2, 10)])).toBe(true);
    expect(list.mayContain([st(101, null)])).toBe(false);
    expect(list.mayContain([undefined])).toBe(true);
    const policy = inlistPushdown.planPartition(s.part, s.ctx)!;
    expect(policy.description).toBe('k BETWEEN 1 AND 100 AND k IN (1, 10, 100)');
    expect(run(policy, s)).toEqual([1, 0, 1, 0, 1, 0]);
  });

  it('falls back to map at 151 distinct values (default limit 150)', () => {
    const keys150 = Array.from({ length: 150 }, (_, i) => i * 3);
    const at150 = setup(new Int64(), keys150.map(BigInt), [0n]);
    expect(InList.build(at150.part, at150.ctx).list?.size).toBe(150);
    expect(membershipFilter(at150.part, at150.ctx)).toBeInstanceOf(InList);
    const keys151 = [...keys150, 999].map(BigInt);
    const at151 = setup(new Int64(), keys151, [0n, 1n, 999n, 998n]);
    const out = InList.build(at151.part, at151.ctx);
    expect(out.list).toBeNull();
    expect(out.reason).toBe('more than 150 distinct values');
    const m = membershipFilter(at151.part, at151.ctx);
    expect(m).toBeInstanceOf(MapFilter);
    expect(m.description).toContain('IN list fallback: more than 150 distinct values');
    expect(run(m, at151)).toEqual([1, 0, 1, 0]);
    // duplicates do not count: 1000 rows of 150 distinct keys stay an IN list
    const dup = setup(new Int64(), Array.from({ length: 1000 }, (_, i) => BigInt(keys150[i % 150]!)), [3n]);
    expect(InList.build(dup.part, dup.ctx).list?.size).toBe(150);
  });

  it('falls back to map past 131072 bytes of keys', () => {
    // 100 distinct strings of 1400 bytes: 100 * (4 + 1400) = 140400 > 131072
    const big = Array.from({ length: 100 }, (_, i) => String(i).padStart(1400, 'x'));
    const s = setup(new Utf8(), big, [big[7]!, 'nope']);
    const out = InList.build(s.part, s.ctx);
    expect(out.list).toBeNull();
    expect(out.reason).toBe('more than 131072 bytes of keys');
    const f = inlistPushdown.planPartition(s.part, s.ctx)!;
    expect(f.description).toContain('IN MAP(');
    expect(run(f, s)).toEqual([1, 0]);
    // 93 of them fit: 93 * 1404 = 130572 <= 131072
    const fits = setup(new Utf8(), big.slice(0, 93), [big[7]!]);
    expect(InList.build(fits.part, fits.ctx).list?.bytes).toBe(93 * 1404);
  });

  it('limits come from the config', () => {
    const s = setup(new Int32(), [1, 2, 3, 4], [1], { 'pushdown.inlistMaxDistinct': 3 });
    expect(InList.build(s.part, s.ctx).reason).toBe('more than 3 distinct values');
    const t = setup(new Int32(), [1, 2, 3, 4], [1], { 'pushdown.inlistMaxBytes': 31 });
    expect(InList.build(t.part, t.ctx).reason).toBe('more than 31 bytes of keys');
  });

  it('multi-column keys: one packed value per row, containers need every column in range', () => {
    const kinds = kindsFor([new Int32(), new Utf8()], [new Int32(), new Utf8()]);
    const build = batchOf({ a: vec(new Int32(), [1, 1, 2, 5]), s: vec(new Utf8(), ['x', 'y', 'x', 'zz']) });
    const [part] = buildPartitions(build, ['a', 's'], kinds, 1);
    const ctx = contextFor([new Int32(), new Utf8()], kinds, ['a', 's']);
    const probe = batchOf({ a: vec(new Int32(), [1, 1, 2, 2, 5, 5]), s: vec(new Utf8(), ['x', 'zz', 'x', 'y', 'zz', 'z']) });
    const keys = normalizeKeys(probe, ['a', 's'], kinds);
    const list = InList.build(part!, ctx).list!;
    expect(list.description).toBe("(a, s) IN ((1, 'x'), (1, 'y'), (2, 'x'), (5, 'zz'))");
    const keep = new Uint8Array(6).fill(1);
    list.test(keys, hashKeys(keys, part!.seed), null, keep);
    expect([...keep]).toEqual([1, 0, 1, 0, 1, 0]);
    expect(list.mayContain([st(1, 2), st('y', 'z')])).toBe(true); // (1, 'y')
    expect(list.mayContain([st(2, 4), st('y', 'z')])).toBe(false); // (2, 'x') only
    expect(list.mayContain([st(3, 4), undefined])).toBe(false);
    expect(list.mayContain([undefined, st('zz', 'zz')])).toBe(true);
  });

  it('floats: -0.0 and 0.0 are one value, NaN matches NaN', () => {
    const s = setup(new Float64(), [-0, NaN, 2.5], [0, -0, NaN, 2.5, 3]);
    const list = InList.build(s.part, s.ctx).list!;
    expect(list.size).toBe(3);
    expect(run(list, s)).toEqual([1, 1, 1, 1, 0]);
    expect(list.mayContain([st(3, NaN)])).toBe(true);
    expect(list.mayContain([st(3, 4)])).toBe(false);
  });
});

describe('map', () => {
  it('tests membership against the build table with the partition seed', () => {
    const s = setup(new Int32(), [5, 7, 1000], [5, 6, 7, 1000, 1001]);
    const f = mapFilter(s.part, s.ctx) as MapFilter;
    expect(f.needsHashes).toBe(true);
    expect(run(f, s)).toEqual([1, 0, 1, 1, 0]);
    // hashes with another seed do not find the keys: why the composer must use the build's seed
    const keep = new Uint8Array(5).fill(1);
    mapFilter(s.part, s.ctx, undefined).test(s.keys, hashKeys(s.keys, s.part.seed ^ 0x1234), null, keep);
    expect([...keep]).toEqual([0, 0, 0, 0, 0]);
  });

  it('uses a KeyRangeBitmap for one integer key (rows first, then containers)', () => {
    const build = [...Array.from({ length: 50 }, (_, i) => i), ...Array.from({ length: 50 }, (_, i) => 100_000 + i)];
    const s = setup(new Int32(), build, [3, 60, 50_000, 100_049]);
    const f = mapFilter(s.part, s.ctx) as MapFilter;
    expect(f.bitmap).not.toBeNull();
    expect(f.description).toMatch(/^k IN MAP\(100 rows, chained\) \+ BITMAP\(/);
    expect(run(f, s)).toEqual([1, 0, 0, 1]);
    expect(f.mayContain([st(1000, 99_999)])).toBe(false);
    expect(f.mayContain([st(99_999, 100_000)])).toBe(true);
    expect(f.mayContain([undefined])).toBe(true);
    const off = setup(new Int32(), build, [3], { 'pushdown.keyRangeBitmap': false });
    const g = mapFilter(off.part, off.ctx) as MapFilter;
    expect(g.bitmap).toBeNull();
    expect(g.mayContain([st(1000, 99_999)])).toBe(true); // no bitmap: containers only by bounds
    const p = mapPushdown.planPartition(off.part, off.ctx)!;
    expect(p.mayContain([st(200_000, 300_000)])).toBe(false); // ... which the policy ANDs in
  });

  it('no bitmap for strings or multi-column keys', () => {
    const s = setup(new Utf8(), ['a', 'q'], ['a']);
    expect((mapFilter(s.part, s.ctx) as MapFilter).bitmap).toBeNull();
  });
});

describe('and', () => {
  it('drops nulls, flattens, and short-circuits FALSE', () => {
    const s = setup(new Int32(), [10, 20], [10, 15, 20, 30]);
    const b = boundsFilter(s.part, s.ctx) as BoundsFilter;
    const l = InList.build(s.part, s.ctx).list!;
    expect(andFilters([null, null])).toBeNull();
    expect(andFilters([b, null])).toBe(b);
    expect(andFilters([b, FALSE_FILTER])).toBe(FALSE_FILTER);
    const a = andFilters([b, andFilters([l, null])])!;
    expect(a.needsHashes).toBe(true);
    expect(run(a, s)).toEqual([1, 0, 1, 0]);
    expect(a.mayContain([st(11, 19)])).toBe(false);
  });

  it('auto = bounds AND (IN list | map)', () => {
    const s = setup(new Int32(), [10, 20], [10, 15]);
    expect(autoPushdown.planPartition(s.part, s.ctx)!.description).toBe('k BETWEEN 10 AND 20 AND k IN (10, 20)');
    const many = setup(new Int32(), Array.from({ length: 200 }, (_, i) => i * 2), [4, 5]);
    const f = autoPushdown.planPartition(many.part, many.ctx)!;
    expect(f.description).toMatch(/^k BETWEEN 0 AND 398 AND k IN MAP\(200 rows, chained\)/);
    expect(run(f, many)).toEqual([1, 0]);
  });
});
