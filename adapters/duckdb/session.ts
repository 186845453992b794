/**
 * One in-memory DuckDB database that speaks Arrow: load an Arrow table (or a Parquet file) as a
 * DuckDB table, run SQL, get the result back as an Arrow table.
 *
 * Parity testing is only as good as this bridge: if a value changed on its way into DuckDB (an
 * Int64 squeezed through a JS number, a NaN turned into NULL, a microsecond timestamp rounded to
 * milliseconds, -0.0 turned into 0.0), DuckDB would answer a different question. So every Arrow
 * type maps to its *exact* DuckDB equivalent, values are read from the raw Arrow buffers (never
 * through Arrow's lossy getters for 64-bit temporal values), and results are converted back
 * column-wise with matching Arrow types.
 *
 * Arrow -> DuckDB (loadTable):
 *   Int8/16/32/64 -> TINYINT/SMALLINT/INTEGER/BIGINT, UInt8..64 -> UTINYINT..UBIGINT,
 *   Float32 -> FLOAT, Float64 -> DOUBLE, Bool -> BOOLEAN,
 *   Utf8/LargeUtf8/Utf8View -> VARCHAR, Binary/LargeBinary/BinaryView -> BLOB,
 *   FixedSizeBinary(16) with field metadata ARROW:extension:name = arrow.uuid -> UUID (the 16 bytes
 *   big-endian, as the text form reads), any other FixedSizeBinary -> BLOB,
 *   Dictionary<T> -> the mapping of T (decoded), Date32/Date64 -> DATE (Date64 floored to days),
 *   Timestamp s/ms/us/ns -> TIMESTAMP_S/TIMESTAMP_MS/TIMESTAMP/TIMESTAMP_NS;
 *   Timestamp with a timezone -> TIMESTAMPTZ (microseconds; ns are floored to us),
 *   Time32(s/ms)/Time64(us) -> TIME, Time64(ns) -> TIME_NS; a Time field with the `adjusted_to_utc`
 *   metadata (Parquet TIME isAdjustedToUTC) -> TIMETZ at offset +00 (values must lie in
 *   00:00..24:00; TIMETZ is microseconds, so its nanoseconds must be whole microseconds),
 *   Interval YEAR_MONTH/DAY_TIME/MONTH_DAY_NANO -> INTERVAL (MONTH_DAY_NANO nanoseconds that are not
 *   whole microseconds are refused: DuckDB stores micros),
 *   Decimal(p, s) of any bit width with 1 <= p <= 38, 0 <= s <= p -> DECIMAL(p, s),
 *   List/LargeList<T> -> T'[] and Struct<a: A, …> -> STRUCT(a A', …) of any loadable types, nested
 *   to any depth (a refused type inside is named by its path, e.g. column 'l.item').
 * DuckDB -> Arrow (query):
 *   integers/floats/BOOLEAN -> the same-width Arrow type, VARCHAR/ENUM -> Utf8, BLOB -> Binary,
 *   UUID -> FixedSizeBinary(16) + ARROW:extension:name = arrow.uuid (big-endian bytes),
 *   DATE -> Date32 (DateDay), TIMESTAMP_S/MS/(us)/NS -> Timestamp(unit), TIMESTAMPTZ ->
 *   Timestamp(us, 'UTC'), TIME -> Time64(us), TIME_NS -> Time64(ns), TIMETZ -> Time64(us) +
 *   `adjusted_to_utc` (only offset +00: an offset has no Arrow form and is refused, not normalised),
 *   INTERVAL -> Interval(MONTH_DAY_NANO) with nanos = micros * 1000 (an interval beyond Int64
 *   nanoseconds, about 292 years of micros, is refused), DECIMAL(w, s) -> Decimal128(w, s),
 *   HUGEINT/UHUGEINT -> Decimal128(38, 0), which is what DuckDB's own Arrow export does: every
 *   HUGEINT bit pattern is stored exactly, though values beyond 38 digits exceed the declared
 *   precision; a UHUGEINT >= 2^127 cannot be represented and is an error.
 *   LIST(T) -> List<T'> (child field 'item'), STRUCT(a A, …) -> Struct<a: A', …> (children carry
 *   their metadata, e.g. a UUID inside a STRUCT), each child converted exactly like a top-level
 *   column of its type. SQLNULL -> Null. Anything else (MAP, ARRAY, UNION, BIT, VARINT, …) ->
 *   UnsupportedTypeError naming the column.
 * Not loadable (UnsupportedTypeError naming the column): Float16, Duration, Map, FixedSizeList,
 * Union, Null, a Struct with no fields or with field names equal but for case, Decimal
 * precision > 38. A timestamp's zone name is not kept (DuckDB stores the instant; it comes back as
 * 'UTC'). Time32 s/ms come back as Time64(us), DAY_TIME/YEAR_MONTH intervals as MONTH_DAY_NANO and
 * LargeList as List: same values, other types. DuckDB identifiers are case-insensitive, so two
 * columns differing only in case cannot be loaded into one table.
 *
 * Result values are read through DuckDB's exact value objects (bigint micros/nanos, never a JS
 * Date); nested results collect their child values first and convert them with the child type's
 * own writer.
 */
import { existsSync } from 'node:fs';
import * as arrow from 'apache-arrow';
import {
  BIGINT,
  BLOB,
  BOOLEAN,
  DATE,
  DECIMAL,
  DOUBLE,
  DuckDBBlobValue,
  DuckDBDataChunk,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBInstance,
  DuckDBIntervalValue,
  DuckDBListType,
  DuckDBListValue,
  DuckDBStructType,
  DuckDBStructValue,
  DuckDBTimeNSValue,
  DuckDBTimeTZValue,
  DuckDBTimeValue,
  DuckDBTimestampMillisecondsValue,
  DuckDBTimestampNanosecondsValue,
  DuckDBTimestampSecondsValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTypeId,
  DuckDBUUIDValue,
  DuckDBVector,
  FLOAT,
  INTEGER,
  INTERVAL,
  SMALLINT,
  TIME,
  TIME_NS,
  TIMETZ,
  TIMESTAMP,
  TIMESTAMP_MS,
  TIMESTAMP_NS,
  TIMESTAMP_S,
  TIMESTAMPTZ,
  TINYINT,
  UBIGINT,
  UINTEGER,
  USMALLINT,
  UTINYINT,
  UUID,
  VARCHAR,
} from '@duckdb/node-api';
import type { DuckDBConnection, DuckDBMaterializedResult, DuckDBType, DuckDBValue, JS } from '@duckdb/node-api';
import { createRequire } from 'node:module';
import { CorruptFileError, FileNotFoundError, InvalidUtf8Error, UnsupportedTypeError, UsageError } from '../../core/errors.ts';
import { utf8At } from '../../core/arrow/utf8.ts';
import { recordBatchOf } from '../../core/arrow/record-batch.ts';
import { quoteIdent, quoteString } from '../../core/expr/sql.ts';
import { ADJUSTED_TO_UTC, EXTENSION_NAME, UUID_EXTENSION } from '../io/parquet-types.ts';

