import {
  Binary,
  Bool,
  DateDay,
  DateMillisecond,
  Decimal,
  Dictionary,
  FixedSizeBinary,
  Float16,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  LargeBinary,
  LargeUtf8,
  List,
  Field,
  Null,
  Timestamp,
  TimestampMicrosecond,
  TimestampMillisecond,
  TimestampNanosecond,
  TimestampSecond,
  TimeUnit,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
  Utf8View,
  BinaryView,
} from 'apache-arrow';
import type { DataType } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { KeyTypeMismatchError, UnsupportedTypeError } from '../errors.ts';
import { keyKindOf, resolveKeyKind } from './resolve.ts';

const r = (a: DataType, b: DataType) => resolveKeyKind(a, b, 'l', 'r');

describe('resolveKeyKind', () => {
  it('widens integers like DuckDB', () => {
    expect(r(new Int8(), new Int64())).toMatchObject({ order: 'int', width: 2, sqlType: 'BIGINT' });
    expect(r(new Int16(), new Int32())).toMatchObject({ order: 'int', width: 2, sqlType: 'INTEGER' });
    expect(r(new Uint8(), new Int8())).toMatchObject({ order: 'int', width: 2, sqlType: 'SMALLINT' });
    expect(r(new Uint16(), new Int16())).toMatchObject({ order: 'int', width: 2, sqlType: 'INTEGER' });
    expect(r(new Uint32(), new Int32())).toMatchObject({ order: 'int', width: 2, sqlType: 'BIGINT' });
    expect(r(new Uint8(), new Int32())).toMatchObject({ order: 'int', width: 2, sqlType: 'INTEGER' });
    expect(r(new Uint32(), new Uint8())).toMatchObject({ order: 'int', width: 2, sqlType: 'UINTEGER' });
    expect(r(new Uint64(), new Uint64())).toMatchObject({ order: 'uint', width: 2, sqlType: 'UBIGINT' });
    expect(r(new Uint64(), new Uint32())).toMatchObject({ order: 'uint', width: 2, sqlType: 'UBIGINT' });
    expect(r(new Uint64(), new Int64())).toMatchObject({ order: 'int', width: 3, sqlType: 'HUGEINT' });
    expect(r(new Int8(), new Uint64())).toMatchObject({ order: 'int', width: 3, sqlType: 'HUGEINT' });
  });

  it('treats booleans as booleans, or as 0/1 against numbers', () => {
    expect(r(new Bool(), new Bool())).toMatchObject({ order: 'bool', width: 1, sqlType: 'BOOLEAN' });
    expect(r(new Bool(), new Int32())).toMatchObject({ order: 'int', width: 2, sqlType: 'INTEGER' });
    expect(r(new Uint64(), new Bool())).toMatchObject({ order: 'uint', sqlType: 'UBIGINT' });
    expect(r(new Bool(), new Float64())).toMatchObject({ order: 'float', sqlType: 'DOUBLE' });
  });

  it('maps floats to FLOAT or DOUBLE', () => {
    expect(r(new Float32(), new Float64())).toMatchObject({ order: 'float', width: 2, sqlType: 'DOUBLE' });
    expect(r(new Float32(), new Float32())).toMatchObject({ sqlType: 'FLOAT' });
    expect(r(new Float16(), new Float32())).toMatchObject({ sqlType: 'FLOAT' });
    expect(r(new Int32(), new Float32())).toMatchObject({ sqlType: 'FLOAT' });
    expect(r(new Int64(), new Float64())).toMatchObject({ sqlType: 'DOUBLE' });
    expect(r(new Uint64(), new Float32())).toMatchObject({ sqlType: 'FLOAT' });
    expect(r(new Decimal(2, 10, 128), new Float64())).toMatchObject({ order: 'float', sqlType: 'DOUBLE' });
  });

  it('unifies decimals with the comparison rule (max scale, width capped at 38)', () => {
    expect(r(new Decimal(2, 10, 128), new Decimal(5, 12, 128))).toMatchObject({ order: 'decimal', width: 4, scale: 5, sqlType: 'DECIMAL(13,5)' });
    expect(r(new Decimal(2, 10, 128), new Int64())).toMatchObject({ scale: 2, sqlType: 'DECIMAL(21,2)' });
    expect(r(new Int32(), new Decimal(2, 10, 128))).toMatchObject({ scale: 2, sqlType: 'DECIMAL(12,2)' });
    expect(r(new Decimal(2, 10, 128), new Uint64())).toMatchObject({ sqlType: 'DECIMAL(22,2)' });
    expect(r(new Decimal(20, 30, 128), new Decimal(0, 30, 128))).toMatchObject({ scale: 20, sqlType: 'DECIMAL(38,20)' });
    expect(r(new Decimal(30, 38, 128), new Int64())).toMatchObject({ scale: 30, sqlType: 'DECIMAL(38,30)' });
  });

  it('unifies dates and timestamps', () => {
    expect(r(new DateDay(), new DateMillisecond())).toMatchObject({ order: 'int', width: 2, sqlType: 'DATE' });
    expect(r(new TimestampSecond(), new TimestampNanosecond())).toMatchObject({ order: 'int', sqlType: 'TIMESTAMP_NS', timeUnit: 'NANOSECOND' });
    expect(r(new TimestampMillisecond(), new TimestampSecond())).toMatchObject({ sqlType: 'TIMESTAMP_MS', timeUnit: 'MILLISECOND' });
    expect(r(new TimestampMicrosecond(), new TimestampMicrosecond())).toMatchObject({ sqlType: 'TIMESTAMP', timeUnit: 'MICROSECOND' });
    expect(r(new DateDay(), new TimestampSecond())).toMatchObject({ sqlType: 'TIMESTAMP_S', timeUnit: 'SECOND' });
    const tz = (u: TimeUnit) => new Timestamp(u, 'UTC');
    expect(r(tz(TimeUnit.SECOND), tz(TimeUnit.MILLISECOND))).toMatchObject({ sqlType: 'TIMESTAMP WITH TIME ZONE', timeUnit: 'MILLISECOND' });
    expect(() => r(tz(TimeUnit.SECOND), new TimestampSecond())).toThrow(/time zone/);
  });

  it('maps every string layout to VARCHAR and binary layouts to BLOB', () => {
    const dict = new Dictionary(new Utf8(), new Int32());
    for (const [a, b] of [
      [new Utf8(), new LargeUtf8()],
      [dict, new Utf8()],
      [new Utf8View(), dict],
    ] as const) {
      expect(r(a, b)).toEqual({ order: 'bytes', width: 0, sqlType: 'VARCHAR' });
    }
    expect(r(new Binary(), new LargeBinary())).toEqual({ order: 'bytes', width: 0, sqlType: 'BLOB' });
    expect(r(new BinaryView(), new FixedSizeBinary(4))).toMatchObject({ sqlType: 'BLOB' });
    expect(r(new Utf8(), new Binary())).toMatchObject({ sqlType: 'BLOB' });
  });

  it('lets the Null type take the other side', () => {
    expect(r(new Null(), new Int16())).toMatchObject({ sqlType: 'SMALLINT' });
    expect(r(new Utf8(), new Null())).toMatchObject({ sqlType: 'VARCHAR' });
    expect(r(new Null(), new Null())).toMatchObject({ sqlType: 'NULL' });
  });

  it('decodes dictionaries of numbers by their value type', () => {
    expect(r(new Dictionary(new Int32(), new Int8()), new Int64())).toMatchObject({ sqlType: 'BIGINT' });
  });

  it('rejects mismatches naming both columns and types', () => {
    const e = (() => {
      try {
        resolveKeyKind(new Utf8(), new Int32(), 'name', 'id');
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(KeyTypeMismatchError);
    expect((e as Error).message).toContain('left.name (Utf8)');
    expect((e as Error).message).toContain('right.id (Int32)');
    expect(() => r(new Bool(), new Utf8())).toThrow(KeyTypeMismatchError);
    expect(() => r(new DateDay(), new Int32())).toThrow(KeyTypeMismatchError);
    expect(() => r(new TimestampSecond(), new Int64())).toThrow(KeyTypeMismatchError);
    expect(() => r(new Decimal(0, 10, 128), new Utf8())).toThrow(KeyTypeMismatchError);
  });

  it('rejects unsupported types', () => {
    const list = new List(new Field('x', new Int32()));
    expect(() => resolveKeyKind(list, list, 'xs', 'xs')).toThrow(UnsupportedTypeError);
    expect(() => r(new Decimal(0, 60, 256), new Decimal(0, 60, 256))).toThrow(UnsupportedTypeError);
  });
});

describe('keyKindOf', () => {
  it('gives one side its own kind', () => {
    expect(keyKindOf(new Int8(), 'k')).toMatchObject({ order: 'int', width: 2, sqlType: 'TINYINT' });
    expect(keyKindOf(new Uint64(), 'k')).toMatchObject({ order: 'uint', sqlType: 'UBIGINT' });
    expect(keyKindOf(new Decimal(3, 9, 128), 'k')).toMatchObject({ order: 'decimal', scale: 3, sqlType: 'DECIMAL(9,3)' });
    expect(keyKindOf(new TimestampNanosecond(), 'k')).toMatchObject({ timeUnit: 'NANOSECOND' });
    expect(keyKindOf(new Float32(), 'k')).toMatchObject({ sqlType: 'FLOAT' });
  });
});
