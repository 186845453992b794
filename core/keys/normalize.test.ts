import {
  Binary,
  Bool,
  DateDay,
  DateMillisecond,
  Decimal,
  Dictionary,
  Field,
  FixedSizeBinary,
  Float16,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  LargeUtf8,
  Null,
  RecordBatch,
  Schema,
  Struct,
  TimestampMillisecond,
  TimestampNanosecond,
  TimestampSecond,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
  Utf8View,
  Vector,
  makeBuilder,
  makeData,
  makeVector,
} from 'apache-arrow';
import type { Data, DataType } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { MissingColumnError, UnsupportedTypeError } from '../errors.ts';
import { KeyConversionError, anyNullMask, normalizeKeyColumn, normalizeKeys } from './normalize.ts';
import { keyKindOf, resolveKeyKind } from './resolve.ts';
import type { BytesKeyColumn, FixedKeyColumn, KeyColumn, KeyKind } from './types.ts';

// --- helpers -------------------------------------------------------------------------------------

function build<T extends DataType>(type: T, values: readonly unknown[]): Vector<T> {
  const b = makeBuilder({ type, nullValues: [null, undefined] });
  for (const v of values) b.append(v as never);
  return b.finish().toVector() as Vector<T>;
}

function validity(values: readonly unknown[]): Uint8Array | undefined {
  if (!values.some((v) => v === null)) return undefined;
  const bm = new Uint8Array(Math.ceil(values.length / 8) + 8);
  values.forEach((v, i) => {
    if (v !== null) bm[i >> 3]! |= 1 << (i & 7);
  });
  return bm;
}

/** 64-bit values (timestamps, Date64) from bigints, NULL as null. */
function big64<T extends DataType>(type: T, values: readonly (bigint | null)[]): Vector<T> {
  const data = new BigInt64Array(values.map((v) => v ?? 0n));
  return makeVector(makeData({ type, data, length: values.length, nullBitmap: validity(values) } as never)) as Vector<T>;
}

function decimalVector(values: readonly (bigint | null)[], scale: number, precision = 38): Vector<Decimal> {
  const words = new Uint32Array(values.length * 4);
  values.forEach((v, i) => {
    let u = BigInt.asUintN(128, v ?? 0n);
    for (let k = 0; k < 4; k++) {
      words[i * 4 + k] = Number(u & 0xffffffffn);
      u >>= 32n;
    }
  });
  const type = new Decimal(scale, precision, 128);
  return makeVector(makeData({ type, data: words, length: values.length, nullBitmap: validity(values) }));
}

/** Row i of a fixed column as a signed bigint (or unsigned for 'uint'), null for NULL. */
function valueAt(col: KeyColumn, i: number): bigint | null {
  const c = col as FixedKeyColumn;
  if (c.nulls?.[i]) return null;
  const w = c.kind.width;
  let v = 0n;
  for (let k = w - 1; k >= 0; k--) v = (v << 32n) | BigInt(c.words[i * w + k]! >>> 0);
  return c.kind.order === 'uint' ? v : BigInt.asIntN(32 * w, v);
}
const valuesOf = (col: KeyColumn) => Array.from({ length: col.length }, (_, i) => valueAt(col, i));

function doubleAt(col: KeyColumn, i: number): number | null {
  const c = col as FixedKeyColumn;
  if (c.nulls?.[i]) return null;
  return new Float64Array(c.words.buffer, c.words.byteOffset, c.length)[i]!;
}

const dec = new TextDecoder();
function stringAt(col: KeyColumn, i: number): string | null {
  const c = col as BytesKeyColumn;
  if (c.nulls?.[i]) return null;
  const e = c.codes === null ? i : c.codes[i]!;
  return dec.decode(c.bytes.subarray(c.offsets[e]!, c.offsets[e + 1]!));
}
const stringsOf = (col: KeyColumn) => Array.from({ length: col.length }, (_, i) => stringAt(col, i));

const kind = (a: DataType, b: DataType = a): KeyKind => resolveKeyKind(a, b, 'l', 'r');
const BIGINT = kind(new Int64());

