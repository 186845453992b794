import {
  Binary,
  Bool,
  DateDay,
  Decimal,
  Dictionary,
  Float16,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  LargeUtf8,
  List,
  Field,
  makeData,
  makeVector,
  Null,
  RecordBatch,
  Table,
  Timestamp,
  TimeUnit,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
  vectorFromArray,
  type DataType,
  type Vector,
} from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { columnStatsOf, dataByteSize, zoneMapOf } from './zone-map.ts';

function batchOf(cols: Record<string, Vector>): RecordBatch {
  const t = new Table(cols);
  expect(t.batches).toHaveLength(1);
  return t.batches[0]!;
}

function stats(values: unknown[], type: DataType) {
  const b = batchOf({ x: vectorFromArray(values, type as never) });
  return zoneMapOf(b).column('x');
}

function bitmap(valid: boolean[]): Uint8Array {
  const bm = new Uint8Array((valid.length + 7) >> 3);
  valid.forEach((v, i) => {
    if (v) bm[i >> 3]! |= 1 << (i & 7);
  });
  return bm;
}

function int64Vector(values: bigint[], valid?: boolean[], unsigned = false): Vector {
  const data = unsigned ? BigUint64Array.from(values) : BigInt64Array.from(values);
  const nullCount = valid ? valid.filter((v) => !v).length : 0;
  return makeVector(
    makeData({
      type: unsigned ? new Uint64() : new Int64(),
      length: values.length,
      nullCount,
      nullBitmap: valid ? bitmap(valid) : undefined,
      data: data as never,
    }),
  );
}

function decimalVector(values: (bigint | null)[], scale = 2): Vector {
  const words = new Uint32Array(values.length * 4);
  values.forEach((v, i) => {
    let u = BigInt.asUintN(128, v ?? 0n);
    for (let w = 0; w < 4; w++) {
      words[i * 4 + w] = Number(u & 0xffffffffn);
      u >>= 32n;
    }
  });
  const valid = values.map((v) => v !== null);
  return makeVector(
    makeData({
      type: new Decimal(scale, 38, 128),
      length: values.length,
      nullCount: valid.filter((v) => !v).length,
      nullBitmap: bitmap(valid),
      data: words,
    }),
  );
}

describe('zoneMapOf: integers', () => {
  it.each([
    ['Int8', new Int8(), [3, -128, null, 127, 0], -128, 127],
    ['Int16', new Int16(), [3, -32768, null, 32767], -32768, 32767],
    ['Int32', new Int32(), [null, -(2 ** 31), 2 ** 31 - 1, 5], -(2 ** 31), 2 ** 31 - 1],
    ['Uint8', new Uint8(), [255, 0, null], 0, 255],
    ['Uint16', new Uint16(), [65535, 1, null], 1, 65535],
    ['Uint32', new Uint32(), [2 ** 32 - 1, 7, null], 7, 2 ** 32 - 1],
  ])('%s', (_name, type, values, min, max) => {
    expect(stats(values, type)).toEqual({ min, max, nullCount: 1 });
  });

  it('Int64 extremes ±2^63 come back as exact bigints', () => {
    const v = int64Vector([0n, -(2n ** 63n), 2n ** 63n - 1n, -1n, 1n]);
    expect(zoneMapOf(batchOf({ x: v })).column('x')).toEqual({ min: -(2n ** 63n), max: 2n ** 63n - 1n, nullCount: 0 });
  });

  it('an empty Int64, timestamp or decimal column has no extremes (apache-arrow gives `new Table({x: empty})` a batch of Vectors, no buffers)', () => {
    for (const type of [new Int64(), new Timestamp(TimeUnit.MICROSECOND), new Decimal(2, 10, 128)] as DataType[]) {
      const batch = new Table({ x: vectorFromArray([], type as never) }).batches[0]!;
      expect(zoneMapOf(batch).column('x'), String(type)).toEqual({ min: null, max: null, nullCount: 0 });
      expect(columnStatsOf(vectorFromArray([], type as never).data[0]!), String(type)).toEqual({ min: null, max: null, nullCount: 0 });
    }
  });

  it('Int64 compares high words signed and low words unsigned', () => {
    // -1 = (hi -1, lo 0xFFFFFFFF); -2^32 = (hi -1, lo 0); 2^32 = (hi 1, lo 0); 2^32 - 1 = (hi 0, lo max)
    const v = int64Vector([-1n, -(2n ** 32n), 2n ** 32n, 2n ** 32n - 1n, -(2n ** 31n)]);
    expect(columnStatsOf(v.data[0]!)).toEqual({ min: -(2n ** 32n), max: 2n ** 32n, nullCount: 0 });
  });

  it('Int64 ignores the values under NULL slots', () => {
    const v = int64Vector([-(2n ** 63n), 5n, 9n, 2n ** 63n - 1n], [false, true, true, false]);
    expect(columnStatsOf(v.data[0]!)).toEqual({ min: 5n, max: 9n, nullCount: 2 });
  });

  it('UInt64 compares unsigned (2^63 and 2^64-1 are the largest)', () => {
    const v = int64Vector([2n ** 63n, 1n, 2n ** 64n - 1n, 0n], undefined, true);
    expect(columnStatsOf(v.data[0]!)).toEqual({ min: 0n, max: 2n ** 64n - 1n, nullCount: 0 });
  });

  it('Int64 agrees with a BigInt reference (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { minLength: 1, maxLength: 60 }), (xs) => {
        const s = columnStatsOf(int64Vector(xs).data[0]!)!;
        const sorted = [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        expect(s.min).toBe(sorted[0]);
        expect(s.max).toBe(sorted[sorted.length - 1]);
      }),
    );
  });
});

