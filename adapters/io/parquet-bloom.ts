/**
 * Parquet Bloom-filter pruning: when the published dynamic filter is an exact value set (an IN
 * list, `ScanPredicate.exactSet()`), a row group whose probe-column chunk carries a Bloom filter
 * in which no value of the set may be holds no row that can pass, and is skipped without being
 * read — after min/max (`mayContain`) said "maybe". This module has the two halves: hashing the
 * set the way Parquet writers hash values (once per published predicate), and reading one column
 * chunk's filter by byte range.
 *
 * The format (apache/parquet-format `BloomFilter.md`, `parquet.thrift`): ColumnMetaData field 14
 * `bloom_filter_offset` (i64) and 15 `bloom_filter_length` (i32, optional — older writers such as
 * parquet-mr before 1.12.3 leave it out) locate a Thrift `BloomFilterHeader` {1: numBytes,
 * 2: algorithm (union, 1: BLOCK), 3: hash (union, 1: XXHASH), 4: compression (union,
 * 1: UNCOMPRESSED)} followed by `numBytes` of split-block bitset (strategies/pushdown/bloom.ts
 * has the layout). Values are hashed with xxHash64, seed 0 (xxhash64.ts), over their PLAIN
 * encoding: INT32 as 4 bytes little-endian, INT64 as 8, FLOAT/DOUBLE as their IEEE bits
 * little-endian, BYTE_ARRAY as the bytes WITHOUT the 4-byte length prefix, FIXED_LEN_BYTE_ARRAY
 * as its bytes.
 *
 * When DuckDB writes filters (duckdb/duckdb v1.5, extension/parquet/include/writer/
 * templated_column_writer.hpp `FlushDictionary`, and extension/parquet/parquet_writer.cpp, which
 * writes them just before the footer): for every column chunk that is dictionary-encoded — so
 * when the chunk's distinct count stays within `DICTIONARY_SIZE_LIMIT` (default: a tenth of
 * `ROW_GROUP_SIZE`) and `STRING_DICTIONARY_PAGE_SIZE_LIMIT` — the dictionary's values are
 * inserted into a filter sized for `BLOOM_FILTER_FALSE_POSITIVE_RATIO` (default 0.01);
 * `WRITE_BLOOM_FILTER false` turns them off. Checked with @duckdb/node-api 1.5.6 in
 * parquet-bloom.test.ts. DuckDB hashes a float's raw bits (parquet_write_operators.hpp
 * `BaseParquetOperator::XXHash64`), so -0.0 and 0.0 hash differently, and NaNs by their payload;
 * its dictionary also folds -0.0 and 0.0 into whichever came first (duckdb/duckdb#25781), so a
 * row written as 0.0 may be stored, and hashed, as -0.0.
 *
 * The mistakes other readers made, and the rule below avoids (duckdb/duckdb issues and PRs):
 * probing with +0.0 only (#23829: DuckDB 1.5.6 still answers `WHERE f = 0` with no row on a file
 * holding -0.0 — parquet-bloom.test.ts shows it), probing with one NaN payload (#23921, fixed by
 * skipping NaN, #23944), hashing a decimal at the engine's storage width instead of the file's
 * physical width (#23919), hashing a BLOB's escaped text instead of its bytes (#23829).
 *
 * THE RULE: a wrong encoding is a false negative, i.e. dropped rows, so a value is only hashed
 * where its PLAIN encoding in this column is certain, judged on the Parquet leaf (physical +
 * logical/converted type) AND the Arrow type the scan presents it as AND the key kind the set is
 * in; anything else makes the whole column "maybe" (`bloomHashes` returns null):
 *  - INT32 / INT64, bare or `INT(bw, signed)` / `INT_*` / `UINT_*`, presented as the Arrow Int of
 *    that width and sign, key kind a plain integer (no date, time or decimal): a value outside
 *    the column type's range cannot be in the column and is dropped; unsigned values are written
 *    by their bit pattern (UINT_32 3e9 is the int32 bytes of 3e9 - 2^32).
 *  - DATE (INT32 days) presented as Date(DAY): key kind DATE (days), or a timestamp kind (a date
 *    widened to a timestamp: only values at midnight can match, the rest are dropped).
 *  - TIMESTAMP(unit) / TIMESTAMP_MILLIS|MICROS (INT64) presented as Timestamp in that same unit,
 *    key kind a timestamp: the value rescaled exactly into the file's unit, dropped when it is not
 *    a whole number of the file's unit. A bare INT64 read as a timestamp (its unit only in
 *    ARROW:schema) and INT96 are not handled.
 *  - DECIMAL(p, s) on INT32 / INT64 / FIXED_LEN_BYTE_ARRAY (big-endian two's complement of
 *    exactly type_length bytes), presented as Decimal at scale s, key kind decimal: the unscaled
 *    value rescaled exactly to s (else dropped) and range-checked. BYTE_ARRAY decimals (minimal
 *    length is not guaranteed by every writer) are not handled.
 *  - BYTE_ARRAY bare / STRING / UTF8 / ENUM presented as Utf8/Binary (any layout, or a dictionary
 *    of them), key kind bytes: the raw bytes. FIXED_LEN_BYTE_ARRAY without a logical type
 *    presented as FixedSizeBinary: the raw bytes, dropped unless of type_length bytes. JSON, BSON,
 *    UUID, FLOAT16, INTERVAL and the rest are not handled.
 *  - FLOAT / DOUBLE presented as Float32 / Float64, key kind float (which folds -0.0 into 0.0 and
 *    every NaN into one): 0 is hashed as both +0.0 and -0.0 (either may be in the file); a NaN in
 *    the set makes the column "maybe" (a file NaN may have any payload); for FLOAT a value that is
 *    not exactly a float32 is dropped (no float32 widens to it).
 * A row group is pruned only when NO hash of the set may be in its filter, so hashing more than
 * one encoding per value (±0) only ever keeps more.
 *
 * Corrupt or unusable filters are "maybe", never an error and never a prune: an offset or length
 * outside [4, footer start), a length that is not positive or above `MAX_FILTER_BYTES`, a header
 * that does not parse, an algorithm/hash/compression other than BLOCK/XXHASH/UNCOMPRESSED, a
 * numBytes that is not a positive multiple of 32 or does not fit the stated length. The filter
 * only ever removes work, and the row group's data will be decoded (and its corruption reported)
 * if it is kept. A file that changes or disappears while being read is still the typed error
 * file-ranges.ts raises.
 */