// --- tests ---------------------------------------------------------------------------------------

describe('normalizeKeyColumn: integers', () => {
  it('sign- and zero-extends every width to the same words', () => {
    const expected = [0n, 1n, -1n, 127n, -128n, null];
    for (const type of [new Int8(), new Int16(), new Int32()]) {
      const col = normalizeKeyColumn(build(type, [0, 1, -1, 127, -128, null]), BIGINT);
      expect(valuesOf(col)).toEqual(expected);
      expect(Array.from(col.nulls!)).toEqual([0, 0, 0, 0, 0, 1]);
    }
    const i64 = normalizeKeyColumn(build(new Int64(), [0n, 1n, -1n, 127n, -128n, null]), BIGINT);
    expect(valuesOf(i64)).toEqual(expected);
    const u32 = normalizeKeyColumn(build(new Uint32(), [4294967295, 0]), kind(new Uint32(), new Int32()));
    expect(valuesOf(u32)).toEqual([4294967295n, 0n]);
  });

  it('widens UInt64 and Int64 to the 3-word HUGEINT', () => {
    const k = kind(new Uint64(), new Int64());
    expect(k.width).toBe(3);
    const u = normalizeKeyColumn(build(new Uint64(), [2n ** 64n - 1n, 2n ** 63n, 5n]), k);
    expect(valuesOf(u)).toEqual([2n ** 64n - 1n, 2n ** 63n, 5n]);
    const s = normalizeKeyColumn(build(new Int64(), [-(2n ** 63n), -1n, 5n]), k);
    expect(valuesOf(s)).toEqual([-(2n ** 63n), -1n, 5n]);
    const uu = normalizeKeyColumn(build(new Uint64(), [2n ** 64n - 1n]), kind(new Uint64()));
    expect(valuesOf(uu)).toEqual([2n ** 64n - 1n]);
  });

  it('zeroes the words of NULL rows', () => {
    const data = makeData({ type: new Int32(), data: new Int32Array([7, 99, 8]), nullBitmap: new Uint8Array([0b101]), length: 3 });
    const col = normalizeKeyColumn(makeVector(data), BIGINT) as FixedKeyColumn;
    expect(Array.from(col.words)).toEqual([7, 0, 0, 0, 8, 0]);
  });

  it('handles sliced vectors (non-zero offset, validity at a bit offset)', () => {
    const values = Array.from({ length: 40 }, (_, i) => (i % 7 === 3 ? null : i * 3 - 50));
    const full = build(new Int32(), values);
    for (const [start, end] of [
      [0, 40],
      [3, 17],
      [9, 40],
      [13, 14],
    ] as const) {
      const col = normalizeKeyColumn(full.slice(start, end), BIGINT);
      expect(valuesOf(col)).toEqual(values.slice(start, end).map((v) => (v === null ? null : BigInt(v))));
    }
  });

  it('concatenates multi-chunk vectors', () => {
    const a = build(new Int16(), [1, null, 3]);
    const b = build(new Int16(), [4, 5, 6, 7]).slice(1);
    const v = new Vector([...a.data, ...b.data]);
    expect(v.data.length).toBe(2);
    expect(valuesOf(normalizeKeyColumn(v, BIGINT))).toEqual([1n, null, 3n, 5n, 6n, 7n]);
    const clean = new Vector([...build(new Int8(), [1]).data, ...build(new Int8(), [2]).data]);
    expect(normalizeKeyColumn(clean, BIGINT).nulls).toBeNull();
  });

  it('reads booleans at a bit offset, as BOOLEAN or as 0/1 integers', () => {
    const values = [true, false, null, true, true, false, true, false, false, true, true];
    const v = build(new Bool(), values).slice(3);
    const b = normalizeKeyColumn(v, kind(new Bool())) as FixedKeyColumn;
    expect(b.kind.width).toBe(1);
    expect(Array.from(b.words)).toEqual([1, 1, 0, 1, 0, 0, 1, 1]);
    expect(valuesOf(normalizeKeyColumn(build(new Bool(), [true, null, false]), kind(new Bool(), new Int32())))).toEqual([1n, null, 0n]);
  });

  it('decodes a dictionary of integers', () => {
    const dict = build(new Int32(), [10, -20, null]);
    const data = makeData({ type: new Dictionary(new Int32(), new Int8()), data: new Int8Array([1, 0, 2, 1]), length: 4, dictionary: dict });
    expect(valuesOf(normalizeKeyColumn(makeVector(data), BIGINT))).toEqual([-20n, 10n, null, -20n]);
  });

  it('rejects a vector of the wrong type for the kind', () => {
    expect(() => normalizeKeyColumn(build(new Utf8(), ['a']), BIGINT, 'k')).toThrow(UnsupportedTypeError);
    expect(() => normalizeKeyColumn(build(new Int64(), [-1n]), kind(new Uint64()), 'k')).toThrow(UnsupportedTypeError);
  });

  it('turns the Null type into an all-NULL column', () => {
    const col = normalizeKeyColumn(makeVector(makeData({ type: new Null(), length: 3 })), BIGINT);
    expect(valuesOf(col)).toEqual([null, null, null]);
  });
});

