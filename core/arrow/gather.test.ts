import {
  Type,
  Binary,
  BinaryView,
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
  IntervalDayTime,
  IntervalMonthDayNano,
  IntervalYearMonth,
  LargeBinary,
  LargeList,
  List,
  Map_,
  FixedSizeList,
  DurationNanosecond,
  TimeMicrosecond,
  TimeSecond,
  SparseUnion,
  LargeUtf8,
  Null,
  RecordBatch,
  Schema,
  Struct,
  Table,
  TimestampMicrosecond,
  TimestampMillisecond,
  TimestampNanosecond,
  TimestampSecond,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
  Utf8View,
  Vector,
  makeBuilder,
  makeData,
  tableFromIPC,
  tableToIPC,
} from 'apache-arrow';
import { Data } from 'apache-arrow';
import type { DataType } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Bitset } from '../bitset.ts';
import { RowSource, boolData, concatBatches, gatherColumn, gatherColumns, makeRecordBatch, ungatherableReason } from './gather.ts';

// --- deterministic data ----------------------------------------------------------------------------

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const dictType = new Dictionary(new Utf8(), new Int16());
const sharedDictionary = vectorOf(new Utf8(), ['red', 'green', 'blue', 'a rather long dictionary entry']);

const FIELDS: readonly [string, DataType][] = [
  ['i8', new Int8()],
  ['i16', new Int16()],
  ['i32', new Int32()],
  ['i64', new Int64()],
  ['u8', new Uint8()],
  ['u16', new Uint16()],
  ['u32', new Uint32()],
  ['u64', new Uint64()],
  ['f16', new Float16()],
  ['f32', new Float32()],
  ['f64', new Float64()],
  ['bool', new Bool()],
  ['utf8', new Utf8()],
  ['lutf8', new LargeUtf8()],
  ['bin', new Binary()],
  ['lbin', new LargeBinary()],
  ['view', new Utf8View()],
  ['bview', new BinaryView()],
  ['fsb', new FixedSizeBinary(3)],
  ['d32', new DateDay()],
  ['d64', new DateMillisecond()],
  ['ts_s', new TimestampSecond()],
  ['ts_ms', new TimestampMillisecond()],
  ['ts_us', new TimestampMicrosecond()],
  ['ts_ns', new TimestampNanosecond()],
  ['dec', new Decimal(3, 30, 128)],
  ['dict', dictType],
  ['null', new Null()],
];
const SCHEMA = new Schema(FIELDS.map(([name, type]) => new Field(name, type, true)));

function vectorOf(type: DataType, values: readonly unknown[]): Vector {
  const b = makeBuilder({ type, nullValues: [null, undefined] });
  for (const v of values) b.append(v as never);
  return b.finish().toVector();
}

function bitmapOf(valid: readonly boolean[]): Uint8Array {
  const bm = new Uint8Array(Math.ceil(valid.length / 8) + 1);
  valid.forEach((v, i) => v && (bm[i >> 3]! |= 1 << (i & 7)));
  return bm;
}

function randomString(r: () => number): string {
  const alphabet = ['a', 'b', 'é', '日', 'z', ' '];
  const n = Math.floor(r() * 20);
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(r() * alphabet.length)];
  return s;
}
const randomBytes = (r: () => number, n = Math.floor(r() * 16)) => Uint8Array.from({ length: n }, () => Math.floor(r() * 256));