/*
 * @duckdb/node-api decodes every VARCHAR with one shared `new TextDecoder()`, which drops a leading
 * U+FEFF: `SELECT chr(65279) || 'a'` would come back as 'a'. Its accessor module exports that
 * decoder as a mutable binding read on each call, so it is replaced once, here, by one that keeps
 * the character (DuckDB's strings are valid UTF-8, so nothing else changes). session.test.ts checks
 * that a BOM survives, which fails loudly should a new node-api version move the decoder.
 */
const nodeApiAccessors = createRequire(import.meta.url)('@duckdb/node-api/lib/vectors/dataAccessors.js') as { textDecoder: unknown };
nodeApiAccessors.textDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Rows per DuckDB data chunk when appending (DuckDB's standard vector size). */
export const APPEND_CHUNK_ROWS = 2048;

const MS_PER_DAY = 86_400_000n;

// ---------------------------------------------------------------------------------------------
// Arrow -> DuckDB
// ---------------------------------------------------------------------------------------------

/** Reads row `i` (known to be valid) of one Arrow Data as a DuckDB value. */
type ValueReader = (i: number) => DuckDBValue;

interface ColumnMapping {
  /** DuckDB type, for the data chunk. */
  readonly duck: DuckDBType;
  /** The same type as SQL text, for CREATE TABLE. */
  readonly sql: string;
  /** Builds a reader over one Data of this column (once per batch). */
  readonly reader: (data: arrow.Data) => ValueReader;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** Two's-complement integer stored little-endian in `stride` 32-bit words starting at `start`. */
export function bigIntFromWords(words: Uint32Array, start: number, stride: number): bigint {
  let v = 0n;
  for (let k = stride - 1; k >= 0; k--) v = (v << 32n) | BigInt(words[start + k]!);
  return BigInt.asIntN(stride * 32, v);
}

/** Writes `v` as a 128-bit two's-complement integer into 4 little-endian words at `start`. */
export function writeInt128Words(words: Uint32Array, start: number, v: bigint): void {
  let x = BigInt.asUintN(128, v);
  for (let k = 0; k < 4; k++) {
    words[start + k] = Number(x & 0xffffffffn);
    x >>= 32n;
  }
}

function unsupported(field: arrow.Field, context: string): never {
  throw new UnsupportedTypeError(field.name, String(field.type), context);
}

/** Reader for plain typed-array values (`values` is already sliced to the Data's offset). */
const direct = (data: arrow.Data): ValueReader => {
  const values = data.values as ArrayLike<number | bigint>;
  return (i) => values[i]!;
};

function mapType(field: arrow.Field, type: arrow.DataType, context: string): ColumnMapping {
  switch (type.typeId) {
    case arrow.Type.Int: {
      const t = type as arrow.Int;
      const table: Record<string, [DuckDBType, string]> = {
        'true8': [TINYINT, 'TINYINT'],
        'true16': [SMALLINT, 'SMALLINT'],
        'true32': [INTEGER, 'INTEGER'],
        'true64': [BIGINT, 'BIGINT'],
        'false8': [UTINYINT, 'UTINYINT'],
        'false16': [USMALLINT, 'USMALLINT'],
        'false32': [UINTEGER, 'UINTEGER'],
        'false64': [UBIGINT, 'UBIGINT'],
      };
      const m = table[`${t.isSigned}${t.bitWidth}`];
      if (!m) unsupported(field, context);
      return { duck: m[0], sql: m[1], reader: direct };
    }
    case arrow.Type.Float: {
      const t = type as arrow.Float;
      if (t.precision === arrow.Precision.SINGLE) return { duck: FLOAT, sql: 'FLOAT', reader: direct };
      if (t.precision === arrow.Precision.DOUBLE) return { duck: DOUBLE, sql: 'DOUBLE', reader: direct };
      return unsupported(field, context); // Float16: DuckDB has no half-precision type
    }
    case arrow.Type.Bool:
      return {
        duck: BOOLEAN,
        sql: 'BOOLEAN',
        reader: (data) => {
          const bits = data.values as Uint8Array;
          const off = data.offset; // Bool values are not pre-sliced: the offset counts bits
          return (i) => ((bits[(off + i) >> 3]! >> ((off + i) & 7)) & 1) === 1;
        },
      };
    case arrow.Type.Utf8:
    case arrow.Type.LargeUtf8:
    case arrow.Type.Utf8View:
      return {
        duck: VARCHAR,
        sql: 'VARCHAR',
        reader: (data) => {
          if (arrow.DataType.isUtf8View(data.type)) {
            const v = arrow.makeVector(data);
            return (i) => v.get(i) as string;
          }
          // exact text: Arrow's getter drops a leading U+FEFF and turns invalid bytes into U+FFFD
          return (i) => {
            try {
              return utf8At(data, i);
            } catch {
              throw new InvalidUtf8Error(field.name, i, 'the DuckDB loader');
            }
          };
        },
      };
    case arrow.Type.Binary:
    case arrow.Type.LargeBinary:
    case arrow.Type.BinaryView:
      return {
        duck: BLOB,
        sql: 'BLOB',
        reader: (data) => {
          const v = arrow.makeVector(data);
          return (i) => new DuckDBBlobValue(v.get(i) as Uint8Array);
        },
      };
    case arrow.Type.Date: {
      const t = type as arrow.Date_;
      if (t.unit === arrow.DateUnit.DAY) {
        return {
          duck: DATE,
          sql: 'DATE',
          reader: (data) => {
            const days = data.values as Int32Array;
            return (i) => new DuckDBDateValue(days[i]!);
          },
        };
      }
      return {
        duck: DATE,
        sql: 'DATE',
        reader: (data) => {
          const ms = data.values as BigInt64Array;
          return (i) => new DuckDBDateValue(Number(floorDiv(ms[i]!, MS_PER_DAY)));
        },
      };
    }
    case arrow.Type.Timestamp:
      return mapTimestamp(field, type as arrow.Timestamp, context);
    case arrow.Type.Decimal: {
      const t = type as arrow.Decimal;
      if (!(t.precision >= 1 && t.precision <= 38 && t.scale >= 0 && t.scale <= t.precision) || t.bitWidth % 32 !== 0) {
        unsupported(field, `${context} (DuckDB DECIMAL needs 1 <= precision <= 38 and 0 <= scale <= precision)`);
      }
      const { precision, scale } = t;
      const stride = t.bitWidth / 32;
      return {
        duck: DECIMAL(precision, scale),
        sql: `DECIMAL(${precision},${scale})`,
        reader: (data) => {
          const words = data.values as Uint32Array;
          return (i) => new DuckDBDecimalValue(bigIntFromWords(words, i * stride, stride), precision, scale);
        },
      };
    }
    case arrow.Type.FixedSizeBinary: {
      const width = (type as arrow.FixedSizeBinary).byteWidth;
      if (width === 16 && field.metadata.get(EXTENSION_NAME) === UUID_EXTENSION) {
        return {
          duck: UUID,
          sql: 'UUID',
          reader: (data) => {
            const b = data.values as Uint8Array;
            const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
            return (i) => DuckDBUUIDValue.fromUint128((view.getBigUint64(16 * i, false) << 64n) | view.getBigUint64(16 * i + 8, false));
          },
        };
      }
      return {
        duck: BLOB,
        sql: 'BLOB',
        reader: (data) => {
          const b = data.values as Uint8Array;
          return (i) => new DuckDBBlobValue(b.slice(width * i, width * (i + 1)));
        },
      };
    }
    case arrow.Type.Interval:
      return mapInterval(field, type as arrow.Interval, context);
    case arrow.Type.Time:
      return mapTime(field, type as arrow.Time, context);
    case arrow.Type.List:
    case arrow.Type.LargeList:
      return mapList(field, type as arrow.List, context);
    case arrow.Type.Struct:
      return mapStruct(field, type as arrow.Struct, context);
    case arrow.Type.Dictionary: {
      const t = type as arrow.Dictionary;
      const inner = mapType(field, t.dictionary, context);
      return {
        duck: inner.duck,
        sql: inner.sql,
        reader: (data) => dictionaryReader(data, inner),
      };
    }
    default:
      return unsupported(field, context);
  }
}

/** Decodes dictionary codes lazily, each distinct entry once per Data. */
function dictionaryReader(data: arrow.Data, inner: ColumnMapping): ValueReader {
  const codes = data.values as ArrayLike<number | bigint>;
  const dict = data.dictionary;
  if (!dict) throw new UsageError('dictionary-encoded column without a dictionary');
  const chunks = dict.data;
  const readers: (ValueReader | undefined)[] = new Array(chunks.length);
  const starts: number[] = [];
  let n = 0;
  for (const c of chunks) {
    starts.push(n);
    n += c.length;
  }
  const cache: (DuckDBValue | undefined)[] = new Array(n);
  const decode = (k: number): DuckDBValue => {
    let c = chunks.length - 1;
    while (c > 0 && starts[c]! > k) c--;
    const chunk = chunks[c]!;
    const j = k - starts[c]!;
    if (!chunk.getValid(j)) return null;
    const r = (readers[c] ??= inner.reader(chunk));
    return r(j);
  };
  return (i) => {
    const k = Number(codes[i]!);
    let v = cache[k];
    if (v === undefined) v = cache[k] = decode(k);
    return v;
  };
}


/** Arrow timestamp unit -> DuckDB type, its SQL name and its value class. */
const TIMESTAMP_BY_UNIT: Record<number, { duck: DuckDBType; sql: string; Value: new (v: bigint) => DuckDBValue }> = {
  [arrow.TimeUnit.SECOND]: { duck: TIMESTAMP_S, sql: 'TIMESTAMP_S', Value: DuckDBTimestampSecondsValue },
  [arrow.TimeUnit.MILLISECOND]: { duck: TIMESTAMP_MS, sql: 'TIMESTAMP_MS', Value: DuckDBTimestampMillisecondsValue },
  [arrow.TimeUnit.MICROSECOND]: { duck: TIMESTAMP, sql: 'TIMESTAMP', Value: DuckDBTimestampValue },
  [arrow.TimeUnit.NANOSECOND]: { duck: TIMESTAMP_NS, sql: 'TIMESTAMP_NS', Value: DuckDBTimestampNanosecondsValue },
};

function mapTimestamp(field: arrow.Field, t: arrow.Timestamp, context: string): ColumnMapping {
  const tz = t.timezone != null && t.timezone !== '';
  const U = arrow.TimeUnit;
  if (tz) {
    const toMicros: Record<number, (v: bigint) => bigint> = {
      [U.SECOND]: (v) => v * 1_000_000n,
      [U.MILLISECOND]: (v) => v * 1_000n,
      [U.MICROSECOND]: (v) => v,
      [U.NANOSECOND]: (v) => floorDiv(v, 1_000n),
    };
    const f = toMicros[t.unit];
    if (!f) unsupported(field, context);
    return {
      duck: TIMESTAMPTZ,
      sql: 'TIMESTAMPTZ',
      reader: (data) => {
        const values = data.values as BigInt64Array;
        return (i) => new DuckDBTimestampTZValue(f(values[i]!));
      },
    };
  }
  const byUnit = TIMESTAMP_BY_UNIT[t.unit];
  if (!byUnit) return unsupported(field, context);
  const { duck, sql, Value } = byUnit;
  return {
    duck,
    sql,
    reader: (data) => {
      const values = data.values as BigInt64Array;
      return (i) => new Value(values[i]!);
    },
  };
}

/** A nested child as a field of its own, named `parent.child` for errors, keeping its metadata. */
function childField(parent: arrow.Field, child: arrow.Field): arrow.Field {
  return new arrow.Field(`${parent.name}.${child.name}`, child.type, child.nullable, child.metadata);
}

/** Reads child row `k` of `data` through `read`, NULL when the child row is NULL. */
function nullable(data: arrow.Data, read: ValueReader): ValueReader {
  return data.nullCount > 0 ? (k) => (data.getValid(k) ? read(k) : null) : read;
}

/** List/LargeList<T> -> T[] (LIST of T's mapping); offsets are pre-sliced, the child is not. */
function mapList(field: arrow.Field, t: arrow.List, context: string): ColumnMapping {
  const inner = mapType(childField(field, t.children[0]!), t.children[0]!.type, context);
  return {
    duck: new DuckDBListType(inner.duck),
    sql: `${inner.sql}[]`,
    reader: (data) => {
      const offsets = data.valueOffsets as Int32Array | BigInt64Array;
      const child = data.children[0]!;
      const read = nullable(child, inner.reader(child));
      return (i) => {
        const a = Number(offsets[i]!);
        const b = Number(offsets[i + 1]!);
        const items = new Array<DuckDBValue>(b - a);
        for (let k = a; k < b; k++) items[k - a] = read(k);
        return new DuckDBListValue(items);
      };
    },
  };
}

/** Struct<a: A, …> -> STRUCT(a A', …); struct children are sliced with the struct. */
function mapStruct(field: arrow.Field, t: arrow.Struct, context: string): ColumnMapping {
  const kids = t.children;
  if (kids.length === 0) unsupported(field, `${context} (a STRUCT needs at least one field)`);
  const names = kids.map((k) => k.name);
  const lower = new Set(names.map((n) => n.toLowerCase()));
  if (lower.size !== names.length) unsupported(field, `${context} (DuckDB struct field names are case-insensitive and must be distinct)`);
  const inner = kids.map((k) => mapType(childField(field, k), k.type, context));
  return {
    duck: new DuckDBStructType(
      names,
      inner.map((m) => m.duck),
    ),
    sql: `STRUCT(${kids.map((k, j) => `${quoteIdent(k.name)} ${inner[j]!.sql}`).join(', ')})`,
    reader: (data) => {
      const reads = data.children.map((c, j) => nullable(c, inner[j]!.reader(c)));
      return (i) => {
        const entries: Record<string, DuckDBValue> = Object.create(null) as Record<string, DuckDBValue>;
        for (let j = 0; j < names.length; j++) entries[names[j]!] = reads[j]!(i);
        return new DuckDBStructValue(entries);
      };
    },
  };
}

/** Signed 64-bit integer from two little-endian 32-bit words (lo as stored in an Int32Array). */
function int64FromWords(lo: number, hi: number): bigint {
  return (BigInt(hi) << 32n) | BigInt(lo >>> 0);
}

/**
 * Arrow intervals -> DuckDB INTERVAL (months int32, days int32, micros int64). MONTH_DAY_NANO
 * nanoseconds must be whole microseconds (DuckDB stores micros): anything else is refused, never
 * rounded. DAY_TIME milliseconds and YEAR_MONTH months are exact.
 */
function mapInterval(field: arrow.Field, t: arrow.Interval, context: string): ColumnMapping {
  const I = arrow.IntervalUnit;
  const unit = t.unit as number;
  if (unit === I.YEAR_MONTH) {
    return {
      duck: INTERVAL,
      sql: 'INTERVAL',
      reader: (data) => {
        const v = data.values as Int32Array;
        return (i) => new DuckDBIntervalValue(v[i]!, 0, 0n);
      },
    };
  }
  if (unit === I.DAY_TIME) {
    return {
      duck: INTERVAL,
      sql: 'INTERVAL',
      reader: (data) => {
        const v = data.values as Int32Array;
        return (i) => new DuckDBIntervalValue(0, v[2 * i]!, BigInt(v[2 * i + 1]!) * 1_000n);
      },
    };
  }
  if (unit === I.MONTH_DAY_NANO) {
    return {
      duck: INTERVAL,
      sql: 'INTERVAL',
      reader: (data) => {
        const v = data.values as Int32Array;
        return (i) => {
          const nanos = int64FromWords(v[4 * i + 2]!, v[4 * i + 3]!);
          if (nanos % 1_000n !== 0n) {
            unsupported(
              field,
              `${context} for value (${v[4 * i]} months, ${v[4 * i + 1]} days, ${nanos} ns): DuckDB INTERVAL stores whole microseconds`,
            );
          }
          return new DuckDBIntervalValue(v[4 * i]!, v[4 * i + 1]!, nanos / 1_000n);
        };
      },
    };
  }
  return unsupported(field, context);
}

const MICROS_PER_DAY = 86_400_000_000n;

/**
 * Arrow Time32(s/ms) / Time64(us) -> DuckDB TIME (micros), Time64(ns) -> TIME_NS; a Time field
 * with the `adjusted_to_utc` metadata (Parquet TIME isAdjustedToUTC) -> TIMETZ at offset +00
 * (micros, so its nanoseconds must be whole microseconds). Values outside 00:00..24:00 are refused.
 */
function mapTime(field: arrow.Field, t: arrow.Time, context: string): ColumnMapping {
  const U = arrow.TimeUnit;
  const unit = t.unit as number;
  const utc = field.metadata.has(ADJUSTED_TO_UTC);
  const perUnit = NANOS_PER_TIME_UNIT[unit];
  if (perUnit === undefined) return unsupported(field, context);
  const raw = (data: arrow.Data): ((i: number) => bigint) => {
    if (t.bitWidth === 32) {
      const v = data.values as Int32Array;
      return (i) => BigInt(v[i]!);
    }
    const v = data.values as BigInt64Array;
    return (i) => v[i]!;
  };
  const checked = (read: (i: number) => bigint, toMicros: (v: bigint, i: number) => bigint) => (i: number) => {
    const v = read(i);
    const micros = toMicros(v, i);
    if (micros < 0n || micros > MICROS_PER_DAY) unsupported(field, `${context} for value ${v} (outside 00:00:00..24:00:00)`);
    return micros;
  };
  const micros = (v: bigint): bigint => {
    if (unit !== U.NANOSECOND) return v * (perUnit / 1_000n);
    if (v % 1_000n !== 0n) unsupported(field, `${context} for value ${v} ns: DuckDB TIMETZ stores whole microseconds`);
    return v / 1_000n;
  };
  if (utc) {
    return {
      duck: TIMETZ,
      sql: 'TIMETZ',
      reader: (data) => {
        const read = checked(raw(data), micros);
        return (i) => DuckDBTimeTZValue.fromMicrosAndOffset(read(i), 0);
      },
    };
  }
  if (unit === U.NANOSECOND) {
    return {
      duck: TIME_NS,
      sql: 'TIME_NS',
      reader: (data) => {
        const read = raw(data);
        return (i) => {
          const v = read(i);
          if (v < 0n || v > MICROS_PER_DAY * 1_000n) unsupported(field, `${context} for value ${v} (outside 00:00:00..24:00:00)`);
          return new DuckDBTimeNSValue(v);
        };
      },
    };
  }
  return {
    duck: TIME,
    sql: 'TIME',
    reader: (data) => {
      const read = checked(raw(data), micros);
      return (i) => new DuckDBTimeValue(read(i));
    },
  };
}

const NANOS_PER_TIME_UNIT: Record<number, bigint> = {
  [arrow.TimeUnit.SECOND]: 1_000_000_000n,
  [arrow.TimeUnit.MILLISECOND]: 1_000_000n,
  [arrow.TimeUnit.MICROSECOND]: 1_000n,
  [arrow.TimeUnit.NANOSECOND]: 1n,
};

/** The DuckDB SQL type each field of `schema` is loaded as (throws UnsupportedTypeError). */
export function duckdbTypesFor(schema: arrow.Schema): { name: string; sql: string }[] {
  return schema.fields.map((f) => ({ name: f.name, sql: mapType(f, f.type, 'by the DuckDB loader').sql }));
}

// ---------------------------------------------------------------------------------------------
// DuckDB -> Arrow
// ---------------------------------------------------------------------------------------------

interface ColumnWriter {
  /** Copies `vec` (a whole chunk column) into rows [at, at + vec.itemCount). */
  write(vec: DuckDBVector, at: number): void;
  finish(): arrow.Data;
}

class Validity {
  readonly bitmap: Uint8Array;
  nullCount = 0;
  constructor(readonly length: number) {
    this.bitmap = new Uint8Array((length + 7) >> 3).fill(0xff);
  }
  setNull(i: number): void {
    this.bitmap[i >> 3]! &= ~(1 << (i & 7));
    this.nullCount++;
  }
  props(): { nullCount: number; nullBitmap?: Uint8Array } {
    return this.nullCount ? { nullCount: this.nullCount, nullBitmap: this.bitmap } : { nullCount: 0 };
  }
}

type TypedArray =
  | Int8Array
  | Int16Array
  | Int32Array
  | BigInt64Array
  | Uint8Array
  | Uint16Array
  | Uint32Array
  | BigUint64Array
  | Float32Array
  | Float64Array;

function fixedWriter<V>(
  type: arrow.DataType,
  values: TypedArray,
  length: number,
  set: (values: TypedArray, i: number, v: V) => void,
): ColumnWriter {
  const validity = new Validity(length);
  return {
    write(vec, at) {
      const n = vec.itemCount;
      for (let i = 0; i < n; i++) {
        const v = vec.getItem(i);
        if (v === null) validity.setNull(at + i);
        else set(values, at + i, v as V);
      }
    },
    finish: () => arrow.makeData({ type, length, ...validity.props(), data: values } as never),
  };
}

function bitWriter(length: number): ColumnWriter {
  const validity = new Validity(length);
  const bits = new Uint8Array((length + 7) >> 3);
  return {
    write(vec, at) {
      const n = vec.itemCount;
      for (let i = 0; i < n; i++) {
        const v = vec.getItem(i);
        if (v === null) validity.setNull(at + i);
        else if (v) bits[(at + i) >> 3]! |= 1 << ((at + i) & 7);
      }
    },
    finish: () => arrow.makeData({ type: new arrow.Bool(), length, ...validity.props(), data: bits }),
  };
}

/** Utf8 / Binary: offsets + one growing byte buffer. */
function varWriter(type: arrow.Utf8 | arrow.Binary, length: number, toBytes: (v: DuckDBValue) => string | Uint8Array): ColumnWriter {
  const validity = new Validity(length);
  const offsets = new Int32Array(length + 1);
  const encoder = new TextEncoder();
  let bytes = new Uint8Array(1024);
  let pos = 0;
  let last = 0; // rows written so far (offsets are filled up to here)
  const ensure = (extra: number) => {
    if (pos + extra <= bytes.length) return;
    if (pos + extra > 0x7fffffff) throw new RangeError('result column exceeds 2 GiB of string data');
    let cap = bytes.length * 2;
    while (cap < pos + extra) cap *= 2;
    const next = new Uint8Array(Math.min(cap, 0x7fffffff));
    next.set(bytes.subarray(0, pos));
    bytes = next;
  };
  return {
    write(vec, at) {
      const n = vec.itemCount;
      for (let k = last; k < at; k++) offsets[k + 1] = pos;
      for (let i = 0; i < n; i++) {
        const v = vec.getItem(i);
        if (v === null) validity.setNull(at + i);
        else {
          const b = toBytes(v);
          if (typeof b === 'string') {
            ensure(b.length * 3);
            pos += encoder.encodeInto(b, bytes.subarray(pos)).written;
          } else {
            ensure(b.length);
            bytes.set(b, pos);
            pos += b.length;
          }
        }
        offsets[at + i + 1] = pos;
      }
      last = at + n;
    },
    finish() {
      for (let k = last; k < length; k++) offsets[k + 1] = pos;
      return arrow.makeData({
        type,
        length,
        ...validity.props(),
        valueOffsets: offsets,
        data: bytes.subarray(0, pos),
      } as never);
    },
  };
}

function decimalWriter(type: arrow.Decimal, length: number, scaled: (v: DuckDBValue) => bigint): ColumnWriter {
  const validity = new Validity(length);
  const words = new Uint32Array(length * 4);
  return {
    write(vec, at) {
      const n = vec.itemCount;
      for (let i = 0; i < n; i++) {
        const v = vec.getItem(i);
        if (v === null) validity.setNull(at + i);
        else writeInt128Words(words, (at + i) * 4, scaled(v));
      }
    },
    finish: () => arrow.makeData({ type, length, ...validity.props(), data: words }),
  };
}

const INT128_MAX = (1n << 127n) - 1n;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const TWO_32 = 4294967296;
/** |micros| up to this keeps micros * 1000 an exact double (< 2^53). */
const SAFE_MICROS = 9_007_199_254_740;

/** INTERVAL -> Interval(MONTH_DAY_NANO): 4 Int32 words per row (months, days, nanos lo, nanos hi). */
function intervalWriter(name: string, length: number): ColumnWriter {
  const validity = new Validity(length);
  const words = new Int32Array(length * 4);
  return {
    write(vec, at) {
      const n = vec.itemCount;
      for (let i = 0; i < n; i++) {
        const v = vec.getItem(i) as DuckDBIntervalValue | null;
        if (v === null) {
          validity.setNull(at + i);
          continue;
        }
        const r = (at + i) * 4;
        words[r] = v.months;
        words[r + 1] = v.days;
        const m = Number(v.micros);
        if (m >= -SAFE_MICROS && m <= SAFE_MICROS) {
          // Exact in doubles: no BigInt arithmetic on the common path.
          const ns = m * 1000;
          const hi = Math.floor(ns / TWO_32);
          words[r + 2] = ns - hi * TWO_32; // 0..2^32-1, stored as the same 32 bits
          words[r + 3] = hi;
        } else {
          const ns = v.micros * 1_000n;
          if (ns < INT64_MIN || ns > INT64_MAX) {
            throw new UnsupportedTypeError(
              name,
              'INTERVAL',
              `for value ${v.months} months ${v.days} days ${v.micros} us when converting a DuckDB result to Arrow (the nanoseconds exceed Int64)`,
            );
          }
          words[r + 2] = Number(BigInt.asIntN(32, ns));
          words[r + 3] = Number(ns >> 32n);
        }
      }
    },
    finish: () => arrow.makeData({ type: new arrow.IntervalMonthDayNano(), length, ...validity.props(), data: words }),
  };
}

/** UUID -> FixedSizeBinary(16), the 16 bytes big-endian (the text form's hex digits in order). */
function uuidWriter(length: number): ColumnWriter {
  const validity = new Validity(length);
  const bytes = new Uint8Array(length * 16);
  const view = new DataView(bytes.buffer);
  return {
    write(vec, at) {
      const n = vec.itemCount;
      for (let i = 0; i < n; i++) {
        const v = vec.getItem(i) as DuckDBUUIDValue | null;
        if (v === null) {
          validity.setNull(at + i);
          continue;
        }
        const u = v.toUint128();
        view.setBigUint64((at + i) * 16, u >> 64n, false);
        view.setBigUint64((at + i) * 16 + 8, BigInt.asUintN(64, u), false);
      }
    },
    finish: () => arrow.makeData({ type: new arrow.FixedSizeBinary(16), length, ...validity.props(), data: bytes }),
  };
}

interface Conversion {
  type: arrow.DataType;
  writer: ColumnWriter;
  metadata?: Map<string, string>;
}

/** The values of a nested child, collected row by row, seen as a DuckDB vector by a child writer. */
function valuesAsVector(values: readonly DuckDBValue[]): DuckDBVector {
  return { itemCount: values.length, getItem: (k: number) => values[k]! } as unknown as DuckDBVector;
}

function childFieldOf(name: string, c: Conversion): arrow.Field {
  return new arrow.Field(name, c.type, true, c.metadata);
}

/**
 * LIST(T) -> List<T'>: the items of every row are collected, then written by T's own writer (so
 * the child values take exactly the same path as a top-level column of T).
 */
function listWriter(name: string, type: DuckDBListType, length: number): Conversion {
  const childName = `${name}.item`;
  const probe = writerFor(childName, type.valueType, 0);
  const t = new arrow.List(childFieldOf('item', probe));
  const validity = new Validity(length);
  const offsets = new Int32Array(length + 1);
  const items: DuckDBValue[] = [];
  let last = 0;
  return {
    type: t,
    writer: {
      write(vec, at) {
        const n = vec.itemCount;
        for (let k = last; k < at; k++) offsets[k + 1] = items.length;
        for (let i = 0; i < n; i++) {
          const v = vec.getItem(i) as DuckDBListValue | null;
          if (v === null) validity.setNull(at + i);
          else for (const x of v.items) items.push(x);
          if (items.length > 0x7fffffff) throw new UnsupportedTypeError(name, String(type), 'in a result with over 2^31 list items');
          offsets[at + i + 1] = items.length;
        }
        last = at + n;
      },
      finish() {
        for (let k = last; k < length; k++) offsets[k + 1] = items.length;
        const child = writerFor(childName, type.valueType, items.length);
        child.writer.write(valuesAsVector(items), 0);
        return arrow.makeData({ type: t, length, ...validity.props(), valueOffsets: offsets, child: child.writer.finish() });
      },
    },
  };
}

/** STRUCT(a A, …) -> Struct<a: A', …>; a NULL struct row has NULL in every child. */
function structWriter(name: string, type: DuckDBStructType, length: number): Conversion {
  const names = type.entryNames;
  const probes = names.map((e, j) => writerFor(`${name}.${e}`, type.entryTypes[j]!, 0));
  const fields = names.map((e, j) => childFieldOf(e, probes[j]!));
  const t = new arrow.Struct(fields);
  const validity = new Validity(length);
  const columns = names.map(() => new Array<DuckDBValue>(length).fill(null));
  return {
    type: t,
    writer: {
      write(vec, at) {
        const n = vec.itemCount;
        for (let i = 0; i < n; i++) {
          const v = vec.getItem(i) as DuckDBStructValue | null;
          if (v === null) {
            validity.setNull(at + i);
            continue;
          }
          for (let j = 0; j < names.length; j++) columns[j]![at + i] = v.entries[names[j]!] ?? null;
        }
      },
      finish() {
        const children = names.map((e, j) => {
          const c = writerFor(`${name}.${e}`, type.entryTypes[j]!, length);
          c.writer.write(valuesAsVector(columns[j]!), 0);
          return c.writer.finish();
        });
        return arrow.makeData({ type: t, length, ...validity.props(), children });
      },
    },
  };
}

/** The Arrow column writer for one DuckDB result column (throws UnsupportedTypeError). */
function writerFor(
  name: string,
  type: DuckDBType,
  length: number,
): { type: arrow.DataType; writer: ColumnWriter; metadata?: Map<string, string> } {
  const num = <T extends arrow.DataType>(t: T, values: TypedArray) => ({
    type: t,
    writer: fixedWriter<number | bigint>(t, values, length, (a, i, v) => {
      (a as unknown as (number | bigint)[])[i] = v;
    }),
  });
  const U = arrow.TimeUnit;
  const ts = (unit: arrow.TimeUnit, get: (v: never) => bigint, tz?: string) => {
    const t = new arrow.Timestamp(unit, tz ?? null);
    return {
      type: t,
      writer: fixedWriter<never>(t, new BigInt64Array(length), length, (a, i, v) => {
        (a as BigInt64Array)[i] = get(v);
      }),
    };
  };
  const time = (t: arrow.TimeMicrosecond | arrow.TimeNanosecond, get: (v: never) => bigint) => ({
    type: t,
    writer: fixedWriter<never>(t, new BigInt64Array(length), length, (a, i, v) => {
      (a as BigInt64Array)[i] = get(v);
    }),
  });
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return { type: new arrow.Bool(), writer: bitWriter(length) };
    case DuckDBTypeId.TINYINT:
      return num(new arrow.Int8(), new Int8Array(length));
    case DuckDBTypeId.SMALLINT:
      return num(new arrow.Int16(), new Int16Array(length));
    case DuckDBTypeId.INTEGER:
      return num(new arrow.Int32(), new Int32Array(length));
    case DuckDBTypeId.BIGINT:
      return num(new arrow.Int64(), new BigInt64Array(length));
    case DuckDBTypeId.UTINYINT:
      return num(new arrow.Uint8(), new Uint8Array(length));
    case DuckDBTypeId.USMALLINT:
      return num(new arrow.Uint16(), new Uint16Array(length));
    case DuckDBTypeId.UINTEGER:
      return num(new arrow.Uint32(), new Uint32Array(length));
    case DuckDBTypeId.UBIGINT:
      return num(new arrow.Uint64(), new BigUint64Array(length));
    case DuckDBTypeId.FLOAT:
      return num(new arrow.Float32(), new Float32Array(length));
    case DuckDBTypeId.DOUBLE:
      return num(new arrow.Float64(), new Float64Array(length));
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT: {
      const t = new arrow.Decimal(0, 38, 128);
      return {
        type: t,
        writer: decimalWriter(t, length, (v) => {
          const b = v as bigint;
          if (b > INT128_MAX) {
            throw new UnsupportedTypeError(name, String(type), `for value ${b} (does not fit a signed 128-bit Arrow Decimal)`);
          }
          return b;
        }),
      };
    }
    case DuckDBTypeId.DECIMAL: {
      const t = new arrow.Decimal(type.scale, type.width, 128);
      return { type: t, writer: decimalWriter(t, length, (v) => (v as DuckDBDecimalValue).value) };
    }
    case DuckDBTypeId.UUID:
      return { type: new arrow.FixedSizeBinary(16), writer: uuidWriter(length), metadata: new Map([[EXTENSION_NAME, UUID_EXTENSION]]) };
    case DuckDBTypeId.INTERVAL:
      return { type: new arrow.IntervalMonthDayNano(), writer: intervalWriter(name, length) };
    case DuckDBTypeId.TIME:
      return time(new arrow.TimeMicrosecond(), (v: DuckDBTimeValue) => v.micros);
    case DuckDBTypeId.TIME_NS:
      return time(new arrow.TimeNanosecond(), (v: DuckDBTimeNSValue) => v.nanos);
    case DuckDBTypeId.TIME_TZ: {
      const r = time(new arrow.TimeMicrosecond(), (v: DuckDBTimeTZValue) => {
        if (v.offset !== 0) {
          throw new UnsupportedTypeError(
            name,
            String(type),
            `for value ${v} when converting a DuckDB result to Arrow (Arrow's UTC-adjusted Time keeps no offset; only +00 is exact)`,
          );
        }
        return v.micros;
      });
      return { ...r, metadata: new Map([[ADJUSTED_TO_UTC, '']]) };
    }
    case DuckDBTypeId.VARCHAR:
    case DuckDBTypeId.ENUM:
      return { type: new arrow.Utf8(), writer: varWriter(new arrow.Utf8(), length, (v) => (typeof v === 'string' ? v : String(v))) };
    case DuckDBTypeId.BLOB:
      return { type: new arrow.Binary(), writer: varWriter(new arrow.Binary(), length, (v) => (v as DuckDBBlobValue).bytes) };
    case DuckDBTypeId.DATE: {
      const t = new arrow.DateDay();
      return {
        type: t,
        writer: fixedWriter<DuckDBDateValue>(t, new Int32Array(length), length, (a, i, v) => {
          (a as Int32Array)[i] = v.days;
        }),
      };
    }
    case DuckDBTypeId.TIMESTAMP:
      return ts(U.MICROSECOND, (v: DuckDBTimestampValue) => v.micros);
    case DuckDBTypeId.TIMESTAMP_S:
      return ts(U.SECOND, (v: DuckDBTimestampSecondsValue) => v.seconds);
    case DuckDBTypeId.TIMESTAMP_MS:
      return ts(U.MILLISECOND, (v: DuckDBTimestampMillisecondsValue) => v.millis);
    case DuckDBTypeId.TIMESTAMP_NS:
      return ts(U.NANOSECOND, (v: DuckDBTimestampNanosecondsValue) => v.nanos);
    case DuckDBTypeId.TIMESTAMP_TZ:
      return ts(U.MICROSECOND, (v: DuckDBTimestampTZValue) => v.micros, 'UTC');
    case DuckDBTypeId.LIST:
      return listWriter(name, type, length);
    case DuckDBTypeId.STRUCT:
      return structWriter(name, type, length);
    case DuckDBTypeId.SQLNULL: {
      const t = new arrow.Null();
      return { type: t, writer: { write() {}, finish: () => arrow.makeData({ type: t, length, nullCount: length }) } };
    }
    default:
      throw new UnsupportedTypeError(name, String(type), 'when converting a DuckDB result to Arrow');
  }
}

/** Converts a materialized DuckDB result into one Arrow table (a single record batch). */
export function resultToArrow(result: DuckDBMaterializedResult): arrow.Table {
  const names = result.columnNames();
  const types = result.columnTypes();
  const length = result.rowCount;
  const cols = names.map((n, c) => writerFor(n, types[c]!, length));
  let at = 0;
  for (let k = 0; k < result.chunkCount; k++) {
    const chunk = result.getChunk(k);
    const n = chunk.rowCount;
    for (let c = 0; c < cols.length; c++) cols[c]!.writer.write(chunk.getColumnVector(c), at);
    at += n;
  }
  const fields = names.map((n, c) => new arrow.Field(n, cols[c]!.type, true, cols[c]!.metadata));
  const schema = new arrow.Schema(fields);
  const children = cols.map((c) => c.writer.finish());
  const struct = arrow.makeData({ type: new arrow.Struct(fields), length, nullCount: 0, children });
  return new arrow.Table(schema, [recordBatchOf(schema, struct)]);
}

// ---------------------------------------------------------------------------------------------
// The session
// ---------------------------------------------------------------------------------------------

export interface DuckDBSessionOptions {
  /** DuckDB worker threads (DuckDB's default: all cores). */
  readonly threads?: number;
  /** DuckDB memory limit, e.g. '2GB'. */
  readonly memoryLimit?: string;
}

function isLocalPlainPath(p: string): boolean {
  return !/[*?[]/.test(p) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(p);
}

function parquetSource(path: string | readonly string[]): string {
  const paths = typeof path === 'string' ? [path] : path;
  for (const p of paths) {
    if (isLocalPlainPath(p) && !existsSync(p)) throw new FileNotFoundError(p);
  }
  const arg = typeof path === 'string' ? quoteString(path) : `[${paths.map(quoteString).join(', ')}]`;
  return `read_parquet(${arg})`;
}

export class DuckDBSession {
  private closed = false;

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
  ) {}

  /** Opens a fresh in-memory database. */
  static async open(options: DuckDBSessionOptions = {}): Promise<DuckDBSession> {
    const config: Record<string, string> = {};
    if (options.threads !== undefined) config['threads'] = String(options.threads);
    if (options.memoryLimit !== undefined) config['memory_limit'] = options.memoryLimit;
    const instance = await DuckDBInstance.create(':memory:', config);
    const connection = await instance.connect();
    return new DuckDBSession(instance, connection);
  }

  private conn(): DuckDBConnection {
    if (this.closed) throw new UsageError('DuckDB session is closed');
    return this.connection;
  }

  /**
   * Creates (or replaces) table `name` with the exact DuckDB equivalents of `table`'s Arrow types
   * and appends every row, in data chunks of 2048 rows.
   */
  async loadTable(name: string, table: arrow.Table): Promise<void> {
    const conn = this.conn();
    const fields = table.schema.fields;
    if (fields.length === 0) throw new UsageError(`cannot load table '${name}': it has no columns`);
    const seen = new Map<string, string>();
    for (const f of fields) {
      const other = seen.get(f.name.toLowerCase());
      if (other !== undefined) throw new UsageError(`cannot load table '${name}' into DuckDB: columns '${other}' and '${f.name}' share a name (DuckDB's names are case-insensitive and unique in a table)`);
      seen.set(f.name.toLowerCase(), f.name);
    }
    const mappings = fields.map((f) => mapType(f, f.type, 'by the DuckDB loader'));
    const ddl = fields.map((f, c) => `${quoteIdent(f.name)} ${mappings[c]!.sql}`).join(', ');
    await conn.run(`CREATE OR REPLACE TABLE ${quoteIdent(name)} (${ddl})`);
    if (table.numRows === 0) return;
    try {
      await this.append(name, table, mappings);
    } catch (e) {
      if (!isVerifiedAppendError(e)) throw e;
      // `PRAGMA enable_verification` is on in this session (a sqllogictest file's setup turns it
      // on): DuckDB's appender flushes through an INSERT … FROM a ColumnDataRef, the statement
      // verifier re-parses that statement's ToString(), and a ColumnDataRef prints as a table
      // dump ("-----" lines): `Failed to append: syntax error at or near "-"`. The failure proves
      // verification was on, so append with it off and turn it back on.
      await conn.run('PRAGMA disable_verification');
      try {
        await conn.run(`CREATE OR REPLACE TABLE ${quoteIdent(name)} (${ddl})`);
        await this.append(name, table, mappings);
      } finally {
        await conn.run('PRAGMA enable_verification');
      }
    }
  }

  private async append(name: string, table: arrow.Table, mappings: readonly ColumnMapping[]): Promise<void> {
    const conn = this.conn();
    const fields = table.schema.fields;
    const types = mappings.map((m) => m.duck);
    const chunkRows = Math.min(APPEND_CHUNK_ROWS, DuckDBVector.standardSize());
    const pending: DuckDBValue[][] = fields.map(() => new Array<DuckDBValue>(chunkRows));
    let fill = 0;
    const appender = await conn.createAppender(name);
    try {
      const flush = () => {
        if (fill === 0) return;
        const chunk = DuckDBDataChunk.create(types, fill);
        for (let c = 0; c < fields.length; c++) {
          const col = pending[c]!;
          try {
            chunk.setColumnValues(c, fill === chunkRows ? col : col.slice(0, fill));
          } catch (cause) {
            throw new UnsupportedTypeError(fields[c]!.name, String(fields[c]!.type), `by the DuckDB loader: ${String(cause)}`);
          }
        }
        appender.appendDataChunk(chunk);
        fill = 0;
      };
      for (const batch of table.batches) {
        const datas = fields.map((_, c) => batch.data.children[c]!);
        const readers = datas.map((d, c) => mappings[c]!.reader(d));
        const n = batch.numRows;
        let row = 0;
        while (row < n) {
          const take = Math.min(chunkRows - fill, n - row);
          for (let c = 0; c < fields.length; c++) {
            const d = datas[c]!;
            const read = readers[c]!;
            const out = pending[c]!;
            const hasNulls = d.nullCount > 0;
            for (let k = 0; k < take; k++) {
              const i = row + k;
              out[fill + k] = hasNulls && !d.getValid(i) ? null : read(i);
            }
          }
          fill += take;
          row += take;
          if (fill === chunkRows) flush();
        }
      }
      flush();
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }

  /** CREATE OR REPLACE TABLE `name` AS SELECT * FROM read_parquet(path): the fast path for big data. */
  async loadParquet(name: string, path: string | readonly string[]): Promise<void> {
    await this.runOnParquet(`CREATE OR REPLACE TABLE ${quoteIdent(name)} AS SELECT * FROM `, path);
  }

  /** A view over Parquet file(s): nothing is loaded; every query scans the files. */
  async createViewOnParquet(name: string, path: string | readonly string[]): Promise<void> {
    await this.runOnParquet(`CREATE OR REPLACE VIEW ${quoteIdent(name)} AS SELECT * FROM `, path);
  }

  private async runOnParquet(prefix: string, path: string | readonly string[]): Promise<void> {
    const source = parquetSource(path);
    try {
      await this.conn().run(prefix + source);
    } catch (cause) {
      const shown = typeof path === 'string' ? path : path.join(', ');
      throw new CorruptFileError(shown, cause instanceof Error ? cause.message : String(cause), { cause });
    }
  }

  /** Runs `sql` and returns the whole result as an Arrow table (see the type mapping above). */
  async query(sql: string): Promise<arrow.Table> {
    const result = await this.conn().run(sql);
    return resultToArrow(result);
  }

  /**
   * Runs `sql` and returns rows of plain JS values (bigint for 64-bit integers, number for
   * DECIMAL, Date for timestamps, Uint8Array for BLOB). Lossy for DECIMAL and sub-millisecond
   * timestamps: use `query` for exact values. For small results.
   */
  async queryRows(sql: string): Promise<JS[][]> {
    const reader = await this.conn().runAndReadAll(sql);
    return reader.getRowsJS();
  }

  /** Runs `sql` and returns rows of DuckDB's exact value objects. For small results. */
  async queryValues(sql: string): Promise<DuckDBValue[][]> {
    const reader = await this.conn().runAndReadAll(sql);
    return reader.getRows();
  }

  /** Runs a statement, discarding any result. */
  async run(sql: string): Promise<void> {
    await this.conn().run(sql);
  }

  /**
   * Stops the statement running on this connection (DuckDB's interrupt): its promise rejects with
   * `INTERRUPT Error: Interrupted!` and the connection stays usable. A no-op when nothing runs or
   * after `close`. For time limits and interrupted processes: DuckDB runs on threads of its own,
   * so an AbortSignal the caller fires cannot reach it any other way.
   */
  interrupt(): void {
    if (!this.closed) this.connection.interrupt();
  }

  /** Closes the connection and the database; safe to call twice. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.connection.closeSync();
    this.instance.closeSync();
  }
}

/** DuckDB's appender failing under `PRAGMA enable_verification` (see `loadTable`). */
function isVerifiedAppendError(e: unknown): boolean {
  const m = e instanceof Error ? e.message : String(e);
  return m.includes('Failed to append') && /syntax error/i.test(m);
}

/**
 * Whether a DuckDB error message is an internal error — a DuckDB bug on a valid query (1.5.6:
 * 'Failed to bind column reference' on some ANTI JOIN trees under GROUP BY) — rather than one of
 * the query itself (parser, binder, conversion). Differential runs skip such a query: DuckDB has
 * no answer to compare with.
 */
export function isDuckDBInternalError(message: string): boolean {
  return /^INTERNAL Error:/.test(message);
}