describe('normalizeKeyColumn: floats', () => {
  it('folds -0.0 and every NaN pattern', () => {
    const raw = new Float64Array(5);
    raw.set([0, -0, NaN, 1.5]);
    const w = new Int32Array(raw.buffer);
    w[9] = 0xfff80000 | 0; // negative quiet NaN
    w[8] = 0;
    const v = makeVector(makeData({ type: new Float64(), data: raw, length: 5 }));
    const col = normalizeKeyColumn(v, kind(new Float64())) as FixedKeyColumn;
    expect(Array.from(col.words)).toEqual([0, 0, 0, 0, 0, 0x7ff80000, 0, 0x3ff80000, 0, 0x7ff80000]);
  });

  it('converts Float32, Float16, integers and decimals exactly like DuckDB', () => {
    const dbl = kind(new Float32(), new Float64());
    const f32 = normalizeKeyColumn(build(new Float32(), [0.1, -0, NaN, null]), dbl);
    expect([0, 1, 2, 3].map((i) => doubleAt(f32, i))).toEqual([Math.fround(0.1), 0, NaN, null]);
    const half = makeVector(makeData({ type: new Float16(), data: new Uint16Array([0x3c00, 0xc000, 0x7c00, 0x0001, 0x8000]), length: 5 }));
    expect([0, 1, 2, 3, 4].map((i) => doubleAt(normalizeKeyColumn(half, dbl), i))).toEqual([1, -2, Infinity, 2 ** -24, 0]);
    // INTEGER = FLOAT compares in float32: 16777217 rounds to 16777216
    const float = kind(new Int32(), new Float32());
    expect(float.sqlType).toBe('FLOAT');
    expect(doubleAt(normalizeKeyColumn(build(new Int32(), [16777217]), float), 0)).toBe(16777216);
    const i64 = normalizeKeyColumn(build(new Int64(), [2n ** 53n + 1n, -5n]), kind(new Int64(), new Float64()));
    expect([doubleAt(i64, 0), doubleAt(i64, 1)]).toEqual([2 ** 53, -5]);
    const d = normalizeKeyColumn(decimalVector([12345n, -5n, null], 2), kind(new Decimal(2, 10, 128), new Float64()));
    expect([0, 1, 2].map((i) => doubleAt(d, i))).toEqual([123.45, -0.05, null]);
  });
});

