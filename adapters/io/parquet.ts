/**
 * Parquet files: open once, read the footer (row-group sizes and min/max statistics) without
 * decoding any data, then read and decode only the row groups and columns a scan asks for. The
 * file is read by byte ranges (file-ranges.ts): the head and tail at open, then the column chunks
 * of each decode — never the whole file, except for the rare fallback decode below.
 *
 * Why the decoding path looks the way it does (parquet-wasm 0.8.0, built on arrow-rs 59; verified
 * by tests):
 * - the synchronous `readParquet(bytes, { columns })` ignores `columns` (it always decodes every
 *   column) and copies the *whole* input into wasm memory on every call;
 * - the asynchronous `ParquetFile.read` honours `columns`, but any decode error inside it (a
 *   corrupt page, an out-of-range row group) is a wasm panic thrown from a microtask: it cannot be
 *   caught and kills the process.
 * So we build, per decode, a small *sub-file* — the selected column chunks of the selected row
 * groups, byte-copied, plus a re-encoded footer (Thrift compact, every field keeps its wire type;
 * the embedded `ARROW:schema` is projected to the same columns so types survive) — and hand that
 * to the synchronous reader, whose panics surface as catchable `RuntimeError`s. Memory per decode
 * is therefore bounded by the bytes of what is decoded, not by the file size. If a sub-file cannot
 * be built (encrypted or multi-file Parquet, an `ARROW:schema` apache-arrow cannot parse) or fails
 * to decode, we fall back to decoding whole row groups from the original bytes (all columns) and
 * count it in `fallbackDecodes`; only if that fails too is the file reported corrupt.
 *
 * Statistics follow the `StatValue` convention of core/scan.ts and are only ever safe
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
 *
 * Errors: a missing file is `FileNotFoundError`; a truncated file, bad magic, a garbled footer,
 * column chunks pointing outside the file, or a decoder failure/panic is `CorruptFileError` naming
 * the file and what is wrong: the footer length against the bytes that precede the 8-byte trailer,
 * the footer byte where its Thrift stops making sense, or the footer field (`FileMetaData.
 * row_groups[2].columns[0].meta_data.codec`) that is missing, of the wrong Thrift type or out of
 * range — checked against the parquet.thrift structure before hyparquet reads the footer, because
 * hyparquet assumes a well-formed footer and fails with messages about its own internals. (It is
 * handed the footer without column statistics: we decode those ourselves, lazily, and a malformed
 * bound is only "unknown", while hyparquet parses them all at open and throws.) A page cut or
 * shifted inside a column chunk is only noticed if the decoder notices: Parquet pages carry no
 * checksum unless the writer added one. An unknown column is `MissingColumnError`; a row-group
 * index out of range is a `UsageError` (it is a caller bug, and would otherwise panic inside
 * wasm).
 *
 * Types: every type is read and written exactly, or refused with an `UnsupportedTypeError`
 * naming the column — parquet-types.ts has the rules and why. In short: the decoder (arrow-rs 59
 * inside parquet-wasm) drops the months of Parquet INTERVAL, the UUID / JSON logical types and
 * TIME's isAdjustedToUTC, and turns Utf8View/BinaryView columns into plain ones; the sub-file
 * footer therefore describes INTERVAL leaves as their raw 12 bytes, and every decoded batch is
 * conformed to the handle's `schema` (interval bytes -> month-day-nano, views rebuilt, extension
 * and UTC metadata attached) — a batch never carries a type other than the schema's. On write,
 * `prepareForParquet` checks every column first (nothing is written for a refused table), month-
 * day-nano intervals go out as INTERVAL bytes, and the footer arrow-rs wrote is patched
 * (`patchWrittenFooter`) with INTERVAL, UUID and JSON where they apply.
 *
 * Writing goes apache-arrow Table -> IPC stream -> wasm Table -> `writeParquet`, atomically.
 * Round-trip findings (parquet.test.ts, parquet-types.test.ts; DuckDB's own types in
 * roundtrip.test.ts): every Arrow type above comes back from joinlab's own files with the same
 * type, metadata and values, because arrow-rs embeds the Arrow schema (`ARROW:schema`). Other
 * readers do not see that schema: DuckDB reads our timestamp[s] as BIGINT (arrow-rs writes seconds
 * as a bare INT64, no TIMESTAMP annotation; likewise Time32(s) as INTEGER, Duration and Date64 as
 * BIGINT, Float16 as FLOAT, decimals over 38 digits as DOUBLE), timestamp[ms] as TIMESTAMP (us)
 * and dictionary strings as VARCHAR. Files DuckDB writes come back as what DuckDB stored:
 * TIMESTAMP_S as Timestamp(us), HUGEINT/UHUGEINT as Float64 (DuckDB writes them as DOUBLE),
 * ENUM and BIT as Utf8, TIMETZ as its UTC time (DuckDB normalises the offset away), INTERVAL as
 * month-day-nano with millisecond precision (DuckDB writes whole milliseconds).
 */
import {
  Compression,
  readParquet,
  readSchema,
  Table as WasmTable,
  transformParquetStream,
  writeParquet,
  WriterPropertiesBuilder,
  type WriterProperties,
} from 'parquet-wasm';
import { open, type FileHandle } from 'node:fs/promises';
import {
  DataType,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  tableFromIPC,
  tableToIPC,
  TimeUnit,
  type Field,
} from 'apache-arrow';
import { parquetMetadata, type FileMetaData, type SchemaElement } from 'hyparquet';
import { conformBatch as conformToSchema } from '../../core/arrow/ipc-chunks.ts';
import { heldBatchBytes } from '../../core/arrow/size.ts';
import { CorruptFileError, FileNotFoundError, MissingColumnError, UnsupportedTypeError, UsageError } from '../../core/errors.ts';
import type { MemoryPool, Reservation } from '../../core/memory/pool.ts';
import type { ColumnStats, StatValue } from '../../core/scan/scan.ts';
import { writeFileAtomic } from './atomic.ts';
import { FileRanges, type ByteRange } from './file-ranges.ts';
import { conformBatch, ConformError, decodeHint, exposedField, leafCount, parquetPreparer, prepareForParquet, readFixOf, type LeafPatch, type ReadFix } from './parquet-types.ts';
import {
  T_BINARY,
  T_BYTE,
  T_FALSE,
  T_I16,
  T_I32,
  T_I64,
  T_LIST,
  T_SET,
  T_STRUCT,
  T_TRUE,
  tbytes,
  tget,
  ThriftError,
  ThriftReader,
  ThriftWriter,
  ti64,
  tlist,
  tstruct,
  twith,
  type TList,
  type TStruct,
  type TValue,
} from './thrift.ts';

export const PARQUET_EXTENSIONS: readonly string[] = ['.parquet', '.pq'];

export function isParquetPath(path: string): boolean {
  const p = path.toLowerCase();
  return PARQUET_EXTENSIONS.some((ext) => p.endsWith(ext));
}

// ---------------------------------------------------------------------------------------------
// Footer model
// ---------------------------------------------------------------------------------------------

