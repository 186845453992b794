import {
  Binary,
  Bool,
  DateDay,
  DateMillisecond,
  Decimal,
  Dictionary,
  Field,
  Float32,
  Float64,
  Int32,
  Int64,
  List,
  TimeUnit,
  Timestamp,
  Uint32,
  Uint64,
  Utf8,
  type DataType,
} from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { zoneMapOf } from '../../core/scan/zone-map.ts';
import { normalizeKeyColumn } from '../../core/keys/normalize.ts';
import type { KeyKind } from '../../core/keys/types.ts';
import type { ColumnStats } from '../../core/scan/scan.ts';
import {
  compareKeyValues,
  extremeRows,
  keyValueAt,
  rangeContains,
  rangeMayOverlap,
  statsToKeyRange,
  statToKeyValue,
  UNBOUNDED,
} from '../../core/scan/key-stats.ts';
import { batchOf, kindsFor, vec, type Val } from './test-support.ts';

const BIGINT: KeyKind = { order: 'int', width: 2, sqlType: 'BIGINT' };
const HUGEINT: KeyKind = { order: 'int', width: 3, sqlType: 'HUGEINT' };
const DOUBLE: KeyKind = { order: 'float', width: 2, sqlType: 'DOUBLE' };
const FLOAT: KeyKind = { order: 'float', width: 2, sqlType: 'FLOAT' };
const VARCHAR: KeyKind = { order: 'bytes', width: 0, sqlType: 'VARCHAR' };
const DATE: KeyKind = { order: 'int', width: 2, sqlType: 'DATE' };
const dec = (scale: number): KeyKind => ({ order: 'decimal', width: 4, sqlType: `DECIMAL(38,${scale})`, scale });
const ts = (unit: KeyKind['timeUnit']): KeyKind => ({ order: 'int', width: 2, sqlType: `TS_${unit}`, timeUnit: unit });

const range = (min: ColumnStats['min'], max: ColumnStats['max'], type: DataType, kind: KeyKind) =>
  statsToKeyRange({ min, max, nullCount: 0 }, type, kind);

describe('statsToKeyRange: integers', () => {
  it('widens 32-bit stats (numbers) to bigint', () => {
    expect(range(-5, 7, new Int32(), BIGINT)).toEqual({ lo: -5n, hi: 7n });
    expect(range(0, 2 ** 32 - 1, new Uint32(), BIGINT)).toEqual({ lo: 0n, hi: 4294967295n });
  });
  it('keeps 64-bit stats exact, including UBIGINT meeting a signed key (HUGEINT)', () => {
    expect(range(-(2n ** 63n), 2n ** 63n - 1n, new Int64(), BIGINT)).toEqual({ lo: -(2n ** 63n), hi: 2n ** 63n - 1n });
    expect(range(0n, 2n ** 64n - 1n, new Uint64(), HUGEINT)).toEqual({ lo: 0n, hi: 2n ** 64n - 1n });
  });
  it('integers into a decimal kind are scaled', () => {
    expect(range(-5, 7, new Int32(), dec(2))).toEqual({ lo: -500n, hi: 700n });
  });
  it('booleans are 0/1', () => {
    expect(range(false, true, new Bool(), BIGINT)).toEqual({ lo: 0n, hi: 1n });
  });
  it('a stat of the wrong JS type or a non-integral number is unknown', () => {
    expect(range('5', 1.5, new Int32(), BIGINT)).toEqual(UNBOUNDED);
    expect(range(1, 1.5, new Int32(), BIGINT)).toEqual({ lo: 1n, hi: null });
  });
  it('integers never meet a timestamp kind', () => {
    expect(range(1, 2, new Int32(), ts('SECOND'))).toEqual(UNBOUNDED);
  });
});