describe('normalizeKeyColumn: dates, timestamps, decimals', () => {
  it('scales timestamps to the finer unit, negative values included', () => {
    const k = kind(new TimestampSecond(), new TimestampNanosecond());
    const col = normalizeKeyColumn(big64(new TimestampSecond(), [1n, -1n, null, 1_700_000_000n]), k);
    expect(valuesOf(col)).toEqual([1_000_000_000n, -1_000_000_000n, null, 1_700_000_000_000_000_000n]);
    const ms = normalizeKeyColumn(big64(new TimestampMillisecond(), [-1500n]), k);
    expect(valuesOf(ms)).toEqual([-1_500_000_000n]);
  });

  it('throws KeyConversionError when a scaled timestamp overflows (and ignores NULL garbage)', () => {
    const k = kind(new TimestampSecond(), new TimestampNanosecond());
    expect(() => normalizeKeyColumn(big64(new TimestampSecond(), [10n ** 11n]), k, 'ts')).toThrow(KeyConversionError);
    const garbage = makeVector(
      makeData({ type: new TimestampSecond(), data: new BigInt64Array([2n ** 62n, 1n]), length: 2, nullBitmap: new Uint8Array([0b10]) }),
    );
    expect(valuesOf(normalizeKeyColumn(garbage, k))).toEqual([null, 1_000_000_000n]);
  });

  it('reads Date64 as days and dates as timestamps', () => {
    const date = kind(new DateDay(), new DateMillisecond());
    const d64 = normalizeKeyColumn(big64(new DateMillisecond(), [86_400_000n * 3n, -86_400_000n, null]), date);
    expect(valuesOf(d64)).toEqual([3n, -1n, null]);
    const d32 = normalizeKeyColumn(build(new DateDay(), [new Date(86_400_000 * 2)]), kind(new DateDay(), new TimestampSecond()));
    expect(valuesOf(d32)).toEqual([2n * 86_400n]);
  });

  it('rescales decimals and integers to the common scale', () => {
    const k = kind(new Decimal(2, 10, 128), new Decimal(5, 12, 128));
    expect(valuesOf(normalizeKeyColumn(decimalVector([123n, -1n, null], 2, 10), k))).toEqual([123000n, -1000n, null]);
    const ki = kind(new Decimal(2, 10, 128), new Int64());
    expect(valuesOf(normalizeKeyColumn(build(new Int64(), [-7n, 2n ** 63n - 1n]), ki))).toEqual([-700n, (2n ** 63n - 1n) * 100n]);
    const big = 10n ** 37n;
    expect(valuesOf(normalizeKeyColumn(decimalVector([-big], 0), kind(new Decimal(0, 38, 128))))).toEqual([-big]);
  });

  it('throws KeyConversionError past DECIMAL(38)', () => {
    const k = kind(new Decimal(30, 38, 128), new Int64());
    expect(() => normalizeKeyColumn(build(new Int64(), [100_000_000_000n]), k, 'amount')).toThrow(/amount.*DECIMAL\(38,30\)/);
    expect(valuesOf(normalizeKeyColumn(build(new Int64(), [-99_999_999n]), k))).toEqual([-99_999_999n * 10n ** 30n]);
  });
});