describe('zoneMapOf: floats', () => {
  it('a NaN makes max NaN (DuckDB orders NaN above every number)', () => {
    expect(stats([1.5, NaN, -3, null], new Float64())).toEqual({ min: -3, max: NaN, nullCount: 1 });
  });
  it('only NaN -> min and max NaN', () => {
    expect(stats([NaN, null, NaN], new Float64())).toEqual({ min: NaN, max: NaN, nullCount: 1 });
  });
  it('-0.0 counts as 0', () => {
    const s = stats([-0, -0], new Float64())!;
    expect(Object.is(s.min, 0)).toBe(true);
    expect(Object.is(s.max, 0)).toBe(true);
    const t = stats([-0, 5, -2], new Float32())!;
    expect(t).toEqual({ min: -2, max: 5, nullCount: 0 });
  });
  it('infinities are ordinary extremes', () => {
    expect(stats([Infinity, 1, -Infinity], new Float64())).toEqual({ min: -Infinity, max: Infinity, nullCount: 0 });
    expect(stats([Infinity, NaN], new Float32())).toEqual({ min: Infinity, max: NaN, nullCount: 0 });
  });
  it('Float16 has no stats', () => {
    const d = makeData({ type: new Float16(), length: 2, data: new Uint16Array([0x3c00, 0x4000]) });
    expect(columnStatsOf(d)).toBeUndefined();
  });
});

