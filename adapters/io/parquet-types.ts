/**
 * Arrow types through Parquet, exactly: what parquet-wasm (arrow-rs 59) would lose or change on
 * its own, and what parquet.ts does about it on read and on write. The rules (each one tested by
 * the round trips in roundtrip.test.ts: every DuckDB type, every Arrow-only type, the refusals):
 *
 * Reading (per Parquet leaf column, at any depth — Arrow leaves and Parquet leaf columns come in
 * the same depth-first order, which is how arrow-rs maps one to the other):
 * - INTERVAL (FIXED_LEN_BYTE_ARRAY(12): months, days, milliseconds, each an unsigned 32-bit
 *   little-endian integer). arrow-rs reads it as Interval(DAY_TIME) and drops the months — DuckDB's
 *   `1 mon 2 days 1.5 s` came back as `2 days 1.5 s`. So the sub-file footer handed to the decoder
 *   says plain FIXED_LEN_BYTE_ARRAY(12) for these leaves (and so does its ARROW:schema), arrow-rs
 *   hands over the raw 12 bytes, and `conformData` converts them, one typed-array pass, to
 *   Interval(MONTH_DAY_NANO) — the only Arrow interval that holds all three parts (milliseconds
 *   become nanoseconds, exactly). If the file's ARROW:schema says YEAR_MONTH or DAY_TIME (arrow-rs
 *   wrote the file from such a column), that type is kept instead, and a part it cannot hold being
 *   non-zero is a corrupt file. A month or day count of 2^31 or more does not fit Arrow's signed
 *   32-bit fields: UnsupportedTypeError naming the column, not a wrapped-around negative value.
 * - UUID logical type -> FixedSizeBinary(16) with field metadata `ARROW:extension:name =
 *   arrow.uuid` (the canonical extension type; apache-arrow has no extension classes, the
 *   metadata is the type). JSON -> Utf8 with `arrow.json`. TIME with isAdjustedToUTC (DuckDB's
 *   TIMETZ, stored normalised to UTC) -> Time with metadata `adjusted_to_utc`, the key arrow-rs's
 *   writer looks for. arrow-rs (built without its canonical-extension feature) drops all three,
 *   and writing would then produce BLOB, VARCHAR and TIME.
 * - Utf8View / BinaryView columns (from the ARROW:schema) arrive as Utf8 / Binary: converted back
 *   to views (one pass building the 16-byte views over the same bytes).
 * - anything else must arrive exactly as the schema says (the schema comes from the same footer):
 *   a mismatch is reported, never passed on under the wrong type.
 *
 * Writing (`prepareForParquet`, before a byte is written):
 * - allowed: Null, Bool, Int*, UInt*, Float16/32/64, Decimal (32..256 bits), Utf8, LargeUtf8,
 *   Utf8View, Binary, LargeBinary, BinaryView, FixedSizeBinary, Date32/64, Time32/64, Timestamp
 *   (any unit, any zone), Duration, Interval (all three units), Dictionary of an allowed type,
 *   List, LargeList, FixedSizeList, Struct, Map of allowed types. Anything else (unions, run-end
 *   encoded, list views) is an UnsupportedTypeError naming the column: arrow-rs cannot write it.
 * - Interval(MONTH_DAY_NANO): arrow-rs refuses it ("not yet implemented"), so it is written as the
 *   12 raw INTERVAL bytes (FixedSizeBinary(12)) and the footer is patched to say INTERVAL. Parquet's
 *   INTERVAL holds unsigned months, days and milliseconds: a negative part, or nanoseconds that are
 *   not whole milliseconds, cannot be written exactly -> UnsupportedTypeError naming the column and
 *   the value (DuckDB refuses negative intervals for Parquet too). YEAR_MONTH and DAY_TIME are
 *   written by arrow-rs itself (and read back as such through the ARROW:schema); negative parts
 *   are refused for the same reason.
 * - Decimal values must fit the bytes Parquet stores for their precision (INT32 up to 9 digits,
 *   INT64 up to 18, else arrow-rs's fixed length): arrow-rs would silently drop the high bytes.
 * - `arrow.uuid` (FixedSizeBinary(16)) and `arrow.json` (a string type) leaves get the UUID / JSON
 *   logical type patched into the footer, so DuckDB reads UUID and JSON again.
 * Types Parquet has no annotation for (Timestamp(s), Time32(s), Duration, Date64) rely on the
 * ARROW:schema arrow-rs embeds: joinlab (and arrow-rs readers) get the exact type back, DuckDB
 * sees the physical type (BIGINT, INTEGER). Float16 is annotated, and DuckDB reads it as FLOAT.
 */