const MAGIC = 0x31524150; // "PAR1" little-endian
const MAGIC_ENCRYPTED = 0x45524150; // "PARE"
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true }); // a leading U+FEFF is data, not a byte-order mark
const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A top-level field: its subtree in the flat schema list and its leaf (column chunk) range. */
interface TopField {
  readonly name: string;
  readonly schemaStart: number;
  readonly schemaEnd: number;
  readonly leafStart: number;
  readonly leafEnd: number;
  /** Set when the field is one primitive leaf (the only case with usable statistics). */
  readonly leafElement: SchemaElement | undefined;
}

interface Footer {
  readonly raw: TStruct;
  readonly meta: FileMetaData;
  readonly footerStart: number;
  readonly tops: readonly TopField[];
  readonly numLeaves: number;
  /** Per row group, per leaf: [start, length] of the chunk bytes in the file. */
  readonly chunkRanges: ReadonlyArray<Float64Array>;
  /** Per leaf: true when min_value/max_value follow the type's own order. */
  readonly typeDefinedOrder: readonly boolean[];
  readonly encrypted: boolean;
  /** Per leaf (by index): what arrow-rs does not carry on its own (parquet-types.ts). */
  readonly fixes: ReadonlyMap<number, ReadFix>;
  /** Index into the schema list of each leaf's element. */
  readonly leafElements: readonly number[];
}

class NeedsFallback extends Error {}

/** The footer's length from the file's last 8 bytes (after checking the magic there). */
function footerLength(last8: Uint8Array, fileSize: number): number {
  const view = new DataView(last8.buffer, last8.byteOffset, 8);
  const magic = view.getUint32(4, true);
  if (magic === MAGIC_ENCRYPTED) throw new ThriftError('encrypted footers (PARE) are not supported');
  if (magic !== MAGIC) throw new ThriftError('missing PAR1 magic at the end (truncated or not a Parquet file)');
  const metaLen = view.getUint32(0, true);
  // the footer sits between the leading magic (4 bytes) and the trailer (length + magic, 8 bytes)
  const room = fileSize - 12;
  if (metaLen > room) {
    throw new ThriftError(
      `footer length field claims ${metaLen} bytes, but only ${fileSize - 8} precede it (${room} after the leading PAR1 magic): truncated or not a Parquet file`,
    );
  }
  if (metaLen === 0) throw new ThriftError('footer length field is 0: the file has no footer');
  return metaLen;
}

// ---------------------------------------------------------------------------------------------
// Footer structure: what hyparquet and this module read, checked before either reads it
// ---------------------------------------------------------------------------------------------

/** One known field of a Thrift struct: its wire type, whether it must be there, what it holds. */
interface FieldSpec {
  readonly name: string;
  /** 'int' = i8/i16/i32 (writers differ), 'bool' = either boolean wire type. */
  readonly type: 'int' | 'i64' | 'binary' | 'bool' | 'struct' | 'list';
  readonly required?: boolean;
  /** Allowed values of an enum-valued int. */
  readonly max?: number;
  /** A struct's fields, or a list's elements when they are structs. */
  readonly struct?: StructSpec;
  /** A list's element type when it is not a struct. */
  readonly elem?: 'int' | 'binary';
}
type StructSpec = { readonly name: string; readonly fields: Readonly<Record<number, FieldSpec>> };

const KEY_VALUE: StructSpec = { name: 'KeyValue', fields: { 1: { name: 'key', type: 'binary', required: true }, 2: { name: 'value', type: 'binary' } } };
const TIME_UNIT_HOLDER: StructSpec = {
  name: 'TimeType',
  fields: { 1: { name: 'isAdjustedToUTC', type: 'bool', required: true }, 2: { name: 'unit', type: 'struct', required: true, struct: { name: 'TimeUnit', fields: {} } } },
};
const LOGICAL_TYPE: StructSpec = {
  name: 'LogicalType',
  fields: {
    5: { name: 'DECIMAL', type: 'struct', struct: { name: 'DecimalType', fields: { 1: { name: 'scale', type: 'int', required: true }, 2: { name: 'precision', type: 'int', required: true } } } },
    7: { name: 'TIME', type: 'struct', struct: TIME_UNIT_HOLDER },
    8: { name: 'TIMESTAMP', type: 'struct', struct: TIME_UNIT_HOLDER },
    10: { name: 'INTEGER', type: 'struct', struct: { name: 'IntType', fields: { 1: { name: 'bitWidth', type: 'int', required: true }, 2: { name: 'isSigned', type: 'bool', required: true } } } },
  },
};
const SCHEMA_ELEMENT: StructSpec = {
  name: 'SchemaElement',
  fields: {
    1: { name: 'type', type: 'int', max: 7 },
    2: { name: 'type_length', type: 'int' },
    3: { name: 'repetition_type', type: 'int', max: 2 },
    4: { name: 'name', type: 'binary', required: true },
    5: { name: 'num_children', type: 'int' },
    6: { name: 'converted_type', type: 'int', max: 21 },
    7: { name: 'scale', type: 'int' },
    8: { name: 'precision', type: 'int' },
    9: { name: 'field_id', type: 'int' },
    10: { name: 'logicalType', type: 'struct', struct: LOGICAL_TYPE },
  },
};
const STATISTICS: StructSpec = {
  name: 'Statistics',
  fields: {
    1: { name: 'max', type: 'binary' },
    2: { name: 'min', type: 'binary' },
    3: { name: 'null_count', type: 'i64' },
    4: { name: 'distinct_count', type: 'i64' },
    5: { name: 'max_value', type: 'binary' },
    6: { name: 'min_value', type: 'binary' },
  },
};
const COLUMN_META_DATA: StructSpec = {
  name: 'ColumnMetaData',
  fields: {
    1: { name: 'type', type: 'int', required: true, max: 7 },
    2: { name: 'encodings', type: 'list', required: true, elem: 'int' },
    3: { name: 'path_in_schema', type: 'list', required: true, elem: 'binary' },
    4: { name: 'codec', type: 'int', required: true, max: 7 },
    5: { name: 'num_values', type: 'i64', required: true },
    6: { name: 'total_uncompressed_size', type: 'i64', required: true },
    7: { name: 'total_compressed_size', type: 'i64', required: true },
    8: { name: 'key_value_metadata', type: 'list', struct: KEY_VALUE },
    9: { name: 'data_page_offset', type: 'i64', required: true },
    10: { name: 'index_page_offset', type: 'i64' },
    11: { name: 'dictionary_page_offset', type: 'i64' },
    12: { name: 'statistics', type: 'struct', struct: STATISTICS },
    13: {
      name: 'encoding_stats',
      type: 'list',
      struct: { name: 'PageEncodingStats', fields: { 1: { name: 'page_type', type: 'int', required: true }, 2: { name: 'encoding', type: 'int', required: true }, 3: { name: 'count', type: 'int', required: true } } },
    },
    14: { name: 'bloom_filter_offset', type: 'i64' },
    15: { name: 'bloom_filter_length', type: 'int' },
  },
};
const COLUMN_CHUNK: StructSpec = {
  name: 'ColumnChunk',
  fields: {
    1: { name: 'file_path', type: 'binary' },
    2: { name: 'file_offset', type: 'i64' },
    3: { name: 'meta_data', type: 'struct', struct: COLUMN_META_DATA },
    4: { name: 'offset_index_offset', type: 'i64' },
    5: { name: 'offset_index_length', type: 'int' },
    6: { name: 'column_index_offset', type: 'i64' },
    7: { name: 'column_index_length', type: 'int' },
  },
};
const ROW_GROUP: StructSpec = {
  name: 'RowGroup',
  fields: {
    1: { name: 'columns', type: 'list', required: true, struct: COLUMN_CHUNK },
    2: { name: 'total_byte_size', type: 'i64', required: true },
    3: { name: 'num_rows', type: 'i64', required: true },
    4: {
      name: 'sorting_columns',
      type: 'list',
      struct: { name: 'SortingColumn', fields: { 1: { name: 'column_idx', type: 'int', required: true }, 2: { name: 'descending', type: 'bool', required: true }, 3: { name: 'nulls_first', type: 'bool', required: true } } },
    },
    5: { name: 'file_offset', type: 'i64' },
    6: { name: 'total_compressed_size', type: 'i64' },
    7: { name: 'ordinal', type: 'int' },
  },
};
const FILE_META_DATA: StructSpec = {
  name: 'FileMetaData',
  fields: {
    1: { name: 'version', type: 'int', required: true },
    2: { name: 'schema', type: 'list', required: true, struct: SCHEMA_ELEMENT },
    3: { name: 'num_rows', type: 'i64', required: true },
    4: { name: 'row_groups', type: 'list', required: true, struct: ROW_GROUP },
    5: { name: 'key_value_metadata', type: 'list', struct: KEY_VALUE },
    6: { name: 'created_by', type: 'binary' },
    7: { name: 'column_orders', type: 'list', struct: { name: 'ColumnOrder', fields: {} } },
  },
};

