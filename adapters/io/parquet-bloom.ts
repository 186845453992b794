/**
 * Parquet Bloom-filter pruning: the one way to skip a row group of UNSORTED data, where min/max
 * says "maybe". When the published dynamic filter is an exact set over one probe column (an IN
 * list, `ScanPredicate.exactSet`) and that column's chunk in a row group carries a split-block
 * Bloom filter, the row group can hold a match only if some value of the set may be in the filter.
 *
 * The format (apache/parquet-format BloomFilter.md): `ColumnMetaData.bloom_filter_offset` (14)
 * and `bloom_filter_length` (15, optional) locate a thrift `BloomFilterHeader` {1: numBytes,
 * 2: algorithm BLOCK, 3: hash XXHASH, 4: compression UNCOMPRESSED} followed by `numBytes` of
 * bitset: 32-byte blocks of eight little-endian words, the layout strategies/pushdown/bloom.ts
 * implements. A value is inserted as xxHash64 (seed 0) of its PLAIN encoding. DuckDB writes one for
 * every dictionary-encoded column chunk (extension/parquet/column_writer.cpp / parquet_writer.cpp,
 * v1.5: `ParquetBloomFilter`, false-positive ratio `BLOOM_FILTER_FALSE_POSITIVE_RATIO`, 0.01).
 *
 * A wrong encoding would be a false negative — a dropped row, the worst bug here — so the set's
 * values are encoded only where the bytes are certain (`planBloomProbe`):
 *  - INT32 / INT64 with no logical type or an INTEGER one (signed or unsigned; a narrow INT32 is
 *    stored sign- or zero-extended to 4 bytes), and DATE (INT32 days) when the key kind is DATE;
 *    a value outside the physical type's range cannot be in the column and is left out;
 *  - BYTE_ARRAY strings (STRING / UTF8 / ENUM) and plain binary: the bytes without the length prefix.
 * Everything else (floats: -0.0 / NaN canonicalisation; decimals, timestamps, times, INT96,
 * FIXED_LEN_BYTE_ARRAY, booleans) is not tested: "maybe". So is a chunk with no filter, or one
 * whose header is not BLOCK / XXHASH / UNCOMPRESSED, whose size is not whole blocks, or that lies
 * outside the data region of the file — a damaged Bloom filter costs pruning, never rows or a crash.
 */
import type { SchemaElement } from 'hyparquet';
import type { KeyKind, KeyValue } from '../../core/keys/types.ts';
import type { ExactValueSet } from '../../core/scan/scan.ts';
import { SplitBlockBloomFilter } from '../../strategies/pushdown/bloom.ts';
import { tget, tstruct, ThriftReader, type TStruct } from './thrift.ts';
import { xxhash64Halves } from './xxhash64.ts';

/** Largest Bloom filter read (parquet-mr's maximum is 128 MiB too). */
export const MAX_BLOOM_BYTES = 128 * 1024 * 1024;

/** How a set's values are written in a column chunk, or null when that is not certain. */
type Encoding = { readonly width: 4 | 8; readonly signed: boolean } | { readonly width: 0 };

function encodingOf(leaf: SchemaElement, kind: KeyKind): Encoding | null {
  const lt = leaf.logical_type;
  const ct = leaf.converted_type;
  if (leaf.type === 'INT32' || leaf.type === 'INT64') {
    if (kind.order !== 'int' && kind.order !== 'uint') return null;
    if (kind.timeUnit !== undefined) return null;
    const width = leaf.type === 'INT32' ? 4 : 8;
    if (lt?.type === 'DATE' || ct === 'DATE') return width === 4 && kind.sqlType === 'DATE' ? { width, signed: true } : null;
    if (kind.sqlType === 'DATE') return null;
    if (lt !== undefined) return lt.type === 'INTEGER' ? { width, signed: lt.isSigned } : null;
    if (ct === undefined) return { width, signed: true };
    if (['INT_8', 'INT_16', 'INT_32', 'INT_64'].includes(ct)) return { width, signed: true };
    if (['UINT_8', 'UINT_16', 'UINT_32', 'UINT_64'].includes(ct)) return { width, signed: false };
    return null;
  }
  if (leaf.type === 'BYTE_ARRAY') {
    if (kind.order !== 'bytes') return null;
    if (lt !== undefined) return lt.type === 'STRING' || lt.type === 'ENUM' ? { width: 0 } : null;
    if (ct === undefined || ct === 'UTF8' || ct === 'ENUM') return { width: 0 };
    return null;
  }
  return null;
}

/** The PLAIN bytes of `v`, or null when no value of the column can equal it. */
function plainBytes(v: KeyValue, enc: Encoding): Uint8Array | null {
  if (enc.width === 0) return v instanceof Uint8Array ? v : null;
  if (typeof v !== 'bigint') return null;
  const bits = BigInt(enc.width * 8);
  const lo = enc.signed ? -(1n << (bits - 1n)) : 0n;
  const hi = enc.signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
  if (v < lo || v > hi) return null;
  const out = new Uint8Array(enc.width);
  const view = new DataView(out.buffer);
  if (enc.width === 4) view.setUint32(0, Number(BigInt.asUintN(32, v)), true);
  else view.setBigUint64(0, BigInt.asUintN(64, v), true);
  return out;
}

/**
 * The 64-bit hashes (lo, hi pairs) of the set's values as the column's Bloom filters hold them, or
 * null when this column's encoding is not one handled (then no row group is tested).
 */
export function planBloomProbe(set: ExactValueSet, leaf: SchemaElement | undefined): Int32Array | null {
  if (leaf === undefined) return null;
  const enc = encodingOf(leaf, set.kind);
  if (enc === null) return null;
  const pairs: number[] = [];
  for (const v of set.values) {
    const bytes = plainBytes(v, enc);
    if (bytes === null) continue;
    const { lo, hi } = xxhash64Halves(bytes);
    pairs.push(lo, hi);
  }
  return Int32Array.from(pairs);
}

/** Whether some hash of `probe` (lo, hi pairs) may be in `filter`. */
export function bloomMayContainAny(filter: SplitBlockBloomFilter, probe: Int32Array): boolean {
  for (let i = 0; i < probe.length; i += 2) if (filter.mayContainHash64(probe[i]!, probe[i + 1]!)) return true;
  return false;
}

/** Bytes to read for a header whose length the footer does not give (it is ~15 bytes). */
export const HEADER_READ = 64;

/**
 * The filter from the bytes at `bloom_filter_offset` (header + bitset, or a prefix holding at
 * least the header: `needed` then says how many bytes the whole takes). null: unusable.
 */
export function parseBloomFilter(bytes: Uint8Array): { filter: SplitBlockBloomFilter } | { needed: number } | null {
  let header: TStruct;
  const r = new ThriftReader(bytes, 0, bytes.length);
  try {
    header = r.struct();
  } catch {
    return null;
  }
  const numBytes = tget(header, 1);
  if (typeof numBytes !== 'number' || numBytes < 32 || numBytes % 32 !== 0 || numBytes > MAX_BLOOM_BYTES) return null;
  // each of the three unions must hold its one known variant (field 1: BLOCK, XXHASH, UNCOMPRESSED)
  for (const f of [2, 3, 4]) {
    const u = tstruct(header, f);
    if (u === undefined || u.length !== 1 || u[0]!.id !== 1) return null;
  }
  const end = r.pos + numBytes;
  if (end > bytes.length) return { needed: end };
  return { filter: SplitBlockBloomFilter.fromBytes(bytes.subarray(r.pos, end)) };
}