import {
  Data,
  DataType,
  Field,
  FixedSizeBinary,
  FixedSizeList,
  IntervalMonthDayNano,
  IntervalUnit,
  LargeList,
  List,
  makeData,
  Map_,
  RecordBatch,
  Schema,
  Struct,
  Table,
  Type,
  type Dictionary,
} from 'apache-arrow';
import { isFlat } from '../../core/arrow/type-families.ts';
import { UnsupportedTypeError } from '../../core/errors.ts';

export const EXTENSION_NAME = 'ARROW:extension:name';
export const UUID_EXTENSION = 'arrow.uuid';
export const JSON_EXTENSION = 'arrow.json';
/** The field metadata key arrow-rs reads to write TIME with isAdjustedToUTC = true. */
export const ADJUSTED_TO_UTC = 'adjusted_to_utc';

const INTERVAL_BYTES = 12;
const NANOS_PER_MILLI = 1_000_000;
const TWO_32 = 4294967296;

// ---------------------------------------------------------------------------------------------
// Leaves
// ---------------------------------------------------------------------------------------------

/** Types whose values live in child columns (a Dictionary is a leaf: one Parquet column). */
export function isNested(t: DataType): boolean {
  const id = t.typeId;
  return id === Type.Struct || id === Type.List || id === Type.LargeList || id === Type.FixedSizeList || id === Type.Map;
}

/** Number of leaves (Parquet leaf columns) under a type. */
export function leafCount(t: DataType): number {
  if (!isNested(t)) return 1;
  let n = 0;
  for (const c of t.children) n += leafCount(c.type);
  return n;
}

/** The same nested type over new child fields (names normalised by apache-arrow for maps). */
function withChildren(t: DataType, children: Field[]): DataType {
  switch (t.typeId) {
    case Type.Struct:
      return new Struct(children);
    case Type.List:
      return new List(children[0]!);
    case Type.LargeList:
      return new LargeList(children[0]!);
    case Type.FixedSizeList:
      return new FixedSizeList((t as FixedSizeList).listSize, children[0]!);
    case Type.Map:
      return new Map_(children[0]! as Field<Struct>, (t as Map_).keysSorted);
    default:
      throw new Error(`not a nested type: ${String(t)}`);
  }
}

/**
 * `field` with each leaf field replaced by `fn(leaf, leafIndex)`; leaves are numbered from
 * `first` in depth-first order. Unchanged subtrees keep their Field objects.
 */
export function mapLeaves(field: Field, fn: (leaf: Field, index: number) => Field, first = 0): Field {
  if (!isNested(field.type)) return fn(field, first);
  let at = first;
  let changed = false;
  const kids = field.type.children.map((c: Field) => {
    const n = mapLeaves(c, fn, at);
    at += leafCount(c.type);
    if (n !== c) changed = true;
    return n;
  });
  return changed ? new Field(field.name, withChildren(field.type, kids), field.nullable, field.metadata) : field;
}

/** Calls `fn(leaf, index, path)` for every leaf field, depth first, numbered from `first`. */
export function forEachLeaf(field: Field, fn: (leaf: Field, index: number, path: string) => void, first = 0, path = field.name): void {
  if (!isNested(field.type)) return fn(field, first, path);
  let at = first;
  for (const c of field.type.children as Field[]) {
    forEachLeaf(c, fn, at, `${path}.${c.name}`);
    at += leafCount(c.type);
  }
}

function withMetadata(f: Field, key: string, value: string): Field {
  if (f.metadata.get(key) === value) return f;
  const m = new Map(f.metadata);
  m.set(key, value);
  return new Field(f.name, f.type, f.nullable, m);
}

