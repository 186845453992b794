/**
 * Column statistics from the footer, decoded lazily per row group and column.
 *
 * Statistics follow the `StatValue` convention of core/scan/scan.ts and are only ever safe
 * bounds ("maybe" when unsure -> `undefined`):
 * - INT8..INT32/UINT8..UINT32/dates -> number; INT64/UINT64, timestamps (converted to the Arrow
 *   column's unit: min floored, max ceiled), decimals (unscaled) -> bigint; UTF-8 -> string (bytes
 *   that are not valid UTF-8, e.g. a truncated bound, -> unknown); binary -> Uint8Array.
 * - `min_value`/`max_value` are used when the column order is TYPE_DEFINED_ORDER; the deprecated
 *   `min`/`max` (or `min_value` without a column order) only for types whose signed order equals
 *   their type order (signed ints, dates, timestamps, INT32/INT64 decimals, booleans).
 * - floats: Parquet writers leave NaN out of min/max (parquet-rs) or drop the statistics (DuckDB),
 *   but DuckDB orders NaN above every number, so `max` is always reported as NaN (a NaN may hide
 *   in the row group); `min` is used as written, -0.0 normalised to 0.
 * - all-NULL chunks -> `{ min: null, max: null, nullCount: numRows }`; anything else without both
 *   bounds -> `undefined`. INT96, Float16, nested columns, Date64, intervals, times -> `undefined`.
 */
import { DataType, TimeUnit } from 'apache-arrow';
import type { SchemaElement } from 'hyparquet';
import type { ColumnStats, StatValue } from '../../core/scan/scan.ts';
import { NeedsFallback } from './parquet-footer.ts';
import { tbytes, ti64, type TStruct } from './thrift.ts';

const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

type StatKind = 'int' | 'int64' | 'uint64' | 'float' | 'bool' | 'utf8' | 'binary' | 'date32' | 'timestamp' | 'decimal';

function statKindOf(t: DataType): StatKind | null {
  if (DataType.isDictionary(t)) return statKindOf(t.dictionary);
  if (DataType.isInt(t)) return t.bitWidth < 64 ? 'int' : t.isSigned ? 'int64' : 'uint64';
  if (DataType.isFloat(t)) return t.precision === 0 ? null : 'float';
  if (DataType.isBool(t)) return 'bool';
  if (DataType.isUtf8(t) || DataType.isLargeUtf8(t)) return 'utf8';
  if (DataType.isBinary(t) || DataType.isLargeBinary(t) || DataType.isFixedSizeBinary(t)) return 'binary';
  if (DataType.isDate(t)) return t.unit === 0 ? 'date32' : null;
  if (DataType.isTimestamp(t)) return 'timestamp';
  if (DataType.isDecimal(t)) return t.bitWidth === 128 ? 'decimal' : null;
  return null;
}

function isUnsignedParquet(el: SchemaElement): boolean {
  const lt = el.logical_type;
  return (lt?.type === 'INTEGER' && !lt.isSigned) || (el.converted_type?.startsWith('UINT_') ?? false);
}

function parquetTimeUnit(el: SchemaElement): number | null {
  const lt = el.logical_type;
  const unit = lt?.type === 'TIMESTAMP' ? lt.unit : undefined;
  if (unit === 'MILLIS' || el.converted_type === 'TIMESTAMP_MILLIS') return TimeUnit.MILLISECOND;
  if (unit === 'MICROS' || el.converted_type === 'TIMESTAMP_MICROS') return TimeUnit.MICROSECOND;
  if (unit === 'NANOS') return TimeUnit.NANOSECOND;
  return null; // bare INT64 (parquet-rs' timestamp[s]): same unit as the Arrow column
}

function decimalScale(el: SchemaElement): number | undefined {
  const lt = el.logical_type;
  return lt?.type === 'DECIMAL' ? lt.scale : el.converted_type === 'DECIMAL' ? (el.scale ?? 0) : undefined;
}

/** Big-endian two's complement -> bigint. */
function beSigned(b: Uint8Array): bigint {
  if (b.length === 0) throw new NeedsFallback('empty decimal');
  let v = 0n;
  for (let i = 0; i < b.length; i++) v = (v << 8n) | BigInt(b[i]!);
  return b[0]! & 0x80 ? v - (1n << BigInt(b.length * 8)) : v;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}
function ceilDiv(a: bigint, b: bigint): bigint {
  return -floorDiv(-a, b);
}