/** One column of `n` random rows (about 1/5 NULL). */
function column(type: DataType, n: number, r: () => number): Data {
  const valid = Array.from({ length: n }, () => r() > 0.2);
  const pick = <T>(f: () => T) => Array.from({ length: n }, (_, i) => (valid[i] ? f() : null));
  const fixed = (data: ArrayBufferView) => makeData({ type, data, length: n, nullBitmap: bitmapOf(valid) } as never) as Data;
  const big = () => BigInt(Math.floor(r() * 2 ** 53)) * (r() < 0.5 ? -1n : 1n) * 1000n;
  switch (type.typeId) {
    case new Int8().typeId: {
      const bits = (type as Int8).bitWidth as number;
      if (bits === 64) return fixed(BigInt64Array.from({ length: n }, big));
      const span = 2 ** bits;
      const signed = (type as Int8).isSigned;
      const values = Array.from({ length: n }, () => Math.floor(r() * span) - (signed ? span / 2 : 0));
      return fixed(new (type.ArrayType as unknown as { new (a: number[]): ArrayBufferView })(values));
    }
    case new Float64().typeId:
      return vectorOf(type, pick(() => (r() - 0.5) * 1000)).data[0]!;
    case new Bool().typeId:
      return vectorOf(type, pick(() => r() < 0.5)).data[0]!;
    case new Utf8().typeId:
    case new LargeUtf8().typeId:
    case new Utf8View().typeId:
      return vectorOf(type, pick(() => randomString(r))).data[0]!;
    case new Binary().typeId:
    case new LargeBinary().typeId:
    case new BinaryView().typeId:
      return vectorOf(type, pick(() => randomBytes(r))).data[0]!;
    case new FixedSizeBinary(3).typeId:
      return fixed(randomBytes(r, 3 * n));
    case new DateDay().typeId:
      return (type as DateDay).unit === 0
        ? fixed(Int32Array.from({ length: n }, () => Math.floor((r() - 0.5) * 1e6)))
        : fixed(BigInt64Array.from({ length: n }, () => BigInt(Math.floor((r() - 0.5) * 1e6)) * 86_400_000n));
    case new TimestampSecond().typeId: // small enough for Vector.get's conversion to ms
      return fixed(BigInt64Array.from({ length: n }, () => BigInt(Math.floor((r() - 0.5) * 2 ** 40))));
    case new Decimal(0, 1).typeId:
      return fixed(Uint32Array.from({ length: 4 * n }, () => Math.floor(r() * 2 ** 32)));
    case dictType.typeId:
      return makeData({ type: dictType, data: Int16Array.from({ length: n }, () => Math.floor(r() * 4)), length: n, nullBitmap: bitmapOf(valid), dictionary: sharedDictionary });
    case new Null().typeId:
      return makeData({ type: new Null(), length: n });
    default:
      throw new Error(`no generator for ${type}`);
  }
}

function randomBatch(n: number, seed: number): RecordBatch {
  const r = rng(seed);
  return makeRecordBatch(SCHEMA, FIELDS.map(([, type]) => column(type, n, r)), n);
}

/** A comparable plain value for `Vector.get` results. */
function plain(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (v instanceof Vector) return [...v].map(plain);
  if (typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function' && !(v instanceof Date)) {
    return Object.entries((v as { toJSON(): Record<string, unknown> }).toJSON()).map(([k, x]) => [k, plain(x)]);
  }
  if (typeof v === 'bigint') return `${v}n`;
  if (ArrayBuffer.isView(v)) return Array.from(v as Uint8Array, (x) => (typeof x === 'bigint' ? `${x}n` : x));
  if (v instanceof Date) return v.getTime();
  return v;
}

/** The expected value of output row k: the source row of global index g, or NULL. */
function expectGathered(batches: readonly RecordBatch[], column: number, indices: Int32Array, out: Data): void {
  const starts = [0];
  for (const b of batches) starts.push(starts[starts.length - 1]! + b.numRows);
  const got = new Vector([out]);
  let nulls = 0;
  for (let k = 0; k < indices.length; k++) {
    const g = indices[k]!;
    let want: unknown = null;
    if (g >= 0) {
      let b = 0;
      while (starts[b + 1]! <= g) b++;
      want = batches[b]!.getChildAt(column)!.get(g - starts[b]!);
    }
    if (want === null) nulls++;
    expect(plain(got.get(k)), `${batches[0]!.schema.fields[column]!.name} row ${k} (g=${g})`).toEqual(plain(want));
  }
  expect(out.nullCount, `${batches[0]!.schema.fields[column]!.name} nullCount`).toBe(nulls);
}

function randomIndices(n: number, rows: number, seed: number, nullShare = 0.1): Int32Array {
  const r = rng(seed);
  return Int32Array.from({ length: n }, () => (rows === 0 || r() < nullShare ? -1 : Math.floor(r() * rows)));
}

// --- tests ---------------------------------------------------------------------------------------

