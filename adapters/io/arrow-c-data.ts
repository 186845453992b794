/**
 * Arrow arrays out of WebAssembly memory through the Arrow C data interface — the decoder's output
 * copied once into JS buffers, with no Arrow IPC serialise / parse in between.
 *
 * Why: parquet-wasm's `Table.intoIPCStream()` writes every decoded batch as an IPC stream (a copy
 * plus flatbuffer framing, inside wasm, then another copy out of the wasm heap) and Arrow JS's
 * `tableFromIPC` parses it again. Measured on a 6M-row int32 column (100K-row row groups), that
 * round trip took about twice the decode itself. `Table.intoFFI()` instead exports the decoded
 * batches as C structs (`ArrowSchema`, `ArrowArray`: https://arrow.apache.org/docs/format/
 * CDataInterface.html) in wasm memory; this module reads those structs and copies each buffer once
 * into one arena per batch (an `ArrayBuffer`, or a `SharedArrayBuffer` for batches bound for worker
 * threads). The `arrow-js-ffi` package (made for parquet-wasm) does the same, but ignores an
 * array's `offset` when it copies and allocates per buffer; we need shared arenas and a strict
 * "understood or refused" rule, so it is done here in ~300 lines.
 *
 * The rule: anything this module does not fully understand — a format string outside the types
 * below, a non-zero `offset` (a sliced array: its buffers would need re-basing), a union, a view
 * type — throws `CDataUnsupported`, and the caller decodes again through IPC (parquet-file.ts). So
 * the fast path can only be missing, never wrong; the round-trip tests run every type through both.
 *
 * Layout (wasm32: pointers are 4 bytes, int64 fields 8-aligned):
 *   ArrowSchema { format 0, name 4, metadata 8, flags 16 (i64), n_children 24 (i64),
 *                 children 32, dictionary 36, release 40, private_data 44 }
 *   ArrowArray  { length 0, null_count 8, offset 16, n_buffers 24, n_children 32 (all i64),
 *                 buffers 40, children 44, dictionary 48, release 52, private_data 56 }
 * Buffers per layout: validity first (may be NULL when there are no nulls), then values / offsets
 * / data as the columnar format orders them.
 */
import {
  Binary,
  Bool,
  Data,
  DataType,
  DateDay,
  DateMillisecond,
  Decimal,
  Dictionary,
  DurationMicrosecond,
  DurationMillisecond,
  DurationNanosecond,
  DurationSecond,
  Field,
  FixedSizeBinary,
  FixedSizeList,
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
  LargeUtf8,
  List,
  makeData,
  makeVector,
  Map_,
  Null,
  RecordBatch,
  Schema,
  Struct,
  TimeMicrosecond,
  TimeMillisecond,
  TimeNanosecond,
  TimeSecond,
  Timestamp,
  TimeUnit,
  Type,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
} from 'apache-arrow';
import { isFixedWidth } from '../../core/arrow/type-families.ts';
import { strideForType } from 'apache-arrow/type';

/** The C structs use something this module does not read: decode again through IPC. */
export class CDataUnsupported extends Error {
  override readonly name = 'CDataUnsupported';
}

const FLAG_DICTIONARY_ORDERED = 1;
const FLAG_NULLABLE = 2;
const FLAG_MAP_KEYS_SORTED = 4;
const ALIGN = 64;

/** A parsed `ArrowSchema`: the Arrow field it describes. */
function readField(mem: DataView, ptr: number, bytes: Uint8Array): Field {
  const format = cString(bytes, mem.getUint32(ptr, true));
  const name = cString(bytes, mem.getUint32(ptr + 4, true));
  const metadata = readMetadata(mem, bytes, mem.getUint32(ptr + 8, true));
  const flags = Number(mem.getBigInt64(ptr + 16, true));
  const nChildren = Number(mem.getBigInt64(ptr + 24, true));
  const childrenPtr = mem.getUint32(ptr + 32, true);
  const children: Field[] = [];
  for (let i = 0; i < nChildren; i++) children.push(readField(mem, mem.getUint32(childrenPtr + 4 * i, true), bytes));
  const dictionaryPtr = mem.getUint32(ptr + 36, true);
  let type = typeOf(format, children, flags);
  if (dictionaryPtr !== 0) {
    const value = readField(mem, dictionaryPtr, bytes);
    if (!DataType.isInt(type)) throw new CDataUnsupported(`dictionary indices of format '${format}'`);
    type = new Dictionary(value.type, type as never, null, (flags & FLAG_DICTIONARY_ORDERED) !== 0);
  }
  return new Field(name, type, (flags & FLAG_NULLABLE) !== 0, metadata);
}

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true }); // a leading U+FEFF is data, not a byte-order mark