/** One string naming every parameter of a type (apache-arrow's toString leaves some out). */
export function typeSignature(t: DataType): string {
  const x = t as DataType & Record<string, unknown>;
  const kids = (t.children ?? []).map((c: Field) => `${c.name}${c.nullable ? '?' : ''}:${typeSignature(c.type)}`).join(',');
  switch (t.typeId) {
    case Type.Int:
      return `int${x.bitWidth}${x.isSigned ? 's' : 'u'}`;
    case Type.Float:
      return `float${x.precision}`;
    case Type.Decimal:
      return `decimal${x.bitWidth}(${x.precision},${x.scale})`;
    case Type.Date:
    case Type.Interval:
    case Type.Duration:
      return `${Type[t.typeId]}${x.unit}`;
    case Type.Time:
      return `time${x.bitWidth}/${x.unit}`;
    case Type.Timestamp:
      return `ts${x.unit}/${x.timezone ?? ''}`;
    case Type.FixedSizeBinary:
      return `fsb${x.byteWidth}`;
    case Type.FixedSizeList:
      return `fsl${x.listSize}<${kids}>`;
    case Type.Map:
      return `map${x.keysSorted ? 's' : ''}<${kids}>`;
    case Type.Dictionary:
      return `dict<${typeSignature(x.indices as DataType)},${typeSignature(x.dictionary as DataType)}${x.isOrdered ? ',ordered' : ''}>`;
    case Type.Union:
      return `union${x.mode}[${(x.typeIds as number[]).join(',')}]<${kids}>`;
    default:
      return kids ? `${Type[t.typeId]}<${kids}>` : `${Type[t.typeId]}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/** What a Parquet leaf needs beyond what arrow-rs does with it. */
export type ReadFix = 'interval' | 'uuid' | 'json' | 'time-utc';

/** The part of a Parquet schema element (hyparquet's model) these rules look at. */
export interface LeafElement {
  readonly type?: string;
  readonly type_length?: number;
  readonly converted_type?: string;
  readonly logical_type?: { readonly type: string; readonly isAdjustedToUTC?: boolean };
}

export function readFixOf(el: LeafElement): ReadFix | null {
  if (el.converted_type === 'INTERVAL' && el.type === 'FIXED_LEN_BYTE_ARRAY' && el.type_length === INTERVAL_BYTES) return 'interval';
  const lt = el.logical_type?.type;
  if (lt === 'UUID' && el.type === 'FIXED_LEN_BYTE_ARRAY' && el.type_length === 16) return 'uuid';
  if (lt === 'JSON' && el.type === 'BYTE_ARRAY') return 'json';
  if (lt === 'TIME' && el.logical_type!.isAdjustedToUTC === true) return 'time-utc';
  return null;
}

/**
 * The ARROW:schema field to hand the decoder for a top-level field whose leaves start at `first`:
 * INTERVAL leaves become FixedSizeBinary(12) (the raw bytes). `hinted` receives the interval
 * type the schema named for each such leaf (kept on read when it is YEAR_MONTH or DAY_TIME).
 */
export function decodeHint(field: Field, fixes: ReadonlyMap<number, ReadFix>, first: number, hinted: Map<number, DataType>): Field {
  return mapLeaves(
    field,
    (leaf, i) => {
      if (fixes.get(i) !== 'interval') return leaf;
      hinted.set(i, leaf.type);
      return new Field(leaf.name, new FixedSizeBinary(INTERVAL_BYTES), leaf.nullable, leaf.metadata);
    },
    first,
  );
}

/**
 * The field joinlab exposes for a top-level field the decoder describes as `decoded` (INTERVAL
 * leaves as FixedSizeBinary(12)): the interval type, the extension / UTC metadata.
 */
export function exposedField(decoded: Field, fixes: ReadonlyMap<number, ReadFix>, first: number, hinted: ReadonlyMap<number, DataType>): Field {
  return mapLeaves(
    decoded,
    (leaf, i) => {
      switch (fixes.get(i)) {
        case 'interval': {
          const h = hinted.get(i);
          const keep = h !== undefined && h.typeId === Type.Interval && (h as DataType & { unit: number }).unit !== IntervalUnit.MONTH_DAY_NANO;
          const type = keep ? h : new IntervalMonthDayNano();
          return new Field(leaf.name, type, leaf.nullable, leaf.metadata);
        }
        case 'uuid':
          return withMetadata(leaf, EXTENSION_NAME, UUID_EXTENSION);
        case 'json':
          return withMetadata(leaf, EXTENSION_NAME, JSON_EXTENSION);
        case 'time-utc':
          return leaf.metadata.has(ADJUSTED_TO_UTC) ? leaf : withMetadata(leaf, ADJUSTED_TO_UTC, '');
        default:
          return leaf;
      }
    },
    first,
  );
}


/** Whatever went wrong matching decoded data to its schema; parquet.ts names the file. */
export class ConformError extends Error {}

/** Little-endian u32s of the 12-byte INTERVAL values of a FixedSizeBinary(12) Data. */
function intervalWords(d: Data): Uint32Array {
  const b = d.values as Uint8Array;
  const bytes = b.byteOffset % 4 === 0 ? b : b.slice();
  return new Uint32Array(bytes.buffer, bytes.byteOffset, d.length * 3);
}

/** Validity test of row i, or null when every row is valid. */
function validityOf(d: Data): ((i: number) => boolean) | null {
  const bm = d.nullCount > 0 ? d.nullBitmap : null;
  if (!bm || bm.length === 0) return null;
  const off = d.offset;
  return (i) => ((bm[(off + i) >> 3]! >> ((off + i) & 7)) & 1) === 1;
}

function intervalFromBytes(d: Data, target: DataType, column: string): Data {
  const n = d.length;
  const w = intervalWords(d);
  const unit = (target as DataType & { unit: number }).unit;
  const valid = validityOf(d);
  const base = { type: target, offset: d.offset, length: n, nullCount: d.nullCount, nullBitmap: d.nullBitmap };
  if (unit === IntervalUnit.MONTH_DAY_NANO) {
    const out = new Int32Array(4 * n);
    for (let i = 0; i < n; i++) {
      const months = w[3 * i]!;
      const days = w[3 * i + 1]!;
      const ms = w[3 * i + 2]!;
      if ((months > 0x7fffffff || days > 0x7fffffff) && (valid === null || valid(i))) {
        throw new UnsupportedTypeError(column, 'INTERVAL', `for the value ${months} months ${days} days (Arrow month-day-nano intervals hold at most 2^31-1 of each)`);
      }
      const nanos = ms * NANOS_PER_MILLI; // < 2^53: exact
      out[4 * i] = months;
      out[4 * i + 1] = days;
      out[4 * i + 2] = nanos % TWO_32 | 0;
      out[4 * i + 3] = Math.floor(nanos / TWO_32);
    }
    return makeData({ ...base, data: out } as never);
  }
  const dayTime = unit === IntervalUnit.DAY_TIME;
  const out = new Int32Array(dayTime ? 2 * n : n);
  for (let i = 0; i < n; i++) {
    const lost = dayTime ? w[3 * i]! : w[3 * i + 1]! | w[3 * i + 2]!;
    if (lost !== 0 && (valid === null || valid(i))) {
      throw new ConformError(`column '${column}' is ${String(target)} in the file's Arrow schema, but row ${i} has ${dayTime ? `${w[3 * i]} months` : 'days or milliseconds'}`);
    }
    if (dayTime) {
      out[2 * i] = w[3 * i + 1]!;
      out[2 * i + 1] = w[3 * i + 2]!;
    } else out[i] = w[3 * i]!;
  }
  return makeData({ ...base, data: out } as never);
}