describe('gatherColumn', () => {
  it('gathers every type from a single batch, -1 giving NULL', () => {
    const batch = randomBatch(50, 1);
    const src = new RowSource([batch]);
    const indices = randomIndices(80, 50, 2);
    for (let c = 0; c < FIELDS.length; c++) expectGathered([batch], c, indices, gatherColumn(src, c, indices, 0, indices.length));
  });

  it('gathers every type across several batches, including empty and sliced ones', () => {
    const batches = [randomBatch(40, 3).slice(5, 33), randomBatch(0, 4), randomBatch(1, 5), randomBatch(64, 6).slice(13), randomBatch(30, 7)];
    const src = new RowSource(batches);
    expect(src.numRows).toBe(28 + 0 + 1 + 51 + 30);
    const indices = randomIndices(300, src.numRows, 8);
    indices.set([0, src.numRows - 1, 28, 29, -1], 0); // batch edges
    for (let c = 0; c < FIELDS.length; c++) expectGathered(batches, c, indices, gatherColumn(src, c, indices, 0, indices.length));
  });

  it('a run of consecutive rows of one batch is a zero-copy slice, every type; runs across batches or with NULL are gathered', () => {
    const batches = [randomBatch(40, 12).slice(3, 35), randomBatch(20, 13)];
    const src = new RowSource(batches);
    const run = Int32Array.from({ length: 12 }, (_, i) => 5 + i);
    for (let c = 0; c < FIELDS.length; c++) {
      const [out] = gatherColumns(src, run, 0, run.length, [c], undefined, true);
      expectGathered(batches, c, run, out!);
      expectGathered(batches, c, run, gatherColumn(src, c, run, 0, run.length)); // a copy without `slices`
      // the same buffers, not copies
      const input = batches[0]!.data.children[c]!;
      const view = input.typeId === Type.Utf8View || input.typeId === Type.BinaryView; // copied: IPC writes no sliced views
      if (input.values !== undefined && !view) expect(out!.values.buffer).toBe(input.values.buffer);
    }
    const second = Int32Array.from({ length: 10 }, (_, i) => 32 + 4 + i);
    const [sliced] = gatherColumns(src, second, 0, second.length, [0], undefined, true);
    expectGathered(batches, 0, second, sliced!);
    for (const mixed of [Int32Array.from({ length: 6 }, (_, i) => 29 + i), Int32Array.of(4, 5, -1, 7)]) {
      for (let c = 0; c < FIELDS.length; c++) expectGathered(batches, c, mixed, gatherColumn(src, c, mixed, 0, mixed.length));
    }
  });

  it('honours start/count and sorted runs', () => {
    const batches = [randomBatch(10, 9), randomBatch(10, 10), randomBatch(10, 11)];
    const src = new RowSource(batches);
    const indices = Int32Array.from({ length: 30 }, (_, i) => i);
    const out = gatherColumn(src, 2, indices, 7, 15);
    expectGathered(batches, 2, indices.subarray(7, 22), out);
  });

  it('gathers from a source with no batches (all NULL)', () => {
    const src = new RowSource([], SCHEMA);
    const indices = new Int32Array([-1, -1, -1]);
    const cols = gatherColumns(src, indices, 0, 3);
    cols.forEach((d, c) => {
      expect(d.length, FIELDS[c]![0]).toBe(3);
      expect(d.nullCount, FIELDS[c]![0]).toBe(3);
    });
  });

  it('produces no validity bitmap when nothing is NULL', () => {
    const batch = makeRecordBatch(new Schema([new Field('x', new Int32())]), [vectorOf(new Int32(), [1, 2, 3]).data[0]!], 3);
    const out = gatherColumn(new RowSource([batch]), 0, new Int32Array([2, 0]), 0, 2);
    expect(out.nullCount).toBe(0);
    expect(Array.from(new Vector([out]))).toEqual([3, 1]);
  });

  it('rejects indices outside the source', () => {
    const src = new RowSource([randomBatch(5, 12)]);
    expect(() => gatherColumn(src, 0, new Int32Array([5]), 0, 1)).toThrow(RangeError);
    const multi = new RowSource([randomBatch(5, 12), randomBatch(5, 13)]);
    expect(() => gatherColumn(multi, 0, new Int32Array([10]), 0, 1)).toThrow(RangeError);
  });
});