describe('statsToKeyRange: timestamps and dates', () => {
  it('scales a coarser probe unit up to the kind unit', () => {
    expect(range(5n, 7n, new Timestamp(TimeUnit.SECOND), ts('MILLISECOND'))).toEqual({ lo: 5000n, hi: 7000n });
    expect(range(-1n, 1n, new Timestamp(TimeUnit.MICROSECOND), ts('NANOSECOND'))).toEqual({ lo: -1000n, hi: 1000n });
  });
  it('scaling down floors the min and ceils the max (also for negatives)', () => {
    expect(range(1_999_999n, 1_000_001n, new Timestamp(TimeUnit.NANOSECOND), ts('MILLISECOND'))).toEqual({ lo: 1n, hi: 2n });
    expect(range(-1n, -1n, new Timestamp(TimeUnit.NANOSECOND), ts('MILLISECOND'))).toEqual({ lo: -1n, hi: 0n });
    expect(range(-2_000_000n, -2_000_000n, new Timestamp(TimeUnit.NANOSECOND), ts('MILLISECOND'))).toEqual({ lo: -2n, hi: -2n });
  });
  it('same unit is the identity', () => {
    expect(range(3n, 4n, new Timestamp(TimeUnit.MILLISECOND, 'UTC'), { ...ts('MILLISECOND'), sqlType: 'TIMESTAMP WITH TIME ZONE' })).toEqual({
      lo: 3n,
      hi: 4n,
    });
  });
  it('date32 days: DATE kind as days, timestamp kinds scaled from days', () => {
    expect(range(-3, 4, new DateDay(), DATE)).toEqual({ lo: -3n, hi: 4n });
    expect(range(1, 2, new DateDay(), ts('SECOND'))).toEqual({ lo: 86_400n, hi: 172_800n });
    expect(range(1, 1, new DateDay(), ts('MICROSECOND'))).toEqual({ lo: 86_400_000_000n, hi: 86_400_000_000n });
  });
  it('Date64 stats are not in the convention: unknown', () => {
    expect(range(1, 2, new DateMillisecond(), DATE)).toEqual(UNBOUNDED);
  });
  it('agrees with normalisation on real columns (ts[s] probe vs ts[ms] build)', () => {
    const [kind] = kindsFor([new Timestamp(TimeUnit.SECOND)], [new Timestamp(TimeUnit.MILLISECOND)]);
    expect(kind!.timeUnit).toBe('MILLISECOND');
    const col = normalizeKeyColumn(vec(new Timestamp(TimeUnit.SECOND), [7n]), kind!);
    expect(keyValueAt(col, 0)).toEqual(range(7n, 7n, new Timestamp(TimeUnit.SECOND), kind!).lo);
  });
});

describe('statsToKeyRange: decimals', () => {
  it('rescales to the kind scale', () => {
    expect(range(12345n, 20000n, new Decimal(2, 10, 128), dec(4))).toEqual({ lo: 1234500n, hi: 2000000n });
  });
  it('scaling down floors min / ceils max', () => {
    expect(range(12345n, 12345n, new Decimal(4, 10, 128), dec(2))).toEqual({ lo: 123n, hi: 124n });
    expect(range(-12345n, -12345n, new Decimal(4, 10, 128), dec(2))).toEqual({ lo: -124n, hi: -123n });
  });
  it('agrees with normalisation (Decimal(_,2) probe vs Decimal(_,4) build)', () => {
    const [kind] = kindsFor([new Decimal(2, 10, 128)], [new Decimal(4, 12, 128)]);
    const col = normalizeKeyColumn(vec(new Decimal(2, 10, 128), [-12345n]), kind!);
    expect(keyValueAt(col, 0)).toBe(-1234500n);
    expect(range(-12345n, -12345n, new Decimal(2, 10, 128), kind!)).toEqual({ lo: -1234500n, hi: -1234500n });
  });
});

describe('statsToKeyRange: floats', () => {
  it('doubles pass through; a NaN max (the top) or NaN min is unknown', () => {
    expect(range(-1.5, 2.5, new Float64(), DOUBLE)).toEqual({ lo: -1.5, hi: 2.5 });
    expect(range(-1.5, NaN, new Float64(), DOUBLE)).toEqual({ lo: -1.5, hi: null });
    expect(range(NaN, NaN, new Float64(), DOUBLE)).toEqual(UNBOUNDED);
    expect(range(-Infinity, Infinity, new Float64(), DOUBLE)).toEqual({ lo: -Infinity, hi: Infinity });
  });
  it('FLOAT kind rounds like normalisation (16777217::INT = 16777216::FLOAT)', () => {
    const r = range(16777217, 16777217, new Int32(), FLOAT);
    expect(r).toEqual({ lo: 16777216, hi: 16777216 });
  });
  it('64-bit ints and decimals into DOUBLE are widened outward', () => {
    const big = 2n ** 53n + 1n;
    const r = range(big, big, new Int64(), DOUBLE);
    expect(r.lo as number).toBeLessThanOrEqual(Number(big));
    expect(r.hi as number).toBeGreaterThanOrEqual(Number(big));
    const d = range(10n, 10n, new Decimal(1, 5, 128), DOUBLE);
    expect(d.lo as number).toBeLessThan(1);
    expect(d.hi as number).toBeGreaterThan(1);
    expect(d.hi as number).toBeLessThan(1.0001);
  });
});