const VIEW_INLINE = 12;

/** Utf8 / Binary (32- or 64-bit offsets) -> Utf8View / BinaryView over the same bytes. */
function viewsFromOffsets(d: Data, target: DataType): Data {
  const n = d.length;
  const o = d.valueOffsets as unknown as ArrayLike<number | bigint>;
  const bytes = d.values as Uint8Array;
  const views = new Uint8Array(16 * n);
  const words = new Int32Array(views.buffer);
  for (let i = 0; i < n; i++) {
    const start = Number(o[i]!);
    const size = Number(o[i + 1]!) - start;
    words[4 * i] = size;
    if (size <= VIEW_INLINE) views.set(bytes.subarray(start, start + size), 16 * i + 4);
    else {
      views.set(bytes.subarray(start, start + 4), 16 * i + 4);
      words[4 * i + 2] = 0; // buffer 0
      words[4 * i + 3] = start;
    }
  }
  return makeData({ type: target, offset: d.offset, length: n, nullCount: d.nullCount, nullBitmap: d.nullBitmap, views, variadicBuffers: [bytes] } as never);
}

/**
 * `d` as the type `target` says (see the module doc): raw INTERVAL bytes converted, views rebuilt,
 * everything else re-typed to `target` (the same type, up to dictionary ids) or a ConformError.
 */