describe('string gathers (values copied a word pair at a time, over-copying into padding)', () => {
  // every length from 0 to 80 (inside the 8-byte loop, its tail, the `set` path past 64), values
  // ending exactly at the end of their buffer (the last word cannot be read whole)
  function stringsBatch(seed: number, binary: boolean): RecordBatch {
    const r = rng(seed);
    const values = Array.from({ length: 162 }, (_, i) => (i % 17 === 5 ? null : 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(3).slice(0, i % 81)));
    for (let i = values.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [values[i], values[j]] = [values[j]!, values[i]!];
    }
    values[values.length - 1] = 'abcde'; // the last value starts less than a word before the end
    const type = binary ? new Binary() : new Utf8();
    const data = vectorOf(type, binary ? values.map((v) => (v === null ? null : new TextEncoder().encode(v))) : values).data[0]!;
    const offsets = data.valueOffsets as Int32Array;
    const exact = (data.values as Uint8Array).slice(0, offsets[data.length]!); // no slack after the last value
    const tight = new Data(type, 0, data.length, data.nullCount, [offsets, exact, data.nullBitmap] as never);
    return makeRecordBatch(new Schema([new Field('s', type)]), [tight], data.length);
  }
  for (const binary of [false, true]) {
    it(`${binary ? 'Binary' : 'Utf8'}: random, ascending and NULL-padded rows of one batch and of several`, () => {
      const one = stringsBatch(41, binary);
      const several = [stringsBatch(42, binary), stringsBatch(43, binary).slice(7, 150), stringsBatch(44, binary)];
      for (const batches of [[one], several]) {
        const src = new RowSource(batches);
        const ascending = Int32Array.from({ length: src.numRows }, (_, i) => i).filter((i) => i % 3 !== 1);
        for (const indices of [randomIndices(500, src.numRows, 45), ascending, Int32Array.from({ length: src.numRows }, (_, i) => src.numRows - 1 - i)]) {
          const out = gatherColumn(src, 0, indices, 0, indices.length);
          expectGathered(batches, 0, indices, out);
          expect((out.values as Uint8Array).length).toBe((out.valueOffsets as Int32Array)[indices.length]);
        }
      }
    });
  }
});

// --- nested, interval, time and duration columns ----------------------------------------------

const item = (t: DataType) => new Field('item', t, true);
const NESTED: readonly [string, DataType][] = [
  ['list', new List(item(new Int32()))],
  ['llist', new LargeList(item(new Utf8()))],
  ['fsl', new FixedSizeList(2, item(new Int16()))],
  ['struct', new Struct([new Field('a', new Int64(), true), new Field('b', new Utf8(), true), new Field('c', new List(item(new Int32())), true)])],
  ['map', new Map_(new Field('entries', new Struct([new Field('key', new Utf8(), false), new Field('value', new Int32(), true)] as Field[]), false) as never)],
  ['mdn', new IntervalMonthDayNano()],
  ['dt', new IntervalDayTime()],
  ['ym', new IntervalYearMonth()],
  ['t32', new TimeSecond()],
  ['t64', new TimeMicrosecond()],
  ['dur', new DurationNanosecond()],
];
const NESTED_SCHEMA = new Schema(NESTED.map(([name, type]) => new Field(name, type, true)));