function wireMatches(spec: FieldSpec['type'] | 'int' | 'binary', wire: number): boolean {
  switch (spec) {
    case 'int':
      return wire === T_BYTE || wire === T_I16 || wire === T_I32;
    case 'i64':
      return wire === T_I64 || wire === T_I32 || wire === T_I16;
    case 'binary':
      return wire === T_BINARY;
    case 'bool':
      return wire === T_TRUE || wire === T_FALSE;
    case 'struct':
      return wire === T_STRUCT;
    case 'list':
      return wire === T_LIST || wire === T_SET;
  }
}

const WIRE_NAMES = ['stop', 'bool', 'bool', 'byte', 'i16', 'i32', 'i64', 'double', 'binary', 'list', 'set', 'map', 'struct', 'uuid'];

/** Throws a ThriftError naming the path of the first field of `s` that does not fit `spec`. */
function checkStruct(s: TStruct, spec: StructSpec, path: string): void {
  for (const [id, f] of Object.entries(spec.fields)) {
    const field = s.find((x) => x.id === Number(id));
    const at = `${path}.${f.name}`;
    if (!field) {
      if (f.required) throw new ThriftError(`footer field ${at} is missing`);
      continue;
    }
    if (!wireMatches(f.type, field.type)) {
      throw new ThriftError(`footer field ${at} is a Thrift ${WIRE_NAMES[field.type] ?? field.type}, expected ${f.type === 'int' ? 'an integer' : f.type === 'i64' ? 'an i64' : `a ${f.type}`}`);
    }
    const v = field.value;
    if (f.max !== undefined && typeof v === 'number' && (v < 0 || v > f.max)) throw new ThriftError(`footer field ${at} has the unknown value ${v}`);
    if (f.type === 'struct' && f.struct) checkStruct(v as TStruct, f.struct, at);
    if (f.type === 'list') {
      const l = v as TList;
      if (f.struct) {
        if (l.elemType !== T_STRUCT) throw new ThriftError(`footer field ${at} holds ${WIRE_NAMES[l.elemType] ?? l.elemType} values, expected ${f.struct.name} structs`);
        (l.items as TStruct[]).forEach((item, i) => checkStruct(item, f.struct!, `${at}[${i}]`));
      } else if (f.elem && l.items.length > 0 && !wireMatches(f.elem, l.elemType)) {
        throw new ThriftError(`footer field ${at} holds ${WIRE_NAMES[l.elemType] ?? l.elemType} values, expected ${f.elem === 'int' ? 'integers' : 'strings'}`);
      }
    }
  }
}

/**
 * The footer as handed to hyparquet: the same Thrift without column statistics (and the size and
 * geospatial statistics hyparquet would parse too). We decode statistics ourselves, lazily, from
 * the raw footer, treating anything malformed as "unknown"; hyparquet parses every one of them at
 * open and throws on a bound of the wrong length.
 */
function footerForHyparquet(raw: TStruct): Uint8Array {
  const rgs = tlist(raw, 4)!;
  const rowGroups = (rgs.items as TStruct[]).map((rg) => {
    const cols = tlist(rg, 1)!;
    const items = (cols.items as TStruct[]).map((chunk) => {
      const md = tstruct(chunk, 3);
      return md ? twith(chunk, [[3, T_STRUCT, twith(md, [[12, T_STRUCT, null], [16, T_STRUCT, null], [17, T_STRUCT, null]])]]) : chunk;
    });
    return twith(rg, [[1, T_LIST, { elemType: cols.elemType, items }]]);
  });
  const w = new ThriftWriter();
  w.struct(twith(raw, [[4, T_LIST, { elemType: rgs.elemType, items: rowGroups }]]));
  const footer = w.bytes();
  const out = new Uint8Array(footer.length + 8);
  out.set(footer);
  const dv = new DataView(out.buffer);
  dv.setUint32(footer.length, footer.length, true);
  dv.setUint32(footer.length + 4, MAGIC, true);
  return out;
}

/**
 * Parses the footer from `tail`, the file's last bytes (at least the footer, its length and the
 * magic) of a file of `fileSize` bytes; chunk ranges are absolute file offsets.
 */