describe('normalizeKeyColumn: bytes', () => {
  const VARCHAR = kind(new Utf8());

  it('uses a single Utf8 chunk zero-copy, sliced or not', () => {
    const v = build(new Utf8(), ['a', null, 'héllo', '', 'zz']);
    const col = normalizeKeyColumn(v, VARCHAR) as BytesKeyColumn;
    expect(col.bytes).toBe(v.data[0]!.values);
    expect(stringsOf(col)).toEqual(['a', null, 'héllo', '', 'zz']);
    expect(stringsOf(normalizeKeyColumn(v.slice(2, 4), VARCHAR))).toEqual(['héllo', '']);
  });

  it('a zero-row chunk without an offsets buffer (an empty batch) normalises to no rows, alone or beside others', () => {
    for (const type of [new LargeUtf8(), new Utf8(), new Binary(), new Utf8View()]) {
      const empty = makeData({ type: type as Utf8, length: 0 });
      expect(normalizeKeyColumn(makeVector(empty), VARCHAR).length).toBe(0);
    }
    const empty = makeData({ type: new LargeUtf8(), length: 0 });
    const both = new Vector([empty, ...build(new LargeUtf8(), ['q', null]).data]);
    expect(stringsOf(normalizeKeyColumn(both, VARCHAR))).toEqual(['q', null]);
  });

  it('materialises multi-chunk, LargeUtf8, Utf8View and FixedSizeBinary columns', () => {
    const multi = new Vector([...build(new Utf8(), ['x', 'yy']).slice(1).data, ...build(new Utf8(), [null, 'zzz']).data]);
    expect(stringsOf(normalizeKeyColumn(multi, VARCHAR))).toEqual(['yy', null, 'zzz']);
    expect(stringsOf(normalizeKeyColumn(build(new LargeUtf8(), ['ab', null, 'c']).slice(1), VARCHAR))).toEqual([null, 'c']);
    const long = 'a string longer than twelve bytes';
    expect(stringsOf(normalizeKeyColumn(build(new Utf8View(), ['short', long, null, '']), VARCHAR))).toEqual(['short', long, null, '']);
    const fsb = makeVector(makeData({ type: new FixedSizeBinary(2), data: new Uint8Array([65, 66, 67, 68, 69, 70]), length: 3 })).slice(1);
    expect(stringsOf(normalizeKeyColumn(fsb, kind(new Binary())))).toEqual(['CD', 'EF']);
  });

  it('keeps dictionary codes and shares the normalised dictionary between batches', () => {
    const type = new Dictionary(new Utf8(), new Int32());
    const dict = build(new Utf8(), ['red', 'green', null]);
    const mk = (codes: number[], nulls?: Uint8Array) =>
      makeVector(makeData({ type, data: new Int32Array(codes), length: codes.length, dictionary: dict, nullBitmap: nulls }));
    const a = normalizeKeyColumn(mk([1, 0, 2, 1], new Uint8Array([0b0111])), VARCHAR) as BytesKeyColumn;
    const b = normalizeKeyColumn(mk([0]), VARCHAR) as BytesKeyColumn;
    expect(stringsOf(a)).toEqual(['green', 'red', null, null]);
    expect(a.codes).not.toBeNull();
    expect(a.offsets).toBe(b.offsets);
  });

  it('merges different dictionaries of a multi-chunk vector', () => {
    const type = new Dictionary(new Utf8(), new Int8());
    const c1 = makeData({ type, data: new Int8Array([0, 1]), length: 2, dictionary: build(new Utf8(), ['a', 'b']) });
    const c2 = makeData({ type, data: new Int8Array([1, 0]), length: 2, dictionary: build(new Utf8(), ['c', 'd']) });
    expect(stringsOf(normalizeKeyColumn(new Vector([c1, c2]), VARCHAR))).toEqual(['a', 'b', 'd', 'c']);
  });
});

describe('normalizeKeys / anyNullMask', () => {
  const schema = new Schema([new Field('a', new Int32(), true), new Field('b', new Utf8(), true)]);
  const batch = new RecordBatch(
    schema,
    makeData({
      type: new Struct(schema.fields),
      length: 3,
      nullCount: 0,
      children: [build(new Int32(), [1, null, 3]).data[0]!, build(new Utf8(), ['x', 'y', null]).data[0]!] as Data[],
    }),
  );

  it('normalises named columns and ORs their NULLs', () => {
    const cols = normalizeKeys(batch, ['b', 'a'], [keyKindOf(new Utf8(), 'b'), BIGINT]);
    expect(stringsOf(cols[0]!)).toEqual(['x', 'y', null]);
    expect(valuesOf(cols[1]!)).toEqual([1n, null, 3n]);
    expect(Array.from(anyNullMask(cols)!)).toEqual([0, 1, 1]);
    expect(anyNullMask([normalizeKeyColumn(build(new Int8(), [1]), BIGINT)])).toBeNull();
  });

  it('throws MissingColumnError listing the columns', () => {
    expect(() => normalizeKeys(batch, ['c'], [BIGINT])).toThrow(MissingColumnError);
    expect(() => normalizeKeys(batch, ['c'], [BIGINT])).toThrow(/columns: a, b/);
  });

  it('accepts every unsigned width for a UBIGINT kind', () => {
    expect(valuesOf(normalizeKeyColumn(build(new Uint8(), [255]), kind(new Uint64(), new Uint8())))).toEqual([255n]);
  });
});