export function conformData(d: Data, target: DataType, column: string): Data {
  const src = d.type;
  if (target.typeId === Type.Interval && src.typeId === Type.FixedSizeBinary && (src as FixedSizeBinary).byteWidth === INTERVAL_BYTES) {
    return intervalFromBytes(d, target, column);
  }
  if ((target.typeId === Type.Utf8View && (src.typeId === Type.Utf8 || src.typeId === Type.LargeUtf8)) || (target.typeId === Type.BinaryView && (src.typeId === Type.Binary || src.typeId === Type.LargeBinary))) {
    return viewsFromOffsets(d, target);
  }
  if (isNested(target) && src.typeId === target.typeId && d.children.length === target.children.length) {
    const kids = d.children.map((c, i) => conformData(c, target.children[i]!.type, `${column}.${target.children[i]!.name}`));
    return d.clone(target, d.offset, d.length, d.nullCount, d as never, kids);
  }
  if (target.typeId === Type.Dictionary && src.typeId === Type.Dictionary) {
    const t = target as Dictionary;
    const s = src as Dictionary;
    if (typeSignature(t.indices) === typeSignature(s.indices) && typeSignature(t.dictionary) === typeSignature(s.dictionary)) return d.clone(target);
  } else if (typeSignature(target) === typeSignature(src)) return d.clone(target);
  throw new ConformError(`column '${column}' decoded as ${String(src)}, but the file's schema says ${String(target)}`);
}

/** `batch` with its columns conformed to `fields` (by position: the decoded columns, in order). */
export function conformBatch(batch: RecordBatch, fields: readonly Field[]): RecordBatch {
  if (fields.length !== batch.schema.fields.length) {
    throw new ConformError(`decoded ${batch.schema.fields.length} columns, expected ${fields.length}`);
  }
  const kids = fields.map((f, c) => conformData(batch.data.children[c]!, f.type, f.name));
  const schema = new Schema([...fields], batch.schema.metadata);
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: batch.numRows, nullCount: 0, children: kids }));
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/** A footer change a written file needs, for one Parquet leaf column. */
export type LeafPatch = 'interval' | 'uuid' | 'json';

export interface PreparedTable {
  /** The table to hand arrow-rs (month-day-nano intervals as their 12 INTERVAL bytes). */
  readonly table: Table;
  /** Per leaf column index, the footer patch it needs. */
  readonly patches: ReadonlyMap<number, LeafPatch>;
}

/** Why arrow-rs cannot write a leaf type to Parquet, or null when it can. */
function unwritable(t: DataType): string | null {
  if (isFlat(t.typeId)) return null;
  switch (t.typeId) {
    case Type.Dictionary:
      return unwritable((t as Dictionary).dictionary);
    case Type.Union:
      return 'Parquet has no union type';
    default:
      return 'the Parquet writer (arrow-rs) does not support it';
  }
}

function isStringType(t: DataType): boolean {
  return t.typeId === Type.Utf8 || t.typeId === Type.LargeUtf8 || t.typeId === Type.Utf8View;
}

interface LeafPlan {
  readonly patch?: LeafPatch;
  /** Values to convert (month-day-nano intervals) or to check (other intervals, decimals). */
  readonly pass?: 'interval' | 'decimal';
}