import { DateUnit, Precision, Type, type DataType, type Date_, type Decimal, type Dictionary, type FixedSizeBinary, type Float, type Int, type Timestamp } from 'apache-arrow';
import { isByteString } from '../../core/arrow/type-families.ts';
import type { SchemaElement } from 'hyparquet';
import { UNIT_EXP } from '../../core/keys/resolve.ts';
import type { KeyKind, KeyValue } from '../../core/keys/types.ts';
import type { ExactValueSet } from '../../core/scan/scan.ts';
import { SplitBlockBloomFilter } from '../../strategies/pushdown/bloom.ts';
import type { FileRanges } from './file-ranges.ts';
import { ThriftError, ThriftReader, tget, ti64, tstruct, type TStruct } from './thrift.ts';
import { xxhash64Halves } from './xxhash64.ts';

/** The largest bitset read (Parquet writers cap filters at 128 MiB: parquet-mr's default max). */
export const MAX_FILTER_BYTES = 128 * 1024 * 1024;
/** Bytes read for the header when `bloom_filter_length` is absent (a header is ~15 bytes). */
const HEADER_PROBE_BYTES = 256;

/** How one key value is written in the column: its PLAIN encodings (0: it cannot be there). */
type Encoder = (v: KeyValue) => Uint8Array[] | 'unknown';

const NONE: Uint8Array[] = [];

function le32(x: number): Uint8Array[] {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, x >>> 0, true);
  return [b];
}

function le64(x: bigint): Uint8Array[] {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt.asUintN(64, x), true);
  return [b];
}

/** `x` (a bigint) as INT32 bytes if it lies in [lo, hi], else nothing. */
function int32In(x: bigint, lo: bigint, hi: bigint): Uint8Array[] {
  return x < lo || x > hi ? NONE : le32(Number(BigInt.asUintN(32, x)));
}

function int64In(x: bigint, lo: bigint, hi: bigint): Uint8Array[] {
  return x < lo || x > hi ? NONE : le64(x);
}