describe('zoneMapOf: other scalar types', () => {
  it('bool', () => {
    expect(stats([true, null, true], new Bool())).toEqual({ min: true, max: true, nullCount: 1 });
    expect(stats([false, false], new Bool())).toEqual({ min: false, max: false, nullCount: 0 });
    expect(stats([true, false, null], new Bool())).toEqual({ min: false, max: true, nullCount: 1 });
  });

  it('date32 (days as numbers)', () => {
    const d = makeData({ type: new DateDay(), length: 3, nullCount: 0, data: Int32Array.from([18000, -5, 20000]) });
    expect(columnStatsOf(d)).toEqual({ min: -5, max: 20000, nullCount: 0 });
  });

  it.each([TimeUnit.SECOND, TimeUnit.MILLISECOND, TimeUnit.MICROSECOND, TimeUnit.NANOSECOND])(
    'timestamp unit %s (bigint in the column unit)',
    (unit) => {
      const d = makeData({
        type: new Timestamp(unit, unit === TimeUnit.MICROSECOND ? 'UTC' : null),
        length: 4,
        nullCount: 1,
        nullBitmap: bitmap([true, true, false, true]),
        data: BigInt64Array.from([5n, -(2n ** 62n), -(2n ** 63n), 2n ** 40n]),
      });
      expect(columnStatsOf(d)).toEqual({ min: -(2n ** 62n), max: 2n ** 40n, nullCount: 1 });
    },
  );

  it('decimal128: unscaled bigints, signed 128-bit order', () => {
    const v = decimalVector([5n, -(2n ** 100n), null, 2n ** 100n, -1n, 2n ** 64n, 2n ** 64n - 1n]);
    expect(columnStatsOf(v.data[0]!)).toEqual({ min: -(2n ** 100n), max: 2n ** 100n, nullCount: 1 });
    const w = decimalVector([-1n, -(2n ** 32n), -(2n ** 96n) + 7n, 3n]);
    expect(columnStatsOf(w.data[0]!)).toEqual({ min: -(2n ** 96n) + 7n, max: 3n, nullCount: 0 });
  });

  it('utf8 is ordered by UTF-8 bytes, not UTF-16 code units', () => {
    // '\uFFFF' > '😀' in UTF-16 (0xFFFF > 0xD83D) but < in UTF-8 (EF.. < F0..)
    expect('\uFFFF' > '😀').toBe(true);
    expect(stats(['b', '\uFFFF', '😀', 'a', null], new Utf8())).toEqual({ min: 'a', max: '😀', nullCount: 1 });
    expect(stats(['', 'a', 'ab'], new Utf8())).toEqual({ min: '', max: 'ab', nullCount: 0 });
  });

  it('utf8 order agrees with a code point reference (property)', () => {
    const cp = (a: string, b: string): number => {
      const x = [...a].map((c) => c.codePointAt(0)!);
      const y = [...b].map((c) => c.codePointAt(0)!);
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
      return x.length - y.length;
    };
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' }), { minLength: 1, maxLength: 30 }), (xs) => {
        const s = stats(xs, new Utf8())!;
        const sorted = [...xs].sort(cp);
        expect(s.min).toBe(sorted[0]);
        expect(s.max).toBe(sorted[sorted.length - 1]);
      }),
    );
  });

  it('large utf8', () => {
    expect(stats(['m', 'z', null, 'a'], new LargeUtf8())).toEqual({ min: 'a', max: 'z', nullCount: 1 });
  });

  it('binary (Uint8Array, unsigned byte order)', () => {
    const s = stats([new Uint8Array([1, 2]), new Uint8Array([1]), new Uint8Array([0, 255]), null], new Binary())!;
    expect(s.min).toEqual(new Uint8Array([0, 255]));
    expect(s.max).toEqual(new Uint8Array([1, 2]));
    expect(s.nullCount).toBe(1);
  });

  it('dictionary strings: min/max over the used entries only', () => {
    const dictValues = vectorFromArray(['zz', 'a', 'm', 'q'], new Utf8());
    const d = makeData({
      type: new Dictionary(new Utf8(), new Int32()),
      length: 4,
      nullCount: 1,
      nullBitmap: bitmap([true, true, false, true]),
      data: Int32Array.from([2, 3, 0, 2]), // code 0 ('zz') sits under the NULL
      dictionary: dictValues,
    });
    expect(columnStatsOf(d)).toEqual({ min: 'm', max: 'q', nullCount: 1 });
  });

  it('dictionary with a NULL entry counts the rows pointing at it as NULL', () => {
    const d = makeData({
      type: new Dictionary(new Utf8(), new Int32()),
      length: 3,
      nullCount: 0,
      data: Int32Array.from([0, 1, 0]),
      dictionary: vectorFromArray([null, 'k'], new Utf8()),
    });
    expect(columnStatsOf(d)).toEqual({ min: 'k', max: 'k', nullCount: 2 });
  });
});