function parseFooter(tail: Uint8Array, fileSize: number): Footer {
  const n = fileSize;
  if (n < 12) throw new ThriftError(`file is too short (${n} bytes) to be Parquet`);
  const metaLen = footerLength(tail.subarray(tail.length - 8), n);
  const footerStart = n - 8 - metaLen;
  const tailStart = n - tail.length;
  if (footerStart < tailStart) throw new ThriftError(`footer of ${metaLen} bytes is not within the bytes read`);
  const reader = new ThriftReader(tail, footerStart - tailStart, tail.length - 8);
  const raw = reader.struct();
  checkStruct(raw, FILE_META_DATA, 'FileMetaData');
  const schemaList = tlist(raw, 2)!;
  if (schemaList.items.length === 0) throw new ThriftError('footer schema is empty (not even a root element)');
  let meta: FileMetaData;
  try {
    const hy = footerForHyparquet(raw);
    meta = parquetMetadata(hy.buffer.slice(hy.byteOffset, hy.byteOffset + hy.byteLength) as ArrayBuffer, { geoparquet: false });
  } catch (e) {
    throw new ThriftError(`footer does not parse (hyparquet: ${(e as Error).message})`);
  }
  if (meta.schema.length !== schemaList.items.length) throw new ThriftError('footer schema does not parse');
  // Walk the flat (depth-first) schema list into top-level subtrees.
  const elements = meta.schema;
  const rootChildren = elements[0]!.num_children ?? 0;
  const tops: TopField[] = [];
  let idx = 1;
  let leaf = 0;
  const leafElements: number[] = [];
  const fixes = new Map<number, ReadFix>();
  const walk = (): void => {
    if (idx >= elements.length) throw new ThriftError(`schema tree is cut short: its num_children counts need more than the ${elements.length} schema elements`);
    const el = elements[idx++]!;
    const children = el.num_children ?? 0;
    if (el.type !== undefined && children === 0) {
      const fix = readFixOf(el);
      if (fix !== null) fixes.set(leaf, fix);
      leafElements.push(idx - 1);
      leaf++;
    }
    for (let c = 0; c < children; c++) walk();
  };
  for (let c = 0; c < rootChildren; c++) {
    const start = idx;
    const leafStart = leaf;
    walk();
    const el = elements[start]!;
    tops.push({
      name: el.name,
      schemaStart: start,
      schemaEnd: idx,
      leafStart,
      leafEnd: leaf,
      leafElement: idx === start + 1 && el.type !== undefined ? el : undefined,
    });
  }
  if (idx !== elements.length) throw new ThriftError(`schema lists ${elements.length - idx} elements after the root's ${rootChildren} children`);
  const numLeaves = leaf;

  const rgList = tlist(raw, 4)?.items ?? [];
  if (rgList.length !== meta.row_groups.length) throw new ThriftError('row group list does not parse');
  let encrypted = tget(raw, 8) !== undefined;
  const chunkRanges: Float64Array[] = [];
  for (let r = 0; r < rgList.length; r++) {
    const cols = tlist(rgList[r] as TStruct, 1)?.items ?? [];
    if (cols.length !== numLeaves) {
      throw new ThriftError(`row group ${r} has ${cols.length} column chunks, the schema ${numLeaves} leaf columns`);
    }
    const ranges = new Float64Array(numLeaves * 2);
    for (let c = 0; c < numLeaves; c++) {
      const chunk = cols[c] as TStruct;
      if (tget(chunk, 8) !== undefined || tget(chunk, 9) !== undefined) encrypted = true;
      const md = tstruct(chunk, 3);
      if (!md) {
        if (encrypted) continue;
        throw new ThriftError(`row group ${r} column ${c} has no metadata`);
      }
      const dataOff = ti64(md, 9) ?? -1n;
      const dictOff = ti64(md, 11);
      const start = dictOff !== undefined && dictOff > 0n && dictOff < dataOff ? dictOff : dataOff;
      const len = ti64(md, 7) ?? -1n;
      if (start < 4n || len < 0n || start + len > BigInt(footerStart)) {
        const path = (meta.row_groups[r]?.columns[c]?.meta_data?.path_in_schema ?? []).join('.');
        throw new ThriftError(
          `row group ${r} column ${c} ('${path}') claims bytes [${start}, ${start + len}), but column data must lie between the leading magic and the footer, [4, ${footerStart})`,
        );
      }
      ranges[c * 2] = Number(start);
      ranges[c * 2 + 1] = Number(len);
    }
    chunkRanges.push(ranges);
  }
  const orders = tlist(raw, 7)?.items;
  const typeDefinedOrder: boolean[] = [];
  for (let c = 0; c < numLeaves; c++) {
    const o = orders && orders.length === numLeaves ? (orders[c] as TStruct) : undefined;
    typeDefinedOrder.push(o !== undefined && tget(o, 1) !== undefined);
  }
  return { raw, meta, footerStart, tops, numLeaves, chunkRanges, typeDefinedOrder, encrypted, fixes, leafElements };
}

/** The Arrow schema stored under `ARROW:schema` (null when there is none or it does not parse). */
function arrowSchemaOf(raw: TStruct): Schema | null {
  const value = arrowSchemaValue(raw);
  if (value === undefined) return null;
  try {
    return tableFromIPC(Buffer.from(utf8.decode(value), 'base64')).schema;
  } catch {
    return null;
  }
}

function arrowSchemaValue(raw: TStruct): Uint8Array | undefined {
  for (const entry of (tlist(raw, 5)?.items ?? []) as TStruct[]) {
    const key = tbytes(entry, 1);
    if (key && utf8.decode(key) === 'ARROW:schema') return tbytes(entry, 2);
  }
  return undefined;
}

/**
 * The interval type the file's ARROW:schema names for each INTERVAL leaf (what arrow-rs wrote it
 * from; parquet-types.ts keeps YEAR_MONTH and DAY_TIME).
 */
function intervalHints(f: Footer): Map<number, DataType> {
  const hinted = new Map<number, DataType>();
  if (![...f.fixes.values()].includes('interval')) return hinted;
  const schema = arrowSchemaOf(f.raw);
  if (schema === null || schema.fields.length !== f.tops.length) return hinted;
  schema.fields.forEach((field, t) => {
    const top = f.tops[t]!;
    if (leafCount(field.type) === top.leafEnd - top.leafStart) decodeHint(field, f.fixes, top.leafStart, hinted);
  });
  return hinted;
}

/**
 * Re-encode the Arrow schema stored under `ARROW:schema`, keeping the top-level fields `keep`,
 * with INTERVAL leaves described as the raw bytes the sub-file footer makes them.
 */
function projectArrowSchemaValue(value: Uint8Array, keep: readonly number[], f: Footer): Uint8Array {
  let schema: Schema;
  try {
    schema = tableFromIPC(Buffer.from(utf8.decode(value), 'base64')).schema;
  } catch (e) {
    throw new NeedsFallback(`ARROW:schema does not parse: ${(e as Error).message}`);
  }
  if (schema.fields.length !== f.tops.length) throw new NeedsFallback('ARROW:schema does not match the Parquet schema');
  const sub = new Schema(
    keep.map((i) => {
      const field = schema.fields[i]!;
      const top = f.tops[i]!;
      return leafCount(field.type) === top.leafEnd - top.leafStart ? decodeHint(field, f.fixes, top.leafStart, new Map()) : field;
    }),
    schema.metadata,
  );
  const ipc = tableToIPC(new Table(sub), 'stream');
  const message = ipc.subarray(0, ipc.length - 8); // drop the end-of-stream marker
  return new TextEncoder().encode(Buffer.from(message).toString('base64'));
}

/**
 * A self-contained Parquet file holding only `rowGroups` (in that order) and the top-level fields
 * `keep` (indices into `footer.tops`, ascending; `null` = all); its column chunks are read from
 * `source` straight into place, in one open / close.
 */