/** `v * 10^up / 10^down` when that is an integer, else null. */
function rescaleExact(v: bigint, up: number, down: number): bigint | null {
  const x = v * 10n ** BigInt(up);
  const d = 10n ** BigInt(down);
  return x % d === 0n ? x / d : null;
}

function valueType(t: DataType): DataType {
  return t.typeId === Type.Dictionary ? valueType((t as Dictionary).dictionary) : t;
}

function isPlainInteger(kind: KeyKind): boolean {
  return (kind.order === 'int' || kind.order === 'uint') && kind.timeUnit === undefined && kind.sqlType !== 'DATE';
}

/** The Parquet leaf's integer range (bit width, signedness), or null for a non-integer annotation. */
function integerAnnotation(el: SchemaElement): { bits: number; signed: boolean } | null {
  const phys = el.type === 'INT32' ? 32 : 64;
  const lt = el.logical_type;
  if (lt !== undefined) return lt.type === 'INTEGER' ? { bits: lt.bitWidth, signed: lt.isSigned } : null;
  const ct = el.converted_type;
  if (ct === undefined) return { bits: phys, signed: true };
  const m = /^(U?)INT_(8|16|32|64)$/.exec(ct);
  return m ? { bits: Number(m[2]), signed: m[1] === '' } : null;
}

function isDecimal(el: SchemaElement): { scale: number } | null {
  const lt = el.logical_type;
  if (lt?.type === 'DECIMAL') return { scale: lt.scale };
  if (lt === undefined && el.converted_type === 'DECIMAL') return { scale: el.scale ?? 0 };
  return null;
}

const PARQUET_UNITS = { MILLIS: 'MILLISECOND', MICROS: 'MICROSECOND', NANOS: 'NANOSECOND' } as const;
const ARROW_UNITS = ['SECOND', 'MILLISECOND', 'MICROSECOND', 'NANOSECOND'] as const;

function timestampUnit(el: SchemaElement): (typeof ARROW_UNITS)[number] | null {
  const lt = el.logical_type;
  if (lt?.type === 'TIMESTAMP') return PARQUET_UNITS[lt.unit] ?? null;
  if (lt !== undefined) return null;
  if (el.converted_type === 'TIMESTAMP_MILLIS') return 'MILLISECOND';
  if (el.converted_type === 'TIMESTAMP_MICROS') return 'MICROSECOND';
  return null;
}

/**
 * The encoder of key values of `kind` into the PLAIN encoding of the Parquet leaf `el`, presented
 * to the scan as Arrow type `arrow`; null when the combination is not one of the module's rules.
 */