function nestedColumn(type: DataType, n: number, r: () => number): Data {
  const valid = Array.from({ length: n }, () => r() > 0.2);
  const pick = <T>(f: () => T) => Array.from({ length: n }, (_, i) => (valid[i] ? f() : null));
  const small = () => (r() < 0.15 ? null : Math.floor((r() - 0.5) * 1000));
  const len = () => Math.floor(r() * 4);
  const fixed = (data: ArrayBufferView) => makeData({ type, data, length: n, nullBitmap: bitmapOf(valid) } as never) as Data;
  const words = (per: number) => Int32Array.from({ length: per * n }, () => Math.floor((r() - 0.5) * 2 ** 31));
  switch (NESTED.find(([, t]) => t === type)![0]) {
    case 'list':
      return vectorOf(type, pick(() => Array.from({ length: len() }, small))).data[0]!;
    case 'llist':
      return vectorOf(type, pick(() => Array.from({ length: len() }, () => (r() < 0.2 ? null : randomString(r))))).data[0]!;
    case 'fsl':
      return vectorOf(type, pick(() => [small(), small()])).data[0]!;
    case 'struct':
      return vectorOf(type, pick(() => ({ a: r() < 0.2 ? null : BigInt(Math.floor(r() * 1e9)), b: randomString(r), c: r() < 0.2 ? null : Array.from({ length: len() }, small) }))).data[0]!;
    case 'map':
      return vectorOf(type, pick(() => new Map(Array.from({ length: len() }, (_, j) => [`k${j}${randomString(r)}`, small()])))).data[0]!;
    case 'mdn':
      return fixed(words(4));
    case 'dt':
      return fixed(words(2));
    case 'ym':
    case 't32':
      return fixed(words(1));
    default:
      return fixed(BigInt64Array.from({ length: n }, () => BigInt(Math.floor((r() - 0.5) * 2 ** 40))));
  }
}

function randomNestedBatch(n: number, seed: number): RecordBatch {
  const r = rng(seed);
  return makeRecordBatch(NESTED_SCHEMA, NESTED.map(([, type]) => nestedColumn(type, n, r)), n);
}

describe('nested, interval, time and duration columns', () => {
  it('gather from one batch and from several (empty and sliced ones too), -1 giving NULL', () => {
    const one = randomNestedBatch(50, 21);
    const single = randomIndices(90, 50, 22);
    for (let c = 0; c < NESTED.length; c++) expectGathered([one], c, single, gatherColumn(new RowSource([one]), c, single, 0, single.length));
    const batches = [randomNestedBatch(40, 23).slice(5, 33), randomNestedBatch(0, 24), randomNestedBatch(30, 25).slice(7), randomNestedBatch(20, 26)];
    const src = new RowSource(batches);
    const indices = randomIndices(200, src.numRows, 27);
    for (let c = 0; c < NESTED.length; c++) expectGathered(batches, c, indices, gatherColumn(src, c, indices, 0, indices.length));
  });

  it('survive an IPC round trip and concatenation', () => {
    const batches = [randomNestedBatch(12, 28), randomNestedBatch(9, 29).slice(2)];
    const all = concatBatches(batches, NESTED_SCHEMA);
    const back = tableFromIPC(tableToIPC(new Table(NESTED_SCHEMA, [all])));
    for (let c = 0; c < NESTED.length; c++) {
      expect([...back.getChildAt(c)!].map(plain), NESTED[c]![0]).toEqual([...batches.flatMap((b) => [...b.getChildAt(c)!])].map(plain));
    }
  });

  it('a union column is an UnsupportedTypeError naming it', () => {
    const u = new SparseUnion([0], [new Field('i', new Int32(), true)]);
    expect(ungatherableReason(u)).toMatch(/cannot be gathered/);
    expect(ungatherableReason(new List(item(u)))).toMatch(/cannot be gathered/);
    expect(ungatherableReason(NESTED[3]![1])).toBeNull();
  });
});

describe('dictionaries', () => {
  const schema = new Schema([new Field('d', dictType, true)]);
  const batchWith = (dictionary: Vector, codes: number[]) =>
    makeRecordBatch(schema, [makeData({ type: dictType, data: Int16Array.from(codes), length: codes.length, dictionary })], codes.length);

  it('shares the dictionary of the source batches', () => {
    const batches = [batchWith(sharedDictionary, [0, 1]), batchWith(sharedDictionary, [2, 3])];
    const out = gatherColumn(new RowSource(batches), 0, new Int32Array([3, 0, -1]), 0, 3);
    expect(out.dictionary).toBe(sharedDictionary);
    expect(Array.from(new Vector([out]))).toEqual(['a rather long dictionary entry', 'red', null]);
  });

  it('uses the largest dictionary when the others are its prefix (IPC deltas)', () => {
    const extended = sharedDictionary.concat(vectorOf(new Utf8(), ['purple']));
    const batches = [batchWith(sharedDictionary, [1]), batchWith(extended, [4])];
    const out = gatherColumn(new RowSource(batches), 0, new Int32Array([1, 0]), 0, 2);
    expect(out.dictionary).toBe(extended);
    expect(Array.from(new Vector([out]))).toEqual(['purple', 'green']);
  });

  it('merges unrelated dictionaries and rebases the codes', () => {
    const batches = [batchWith(vectorOf(new Utf8(), ['a', 'b']), [1, 0]), batchWith(vectorOf(new Utf8(), ['c', 'd']), [0, 1])];
    const out = gatherColumn(new RowSource(batches), 0, new Int32Array([3, 0, 2, 1]), 0, 4);
    expect(Array.from(new Vector([out]))).toEqual(['d', 'b', 'c', 'a']);
  });
});