describe('statsToKeyRange: strings and binary', () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  it('strings become their UTF-8 bytes; dictionary types are unwrapped', () => {
    expect(range('a', 'z😀', new Utf8(), VARCHAR)).toEqual({ lo: enc('a'), hi: enc('z😀') });
    expect(range('m', 'q', new Dictionary(new Utf8(), new Int32()), VARCHAR)).toEqual({ lo: enc('m'), hi: enc('q') });
  });
  it('binary stats pass through', () => {
    const a = new Uint8Array([0, 255]);
    expect(range(a, a, new Binary(), { ...VARCHAR, sqlType: 'BLOB' })).toEqual({ lo: a, hi: a });
  });
  it('lossy decodes (U+FFFD) and lone surrogates are unknown', () => {
    expect(range('\uFFFDa', 'b\uD800', new Utf8(), VARCHAR)).toEqual(UNBOUNDED);
  });
});

describe('statsToKeyRange: degenerate', () => {
  it('undefined stats, all-NULL stats, unordered types', () => {
    expect(statsToKeyRange(undefined, new Int32(), BIGINT)).toBe(UNBOUNDED);
    expect(statsToKeyRange({ min: null, max: null, nullCount: 3 }, new Int32(), BIGINT)).toBe(UNBOUNDED);
    expect(range(1, 2, new List(new Field('x', new Int32())), BIGINT)).toEqual(UNBOUNDED);
    expect(statToKeyValue(5, new Utf8(), BIGINT, false)).toBeNull();
  });
});

describe('build-side values and ordering', () => {
  it('compares NaN above every number, -0 == 0, bytes byte-wise', () => {
    expect(compareKeyValues(NaN, Infinity)).toBeGreaterThan(0);
    expect(compareKeyValues(NaN, NaN)).toBe(0);
    expect(compareKeyValues(-0, 0)).toBe(0);
    expect(compareKeyValues(new Uint8Array([1]), new Uint8Array([1, 0]))).toBeLessThan(0);
    expect(() => compareKeyValues(1n, 1)).toThrow(TypeError);
  });
  it('rangeMayOverlap treats null sides as unbounded', () => {
    expect(rangeMayOverlap({ lo: null, hi: 4n }, 5n, 9n)).toBe(false);
    expect(rangeMayOverlap({ lo: 10n, hi: null }, 5n, 9n)).toBe(false);
    expect(rangeMayOverlap({ lo: 9n, hi: null }, 5n, 9n)).toBe(true);
    expect(rangeMayOverlap({ lo: 1, hi: null }, 5, NaN)).toBe(true);
  });
  it('extremeRows: ints signed, uint unsigned, floats with NaN on top, bytes, NULL rows skipped', () => {
    const [bigK] = kindsFor([new Int64()], [new Int64()]);
    const ints = normalizeKeyColumn(vec(new Int64(), [5n, -(2n ** 40n), null, 2n ** 40n, -1n]), bigK!);
    const e = extremeRows(ints, 5, ints.nulls)!;
    expect([keyValueAt(ints, e.minRow), keyValueAt(ints, e.maxRow)]).toEqual([-(2n ** 40n), 2n ** 40n]);
    const [uk] = kindsFor([new Uint64()], [new Uint64()]);
    const uints = normalizeKeyColumn(vec(new Uint64(), [2n ** 63n, 1n, 2n ** 64n - 1n]), uk!);
    const u = extremeRows(uints, 3, null)!;
    expect([keyValueAt(uints, u.minRow), keyValueAt(uints, u.maxRow)]).toEqual([1n, 2n ** 64n - 1n]);
    const [fk] = kindsFor([new Float64()], [new Float64()]);
    const fl = normalizeKeyColumn(vec(new Float64(), [NaN, 3, -0, NaN, -7]), fk!);
    const f = extremeRows(fl, 5, null)!;
    expect(keyValueAt(fl, f.minRow)).toBe(-7);
    expect(keyValueAt(fl, f.maxRow)).toBeNaN();
    const onlyNaN = normalizeKeyColumn(vec(new Float64(), [NaN, NaN]), fk!);
    const g = extremeRows(onlyNaN, 2, null)!;
    expect(keyValueAt(onlyNaN, g.minRow)).toBeNaN();
    const [sk] = kindsFor([new Utf8()], [new Utf8()]);
    const st = normalizeKeyColumn(vec(new Utf8(), ['b', '\uFFFF', '😀', 'a']), sk!);
    const s = extremeRows(st, 4, null)!;
    expect(new TextDecoder().decode(keyValueAt(st, s.minRow) as Uint8Array)).toBe('a');
    expect(new TextDecoder().decode(keyValueAt(st, s.maxRow) as Uint8Array)).toBe('😀');
    expect(extremeRows(ints, 5, new Uint8Array(5).fill(1))).toBeNull();
  });
  it('keyValueAt: decimals are 128-bit signed, HUGEINT 96-bit signed', () => {
    const [dk] = kindsFor([new Decimal(2, 38, 128)], [new Decimal(2, 38, 128)]);
    const d = normalizeKeyColumn(vec(new Decimal(2, 38, 128), [-(2n ** 100n), 5n]), dk!);
    expect(keyValueAt(d, 0)).toBe(-(2n ** 100n));
    const [hk] = kindsFor([new Uint64()], [new Int32()]);
    expect(hk!.width).toBe(3);
    const h = normalizeKeyColumn(vec(new Uint64(), [2n ** 64n - 1n]), hk!);
    expect(keyValueAt(h, 0)).toBe(2n ** 64n - 1n);
  });
});