export function plainEncoder(el: SchemaElement, arrow: DataType, kind: KeyKind): Encoder | null {
  const t = valueType(arrow);
  switch (el.type) {
    case 'INT32':
    case 'INT64': {
      const wide = el.type === 'INT64';
      const dec = isDecimal(el);
      if (dec !== null) {
        if (t.typeId !== Type.Decimal || (t as Decimal).scale !== dec.scale || kind.order !== 'decimal') return null;
        const ks = kind.scale ?? 0;
        const [lo, hi] = wide ? [-(2n ** 63n), 2n ** 63n - 1n] : [-(2n ** 31n), 2n ** 31n - 1n];
        return (v) => {
          if (typeof v !== 'bigint') return 'unknown';
          const x = ks >= dec.scale ? rescaleExact(v, 0, ks - dec.scale) : rescaleExact(v, dec.scale - ks, 0);
          if (x === null) return NONE;
          return wide ? int64In(x, lo, hi) : int32In(x, lo, hi);
        };
      }
      if (!wide && (el.logical_type?.type === 'DATE' || (el.logical_type === undefined && el.converted_type === 'DATE'))) {
        if (t.typeId !== Type.Date || (t as Date_).unit !== DateUnit.DAY || kind.order !== 'int') return null;
        const perDay = kind.timeUnit !== undefined ? 86_400n * 10n ** BigInt(UNIT_EXP[kind.timeUnit]) : kind.sqlType === 'DATE' ? 1n : null;
        if (perDay === null) return null;
        return (v) => {
          if (typeof v !== 'bigint') return 'unknown';
          if (v % perDay !== 0n) return NONE;
          return int32In(v / perDay, -(2n ** 31n), 2n ** 31n - 1n);
        };
      }
      if (wide) {
        const unit = timestampUnit(el);
        if (unit !== null) {
          if (t.typeId !== Type.Timestamp || ARROW_UNITS[(t as Timestamp).unit] !== unit) return null;
          if (kind.order !== 'int' || kind.timeUnit === undefined) return null;
          const diff = UNIT_EXP[kind.timeUnit] - UNIT_EXP[unit];
          return (v) => {
            if (typeof v !== 'bigint') return 'unknown';
            const x = diff >= 0 ? rescaleExact(v, 0, diff) : rescaleExact(v, -diff, 0);
            return x === null ? NONE : int64In(x, -(2n ** 63n), 2n ** 63n - 1n);
          };
        }
      }
      const ann = integerAnnotation(el);
      if (ann === null || ann.bits > (wide ? 64 : 32) || (!wide && ann.bits === 64)) return null;
      if (t.typeId !== Type.Int || (t as Int).bitWidth !== ann.bits || (t as Int).isSigned !== ann.signed) return null;
      if (!isPlainInteger(kind)) return null;
      const b = BigInt(ann.bits);
      const lo = ann.signed ? -(1n << (b - 1n)) : 0n;
      const hi = ann.signed ? (1n << (b - 1n)) - 1n : (1n << b) - 1n;
      return (v) => {
        if (typeof v !== 'bigint') return 'unknown';
        return wide ? int64In(v, lo, hi) : int32In(v, lo, hi);
      };
    }
    case 'FLOAT':
    case 'DOUBLE': {
      if (el.logical_type !== undefined || el.converted_type !== undefined) return null;
      const double = el.type === 'DOUBLE';
      if (t.typeId !== Type.Float || (t as Float).precision !== (double ? Precision.DOUBLE : Precision.SINGLE)) return null;
      if (kind.order !== 'float') return null;
      return (v) => {
        if (typeof v !== 'number' || Number.isNaN(v)) return 'unknown';
        if (!double && Math.fround(v) !== v) return NONE;
        const enc = (x: number): Uint8Array => {
          const b = new Uint8Array(double ? 8 : 4);
          const dv = new DataView(b.buffer);
          if (double) dv.setFloat64(0, x, true);
          else dv.setFloat32(0, x, true);
          return b;
        };
        return v === 0 ? [enc(0), enc(-0)] : [enc(v)];
      };
    }
    case 'BYTE_ARRAY': {
      const lt = el.logical_type?.type;
      const ct = el.converted_type;
      const textual = lt === undefined ? ct === undefined || ct === 'UTF8' || ct === 'ENUM' : lt === 'STRING' || lt === 'ENUM';
      if (!textual || !isByteString(t.typeId)) return null;
      if (kind.order !== 'bytes') return null;
      return (v) => (v instanceof Uint8Array ? [v] : 'unknown');
    }
    case 'FIXED_LEN_BYTE_ARRAY': {
      const len = el.type_length;
      if (len === undefined || !(len > 0)) return null;
      const dec = isDecimal(el);
      if (dec !== null) {
        if (t.typeId !== Type.Decimal || (t as Decimal).scale !== dec.scale || kind.order !== 'decimal') return null;
        const ks = kind.scale ?? 0;
        const bits = BigInt(8 * len);
        const lo = -(1n << (bits - 1n));
        const hi = (1n << (bits - 1n)) - 1n;
        return (v) => {
          if (typeof v !== 'bigint') return 'unknown';
          const x = ks >= dec.scale ? rescaleExact(v, 0, ks - dec.scale) : rescaleExact(v, dec.scale - ks, 0);
          if (x === null || x < lo || x > hi) return NONE;
          const b = new Uint8Array(len);
          let u = BigInt.asUintN(8 * len, x);
          for (let i = len - 1; i >= 0; i--) {
            b[i] = Number(u & 0xffn);
            u >>= 8n;
          }
          return [b];
        };
      }
      if (el.logical_type !== undefined || el.converted_type !== undefined) return null;
      if (t.typeId !== Type.FixedSizeBinary || (t as FixedSizeBinary).byteWidth !== len || kind.order !== 'bytes') return null;
      return (v) => (v instanceof Uint8Array ? (v.length === len ? [v] : NONE) : 'unknown');
    }
    default:
      return null;
  }
}

/**
 * The xxHash64 halves (lo, hi pairs) of every PLAIN encoding of every value of `set` in the leaf
 * `el` (presented as `arrow`), or null when the column is not handled (the module's rules) or a
 * value's encoding is not certain. Values that cannot be in the column are left out, so the
 * result may be empty (then no row group with a filter can match).
 */