/** One bound from raw statistics bytes, or undefined when it cannot be represented safely. */
function decodeBound(kind: StatKind, el: SchemaElement, arrow: DataType, b: Uint8Array, isMax: boolean): StatValue | undefined {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const phys = el.type;
  switch (kind) {
    case 'int':
      if (phys === 'INT32' && b.length === 4) return isUnsignedParquet(el) ? dv.getUint32(0, true) : dv.getInt32(0, true);
      return undefined;
    case 'int64':
      if (phys === 'INT64' && b.length === 8 && !isUnsignedParquet(el)) return dv.getBigInt64(0, true);
      if (phys === 'INT32' && b.length === 4 && !isUnsignedParquet(el)) return BigInt(dv.getInt32(0, true));
      return undefined;
    case 'uint64':
      if (phys === 'INT64' && b.length === 8 && isUnsignedParquet(el)) return dv.getBigUint64(0, true);
      return undefined;
    case 'float': {
      let v: number;
      if (phys === 'FLOAT' && b.length === 4) v = dv.getFloat32(0, true);
      else if (phys === 'DOUBLE' && b.length === 8) v = dv.getFloat64(0, true);
      else return undefined;
      if (isMax) return NaN; // a NaN may hide in the chunk (see module doc)
      if (Number.isNaN(v)) return undefined;
      return v === 0 ? 0 : v;
    }
    case 'bool':
      return phys === 'BOOLEAN' && b.length >= 1 ? b[0] !== 0 : undefined;
    case 'utf8':
      if (phys !== 'BYTE_ARRAY' && phys !== 'FIXED_LEN_BYTE_ARRAY') return undefined;
      try {
        return utf8Strict.decode(b);
      } catch {
        return undefined;
      }
    case 'binary':
      return phys === 'BYTE_ARRAY' || phys === 'FIXED_LEN_BYTE_ARRAY' ? b.slice() : undefined;
    case 'date32':
      return phys === 'INT32' && b.length === 4 ? dv.getInt32(0, true) : undefined;
    case 'timestamp': {
      if (phys !== 'INT64' || b.length !== 8 || !DataType.isTimestamp(arrow)) return undefined;
      const v = dv.getBigInt64(0, true);
      const from = parquetTimeUnit(el) ?? arrow.unit;
      const to = arrow.unit;
      if (from === to) return v;
      const f = 1000n ** BigInt(Math.abs(from - to));
      if (from < to) return v * f; // coarser file unit -> exact
      return isMax ? ceilDiv(v, f) : floorDiv(v, f);
    }
    case 'decimal': {
      if (!DataType.isDecimal(arrow) || decimalScale(el) !== arrow.scale) return undefined;
      if (phys === 'INT32' && b.length === 4) return BigInt(dv.getInt32(0, true));
      if (phys === 'INT64' && b.length === 8) return dv.getBigInt64(0, true);
      if (phys === 'FIXED_LEN_BYTE_ARRAY' || phys === 'BYTE_ARRAY') return b.length > 0 ? beSigned(b) : undefined;
      return undefined;
    }
  }
}

/** Whether the deprecated (signed-order) min/max are valid bounds for this column. */
function signedOrderIsTypeOrder(kind: StatKind, el: SchemaElement): boolean {
  switch (kind) {
    case 'int':
    case 'int64':
      return !isUnsignedParquet(el);
    case 'date32':
    case 'timestamp':
    case 'bool':
      return true;
    case 'decimal':
      return el.type === 'INT32' || el.type === 'INT64';
    default:
      return false;
  }
}

export function convertStats(
  stats: TStruct | undefined,
  el: SchemaElement,
  arrow: DataType,
  numRows: number,
  typeDefinedOrder: boolean,
): ColumnStats | undefined {
  if (!stats) return undefined;
  const nc = ti64(stats, 3);
  const nullCount = nc !== undefined && nc >= 0n ? Number(nc) : null;
  const dc = ti64(stats, 4);
  const distinct = dc !== undefined && dc >= 0n ? { distinctCount: Number(dc) } : {};
  if (nullCount !== null && nullCount === numRows) return { min: null, max: null, nullCount, ...distinct };
  const kind = statKindOf(arrow);
  if (kind === null) return undefined;
  let minB = tbytes(stats, 6);
  let maxB = tbytes(stats, 5);
  let exactOrder = typeDefinedOrder;
  if (!minB || !maxB) {
    minB = tbytes(stats, 2);
    maxB = tbytes(stats, 1);
    exactOrder = false;
  }
  if (!minB || !maxB) return undefined;
  if (!exactOrder && !signedOrderIsTypeOrder(kind, el)) return undefined;
  try {
    const min = decodeBound(kind, el, arrow, minB, false);
    const max = decodeBound(kind, el, arrow, maxB, true);
    if (min === undefined || max === undefined) return undefined;
    return { min, max, nullCount, ...distinct };
  } catch (e) {
    if (e instanceof NeedsFallback) return undefined;
    throw e;
  }
}
