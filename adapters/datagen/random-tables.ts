/**
 * Random tables for differential testing (the nested-loop oracle against DuckDB, later every
 * algorithm against the oracle).
 *
 * Values are drawn from a small integer domain so keys repeat (duplicates) and the two sides
 * overlap; a skew knob sends a share of rows to a few hot values; NULLs appear at a chosen rate.
 * Each logical key type maps the drawn integer into that type, and floats mix in -0.0 and NaN so
 * the DuckDB float rules (-0.0 = 0.0, NaN = NaN) are exercised. Tables are split into record
 * batches of a chosen size (1 upwards), because batch boundaries are where operators break.
 */
import {
  Binary,
  Bool,
  DateDay,
  Decimal,
  Dictionary,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  LargeUtf8,
  RecordBatch,
  Table,
  TimeUnit,
  Timestamp,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
  makeData,
  makeVector,
  vectorFromArray,
  type DataType,
  type Vector,
} from 'apache-arrow';
import { Rng } from '../../core/random.ts';

export const LOGICAL_TYPES = [
  'int8',
  'int16',
  'int32',
  'int64',
  'uint8',
  'uint32',
  'uint64',
  'float32',
  'float64',
  'utf8',
  'large-utf8',
  'dict-utf8',
  'binary',
  'bool',
  'date32',
  'ts-s',
  'ts-ms',
  'ts-us',
  'ts-ns',
  'decimal',
] as const;
export type LogicalType = (typeof LOGICAL_TYPES)[number];

/** Pairs of (left, right) key types that DuckDB joins after implicit widening. */
export const COMPATIBLE_KEY_PAIRS: readonly (readonly [LogicalType, LogicalType])[] = [
  ...LOGICAL_TYPES.map((t) => [t, t] as const),
  ['int32', 'int64'],
  ['int8', 'int16'],
  ['uint8', 'int32'],
  ['uint32', 'int64'],
  ['int16', 'uint32'],
  ['float32', 'float64'],
  ['int32', 'float64'],
  ['utf8', 'dict-utf8'],
  ['large-utf8', 'utf8'],
  ['ts-s', 'ts-ms'],
  ['ts-us', 'ts-ns'],
];

export function arrowType(t: LogicalType): DataType {
  switch (t) {
    case 'int8': return new Int8();
    case 'int16': return new Int16();
    case 'int32': return new Int32();
    case 'int64': return new Int64();
    case 'uint8': return new Uint8();
    case 'uint32': return new Uint32();
    case 'uint64': return new Uint64();
    case 'float32': return new Float32();
    case 'float64': return new Float64();
    case 'utf8': return new Utf8();
    case 'large-utf8': return new LargeUtf8();
    case 'dict-utf8': return new Dictionary(new Utf8(), new Int32());
    case 'binary': return new Binary();
    case 'bool': return new Bool();
    case 'date32': return new DateDay();
    case 'ts-s': return new Timestamp(TimeUnit.SECOND);
    case 'ts-ms': return new Timestamp(TimeUnit.MILLISECOND);
    case 'ts-us': return new Timestamp(TimeUnit.MICROSECOND);
    case 'ts-ns': return new Timestamp(TimeUnit.NANOSECOND);
    case 'decimal': return new Decimal(2, 12, 128);
  }
}

export interface ColumnGen {
  readonly name: string;
  readonly type: LogicalType;
  /** Values are drawn from [0, domain). */
  readonly domain: number;
  readonly nullRate: number;
  /** Share of rows drawn from the 3 lowest values. */
  readonly skew?: number;
}

const TS_SCALE: Record<string, bigint> = { 'ts-s': 1n, 'ts-ms': 1000n, 'ts-us': 1_000_000n, 'ts-ns': 1_000_000_000n };
const WORDS = ['', 'a', 'ab', 'b', 'é', 'ü-x', 'zz', 'A', '日本', 'a\u0000b'];

function drawInts(rng: Rng, g: ColumnGen, n: number): { v: Int32Array; valid: Uint8Array } {
  const v = new Int32Array(n);
  const valid = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    v[i] = g.skew && rng.chance(g.skew) ? rng.int(0, Math.min(2, g.domain - 1)) : rng.int(0, g.domain - 1);
    valid[i] = rng.chance(g.nullRate) ? 0 : 1;
  }
  return { v, valid };
}