function buildSubFile(source: FileRanges, f: Footer, rowGroups: readonly number[], keep: readonly number[] | null): Uint8Array {
  if (f.encrypted) throw new NeedsFallback('encrypted column chunks');
  const tops = keep ?? f.tops.map((_, i) => i);
  const leaves: number[] = [];
  for (const t of tops) for (let l = f.tops[t]!.leafStart; l < f.tops[t]!.leafEnd; l++) leaves.push(l);

  const schemaItems = (tlist(f.raw, 2)!.items as TStruct[]).slice();
  // INTERVAL leaves: plain FIXED_LEN_BYTE_ARRAY(12), so the decoder hands over all 12 bytes
  f.fixes.forEach((fix, leaf) => {
    if (fix === 'interval') schemaItems[f.leafElements[leaf]!] = twith(schemaItems[f.leafElements[leaf]!]!, [[6, T_I32, null], [10, T_STRUCT, null]]);
  });
  const root = twith(schemaItems[0]!, [[5, T_I32, tops.length]]);
  const newSchema: TValue[] = [root];
  for (const t of tops) for (let i = f.tops[t]!.schemaStart; i < f.tops[t]!.schemaEnd; i++) newSchema.push(schemaItems[i]!);

  const rgItems = tlist(f.raw, 4)!.items as TStruct[];
  let offset = 4;
  let numRows = 0n;
  const copies: number[] = []; // src, len, dst triples
  const newRowGroups: TValue[] = [];
  for (const r of rowGroups) {
    const rg = rgItems[r]!;
    const cols = tlist(rg, 1)!.items as TStruct[];
    const ranges = f.chunkRanges[r]!;
    const newCols: TValue[] = [];
    let totalUncompressed = 0n;
    let totalCompressed = 0n;
    const rgStart = offset;
    for (const l of leaves) {
      const chunk = cols[l]!;
      if (tget(chunk, 1) !== undefined) throw new NeedsFallback('column chunk in an external file');
      const md = tstruct(chunk, 3)!;
      const src = ranges[l * 2]!;
      const len = ranges[l * 2 + 1]!;
      const delta = BigInt(offset - src);
      const dataOff = ti64(md, 9)!;
      const dictOff = ti64(md, 11);
      const newMd = twith(md, [
        [9, T_I64, dataOff + delta],
        [10, T_I64, null], // index page offset: not copied
        [11, T_I64, dictOff !== undefined && dictOff > 0n && dictOff < dataOff ? dictOff + delta : null],
        [14, T_I64, null], // bloom filter offset/length: not copied
        [15, T_I32, null],
      ]);
      totalUncompressed += ti64(md, 6) ?? 0n;
      totalCompressed += ti64(md, 7) ?? 0n;
      newCols.push(
        twith(chunk, [
          [2, T_I64, dataOff + delta],
          [3, T_STRUCT, newMd],
          [4, T_I64, null], // offset/column index: not copied
          [5, T_I32, null],
          [6, T_I64, null],
          [7, T_I32, null],
        ]),
      );
      copies.push(src, len, offset);
      offset += len;
    }
    numRows += ti64(rg, 3) ?? 0n;
    newRowGroups.push(
      twith(rg, [
        [1, T_LIST, { elemType: T_STRUCT, items: newCols }],
        [2, T_I64, totalUncompressed],
        [4, T_LIST, null], // sorting columns refer to the old column indices
        [5, T_I64, BigInt(rgStart)],
        [6, T_I64, totalCompressed],
        [7, T_I16, null],
      ]),
    );
  }

  const updates: Array<readonly [number, number, TValue | null]> = [
    [2, T_LIST, { elemType: T_STRUCT, items: newSchema }],
    [3, T_I64, numRows],
    [4, T_LIST, { elemType: T_STRUCT, items: newRowGroups }],
  ];
  const orders = tlist(f.raw, 7);
  if (orders && orders.items.length === f.numLeaves) {
    updates.push([7, T_LIST, { elemType: orders.elemType, items: leaves.map((l) => orders.items[l]!) }]);
  }
  const kv = tlist(f.raw, 5);
  const intervals = leaves.some((l) => f.fixes.get(l) === 'interval');
  if (kv && ((keep !== null && keep.length !== f.tops.length) || intervals)) {
    const items = (kv.items as TStruct[]).map((entry) => {
      const key = tbytes(entry, 1);
      const value = tbytes(entry, 2);
      if (key && value && utf8.decode(key) === 'ARROW:schema') {
        return twith(entry, [[2, T_BINARY, projectArrowSchemaValue(value, tops, f)]]);
      }
      return entry;
    });
    updates.push([5, T_LIST, { elemType: kv.elemType, items }]);
  }
  const w = new ThriftWriter();
  w.struct(twith(f.raw, updates));
  const footer = w.bytes();

  const out = new Uint8Array(offset + footer.length + 8);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, MAGIC, true);
  const ranges: ByteRange[] = [];
  for (let i = 0; i < copies.length; i += 3) ranges.push({ offset: copies[i]!, length: copies[i + 1]!, at: copies[i + 2]! });
  if (ranges.length > 0) source.readRanges(out, ranges);
  out.set(footer, offset);
  dv.setUint32(offset + footer.length, footer.length, true);
  dv.setUint32(offset + footer.length + 4, MAGIC, true);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Statistics -> StatValue
// ---------------------------------------------------------------------------------------------

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