function cString(bytes: Uint8Array, ptr: number): string {
  if (ptr === 0) return '';
  let end = ptr;
  while (bytes[end] !== 0) end++;
  return utf8.decode(bytes.subarray(ptr, end));
}

/** The metadata encoding of the C data interface: int32 count, then (int32 length, bytes) pairs. */
function readMetadata(mem: DataView, bytes: Uint8Array, ptr: number): Map<string, string> | null {
  if (ptr === 0) return null;
  const out = new Map<string, string>();
  let p = ptr;
  const n = mem.getInt32(p, true);
  p += 4;
  for (let i = 0; i < n; i++) {
    const kl = mem.getInt32(p, true);
    const k = utf8.decode(bytes.subarray(p + 4, p + 4 + kl));
    p += 4 + kl;
    const vl = mem.getInt32(p, true);
    const v = utf8.decode(bytes.subarray(p + 4, p + 4 + vl));
    p += 4 + vl;
    out.set(k, v);
  }
  return out;
}

const SIMPLE: Record<string, () => DataType> = {
  n: () => new Null(),
  b: () => new Bool(),
  c: () => new Int8(),
  C: () => new Uint8(),
  s: () => new Int16(),
  S: () => new Uint16(),
  i: () => new Int32(),
  I: () => new Uint32(),
  l: () => new Int64(),
  L: () => new Uint64(),
  e: () => new Float16(),
  f: () => new Float32(),
  g: () => new Float64(),
  z: () => new Binary(),
  Z: () => new LargeBinary(),
  u: () => new Utf8(),
  U: () => new LargeUtf8(),
  tdD: () => new DateDay(),
  tdm: () => new DateMillisecond(),
  tts: () => new TimeSecond(),
  ttm: () => new TimeMillisecond(),
  ttu: () => new TimeMicrosecond(),
  ttn: () => new TimeNanosecond(),
  tDs: () => new DurationSecond(),
  tDm: () => new DurationMillisecond(),
  tDu: () => new DurationMicrosecond(),
  tDn: () => new DurationNanosecond(),
  tiM: () => new IntervalYearMonth(),
  tiD: () => new IntervalDayTime(),
  tin: () => new IntervalMonthDayNano(),
};

const TS_UNITS: Record<string, TimeUnit> = { s: TimeUnit.SECOND, m: TimeUnit.MILLISECOND, u: TimeUnit.MICROSECOND, n: TimeUnit.NANOSECOND };

/** The Arrow type of a C data interface format string (children already parsed). */
function typeOf(format: string, children: Field[], flags: number): DataType {
  const simple = SIMPLE[format];
  if (simple !== undefined) return simple();
  if (format.startsWith('d:')) {
    const [p, s, w] = format.slice(2).split(',').map(Number);
    if (!Number.isInteger(p) || !Number.isInteger(s)) throw new CDataUnsupported(`decimal format '${format}'`);
    return new Decimal(s!, p!, w ?? 128);
  }
  if (format.startsWith('w:')) return new FixedSizeBinary(Number(format.slice(2)));
  if (format.length >= 4 && format.startsWith('ts') && format[3] === ':' && TS_UNITS[format[2]!] !== undefined) {
    const tz = format.slice(4);
    return new Timestamp(TS_UNITS[format[2]!]!, tz === '' ? null : tz);
  }
  if (format === '+l' && children.length === 1) return new List(children[0]!);
  if (format === '+L' && children.length === 1) return new LargeList(children[0]!);
  if (format.startsWith('+w:') && children.length === 1) return new FixedSizeList(Number(format.slice(3)), children[0]!);
  if (format === '+s') return new Struct(children);
  if (format === '+m' && children.length === 1) return new Map_(children[0]! as Field<Struct>, (flags & FLAG_MAP_KEYS_SORTED) !== 0);
  throw new CDataUnsupported(`format '${format}'`);
}

/** One buffer to copy: where it is in wasm memory and how many bytes. */
interface Piece {
  readonly ptr: number;
  readonly bytes: number;
}