describe('zoneMapOf: degenerate batches', () => {
  it('NULL-only columns', () => {
    expect(stats([null, null, null], new Int32())).toEqual({ min: null, max: null, nullCount: 3 });
    expect(stats([null, null], new Utf8())).toEqual({ min: null, max: null, nullCount: 2 });
    expect(stats([null], new Float64())).toEqual({ min: null, max: null, nullCount: 1 });
    const v = int64Vector([1n, 2n], [false, false]);
    expect(columnStatsOf(v.data[0]!)).toEqual({ min: null, max: null, nullCount: 2 });
    expect(columnStatsOf(makeData({ type: new Null(), length: 4 }))).toEqual({ min: null, max: null, nullCount: 4 });
  });

  it('an empty batch', () => {
    const z = zoneMapOf(batchOf({ x: vectorFromArray([], new Int32()) }));
    expect(z.numRows).toBe(0);
    expect(z.column('x')).toEqual({ min: null, max: null, nullCount: 0 });
  });

  it('unsupported types and unknown columns have no stats', () => {
    const list = makeData({
      type: new List(new Field('item', new Int32())),
      length: 1,
      nullCount: 0,
      valueOffsets: Int32Array.from([0, 2]),
      child: makeData({ type: new Int32(), length: 2, data: Int32Array.from([1, 2]) }),
    });
    expect(columnStatsOf(list)).toBeUndefined();
    const z = zoneMapOf(batchOf({ x: vectorFromArray([1], new Int32()) }));
    expect(z.column('nope')).toBeUndefined();
  });

  it('sliced batches only see their rows (fixed width, bits, bytes, nulls at odd offsets)', () => {
    const n = 40;
    const t = new Table({
      i: vectorFromArray(Array.from({ length: n }, (_, i) => (i % 7 === 3 ? null : i)), new Int32()),
      b: vectorFromArray(Array.from({ length: n }, (_, i) => i >= 13 && i < 20), new Bool()),
      s: vectorFromArray(Array.from({ length: n }, (_, i) => (i % 5 === 0 ? null : `s${String(i).padStart(2, '0')}`)), new Utf8()),
      l: int64Vector(Array.from({ length: n }, (_, i) => BigInt(i) * -(2n ** 40n))),
    });
    const sliced = t.slice(13, 20); // rows 13..19
    expect(sliced.batches).toHaveLength(1);
    const b = sliced.batches[0]!;
    expect(b.data.children[0]!.offset).toBe(13);
    const z = zoneMapOf(b, 3);
    expect(z.index).toBe(3);
    expect(z.numRows).toBe(7);
    expect(z.column('i')).toEqual({ min: 13, max: 19, nullCount: 1 }); // 17 is NULL
    expect(z.column('b')).toEqual({ min: true, max: true, nullCount: 0 });
    expect(z.column('s')).toEqual({ min: 's13', max: 's19', nullCount: 1 }); // 15 is NULL
    expect(z.column('l')).toEqual({ min: 19n * -(2n ** 40n), max: 13n * -(2n ** 40n), nullCount: 0 });
  });
});

describe('zoneMapOf: caching and bytes', () => {
  it('computes a column once per batch (cached by RecordBatch)', () => {
    const b = batchOf({ x: vectorFromArray([3, 1, 2], new Int32()) });
    const a = zoneMapOf(b, 0).column('x');
    expect(zoneMapOf(b, 5).column('x')).toBe(a);
    const other = batchOf({ x: vectorFromArray([3, 1, 2], new Int32()) });
    expect(zoneMapOf(other).column('x')).not.toBe(a);
  });

  it('bytes are buffer bytes of the batch', () => {
    const b = batchOf({
      x: vectorFromArray([1, 2, 3, 4], new Int32()),
      s: vectorFromArray(['ab', 'c', null, 'defg'], new Utf8()),
    });
    const z = zoneMapOf(b);
    expect(z.columnBytes('x')).toBe(16);
    expect(z.columnBytes('s')).toBe(1 + 5 * 4 + 7); // validity + offsets + used value bytes
    expect(z.bytes).toBe(z.columnBytes('x') + z.columnBytes('s'));
    expect(dataByteSize(b.data.children[0]!)).toBe(16);
  });
});