function convertStats(
  stats: TStruct | undefined,
  el: SchemaElement,
  arrow: DataType,
  numRows: number,
  typeDefinedOrder: boolean,
): ColumnStats | undefined {
  if (!stats) return undefined;
  const nc = ti64(stats, 3);
  const nullCount = nc !== undefined && nc >= 0n ? Number(nc) : null;
  if (nullCount !== null && nullCount === numRows) return { min: null, max: null, nullCount };
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
    return { min, max, nullCount };
  } catch (e) {
    if (e instanceof NeedsFallback) return undefined;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// The handle
// ---------------------------------------------------------------------------------------------

export interface ParquetRowGroupInfo {
  readonly index: number;
  readonly numRows: number;
  /** Uncompressed bytes of every column chunk of the row group. */
  readonly uncompressedBytes: number;
  /** Uncompressed bytes of one top-level column's chunks (0 for an unknown column). */
  columnBytes(name: string): number;
  /** Footer min/max/null-count of a top-level column; `undefined` = unknown ("maybe"). */
  columnStats(name: string): ColumnStats | undefined;
}

export interface DecodeOptions {
  /** Rows per decoded RecordBatch (default: all rows of the requested row groups, max 1M). */
  readonly batchSize?: number;
}

export interface DecodedRowGroups {
  /** Batches with the decoded columns in file order (a fallback may decode more than asked). */
  readonly batches: RecordBatch[];
  /** Names of the columns actually decoded (what `bytesDecoded` should charge for). */
  readonly columns: readonly string[];
}

function errMessage(e: unknown): string {
  return e instanceof Error ? `${e.name === 'Error' ? '' : `${e.name}: `}${e.message}` : String(e);
}

function projectBatch(batch: RecordBatch, names: readonly string[]): RecordBatch {
  const fields: Field[] = [];
  const children = [];
  for (const name of names) {
    const i = batch.schema.fields.findIndex((f) => f.name === name);
    fields.push(batch.schema.fields[i]!);
    children.push(batch.data.children[i]!);
  }
  const schema = new Schema(fields, batch.schema.metadata);
  return new RecordBatch(schema, makeData({ type: new Struct(fields), length: batch.numRows, nullCount: 0, children }));
}

class RowGroupInfo implements ParquetRowGroupInfo {
  readonly #handle: ParquetFileHandle;
  readonly #stats = new Map<string, ColumnStats | undefined>();
  constructor(
    handle: ParquetFileHandle,
    readonly index: number,
    readonly numRows: number,
    readonly uncompressedBytes: number,
  ) {
    this.#handle = handle;
  }
  columnBytes(name: string): number {
    return this.#handle.columnChunkBytes(this.index, name);
  }
  columnStats(name: string): ColumnStats | undefined {
    if (this.#stats.has(name)) return this.#stats.get(name);
    const s = this.#handle.computeColumnStats(this.index, name);
    this.#stats.set(name, s);
    return s;
  }
}

export class ParquetFileHandle {
  readonly path: string;
  readonly schema: Schema;
  readonly numRows: number;
  readonly rowGroups: readonly ParquetRowGroupInfo[];
  readonly columnNames: readonly string[];
  /** The file, read by ranges: the footer at open, then only the column chunks decoded. */
  readonly #source: FileRanges;
  /** The whole file, read only if a decode has to fall back to the original bytes. */
  #whole: Uint8Array | null = null;
  readonly #footer: Footer;
  readonly #topIndex = new Map<string, number>();
  #fallbacks = 0;

  private constructor(path: string, source: FileRanges, footer: Footer, schema: Schema) {
    this.path = path;
    this.#source = source;
    this.#footer = footer;
    this.schema = schema;
    this.numRows = Number(footer.meta.num_rows);
    this.columnNames = footer.tops.map((t) => t.name);
    footer.tops.forEach((t, i) => {
      if (!this.#topIndex.has(t.name)) this.#topIndex.set(t.name, i);
    });
    this.rowGroups = footer.meta.row_groups.map((rg, r) => {
      let bytesAll = 0;
      for (const c of rg.columns) bytesAll += Number(c.meta_data?.total_uncompressed_size ?? 0);
      return new RowGroupInfo(this, r, Number(rg.num_rows), bytesAll);
    });
  }

  /** Read the file's footer (its head and tail bytes only); no data page is read or decoded. */
  static async open(path: string): Promise<ParquetFileHandle> {
    const source = FileRanges.open(path);
    let footer: Footer;
    try {
      if (source.size < 12) throw new ThriftError(`file is too short (${source.size} bytes) to be Parquet (at least 12: PAR1, footer length, PAR1)`);
      const head = source.read(0, 4);
      const metaLen = footerLength(source.read(source.size - 8, 8), source.size);
      if (new DataView(head.buffer).getUint32(0, true) !== MAGIC) throw new ThriftError('missing PAR1 magic at the start');
      footer = parseFooter(source.read(source.size - 8 - metaLen, metaLen + 8), source.size);
    } catch (e) {
      if (e instanceof ThriftError) throw new CorruptFileError(path, e.message, { cause: e });
      if (e instanceof CorruptFileError || e instanceof FileNotFoundError) throw e;
      throw new CorruptFileError(path, `footer does not parse: ${errMessage(e)}`, { cause: e });
    }
    let schema: Schema;
    try {
      let footerOnly: Uint8Array;
      try {
        footerOnly = buildSubFile(source, footer, [], null);
      } catch (e) {
        if (!(e instanceof NeedsFallback)) throw e;
        footerOnly = source.readAll();
      }
      schema = tableFromIPC(readSchema(footerOnly).intoIPCStream()).schema;
      if (schema.fields.length === footer.tops.length && footer.fixes.size > 0) {
        const hinted = intervalHints(footer);
        schema = new Schema(
          schema.fields.map((field, t) => exposedField(field, footer.fixes, footer.tops[t]!.leafStart, hinted)),
          schema.metadata,
        );
      }
    } catch (e) {
      throw new CorruptFileError(path, `no Arrow schema can be derived from the footer: ${errMessage(e)}`, { cause: e });
    }
    if (schema.fields.length !== footer.tops.length) {
      throw new CorruptFileError(path, `the Arrow schema derived from the footer has ${schema.fields.length} fields, the Parquet schema ${footer.tops.length} top-level fields`);
    }
    return new ParquetFileHandle(path, source, footer, schema);
  }

  /** File bytes read so far: the footer, then the column chunks of decoded row groups. */
  get bytesRead(): number {
    return this.#source.bytesRead;
  }

  /** How many decodes fell back to whole-row-group decoding (0 for well-formed files). */
  get fallbackDecodes(): number {
    return this.#fallbacks;
  }

  /** @internal used by ParquetRowGroupInfo */
  columnChunkBytes(rowGroup: number, name: string): number {
    const t = this.#topIndex.get(name);
    if (t === undefined) return 0;
    const top = this.#footer.tops[t]!;
    const cols = this.#footer.meta.row_groups[rowGroup]!.columns;
    let bytes = 0;
    for (let l = top.leafStart; l < top.leafEnd; l++) bytes += Number(cols[l]?.meta_data?.total_uncompressed_size ?? 0);
    return bytes;
  }

  /** @internal used by ParquetRowGroupInfo (cached there) */
  computeColumnStats(rowGroup: number, name: string): ColumnStats | undefined {
    const t = this.#topIndex.get(name);
    if (t === undefined) return undefined;
    const top = this.#footer.tops[t]!;
    if (!top.leafElement) return undefined;
    const rg = (tlist(this.#footer.raw, 4)!.items as TStruct[])[rowGroup]!;
    const chunk = (tlist(rg, 1)!.items as TStruct[])[top.leafStart]!;
    const stats = tstruct(tstruct(chunk, 3), 12);
    return convertStats(
      stats,
      top.leafElement,
      this.schema.fields[t]!.type,
      this.rowGroups[rowGroup]!.numRows,
      this.#footer.typeDefinedOrder[top.leafStart]!,
    );
  }

  #checkRowGroups(indices: readonly number[]): void {
    for (const r of indices) {
      if (!Number.isInteger(r) || r < 0 || r >= this.rowGroups.length) {
        throw new UsageError(`row group ${r} out of range: ${this.path} has ${this.rowGroups.length} row groups`);
      }
    }
  }

  #topsFor(columns: readonly string[] | undefined): number[] | null {
    if (columns === undefined) return null;
    const tops = new Set<number>();
    for (const c of columns) {
      const t = this.#topIndex.get(c);
      if (t === undefined) throw new MissingColumnError(c, this.path, this.columnNames);
      tops.add(t);
    }
    return [...tops].sort((a, b) => a - b);
  }

  #decodeBytes(bytes: Uint8Array, rowGroups: number[] | undefined, batchSize: number): RecordBatch[] {
    const wasm = readParquet(bytes, rowGroups ? { rowGroups, batchSize } : { batchSize });
    const table = tableFromIPC(wasm.intoIPCStream());
    return table.batches.filter((b) => b.numRows > 0);
  }

  /** Decoded batches of the columns `names` (file order) as the handle's schema says them. */
  #conform(batches: RecordBatch[], names: readonly string[]): RecordBatch[] {
    const fields = names.map((n) => this.schema.fields[this.#topIndex.get(n)!]!);
    try {
      return batches.map((b) => conformBatch(b, fields));
    } catch (e) {
      if (e instanceof ConformError) throw new CorruptFileError(this.path, e.message, { cause: e });
      throw e;
    }
  }

  /**
   * Decode row groups `indices` (in that order), columns `columns` (default all). Synchronous
   * work behind a Promise so a future worker-based decoder can keep the signature.
   */
  async decodeRowGroups(
    indices: readonly number[],
    columns?: readonly string[],
    options: DecodeOptions = {},
  ): Promise<DecodedRowGroups> {
    this.#checkRowGroups(indices);
    const keep = this.#topsFor(columns);
    const names = (keep ?? this.#footer.tops.map((_, i) => i)).map((t) => this.#footer.tops[t]!.name);
    if (indices.length === 0) return { batches: [], columns: names };
    if (keep !== null && keep.length === 0) {
      // Nothing to decode: row counts come from the footer.
      const schema = new Schema([]);
      const batches = indices
        .map((r) => this.rowGroups[r]!.numRows)
        .filter((n) => n > 0)
        .map((n) => new RecordBatch(schema, makeData({ type: new Struct([]), length: n, nullCount: 0, children: [] })));
      return { batches, columns: [] };
    }
    let rows = 0;
    for (const r of indices) rows += this.rowGroups[r]!.numRows;
    const batchSize = Math.max(1, Math.min(options.batchSize ?? rows, 1 << 20));
    let sub: Uint8Array | null = null;
    let decoded = names;
    try {
      sub = buildSubFile(this.#source, this.#footer, indices, keep);
    } catch (e) {
      if (!(e instanceof NeedsFallback)) throw e;
      try {
        sub = buildSubFile(this.#source, this.#footer, indices, null);
        decoded = this.columnNames.slice();
      } catch (e2) {
        if (!(e2 instanceof NeedsFallback)) throw e2;
      }
    }
    if (sub !== null) {
      try {
        const batches = this.#decodeBytes(sub, undefined, batchSize);
        return { batches: this.#conform(batches, decoded), columns: decoded };
      } catch (e) {
        if (e instanceof UnsupportedTypeError || e instanceof CorruptFileError) throw e;
        // fall through: retry on the original bytes, so a sub-file problem can never be
        // misreported as a corrupt file
      }
    }
    this.#fallbacks++;
    try {
      const batches = this.#decodeBytes((this.#whole ??= this.#source.readAll()), [...indices], batchSize);
      return { batches: this.#conform(batches, this.columnNames), columns: this.columnNames.slice() };
    } catch (e) {
      if (e instanceof CorruptFileError || e instanceof FileNotFoundError || e instanceof UnsupportedTypeError) throw e;
      throw new CorruptFileError(this.path, `row groups [${indices.join(', ')}] do not decode: ${errMessage(e)}`, {
        cause: e,
      });
    }
  }

  /** Decode row groups `indices` and return batches with exactly `columns`, in that order. */
  async readRowGroups(indices: readonly number[], columns?: readonly string[], options?: DecodeOptions): Promise<RecordBatch[]> {
    const { batches } = await this.decodeRowGroups(indices, columns, options);
    const want = columns ?? this.columnNames;
    return batches.map((b) => projectBatch(b, want));
  }

  /** The Arrow schema restricted to `columns` (in that order). */
  schemaFor(columns?: readonly string[]): Schema {
    if (!columns) return this.schema;
    this.#topsFor(columns);
    return new Schema(
      columns.map((c) => this.schema.fields[this.#topIndex.get(c)!]!),
      this.schema.metadata,
    );
  }
}

export interface ParquetReadOptions {
  readonly columns?: readonly string[];
  readonly rowGroups?: readonly number[];
}

/** Read (part of) a Parquet file into an Arrow Table; columns come back in the requested order. */
export async function readParquetFile(path: string, options: ParquetReadOptions = {}): Promise<Table> {
  const h = await ParquetFileHandle.open(path);
  const rgs = options.rowGroups ?? h.rowGroups.map((_, i) => i);
  const batches = await h.readRowGroups(rgs, options.columns, { batchSize: 1 << 16 });
  return batches.length > 0 ? new Table(batches) : new Table(h.schemaFor(options.columns));
}

export type ParquetCompression = 'uncompressed' | 'snappy' | 'gzip' | 'brotli' | 'lz4' | 'zstd';

export interface ParquetWriteOptions {
  /** Maximum rows per row group (default 122880, DuckDB's default, so pruning has containers). */
  readonly rowGroupSize?: number;
  /** Default 'snappy'. */
  readonly compression?: ParquetCompression;
}

const COMPRESSION: Record<ParquetCompression, Compression> = {
  uncompressed: Compression.UNCOMPRESSED,
  snappy: Compression.SNAPPY,
  gzip: Compression.GZIP,
  brotli: Compression.BROTLI,
  lz4: Compression.LZ4_RAW,
  zstd: Compression.ZSTD,
};

/** Encode a Table as Parquet bytes (parquet-rs via wasm; the Arrow schema is embedded). */
export function encodeParquet(table: Table, options: ParquetWriteOptions = {}): Uint8Array {
  const props = writerProperties(options);
  const prepared = prepareForParquet(table); // throws UnsupportedTypeError before anything is written
  const wasmTable = WasmTable.fromIPCStream(tableToIPC(prepared.table, 'stream'));
  const bytes = writeParquet(wasmTable, props);
  return prepared.patches.size > 0 ? patchWrittenFooter(bytes, prepared.patches) : bytes;
}

function writerProperties(options: ParquetWriteOptions): WriterProperties {
  const rowGroupSize = options.rowGroupSize ?? 122_880;
  if (!Number.isInteger(rowGroupSize) || rowGroupSize < 1) {
    throw new UsageError(`rowGroupSize must be a positive integer, got ${rowGroupSize}`);
  }
  const compression = COMPRESSION[options.compression ?? 'snappy'];
  if (compression === undefined) throw new UsageError(`unknown Parquet compression '${options.compression}'`);
  return new WriterPropertiesBuilder().setMaxRowGroupSize(rowGroupSize).setCompression(compression).build();
}

const CONVERTED_JSON = 19;
const CONVERTED_INTERVAL = 21;
const LOGICAL_JSON = 12;
const LOGICAL_UUID = 14;

/**
 * `bytes` (a file arrow-rs just wrote) with the footer changes `patches` names per leaf column
 * (parquet-types.ts says why): INTERVAL on the raw 12-byte interval leaves — whose min/max
 * statistics and column index, computed as plain bytes, are dropped, since INTERVAL has no
 * defined sort order — and the UUID / JSON logical types. Column chunks stay where they are.
 */
function patchWrittenFooter(bytes: Uint8Array, patches: ReadonlyMap<number, LeafPatch>): Uint8Array {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = dv.getUint32(bytes.length - 8, true);
  const footerStart = bytes.length - 8 - len;
  const footer = patchedFooter(bytes.subarray(footerStart, bytes.length - 8), patches);
  const out = new Uint8Array(footerStart + footer.length + 8);
  out.set(bytes.subarray(0, footerStart));
  out.set(footerTail(footer), footerStart);
  return out;
}

/** The footer, its length and the closing magic: what follows the last column chunk. */
function footerTail(footer: Uint8Array): Uint8Array {
  const out = new Uint8Array(footer.length + 8);
  out.set(footer);
  const dv = new DataView(out.buffer);
  dv.setUint32(footer.length, footer.length, true);
  dv.setUint32(footer.length + 4, MAGIC, true);
  return out;
}

/**
 * The same patches applied to a file on disk (the streaming writer's temp file, `size` bytes):
 * the footer is read back from the end, re-encoded and written over the old one.
 */
async function patchFooterInFile(fh: FileHandle, size: number, patches: ReadonlyMap<number, LeafPatch>): Promise<void> {
  const tail = new Uint8Array(8);
  await fh.read(tail, 0, 8, size - 8);
  const len = new DataView(tail.buffer).getUint32(0, true);
  const footerStart = size - 8 - len;
  const old = new Uint8Array(len);
  await fh.read(old, 0, len, footerStart);
  const bytes = footerTail(patchedFooter(old, patches));
  await fh.truncate(footerStart);
  await fh.write(bytes, 0, bytes.length, footerStart);
}

/** A footer (Thrift FileMetaData) with `patches` applied. */
function patchedFooter(footerBytes: Uint8Array, patches: ReadonlyMap<number, LeafPatch>): Uint8Array {
  const raw = new ThriftReader(footerBytes, 0, footerBytes.length).struct();
  const schema = (tlist(raw, 2)!.items as TStruct[]).slice();
  let leaf = 0;
  for (let i = 1; i < schema.length; i++) {
    const el = schema[i]!;
    const children = tget(el, 5);
    if (tget(el, 1) === undefined || (typeof children === 'number' && children > 0)) continue;
    const patch = patches.get(leaf++);
    if (patch === 'interval') schema[i] = twith(el, [[6, T_I32, CONVERTED_INTERVAL], [10, T_STRUCT, null]]);
    else if (patch === 'uuid') schema[i] = twith(el, [[10, T_STRUCT, [{ id: LOGICAL_UUID, type: T_STRUCT, value: [] }]]]);
    else if (patch === 'json') schema[i] = twith(el, [[6, T_I32, CONVERTED_JSON], [10, T_STRUCT, [{ id: LOGICAL_JSON, type: T_STRUCT, value: [] }]]]);
  }
  const rgs = tlist(raw, 4)!;
  const rowGroups = (rgs.items as TStruct[]).map((rg) => {
    const cols = tlist(rg, 1)!;
    const items = (cols.items as TStruct[]).map((chunk, c) => {
      if (patches.get(c) !== 'interval') return chunk;
      const md = tstruct(chunk, 3)!;
      return twith(chunk, [
        [3, T_STRUCT, twith(md, [[12, T_STRUCT, null]])],
        [6, T_I64, null],
        [7, T_I32, null],
      ]);
    });
    return twith(rg, [[1, T_LIST, { elemType: cols.elemType, items }]]);
  });
  const w = new ThriftWriter();
  w.struct(
    twith(raw, [
      [2, T_LIST, { elemType: T_STRUCT, items: schema }],
      [4, T_LIST, { elemType: rgs.elemType, items: rowGroups }],
    ]),
  );
  return w.bytes();
}

/** Write a Table as a Parquet file, atomically. */
export async function writeParquetFile(path: string, table: Table, options: ParquetWriteOptions = {}): Promise<void> {
  await writeParquetBatches(path, table.schema, table.batches, options);
}

export interface ParquetStreamOptions extends ParquetWriteOptions {
  /**
   * The run's memory pool: the writer reserves its pending row group there, and shrinks the
   * row group (down to `MIN_STREAM_ROW_GROUP` rows) to fit.
   */
  readonly pool?: MemoryPool;
}

/** Smallest row group the streaming writer shrinks to before it reports the memory limit. */
const MIN_STREAM_ROW_GROUP = 1024;

/**
 * Write `batches` (all of `schema`) as Parquet, atomically, one row group at a time: parquet-rs's
 * streaming writer (`transformParquetStream`) pulls a batch, encodes it into the open row group
 * and flushes the row group's bytes when it is full, and we write those bytes to the temp file as
 * they come — so the file can be far larger than memory. Returns the rows written.
 *
 * Memory: the open row group is held encoded inside wasm, plus the batch being copied in; the
 * writer reserves twice the row group's Arrow bytes (estimated from the first batch) in `pool`,
 * halving the row group until the reservation fits. An error from the source (a join failing
 * mid-way) is rethrown as itself, not as the wasm stream's wrapper, and the temp file is removed.
 */
export async function writeParquetBatches(
  path: string,
  schema: Schema,
  batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>,
  options: ParquetStreamOptions = {},
): Promise<number> {
  const source = (Symbol.asyncIterator in batches ? batches[Symbol.asyncIterator]() : toAsyncIterator(batches[Symbol.iterator]())) as AsyncIterator<RecordBatch>;
  const reservation = options.pool?.reservation('parquet writer row group');
  let rows = 0;
  let sourceError: unknown = null;
  try {
    let first = await source.next();
    while (!first.done && first.value.numRows === 0) first = await source.next();
    if (first.done) {
      await writeFileAtomic(path, encodeParquet(new Table(schema), options));
      return 0;
    }
    const preparer = parquetPreparer(schema); // throws UnsupportedTypeError before anything is written
    const rowGroupSize = fitRowGroup(options.rowGroupSize ?? 122_880, heldBatchBytes(first.value) / first.value.numRows, reservation);
    const props = writerProperties({ ...options, rowGroupSize });
    let pending: RecordBatch | null = first.value;
    const input = new ReadableStream({
      async pull(ctrl) {
        try {
          let b: RecordBatch | null = pending;
          pending = null;
          while (b === null || b.numRows === 0) {
            const r = await source.next();
            if (r.done) {
              ctrl.close();
              return;
            }
            b = r.value;
          }
          rows += b.numRows;
          const prepared = preparer.prepare(conformToSchema(b, schema));
          const wasm = WasmTable.fromIPCStream(tableToIPC(new Table(preparer.schema, [prepared]), 'stream'));
          for (const rb of wasm.recordBatches()) ctrl.enqueue(rb);
        } catch (e) {
          sourceError = e;
          ctrl.error(e);
        }
      },
    });
    await writeFileAtomic(path, async (tmp) => {
      const fh = await open(tmp, 'wx+'); // read too: the footer may be patched in place
      try {
        const reader = (await transformParquetStream(input, props)).getReader();
        let size = 0;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          await fh.write(value as Uint8Array);
          size += (value as Uint8Array).byteLength;
        }
        // parquet-rs ends the file normally when its input stream errors: the source's error wins
        if (sourceError !== null) throw sourceError;
        if (preparer.patches.size > 0) await patchFooterInFile(fh, size, preparer.patches);
        await fh.sync();
      } catch (e) {
        throw sourceError ?? new UsageError(`cannot write ${path}: Parquet encoding failed: ${(e as Error)?.message ?? String(e)}`, { cause: e });
      } finally {
        await fh.close();
      }
    });
    return rows;
  } finally {
    reservation?.free();
    await source.return?.();
  }
}

/** The largest row group of at most `rows` rows whose estimated bytes `reservation` can hold. */
function fitRowGroup(rows: number, bytesPerRow: number, reservation: Reservation | undefined): number {
  if (reservation === undefined) return rows;
  let n = rows;
  while (!reservation.tryGrow(Math.ceil(2 * n * bytesPerRow))) {
    if (n <= MIN_STREAM_ROW_GROUP) reservation.grow(Math.ceil(2 * n * bytesPerRow)); // throws MemoryLimitError
    n = Math.max(MIN_STREAM_ROW_GROUP, n >> 1);
  }
  return n;
}

async function* toAsyncIterator<T>(it: Iterator<T>): AsyncGenerator<T> {
  for (let r = it.next(); !r.done; r = it.next()) yield r.value;
}