describe('makeRecordBatch / concatBatches / IPC', () => {
  it('builds batches that survive an Arrow IPC round trip', () => {
    const batches = [randomBatch(20, 14), randomBatch(17, 15).slice(3)];
    const src = new RowSource(batches);
    const indices = randomIndices(50, src.numRows, 16);
    const out = makeRecordBatch(SCHEMA, gatherColumns(src, indices, 0, indices.length), indices.length);
    const back = tableFromIPC(tableToIPC(new Table([out])));
    expect(back.numRows).toBe(50);
    for (let c = 0; c < FIELDS.length; c++) {
      for (let k = 0; k < 50; k++) expect(plain(back.getChildAt(c)!.get(k))).toEqual(plain(out.getChildAt(c)!.get(k)));
    }
  });

  it('concatenates batches', () => {
    const batches = [randomBatch(4, 17), randomBatch(3, 18).slice(1)];
    const all = concatBatches(batches, SCHEMA);
    expect(all.numRows).toBe(6);
    const identity = Int32Array.from({ length: 6 }, (_, i) => i);
    for (let c = 0; c < FIELDS.length; c++) expectGathered(batches, c, identity, all.data.children[c]!);
  });

  it('concatenates NULL-free strings and binaries by block copies, sliced and empty batches included', () => {
    const schema = new Schema([new Field('s', new Utf8()), new Field('b', new Binary())]);
    const enc = new TextEncoder();
    const batch = (xs: string[]) =>
      new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: xs.length, nullCount: 0, children: [vectorOf(new Utf8(), xs).data[0]!, vectorOf(new Binary(), xs.map((x) => enc.encode(x))).data[0]!] }));
    const parts = [batch(['a', '', 'héllo']), batch(['x', 'yy', 'zzz', '']).slice(1, 3), batch([]), batch(['', 'last'])];
    const all = concatBatches(parts, schema);
    const want = ['a', '', 'héllo', 'yy', 'zzz', '', 'last'];
    expect(all.numRows).toBe(want.length);
    expect(Array.from(all.getChild('s')!)).toEqual(want);
    expect(Array.from(all.getChild('b')!, (v) => new TextDecoder().decode(v as Uint8Array))).toEqual(want);
    expect(all.data.children[0]!.valueOffsets[0]).toBe(0);
  });

  it('checks column lengths', () => {
    expect(() => makeRecordBatch(new Schema([new Field('x', new Int32())]), [vectorOf(new Int32(), [1]).data[0]!], 2)).toThrow(RangeError);
  });
});

describe('boolData', () => {
  it('copies bits of a Bitset at any offset', () => {
    const bits = new Bitset(100);
    for (let i = 0; i < 100; i += 3) bits.set(i);
    for (const [start, count] of [
      [0, 100],
      [1, 40],
      [33, 67],
      [31, 2],
    ] as const) {
      const v = new Vector([boolData(bits, start, count)]);
      expect(v.nullCount).toBe(0);
      expect(Array.from(v)).toEqual(Array.from({ length: count }, (_, k) => (start + k) % 3 === 0));
    }
  });

  it('packs byte-per-row marks', () => {
    const marks = new Uint8Array([0, 1, 1, 0, 1, 0, 0, 0, 1, 1]);
    expect(Array.from(new Vector([boolData(marks, 1, 9)]))).toEqual([true, true, false, true, false, false, false, true, true]);
  });
});