/** An `ArrowArray` read but not yet copied: its buffers, children and dictionary. */
interface Plan {
  readonly type: DataType;
  readonly length: number;
  readonly nullCount: number;
  /** validity (null when absent), then the layout's other buffers. */
  readonly buffers: (Piece | null)[];
  readonly children: Plan[];
  readonly dictionary: Plan | null;
}

/**
 * Width in bytes of one value of a fixed-width type (0 for bit-packed booleans): Arrow's own stride
 * (words per value) times its array's element size, as core/arrow/size.ts's fixed-width types have.
 */
function valueBytes(type: DataType): number {
  if (type.typeId === Type.Bool) return 0;
  if (!isFixedWidth(type.typeId)) throw new CDataUnsupported(`fixed width of ${String(type)}`);
  return strideForType(type) * (type.ArrayType as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
}

function plan(mem: DataView, ptr: number, type: DataType): Plan {
  const length = Number(mem.getBigInt64(ptr, true));
  const nullCount = Number(mem.getBigInt64(ptr + 8, true));
  const offset = Number(mem.getBigInt64(ptr + 16, true));
  const nBuffers = Number(mem.getBigInt64(ptr + 24, true));
  const nChildren = Number(mem.getBigInt64(ptr + 32, true));
  const buffersPtr = mem.getUint32(ptr + 40, true);
  const childrenPtr = mem.getUint32(ptr + 44, true);
  const dictionaryPtr = mem.getUint32(ptr + 48, true);
  if (offset !== 0) throw new CDataUnsupported(`an array with offset ${offset}`);
  const buffer = (i: number): number => {
    if (i >= nBuffers) throw new CDataUnsupported(`buffer ${i} of ${nBuffers} of ${String(type)}`);
    return mem.getUint32(buffersPtr + 4 * i, true);
  };
  const child = (i: number, t: DataType): Plan => {
    if (i >= nChildren) throw new CDataUnsupported(`child ${i} of ${nChildren} of ${String(type)}`);
    return plan(mem, mem.getUint32(childrenPtr + 4 * i, true), t);
  };
  const bitmapBytes = (length + 7) >>> 3;
  const validity = (): Piece | null => {
    const p = nBuffers > 0 ? buffer(0) : 0;
    return p === 0 || nullCount === 0 ? null : { ptr: p, bytes: bitmapBytes };
  };
  if (DataType.isDictionary(type)) {
    if (dictionaryPtr === 0) throw new CDataUnsupported('a dictionary array without its dictionary');
    const indices = plan(mem, ptr, type.indices);
    return { ...indices, type, dictionary: plan(mem, dictionaryPtr, type.dictionary) };
  }
  switch (type.typeId) {
    case Type.Null:
      return { type, length, nullCount, buffers: [], children: [], dictionary: null };
    case Type.Utf8:
    case Type.Binary:
    case Type.LargeUtf8:
    case Type.LargeBinary: {
      const large = type.typeId === Type.LargeUtf8 || type.typeId === Type.LargeBinary;
      const offsets = buffer(1);
      const end = large ? Number(mem.getBigInt64(offsets + 8 * length, true)) : mem.getInt32(offsets + 4 * length, true);
      return {
        type,
        length,
        nullCount,
        buffers: [validity(), { ptr: offsets, bytes: (length + 1) * (large ? 8 : 4) }, { ptr: buffer(2), bytes: end }],
        children: [],
        dictionary: null,
      };
    }
    case Type.List:
    case Type.LargeList:
    case Type.Map: {
      const large = type.typeId === Type.LargeList;
      return {
        type,
        length,
        nullCount,
        buffers: [validity(), { ptr: buffer(1), bytes: (length + 1) * (large ? 8 : 4) }],
        children: [child(0, (type as List).children[0]!.type)],
        dictionary: null,
      };
    }
    case Type.FixedSizeList:
      return { type, length, nullCount, buffers: [validity()], children: [child(0, (type as FixedSizeList).children[0]!.type)], dictionary: null };
    case Type.Struct:
      return {
        type,
        length,
        nullCount,
        buffers: [validity()],
        children: (type as Struct).children.map((f, i) => child(i, f.type)),
        dictionary: null,
      };
    default: {
      const w = valueBytes(type);
      return { type, length, nullCount, buffers: [validity(), { ptr: buffer(1), bytes: w === 0 ? bitmapBytes : length * w }], children: [], dictionary: null };
    }
  }
}

function planBytes(p: Plan): number {
  let n = 0;
  for (const b of p.buffers) if (b !== null) n += Math.ceil(b.bytes / ALIGN) * ALIGN;
  for (const c of p.children) n += planBytes(c);
  if (p.dictionary !== null) n += planBytes(p.dictionary);
  return n;
}

/** Copies a plan's buffers into `arena` from `at` (ALIGN-aligned), returning the Arrow Data. */
class Copier {
  at = 0;
  constructor(
    readonly src: Uint8Array,
    readonly arena: ArrayBufferLike,
  ) {}

  take(piece: Piece | null): Uint8Array | undefined {
    if (piece === null) return undefined;
    const out = new Uint8Array(this.arena, this.at, piece.bytes);
    out.set(this.src.subarray(piece.ptr, piece.ptr + piece.bytes));
    this.at += Math.ceil(piece.bytes / ALIGN) * ALIGN;
    return out;
  }

  data(p: Plan): Data {
    const type = p.type;
    const nullBitmap = this.take(p.buffers[0] ?? null);
    const nullCount = nullBitmap === undefined ? 0 : p.nullCount;
    const base = { type, length: p.length, nullCount, nullBitmap } as const;
    if (DataType.isDictionary(type)) {
      const indices = this.take(p.buffers[1]!)!;
      const dictionary = makeVector(this.data(p.dictionary!));
      return makeData({ ...base, data: view(type.indices.ArrayType, indices), dictionary } as never);
    }
    switch (type.typeId) {
      case Type.Null:
        return makeData({ type, length: p.length, nullCount: p.length } as never);
      case Type.Utf8:
      case Type.Binary:
      case Type.LargeUtf8:
      case Type.LargeBinary: {
        const large = type.typeId === Type.LargeUtf8 || type.typeId === Type.LargeBinary;
        const offsets = this.take(p.buffers[1]!)!;
        const data = this.take(p.buffers[2]!) ?? new Uint8Array(0);
        return makeData({ ...base, valueOffsets: large ? view(BigInt64Array, offsets) : view(Int32Array, offsets), data } as never);
      }
      case Type.List:
      case Type.LargeList:
      case Type.Map: {
        const large = type.typeId === Type.LargeList;
        const offsets = this.take(p.buffers[1]!)!;
        return makeData({ ...base, valueOffsets: large ? view(BigInt64Array, offsets) : view(Int32Array, offsets), child: this.data(p.children[0]!) } as never);
      }
      case Type.FixedSizeList:
        return makeData({ ...base, child: this.data(p.children[0]!) } as never);
      case Type.Struct:
        return makeData({ ...base, children: p.children.map((c) => this.data(c)) } as never);
      default: {
        const values = this.take(p.buffers[1]!)!;
        return makeData({ ...base, data: view((type as Int32).ArrayType as TypedArrayCtor, values) } as never);
      }
    }
  }
}

type TypedArrayCtor = { new (buffer: ArrayBufferLike, byteOffset: number, length: number): ArrayBufferView; readonly BYTES_PER_ELEMENT: number };

function view(ctor: TypedArrayCtor, bytes: Uint8Array): ArrayBufferView {
  return new ctor(bytes.buffer, bytes.byteOffset, bytes.byteLength / ctor.BYTES_PER_ELEMENT);
}

/**
 * The record batches of an exported stream: `schemaPtr` is the `ArrowSchema` of a struct whose
 * children are the columns, `arrayPtrs` one struct `ArrowArray` per batch. Each batch's buffers
 * are copied into one arena (`shared`: a `SharedArrayBuffer`); the wasm side may be freed after.
 */
export function importBatches(memory: ArrayBufferLike, schemaPtr: number, arrayPtrs: ArrayLike<number>, shared: boolean): RecordBatch[] {
  const mem = new DataView(memory);
  const bytes = new Uint8Array(memory);
  const top = readField(mem, schemaPtr, bytes);
  if (!DataType.isStruct(top.type)) throw new CDataUnsupported(`a stream of ${String(top.type)}, not of struct batches`);
  const schema = new Schema(top.type.children, top.metadata);
  const out: RecordBatch[] = [];
  for (let b = 0; b < arrayPtrs.length; b++) {
    const p = plan(mem, arrayPtrs[b]!, top.type);
    if (p.length === 0) continue;
    const size = planBytes(p);
    const arena = shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size);
    const data = new Copier(bytes, arena).data({ ...p, buffers: [null], nullCount: 0 });
    out.push(new RecordBatch(schema, data as Data<Struct>));
  }
  return out;
}
