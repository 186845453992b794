/**
 * What the evaluator can read, decided once per column at compile time: an Arrow type's
 * compile-time class (DuckDB's type: INTEGER, DECIMAL(p,s), TIMESTAMP_MS, VARCHAR, ...) and the
 * layout its buffers are read with. `null` = not readable (the compiler names the column in an
 * UnsupportedTypeError). Decimals above 38 digits are read approximately, as DOUBLE; dictionaries
 * only over string/binary values; Float16 reads as FLOAT.
 */
import { type DataType, type Date_, type Decimal, type Dictionary, type Float, type Int, type Timestamp, DateUnit, Precision, TimeUnit, Type } from 'apache-arrow';
import { BOOLEAN, type TemporalUnit, type VClass } from './node-base.ts';
import { DOUBLE, decimalType, FLOAT, intType, type IntKind, type NumType, typeName } from './numeric-types.ts';

export function numClass(t: NumType): VClass {
  return { c: 'num', sql: typeName(t), t };
}

/** How a column's buffers are read. */
export type Layout = 'small-int' | 'i64' | 'u64' | 'float' | 'half' | 'decimal' | 'decimal-approx' | 'bool' | 'bytes' | 'dict';

export interface ColumnType {
  readonly cls: VClass;
  readonly layout: Layout;
}

const INT_KINDS: Record<string, IntKind> = { s8: 'i8', s16: 'i16', s32: 'i32', s64: 'i64', u8: 'u8', u16: 'u16', u32: 'u32', u64: 'u64' };
const TS_UNITS: Record<number, [TemporalUnit, string]> = {
  [TimeUnit.SECOND]: ['s', 'TIMESTAMP_S'],
  [TimeUnit.MILLISECOND]: ['ms', 'TIMESTAMP_MS'],
  [TimeUnit.MICROSECOND]: ['us', 'TIMESTAMP'],
  [TimeUnit.NANOSECOND]: ['ns', 'TIMESTAMP_NS'],
};

/** The class and layout of an Arrow type, or `null` when the evaluator cannot read it. */
export function columnType(type: DataType): ColumnType | null {
  switch (type.typeId) {
    case Type.Int: {
      const t = type as Int;
      const kind = INT_KINDS[(t.isSigned ? 's' : 'u') + t.bitWidth]!;
      return { cls: numClass(intType(kind)), layout: t.bitWidth === 64 ? (t.isSigned ? 'i64' : 'u64') : 'small-int' };
    }
    case Type.Float: {
      const p = (type as Float).precision;
      return { cls: numClass(p === Precision.DOUBLE ? DOUBLE : FLOAT), layout: p === Precision.HALF ? 'half' : 'float' };
    }
    case Type.Decimal: {
      const t = type as Decimal;
      if (t.precision <= 38) return { cls: numClass(decimalType(t.precision, t.scale)), layout: 'decimal' };
      return { cls: { c: 'num', sql: `DECIMAL(${t.precision},${t.scale})`, t: DOUBLE }, layout: 'decimal-approx' };
    }
    case Type.Bool:
      return { cls: BOOLEAN, layout: 'bool' };
    case Type.Utf8:
    case Type.LargeUtf8:
    case Type.Utf8View:
      return { cls: { c: 'str', sql: 'VARCHAR' }, layout: 'bytes' };
    case Type.Binary:
    case Type.LargeBinary:
    case Type.BinaryView:
      return { cls: { c: 'bin', sql: 'BLOB' }, layout: 'bytes' };
    case Type.Dictionary: {
      const values = columnType((type as Dictionary).dictionary);
      if (values === null || values.layout !== 'bytes') return null;
      return { cls: values.cls, layout: 'dict' };
    }
    case Type.Date: {
      const day = (type as Date_).unit === DateUnit.DAY;
      return day
        ? { cls: { c: 'time', sql: 'DATE', unit: 'day' }, layout: 'small-int' }
        : { cls: { c: 'time', sql: 'DATE64', unit: 'date-ms' }, layout: 'i64' };
    }
    case Type.Timestamp: {
      const t = type as Timestamp;
      const [unit, sql] = TS_UNITS[t.unit]!;
      const cls: VClass = t.timezone ? { c: 'time', sql: `${sql} (tz ${t.timezone})`, unit, tz: t.timezone } : { c: 'time', sql, unit };
      return { cls, layout: 'i64' };
    }
    default:
      return null;
  }
}