function bitmapOf(valid: Uint8Array): { nullBitmap: Uint8Array | null; nullCount: number } {
  const bm = new Uint8Array((valid.length + 7) >> 3);
  let nullCount = 0;
  for (let i = 0; i < valid.length; i++) {
    if (valid[i]) bm[i >> 3]! |= 1 << (i & 7);
    else nullCount++;
  }
  return { nullBitmap: nullCount ? bm : null, nullCount };
}

/** The drawn integer `x` as a value of type `t` (strings, floats with -0.0/NaN, …). */
function fixedData(t: LogicalType, v: Int32Array, rng: Rng): ArrayBufferView {
  const n = v.length;
  switch (t) {
    case 'int8': return Int8Array.from(v, (x) => x - 3);
    case 'int16': return Int16Array.from(v, (x) => x * 97 - 200);
    case 'int32': return Int32Array.from(v, (x) => x - 5);
    case 'int64': return BigInt64Array.from(v, (x) => BigInt(x - 5));
    case 'uint8': return Uint8Array.from(v);
    case 'uint32': return Uint32Array.from(v);
    case 'uint64': return BigUint64Array.from(v, (x) => (x % 7 === 6 ? 18446744073709551615n - BigInt(x) : BigInt(x)));
    case 'float32':
    case 'float64': {
      const out = t === 'float32' ? new Float32Array(n) : new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const x = v[i]!;
        out[i] = x === 0 ? (rng.chance(0.5) ? -0 : 0) : x === 1 ? NaN : (x - 5) / 2;
      }
      return out;
    }
    case 'bool': {
      const bytes = new Uint8Array((n + 7) >> 3);
      for (let i = 0; i < n; i++) if (v[i]! % 2) bytes[i >> 3]! |= 1 << (i & 7);
      return bytes;
    }
    case 'date32': return Int32Array.from(v, (x) => x * 31 - 40);
    case 'ts-s':
    case 'ts-ms':
    case 'ts-us':
    case 'ts-ns': {
      // The same instants whatever the unit, so mixed-unit keys still match.
      const scale = TS_SCALE[t]!;
      return BigInt64Array.from(v, (x) => BigInt(x * 3600 - 7200) * scale);
    }
    case 'decimal': {
      const words = new Uint32Array(n * 4);
      for (let i = 0; i < n; i++) {
        const unscaled = BigInt((v[i]! - 4) * 125);
        const u = BigInt.asUintN(128, unscaled);
        for (let w = 0; w < 4; w++) words[i * 4 + w] = Number((u >> BigInt(32 * w)) & 0xffffffffn);
      }
      return words;
    }
    default:
      throw new Error(`not a fixed-width type: ${t}`);
  }
}

export function randomColumn(rng: Rng, g: ColumnGen, n: number): Vector {
  const { v, valid } = drawInts(rng, g, n);
  const type = arrowType(g.type);
  if (g.type === 'utf8' || g.type === 'large-utf8' || g.type === 'dict-utf8' || g.type === 'binary') {
    const strings = Array.from(v, (x, i) => (valid[i] ? `${WORDS[x % WORDS.length]}${Math.floor(x / WORDS.length) || ''}` : null));
    if (g.type === 'binary') {
      return vectorFromArray(strings.map((s) => (s === null ? null : new TextEncoder().encode(s))), type);
    }
    return vectorFromArray(strings, type);
  }
  const data = fixedData(g.type, v, rng);
  return makeVector(makeData({ type, length: n, ...bitmapOf(valid), data } as never));
}

/** A table of `n` rows with the given columns, split into batches of `batchSize` rows. */
export function randomTable(rng: Rng, columns: readonly ColumnGen[], n: number, batchSize: number): Table {
  const vectors = columns.map((c) => randomColumn(rng, c, n));
  const whole = new Table(Object.fromEntries(columns.map((c, i) => [c.name, vectors[i]!])));
  return rebatch(whole, batchSize);
}

/** The same rows split into record batches of `size` rows (the last may be shorter). */
export function rebatch(table: Table, size: number): Table {
  const batches: RecordBatch[] = [];
  for (const b of table.batches) {
    for (let off = 0; off < b.numRows; off += size) batches.push(b.slice(off, Math.min(off + size, b.numRows)));
  }
  return new Table(table.schema, batches);
}