describe('container stats always cover the normalised values (property)', () => {
  const i64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
  const cases: { name: string; probe: DataType; build: DataType; values: fc.Arbitrary<Val> }[] = [
    { name: 'int32 vs int64', probe: new Int32(), build: new Int64(), values: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }) },
    { name: 'int64 vs int32', probe: new Int64(), build: new Int32(), values: i64 },
    { name: 'uint64 vs int32 (HUGEINT)', probe: new Uint64(), build: new Int32(), values: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) },
    { name: 'int32 vs float32 (FLOAT)', probe: new Int32(), build: new Float32(), values: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }) },
    { name: 'int64 vs float64 (DOUBLE)', probe: new Int64(), build: new Float64(), values: i64 },
    { name: 'uint64 vs float64', probe: new Uint64(), build: new Float64(), values: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) },
    { name: 'decimal(38,3) vs float64', probe: new Decimal(3, 38, 128), build: new Float64(), values: fc.bigInt({ min: -(10n ** 37n), max: 10n ** 37n }) },
    { name: 'decimal(10,2) vs float32', probe: new Decimal(2, 10, 128), build: new Float32(), values: fc.bigInt({ min: -(10n ** 9n), max: 10n ** 9n }) },
    { name: 'decimal(10,2) vs decimal(20,6)', probe: new Decimal(2, 10, 128), build: new Decimal(6, 20, 128), values: fc.bigInt({ min: -(10n ** 9n), max: 10n ** 9n }) },
    { name: 'int32 vs decimal(12,3)', probe: new Int32(), build: new Decimal(3, 12, 128), values: fc.integer() },
    { name: 'float32 vs float64', probe: new Float32(), build: new Float64(), values: fc.float() },
    { name: 'float64 (NaN, -0)', probe: new Float64(), build: new Float64(), values: fc.double() },
    { name: 'bool vs int32', probe: new Bool(), build: new Int32(), values: fc.boolean() },
    { name: 'bool vs float64', probe: new Bool(), build: new Float64(), values: fc.boolean() },
    { name: 'ts[s] vs ts[ns]', probe: new Timestamp(TimeUnit.SECOND), build: new Timestamp(TimeUnit.NANOSECOND), values: fc.bigInt({ min: -(2n ** 32n), max: 2n ** 32n }) },
    { name: 'ts[ms] vs ts[us]', probe: new Timestamp(TimeUnit.MILLISECOND), build: new Timestamp(TimeUnit.MICROSECOND), values: fc.bigInt({ min: -(2n ** 50n), max: 2n ** 50n }) },
    { name: 'date32 vs ts[ms]', probe: new DateDay(), build: new Timestamp(TimeUnit.MILLISECOND), values: fc.integer({ min: -1e6, max: 1e6 }) },
    { name: 'date32 vs date32', probe: new DateDay(), build: new DateDay(), values: fc.integer({ min: -1e6, max: 1e6 }) },
    { name: 'utf8 vs binary (BLOB)', probe: new Utf8(), build: new Binary(), values: fc.string({ unit: 'grapheme', maxLength: 5 }) },
    { name: 'dictionary utf8', probe: new Dictionary(new Utf8(), new Int32()), build: new Utf8(), values: fc.string({ unit: 'binary', maxLength: 4 }) },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const [kind] = kindsFor([c.probe], [c.build]);
      fc.assert(
        fc.property(fc.array(fc.option(c.values, { freq: 6 }), { minLength: 1, maxLength: 30 }), (values) => {
          const batch = batchOf({ k: vec(c.probe, values) });
          const r = statsToKeyRange(zoneMapOf(batch).column('k'), c.probe, kind!);
          const col = normalizeKeyColumn(batch.getChildAt(0)!, kind!);
          for (let i = 0; i < values.length; i++) {
            if (col.nulls !== null && col.nulls[i] !== 0) continue;
            const v = keyValueAt(col, i);
            if (!rangeContains(r, v)) throw new Error(`value ${String(values[i])} -> ${String(v)} outside [${String(r.lo)}, ${String(r.hi)}]`);
          }
        }),
        { seed: 99, numRuns: 200 },
      );
    });
  }
});