/** What a leaf field needs: a footer patch, a pass over its values, or a refusal. */
function leafPlan(leaf: Field, path: string): LeafPlan {
  const t = leaf.type;
  const why = unwritable(t);
  if (why !== null) throw new UnsupportedTypeError(path, String(t), `in Parquet output (${why})`);
  const ext = leaf.metadata.get(EXTENSION_NAME);
  if (ext === UUID_EXTENSION && t.typeId === Type.FixedSizeBinary && (t as FixedSizeBinary).byteWidth === 16) return { patch: 'uuid' };
  if (ext === JSON_EXTENSION && isStringType(t)) return { patch: 'json' };
  if (t.typeId === Type.Interval) {
    const mdn = (t as DataType & { unit: number }).unit === IntervalUnit.MONTH_DAY_NANO;
    return mdn ? { patch: 'interval', pass: 'interval' } : { pass: 'interval' }; // YEAR_MONTH / DAY_TIME: checked, written by arrow-rs
  }
  if (t.typeId === Type.Decimal) return { pass: 'decimal' };
  return {};
}

/**
 * Bytes Parquet (arrow-rs) stores a decimal of precision `p` in: INT32 up to 9 digits, INT64 up
 * to 18, else the fixed-length array arrow-rs sizes for the precision.
 */
function parquetDecimalBytes(p: number): number {
  return p <= 9 ? 4 : p <= 18 ? 8 : Math.ceil((p * Math.log2(10) + 1) / 8);
}

/**
 * Decimal values must fit the bytes Parquet keeps for their precision, or arrow-rs drops the high
 * bytes: every byte above must be the sign extension. (A value of more digits than the precision
 * that still fits is written and read back bit for bit.)
 */
function checkDecimalFits(d: Data, column: string): void {
  const t = d.type as DataType & { bitWidth: number; precision: number; scale: number };
  const width = t.bitWidth / 8;
  const keep = parquetDecimalBytes(t.precision);
  if (keep >= width) return;
  const v = d.values as Uint32Array;
  const bytes = new Uint8Array(v.buffer, v.byteOffset, d.length * width);
  const valid = validityOf(d);
  for (let i = 0; i < d.length; i++) {
    const at = i * width;
    const sign = bytes[at + keep - 1]! & 0x80 ? 0xff : 0;
    for (let j = keep; j < width; j++) {
      if (bytes[at + j] !== sign && (valid === null || valid(i))) {
        throw new UnsupportedTypeError(column, String(t), `in Parquet output: row ${i} does not fit the ${keep} bytes Parquet stores a DECIMAL(${t.precision},${t.scale}) in`);
      }
    }
  }
}

/** Interval values as Parquet INTERVAL bytes (MONTH_DAY_NANO) or checked in place (the others). */
function intervalForParquet(d: Data, column: string): Data {
  const unit = (d.type as DataType & { unit: number }).unit;
  const v = d.values as Int32Array;
  const n = d.length;
  const valid = validityOf(d);
  const refuse = (i: number, what: string): never => {
    throw new UnsupportedTypeError(column, String(d.type), `in Parquet output: row ${i} holds ${what}, and Parquet INTERVAL stores unsigned months, days and whole milliseconds`);
  };
  if (unit !== IntervalUnit.MONTH_DAY_NANO) {
    const width = unit === IntervalUnit.DAY_TIME ? 2 : 1;
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < width; k++) if (v[width * i + k]! < 0 && (valid === null || valid(i))) refuse(i, `a negative ${unit === IntervalUnit.DAY_TIME ? ['day count', 'millisecond count'][k] : 'month count'}`);
    }
    return d;
  }
  const out = new Uint32Array(3 * n);
  for (let i = 0; i < n; i++) {
    if (valid !== null && !valid(i)) continue;
    const months = v[4 * i]!;
    const days = v[4 * i + 1]!;
    const nanos = v[4 * i + 3]! * TWO_32 + (v[4 * i + 2]! >>> 0); // exact while |nanos| < 2^53
    if (months < 0 || days < 0 || nanos < 0) refuse(i, 'a negative part');
    const ms = nanos / NANOS_PER_MILLI;
    if (!Number.isInteger(ms) || !Number.isSafeInteger(nanos)) refuse(i, `${nanos} nanoseconds, not a whole number of milliseconds`);
    if (ms > 0xffffffff) refuse(i, `${ms} milliseconds, more than 2^32-1`);
    out[3 * i] = months;
    out[3 * i + 1] = days;
    out[3 * i + 2] = ms;
  }
  return makeData({
    type: new FixedSizeBinary(INTERVAL_BYTES),
    offset: d.offset,
    length: n,
    nullCount: d.nullCount,
    nullBitmap: d.nullBitmap,
    data: new Uint8Array(out.buffer),
  });
}