export function bloomHashes(el: SchemaElement, arrow: DataType, set: ExactValueSet): Uint32Array | null {
  const encode = plainEncoder(el, arrow, set.kind);
  if (encode === null) return null;
  const encodings: Uint8Array[] = [];
  for (const v of set.values) {
    const e = encode(v);
    if (e === 'unknown') return null;
    for (const b of e) encodings.push(b);
  }
  const out = new Uint32Array(encodings.length * 2);
  for (let i = 0; i < encodings.length; i++) xxhash64Halves(encodings[i]!, out, 2 * i);
  return out;
}

/** Whether some hash pair of `hashes` may be in `filter`. */
export function mayContainAnyHash(filter: SplitBlockBloomFilter, hashes: Uint32Array): boolean {
  for (let i = 0; i < hashes.length; i += 2) if (filter.mayContainHash64(hashes[i]! | 0, hashes[i + 1]! | 0)) return true;
  return false;
}

/** Where a column chunk's filter is, from its ColumnMetaData (null: it has none). */
export function bloomLocation(meta: TStruct | undefined): { offset: bigint; length: bigint | null } | null {
  const offset = ti64(meta, 14);
  if (offset === undefined) return null;
  const length = ti64(meta, 15);
  return { offset, length: length ?? null };
}

/** A parsed header's bitset size, or null when the header is not a usable split-block XXHASH one. */
function usableNumBytes(h: TStruct): number | null {
  const numBytes = tget(h, 1);
  if (typeof numBytes !== 'number' || numBytes <= 0 || numBytes % 32 !== 0 || numBytes > MAX_FILTER_BYTES) return null;
  const isSet = (union: number): boolean => tstruct(tstruct(h, union), 1) !== undefined;
  if (!isSet(2) || !isSet(3) || !isSet(4)) return null; // BLOCK, XXHASH, UNCOMPRESSED: each the union's field 1
  return numBytes;
}

export interface BloomRead {
  /** null: the filter is corrupt or of an unsupported kind ("maybe"). */
  readonly filter: SplitBlockBloomFilter | null;
  /** File bytes read for it. */
  readonly bytesRead: number;
}

/**
 * Reads the filter at `loc` from `source`, whose column data ends at `dataEnd` (the footer's
 * start). Never throws for a bad location or header (see the module comment); a file that
 * changed under the read is file-ranges.ts's typed error.
 */
export function readBloomFilter(source: FileRanges, loc: { offset: bigint; length: bigint | null }, dataEnd: number): BloomRead {
  const end = BigInt(dataEnd);
  const { offset, length } = loc;
  if (offset < 4n || offset >= end) return { filter: null, bytesRead: 0 };
  const start = Number(offset);
  const before = source.bytesRead;
  const done = (filter: SplitBlockBloomFilter | null): BloomRead => ({ filter, bytesRead: source.bytesRead - before });
  if (length !== null) {
    if (length <= 0n || length > BigInt(MAX_FILTER_BYTES + HEADER_PROBE_BYTES) || offset + length > end) return done(null);
    const bytes = source.read(start, Number(length));
    const h = headerIn(bytes);
    if (h === null || h.bitsetAt + h.numBytes > bytes.length) return done(null);
    return done(SplitBlockBloomFilter.fromBytes(bytes.subarray(h.bitsetAt, h.bitsetAt + h.numBytes)));
  }
  const h = headerIn(source.read(start, Math.min(HEADER_PROBE_BYTES, dataEnd - start)));
  if (h === null || start + h.bitsetAt + h.numBytes > dataEnd) return done(null);
  return done(SplitBlockBloomFilter.fromBytes(source.read(start + h.bitsetAt, h.numBytes)));
}

/** The header at the start of `bytes`: the bitset's size and where it starts; null when unusable. */
function headerIn(bytes: Uint8Array): { numBytes: number; bitsetAt: number } | null {
  const reader = new ThriftReader(bytes, 0, bytes.length);
  try {
    const numBytes = usableNumBytes(reader.struct());
    return numBytes === null ? null : { numBytes, bitsetAt: reader.pos };
  } catch (e) {
    if (e instanceof ThriftError) return null;
    throw e;
  }
}