/** `d` (of field `src`) as field `dst` says: interval leaves converted, decimal leaves checked. */
function convertData(d: Data, src: Field, dst: Field, path: string, plans: ReadonlyMap<Field, LeafPlan>): Data {
  if (isNested(src.type)) {
    let changed = false;
    const kids = d.children.map((c, i) => {
      const s = src.type.children[i]! as Field;
      const n = convertData(c, s, dst.type.children[i]! as Field, `${path}.${s.name}`, plans);
      if (n !== c) changed = true;
      return n;
    });
    return changed ? d.clone(dst.type, d.offset, d.length, d.nullCount, d as never, kids) : d;
  }
  const pass = plans.get(src)?.pass;
  if (pass === 'interval') return intervalForParquet(d, path);
  if (pass === 'decimal') checkDecimalFits(d, path);
  return d;
}

/** What writing batches of one schema to Parquet needs: the schema arrow-rs writes, each batch as
 * it must be handed over, and the footer patches the written file then needs. */
export interface ParquetPreparer {
  readonly schema: Schema;
  readonly patches: ReadonlyMap<number, LeafPatch>;
  /** `batch` (of the source schema) as arrow-rs must write it; checks decimal leaves. */
  prepare(batch: RecordBatch): RecordBatch;
}

/**
 * Checks every column of `source` can be written to Parquet exactly (throws UnsupportedTypeError
 * naming the column otherwise) and returns how to prepare its batches. The streaming writer
 * prepares batch by batch; `prepareForParquet` a whole table.
 */
export function parquetPreparer(source: Schema): ParquetPreparer {
  const patches = new Map<number, LeafPatch>();
  const plans = new Map<Field, LeafPlan>();
  let first = 0;
  let pass = false;
  for (const f of source.fields) {
    forEachLeaf(
      f,
      (leaf, i, path) => {
        const p = leafPlan(leaf, path);
        plans.set(leaf, p);
        if (p.patch) patches.set(i, p.patch);
        if (p.pass) pass = true;
      },
      first,
    );
    first += leafCount(f.type);
  }
  if (!pass) return { schema: source, patches, prepare: (b) => b };
  const rebuilt = [...plans.values()].some((p) => p.patch === 'interval');
  const fieldsOut = source.fields.map((f) =>
    mapLeaves(f, (leaf) => (plans.get(leaf)?.patch === 'interval' ? new Field(leaf.name, new FixedSizeBinary(INTERVAL_BYTES), leaf.nullable, leaf.metadata) : leaf)),
  );
  const schema = rebuilt ? new Schema(fieldsOut, source.metadata) : source;
  return {
    schema,
    patches,
    prepare(b: RecordBatch): RecordBatch {
      const kids = source.fields.map((f, c) => convertData(b.data.children[c]!, f, fieldsOut[c]!, f.name, plans));
      return rebuilt ? new RecordBatch(schema, makeData({ type: new Struct(fieldsOut), length: b.numRows, nullCount: 0, children: kids })) : b;
    },
  };
}

/** `parquetPreparer` over a whole table: the table arrow-rs should write and the footer patches. */
export function prepareForParquet(table: Table): PreparedTable {
  const p = parquetPreparer(table.schema);
  const batches = table.batches.map((b) => p.prepare(b));
  return { table: p.schema === table.schema ? table : new Table(p.schema, batches), patches: p.patches };
}

