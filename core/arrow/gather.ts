/**
 * Gathering rows by index: every join materialises its output as "row i of the left input, row j
 * of the right input" pairs held in `Int32Array`s, then builds each output column with one
 * columnar gather per column.
 *
 * A `RowSource` is a list of record batches (one schema) seen as one row sequence with global
 * indices (batch start offsets precomputed). Gathering first *locates* the requested rows once —
 * (batch, local row) pairs, `-1` for a NULL-padded output row — with a cursor that stays in the
 * current batch for runs of nearby indices and binary-searches otherwise; the single-batch case
 * skips this entirely and uses the indices as they are. The per-type kernels then loop over typed
 * arrays only: fixed-width values are copied as 32/16/8-bit words (64/128-bit values never become
 * BigInts), booleans bit by bit, strings as offsets + bytes, views as 16-byte views (buffer ids
 * rebased when batches are merged). Dictionary columns gather their codes and keep the dictionary:
 * the output shares it when every batch has the same one (or a prefix of the largest, as IPC
 * dictionary deltas produce); otherwise the dictionaries are concatenated and the codes rebased.
 * Fixed-width covers intervals (month-day-nano: 4 words a row), times, durations and
 * fixed-size binary (UUIDs) too. Nested columns recurse: a struct gathers each field with the same
 * located rows; a list (List, LargeList, Map) builds its offsets from the located rows' lengths
 * and locates the child rows they cover — one (batch, row) pair per child value, two typed arrays
 * — then gathers the child like any column; a fixed-size list locates `size` child rows per row.
 * Unions are not gathered: `ungatherableReason` lets the planner refuse them up front.
 *
 * Arrow JS conventions relied on: `values` / `valueOffsets` of a sliced Data already start at its
 * row 0, struct and fixed-size-list children are sliced with their parent (list children are not:
 * the offsets address them), while validity bitmaps and boolean values are addressed at bit `offset + row`.
 */
import { recordBatchOf } from './record-batch.ts';
import { Bool, Data, DataType, RecordBatch, Struct, Type, Vector, makeBuilder, makeData } from 'apache-arrow';
import { isFixedWidth, isFlat, isOffsetBytes } from './type-families.ts';
import type { Dictionary, Field, FixedSizeList, Int, Schema } from 'apache-arrow';
import { Bitset } from '../bitset.ts';
import { UnsupportedTypeError } from '../errors.ts';
import type { AllocationGuard } from './allocation-guard.ts';
import type { RowLayout } from './row-layout.ts';
import { COPY_PADDING, copyBytesPadded, viewOf, VIEW_INLINE } from './views.ts';

type Located = {
  /** Batch of each output row; `null` when the source has at most one batch. */
  readonly batch: Int32Array | null;
  /** Row within its batch, or -1 for NULL. */
  readonly local: Int32Array;
};

export class RowSource {
  readonly batches: readonly RecordBatch[];
  readonly schema: Schema;
  readonly numRows: number;
  /** starts[b] = global index of batch b's first row; starts[batches.length] = numRows. */
  readonly starts: Int32Array;
  readonly #columns: (Data[] | undefined)[] = [];
  /**
   * The one batch's payload laid out row-wise (row-layout.ts), for the columns it covers: gathers
   * of those read it instead of the columns (a hash join's build side sets it).
   */
  layout: RowLayout | null = null;

  constructor(batches: readonly RecordBatch[], schema?: Schema) {
    const s = schema ?? batches[0]?.schema;
    if (s === undefined) throw new RangeError('RowSource over no batches needs a schema');
    this.batches = batches;
    this.schema = s;
    this.starts = new Int32Array(batches.length + 1);
    let total = 0;
    for (let b = 0; b < batches.length; b++) {
      this.starts[b] = total;
      total += batches[b]!.numRows;
    }
    if (total > 0x7fffffff) throw new RangeError(`RowSource holds ${total} rows; global indices are 32-bit`);
    this.starts[batches.length] = total;
    this.numRows = total;
  }

  /** The batch holding global row `row` (empty batches are never returned). */
  batchOf(row: number): number {
    if (row < 0 || row >= this.numRows) throw new RangeError(`row ${row} outside RowSource of ${this.numRows} rows`);
    const starts = this.starts;
    let lo = 0;
    let hi = this.batches.length; // first index with starts[idx] > row lies in (lo, hi]
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= row) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Column `c` of every batch (an empty placeholder when there are no batches). */
  columnData(c: number): Data[] {
    let parts = this.#columns[c];
    if (parts === undefined) {
      if (c < 0 || c >= this.schema.fields.length) throw new RangeError(`column ${c} outside schema of ${this.schema.fields.length}`);
      parts = this.batches.length > 0 ? this.batches.map((b) => b.data.children[c]!) : [emptyData(this.schema.fields[c]!.type)];
      this.#columns[c] = parts;
    }
    return parts;
  }

  /** (batch, local row) of indices[start, start + count). */
  locate(indices: Int32Array, start: number, count: number): Located {
    if (start < 0 || count < 0 || start + count > indices.length) {
      throw new RangeError(`index range ${start}+${count} outside ${indices.length} indices`);
    }
    if (this.batches.length <= 1) {
      const local = indices.subarray(start, start + count);
      for (let k = 0; k < count; k++) {
        if (local[k]! >= this.numRows) throw new RangeError(`row ${local[k]} outside RowSource of ${this.numRows} rows`);
      }
      return { batch: null, local };
    }
    return this.#locateMulti(indices, start, count);
  }

  #locateMulti(indices: Int32Array, start: number, count: number): Located {
    const batch = new Int32Array(count);
    const local = new Int32Array(count);
    const starts = this.starts;
    let b = 0;
    let lo = starts[0]!;
    let hi = starts[1]!;
    for (let k = 0; k < count; k++) {
      const g = indices[start + k]!;
      if (g < 0) {
        local[k] = -1;
        continue;
      }
      if (g < lo || g >= hi) {
        b = this.batchOf(g);
        lo = starts[b]!;
        hi = starts[b + 1]!;
      }
      batch[k] = b;
      local[k] = g - lo;
    }
    return { batch, local };
  }
}

export type { AllocationGuard } from './allocation-guard.ts';

/**
 * The guard of the gather in progress: set by `gatherLocated` for the duration of one column's
 * (synchronous) gather, so the kernels of nested children see it without threading it through
 * every recursive call.
 */
let activeGuard: AllocationGuard | undefined;

/** Rows indices[start, start + count) of one column; index -1 gives NULL. */
export function gatherColumn(src: RowSource, column: number, indices: Int32Array, start: number, count: number): Data {
  return gatherLocated(src, column, src.locate(indices, start, count), count);
}

/**
 * Several columns (default: all) of the same rows, locating the rows once. `slices`: rows that
 * are one run of consecutive rows of one batch come back as zero-copy slices of it (see
 * `contiguousRun`) — for a consumer that may keep the input's buffers alive (a join's output);
 * not for one that gathers to copy (a sort's runs, which then free their input).
 */
export function gatherColumns(
  src: RowSource,
  indices: Int32Array,
  start: number,
  count: number,
  columns: readonly number[] = src.schema.fields.map((_, c) => c),
  guard?: AllocationGuard,
  slices = false,
): Data[] {
  const loc = src.locate(indices, start, count);
  const run = slices ? contiguousRun(loc, count) : null;
  const layout = src.layout;
  if (layout !== null && run === null && loc.batch === null) {
    const laid = columns.filter((c) => layout.covers(c));
    if (laid.length > 0) {
      const rows = layout.gather(laid, loc.local, count, guard);
      return columns.map((c) => (layout.covers(c) ? rows[laid.indexOf(c)]! : gatherLocated(src, c, loc, count, guard, null)));
    }
  }
  return columns.map((c) => gatherLocated(src, c, loc, count, guard, run));
}

/**
 * Several columns (default: all) of rows given as (batch, row) pairs — `batch[k]` indexes
 * `src.batches`, `local[k]` is the row within it (-1 for NULL) — for a caller that already knows
 * each row's batch (a k-way merge interleaving rows of several batches), so no row is located by
 * binary search.
 */
export function gatherColumnsAt(
  src: RowSource,
  batch: Int32Array,
  local: Int32Array,
  count: number,
  columns: readonly number[] = src.schema.fields.map((_, c) => c),
  guard?: AllocationGuard,
): Data[] {
  if (count < 0 || count > batch.length || count > local.length) throw new RangeError(`${count} rows from ${batch.length} batch and ${local.length} row indices`);
  const nb = src.batches.length;
  for (let k = 0; k < count; k++) {
    const b = batch[k]!;
    const r = local[k]!;
    if (b < 0 || b >= nb || r >= src.batches[b]!.numRows) throw new RangeError(`row (${b}, ${r}) outside RowSource of ${nb} batches`);
  }
  const loc: Located = { batch: nb <= 1 ? null : batch.subarray(0, count), local: local.subarray(0, count) };
  return columns.map((c) => gatherLocated(src, c, loc, count, guard, null));
}

/** A record batch over `columns` (each of `length` rows). */
export function makeRecordBatch(schema: Schema, columns: readonly Data[], length: number): RecordBatch {
  for (let c = 0; c < columns.length; c++) {
    if (columns[c]!.length !== length) throw new RangeError(`column ${c} has ${columns[c]!.length} rows, batch has ${length}`);
  }
  // A join output may carry two dictionary columns that came from one input id (both sides read
  // from files numbering dictionaries from 0): the output schema gives each its own id, and the
  // gathered data is re-typed to match so IPC/Parquet writers see distinct dictionaries.
  const children = columns.map((d, c) => {
    const t = schema.fields[c]!.type;
    return DataType.isDictionary(t) && DataType.isDictionary(d.type) && t.id !== d.type.id ? d.clone(t) : d;
  });
  const data = makeData({ type: new Struct(schema.fields), length, nullCount: 0, children });
  return recordBatchOf(schema, data); // not `new RecordBatch`: it merges columns of the same name
}

/** Non-null boolean column of rows [start, start + count) of a bitset or a byte-per-row array. */
export function boolData(bits: Bitset | Uint8Array, start: number, count: number): Data<Bool> {
  let packed: Bitset;
  if (bits instanceof Bitset) {
    packed = new Bitset(count);
    packed.orRange(bits, start, 0, count);
  } else {
    packed = Bitset.fromBytes(bits.subarray(start, start + count));
  }
  return makeData({ type: new Bool(), data: packed.bytes(), length: count, nullCount: 0 });
}

/**
 * All rows of `batches` as one batch (dictionaries shared or merged as in `gatherColumn`).
 * `shared`: the block-copied columns are allocated in shared memory, so a caller that puts the
 * result there (a hash join's build probed by worker threads) does not copy it a second time;
 * columns the general gather produced are not (the caller's `shareBatch` copies only those).
 */
export function concatBatches(batches: readonly RecordBatch[], schema: Schema, options: { readonly shared?: boolean } = {}): RecordBatch {
  if (batches.length === 1) return batches[0]!;
  const src = new RowSource(batches, schema);
  const shared = options.shared === true;
  let all: Int32Array | null = null;
  const columns = schema.fields.map((_, c) => {
    const parts = batches.map((b) => b.data.children[c]!);
    const fast = concatFixedNoNulls(parts, src.numRows, shared) ?? concatUtf8NoNulls(parts, src.numRows, shared);
    if (fast) return fast;
    if (all === null) {
      all = new Int32Array(src.numRows);
      for (let i = 0; i < all.length; i++) all[i] = i;
    }
    return gatherColumn(src, c, all, 0, all.length);
  });
  return makeRecordBatch(schema, columns, src.numRows);
}

/** `n` bytes, in shared memory when asked. */
function bytesFor(n: number, shared: boolean): ArrayBufferLike {
  return shared ? new SharedArrayBuffer(n) : new ArrayBuffer(n);
}

/**
 * Concatenation of a fixed-width column without NULLs (ints, floats, dates, timestamps,
 * decimals) as one block copy per batch; `null` for anything else (the general gather does it).
 */
function concatFixedNoNulls(parts: readonly Data[], length: number, shared: boolean): Data | null {
  const type = parts[0]!.type;
  const fixed = DataType.isInt(type) || DataType.isFloat(type) || DataType.isDate(type) || DataType.isTimestamp(type) || DataType.isDecimal(type);
  if (!fixed || parts.some((p) => p.nullCount !== 0 || !p.values || p.type.typeId !== type.typeId)) return null;
  const first = parts[0]!.values as Int32Array;
  const stride = parts[0]!.stride;
  const Ctor = first.constructor as { new (b: ArrayBufferLike): Int32Array; readonly BYTES_PER_ELEMENT: number };
  const out = new Ctor(bytesFor(length * stride * Ctor.BYTES_PER_ELEMENT, shared));
  let at = 0;
  for (const p of parts) {
    const v = (p.values as Int32Array).subarray(0, p.length * stride);
    out.set(v, at);
    at += v.length;
  }
  return make({ type, length, nullCount: 0, data: out });
}

/**
 * Concatenation of a Utf8 / Binary column (32-bit offsets) without NULLs: each batch's value bytes
 * as one block copy and its offsets rebased in one pass, instead of a row-by-row gather (a 1M-row
 * string build side: ~50 ms -> a few). `null` for anything else, or past 2^31 bytes.
 */
function concatUtf8NoNulls(parts: readonly Data[], length: number, shared: boolean): Data | null {
  const type = parts[0]!.type;
  if (!(type.typeId === Type.Utf8 || type.typeId === Type.Binary)) return null;
  if (parts.some((p) => p.nullCount !== 0 || !p.valueOffsets || !p.values || p.type.typeId !== type.typeId)) return null;
  let total = 0;
  for (const p of parts) total += p.valueOffsets![p.length]! - p.valueOffsets![0]!;
  if (total > 0x7fffffff) return null;
  const data = new Uint8Array(bytesFor(total, shared));
  const offsets = new Int32Array(bytesFor(4 * (length + 1), shared));
  let row = 0;
  let pos = 0;
  for (const p of parts) {
    const o = p.valueOffsets as Int32Array;
    const start = o[0]!;
    const end = o[p.length]!;
    data.set((p.values as Uint8Array).subarray(start, end), pos);
    const shift = pos - start;
    for (let i = 1; i <= p.length; i++) offsets[row + i] = o[i]! + shift;
    row += p.length;
    pos += end - start;
  }
  return make({ type, length, nullCount: 0, valueOffsets: offsets, data });
}

// ---------------------------------------------------------------------------------------------

/** makeData's overloads need a concrete type; the kernels are generic over it. */
const make = makeData as unknown as (props: Record<string, unknown>) => Data;

function emptyData(type: DataType): Data {
  const builder = makeBuilder({ type, nullValues: [null, undefined] });
  return builder.finish().flush();
}

/**
 * The located rows as one run of consecutive rows of one batch — `[batch, first row]` — or null.
 * A join whose probe rows each match once (a unique build key, every probe row kept: the common
 * foreign-key join, more so once a dynamic filter dropped the rows that cannot match) asks for
 * exactly such runs; their columns are then zero-copy slices of the input, not gathers.
 */
function contiguousRun(loc: Located, count: number): readonly [number, number] | null {
  if (count === 0) return null;
  const local = loc.local;
  const first = local[0]!;
  if (first < 0) return null;
  for (let k = 1; k < count; k++) if (local[k] !== first + k) return null;
  const batch = loc.batch;
  if (batch === null) return [0, first];
  const b = batch[0]!;
  for (let k = 1; k < count; k++) if (batch[k] !== b) return null;
  return [b, first];
}

function gatherLocated(src: RowSource, column: number, loc: Located, count: number, guard?: AllocationGuard, run: readonly [number, number] | null = null): Data {
  // not a Null column (its slice would not know its null count), nor views (Arrow JS's IPC writer
  // writes a sliced view column without its views)
  const t = src.schema.fields[column]!.type.typeId;
  if (run !== null && t !== Type.Null && t !== Type.Utf8View && t !== Type.BinaryView) return src.columnData(column)[run[0]]!.slice(run[1], count);
  if (guard !== undefined) {
    const outer = activeGuard;
    activeGuard = guard;
    try {
      return gatherParts(src.columnData(column), loc, count, src.schema.fields[column]!.name);
    } finally {
      activeGuard = outer;
    }
  }
  return gatherParts(src.columnData(column), loc, count, src.schema.fields[column]!.name);
}

/** Why `type` cannot be gathered (a join output or a row filter would fail on it), or null. */
export function ungatherableReason(type: DataType): string | null {
  if (isFlat(type.typeId)) return null;
  switch (type.typeId) {
    case Type.Dictionary:
      return ungatherableReason((type as Dictionary).dictionary);
    case Type.List:
    case Type.LargeList:
    case Type.FixedSizeList:
    case Type.Map:
    case Type.Struct:
      for (const c of type.children) {
        const r = ungatherableReason(c.type);
        if (r !== null) return r;
      }
      return null;
    default:
      return `${String(type)} values cannot be gathered into join output`;
  }
}

/** The located rows of one column given as its Data per batch (`parts`); `name` for errors. */
function gatherParts(parts: readonly Data[], loc: Located, count: number, name: string): Data {
  const type = parts[0]!.type;
  if (type.typeId === Type.Null) return make({ type, length: count });
  const { bitmap, nullCount } = gatherValidity(parts, loc, count);
  const base = { type, length: count, nullCount, nullBitmap: bitmap };
  if (isFixedWidth(type.typeId)) {
    // every row NULL (a NULL-padded side): zeroed values, nothing to copy
    return make({ ...base, data: typedOutput(type.ArrayType, nullCount === count ? zeroedFixed(parts, count) : gatherFixed(parts, loc, count)) });
  }
  if (isOffsetBytes(type.typeId)) return make({ ...base, ...gatherVariable(parts, loc, count, type, name) });
  switch (type.typeId) {
    case Type.Bool:
      return make({ ...base, data: gatherBools(parts, loc, count) });
    case Type.Utf8View:
    case Type.BinaryView:
      return make({ ...base, ...gatherViews(parts, loc, count) });
    case Type.Dictionary:
      return gatherDictionary(parts, loc, count, base, name);
    case Type.Struct:
      return make({
        ...base,
        children: type.children.map((f, c) => gatherParts(parts.map((p) => p.children[c]!), loc, count, `${name}.${f.name}`)),
      });
    case Type.FixedSizeList:
      return make({ ...base, child: gatherFixedSizeListChild(parts, loc, count, (type as FixedSizeList).listSize, name) });
    case Type.List:
    case Type.LargeList:
    case Type.Map:
      return make({ ...base, ...gatherLists(parts, loc, count, type, name) });
    default:
      throw new UnsupportedTypeError(name, String(type), 'in gathered join output');
  }
}

// --- nested ----------------------------------------------------------------------------------

/**
 * Lists (List, LargeList, Map): new offsets from the located rows' lengths (NULL and padded rows
 * are empty), then the child rows they cover located in the parts' children — one (batch, row)
 * pair per child value, in two typed arrays — and gathered like any column.
 */
function gatherLists(parts: readonly Data[], loc: Located, count: number, type: DataType, name: string) {
  const large = type.typeId === Type.LargeList;
  const { batch, local } = loc;
  const offs = parts.map((p) => offsetWords(p, large));
  let total = 0;
  for (let k = 0; k < count; k++) {
    const l = local[k]!;
    if (l < 0) continue;
    const o = offs[batch === null ? 0 : batch[k]!]!;
    total += offsetAt(o, large, l + 1) - offsetAt(o, large, l);
  }
  if (total > 0x7fffffff) throw new UnsupportedTypeError(name, String(type), `with ${total} list values in one output batch`);
  const childLocal = new Int32Array(total);
  const childBatch = batch === null ? null : new Int32Array(total);
  const outOffsets = large ? new BigInt64Array(count + 1) : new Int32Array(count + 1);
  const ow = large ? new Int32Array(outOffsets.buffer) : (outOffsets as Int32Array);
  let pos = 0;
  for (let k = 0; k < count; k++) {
    const l = local[k]!;
    if (l >= 0) {
      const b = batch === null ? 0 : batch[k]!;
      const s = offsetAt(offs[b]!, large, l);
      const e = offsetAt(offs[b]!, large, l + 1);
      for (let j = s; j < e; j++) {
        childLocal[pos] = j;
        if (childBatch !== null) childBatch[pos] = b;
        pos++;
      }
    }
    if (large) ow[2 * k + 2] = pos; // < 2^31: the high word stays 0
    else ow[k + 1] = pos;
  }
  const child = gatherParts(
    parts.map((p) => p.children[0]!),
    { batch: childBatch, local: childLocal },
    total,
    `${name}.${(type.children[0] as Field).name}`,
  );
  return { valueOffsets: outOffsets, child };
}

/** FixedSizeList: `size` child rows per located row (NULL child rows for NULL and padded rows). */
function gatherFixedSizeListChild(parts: readonly Data[], loc: Located, count: number, size: number, name: string): Data {
  const { batch, local } = loc;
  const total = count * size;
  if (total > 0x7fffffff) throw new UnsupportedTypeError(name, `FixedSizeList[${size}]`, `with ${total} list values in one output batch`);
  const childLocal = new Int32Array(total);
  const childBatch = batch === null ? null : new Int32Array(total);
  for (let k = 0; k < count; k++) {
    const l = local[k]!;
    for (let j = 0; j < size; j++) {
      childLocal[k * size + j] = l < 0 ? -1 : l * size + j;
      if (childBatch !== null) childBatch[k * size + j] = batch![k]!;
    }
  }
  const child = parts[0]!.type.children[0] as Field;
  return gatherParts(parts.map((p) => p.children[0]!), { batch: childBatch, local: childLocal }, total, `${name}.${child.name}`);
}

// --- validity --------------------------------------------------------------------------------

function gatherValidity(parts: readonly Data[], loc: Located, count: number): { bitmap: Uint8Array | null; nullCount: number } {
  const { batch, local } = loc;
  let sourceNulls = false;
  for (const p of parts) if (p.nullCount > 0) sourceNulls = true;
  let padded = false;
  for (let k = 0; k < count && !padded; k++) padded = local[k]! < 0;
  if (!sourceNulls && !padded) return { bitmap: null, nullCount: 0 };

  const bitmaps = parts.map((p) => (p.nullCount > 0 ? p.nullBitmap : null));
  const offsets = parts.map((p) => p.offset);
  const out = new Uint8Array(((count + 63) >>> 6) << 3);
  if (batch === null) return validitySingle(bitmaps[0] ?? null, offsets[0] ?? 0, local, count, out);
  let valid = 0;
  for (let k = 0; k < count; k++) {
    const l = local[k]!;
    if (l < 0) continue;
    const b = batch === null ? 0 : batch[k]!;
    const bm = bitmaps[b]!;
    if (bm !== null) {
      const p = offsets[b]! + l;
      if (((bm[p >> 3]! >> (p & 7)) & 1) === 0) continue;
    }
    out[k >> 3]! |= 1 << (k & 7);
    valid++;
  }
  return { bitmap: out, nullCount: count - valid };
}

/** `gatherValidity` of one source batch: no batch lookups per row. */
function validitySingle(bm: Uint8Array | null, offset: number, local: Int32Array, count: number, out: Uint8Array): { bitmap: Uint8Array | null; nullCount: number } {
  let valid = 0;
  for (let k = 0; k < count; k++) {
    const l = local[k]!;
    if (l < 0) continue;
    if (bm !== null) {
      const p = offset + l;
      if (((bm[p >> 3]! >> (p & 7)) & 1) === 0) continue;
    }
    out[k >> 3]! |= 1 << (k & 7);
    valid++;
  }
  return { bitmap: out, nullCount: count - valid };
}

// --- fixed width -----------------------------------------------------------------------------

type WordArray = Int32Array | Uint16Array | Uint8Array;
type WordCtor = Int32ArrayConstructor | Uint16ArrayConstructor | Uint8ArrayConstructor;

function valuesOf(d: Data): ArrayBufferView & { readonly length: number; readonly BYTES_PER_ELEMENT: number } {
  return d.values as unknown as ArrayBufferView & { readonly length: number; readonly BYTES_PER_ELEMENT: number };
}

/** Widest word unit dividing the row width and every part's alignment. */
function wordUnit(parts: readonly Data[], rowBytes: number): WordCtor {
  let unit = rowBytes % 4 === 0 ? 4 : rowBytes % 2 === 0 ? 2 : 1;
  for (const p of parts) while (valuesOf(p).byteOffset % unit !== 0) unit >>= 1;
  return unit === 4 ? Int32Array : unit === 2 ? Uint16Array : Uint8Array;
}

/** The values buffer `gatherFixed` would allocate for `count` rows, all zero. */
function zeroedFixed(parts: readonly Data[], count: number): ArrayBuffer {
  const rowBytes = valuesOf(parts[0]!).BYTES_PER_ELEMENT * parts[0]!.stride;
  return new ArrayBuffer(Math.ceil((count * rowBytes) / 8) * 8);
}

/** Copies each located row's `rowBytes` bytes; NULL rows stay zero. Returns the output buffer. */

function gatherFixed(parts: readonly Data[], loc: Located, count: number): ArrayBuffer {
  const first = valuesOf(parts[0]!);
  const rowBytes = first.BYTES_PER_ELEMENT * parts[0]!.stride;
  const Ctor = wordUnit(parts, rowBytes);
  const stride = rowBytes / Ctor.BYTES_PER_ELEMENT;
  const buffer = new ArrayBuffer(Math.ceil((count * rowBytes) / 8) * 8);
  const out = new Ctor(buffer);
  const views = parts.map((p) => {
    const v = valuesOf(p);
    return new Ctor(v.buffer as ArrayBuffer, v.byteOffset, (v.length * v.BYTES_PER_ELEMENT) / Ctor.BYTES_PER_ELEMENT);
  });
  // the common case — one source batch of 4- or 8-byte values — in loops that only ever see
  // Int32Arrays: shared with 1- and 2-byte columns, their element accesses would be polymorphic
  if (loc.batch === null && Ctor === Int32Array && stride <= 2) {
    if (stride === 1) copyInt32Rows1(views[0] as Int32Array, out as Int32Array, loc.local, count);
    else copyInt32Rows2(views[0] as Int32Array, out as Int32Array, loc.local, count);
  } else if (stride === 1) copyRows1(views, out, loc, count);
  else copyRowsN(views, out, loc, count, stride);
  return buffer;
}

function copyInt32Rows1(v: Int32Array, out: Int32Array, local: Int32Array, count: number): void {
  for (let k = 0; k < count; k++) {
    const l = local[k]!;
    if (l >= 0) out[k] = v[l]!;
  }
}

function copyInt32Rows2(v: Int32Array, out: Int32Array, local: Int32Array, count: number): void {
  for (let k = 0; k < count; k++) {
    const l = local[k]!;
    if (l >= 0) {
      out[2 * k] = v[2 * l]!;
      out[2 * k + 1] = v[2 * l + 1]!;
    }
  }
}

function copyRows1(views: readonly WordArray[], out: WordArray, loc: Located, count: number): void {
  const { batch, local } = loc;
  if (batch === null) {
    const v = views[0]!;
    for (let k = 0; k < count; k++) {
      const l = local[k]!;
      if (l >= 0) out[k] = v[l]!;
    }
    return;
  }
  for (let k = 0; k < count; k++) {
    const l = local[k]!;
    if (l >= 0) out[k] = views[batch[k]!]![l]!;
  }
}

function copyRowsN(views: readonly WordArray[], out: WordArray, loc: Located, count: number, stride: number): void {
  const { batch, local } = loc;
  if (batch === null && stride <= 2) return copyRowsSingle(views[0]!, out, local, count, stride);
  for (let k = 0; k < count; k++) {
    const l = local[k]!;
    if (l < 0) continue;
    const v = views[batch === null ? 0 : batch[k]!]!;
    for (let s = 0; s < stride; s++) out[k * stride + s] = v[l * stride + s]!;
  }
}

/** The common case — one source batch, 1 or 2 words per row — as tight monomorphic loops. */
function copyRowsSingle(v: WordArray, out: WordArray, local: Int32Array, count: number, stride: number): void {
  if (stride === 1) {
    for (let k = 0; k < count; k++) {
      const l = local[k]!;
      if (l >= 0) out[k] = v[l]!;
    }
    return;
  }
  for (let k = 0; k < count; k++) {
    const l = local[k]!;
    if (l >= 0) {
      out[2 * k] = v[2 * l]!;
      out[2 * k + 1] = v[2 * l + 1]!;
    }
  }
}

function typedOutput(ArrayType: unknown, buffer: ArrayBuffer): ArrayBufferView {
  const Ctor = ArrayType as { new (b: ArrayBuffer): ArrayBufferView };
  return new Ctor(buffer);
}

// --- booleans --------------------------------------------------------------------------------

function gatherBools(parts: readonly Data[], loc: Located, count: number): Uint8Array {
  const { batch, local } = loc;
  const values = parts.map((p) => p.values as Uint8Array);
  const offsets = parts.map((p) => p.offset);
  const out = new Uint8Array(((count + 63) >>> 6) << 3);
  for (let k = 0; k < count; k++) {
    const l = local[k]!;
    if (l < 0) continue;
    const b = batch === null ? 0 : batch[k]!;
    const p = offsets[b]! + l;
    if ((values[b]![p >> 3]! >> (p & 7)) & 1) out[k >> 3]! |= 1 << (k & 7);
  }
  return out;
}

// --- variable width --------------------------------------------------------------------------

const TWO_32 = 4294967296;

/** Offsets of a part as int32 words: 1 word per offset, or 2 (lo, hi) for Large types. */
function offsetWords(d: Data, large: boolean): Int32Array {
  const vo = d.valueOffsets as unknown as ArrayBufferView & { length: number };
  return large ? new Int32Array(vo.buffer, vo.byteOffset, vo.length * 2) : (vo as Int32Array);
}

function offsetAt(words: Int32Array, large: boolean, i: number): number {
  return large ? words[2 * i + 1]! * TWO_32 + (words[2 * i]! >>> 0) : words[i]!;
}

function gatherVariable(parts: readonly Data[], loc: Located, count: number, type: DataType, name: string) {
  const large = type.typeId === Type.LargeUtf8 || type.typeId === Type.LargeBinary;
  const { batch, local } = loc;
  if (!large && batch === null) return gatherVariableSingle(parts[0]!, local, count, type, name);
  const offs = parts.map((p) => offsetWords(p, large));
  const vals = parts.map((p) => p.values as Uint8Array);
  let total = 0;
  for (let k = 0; k < count; k++) {
    const l = local[k]!;
    if (l < 0) continue;
    const o = offs[batch === null ? 0 : batch[k]!]!;
    total += offsetAt(o, large, l + 1) - offsetAt(o, large, l);
  }
  if (!large && total > 0x7fffffff) throw new UnsupportedTypeError(name, String(type), `with ${total} bytes in one output batch (use LargeUtf8/LargeBinary)`);
  activeGuard?.ensure(total, `gather of column '${name}'`);
  const padded = new Uint8Array(total + COPY_PADDING);
  const dv = new DataView(padded.buffer);
  const views = vals.map(viewOf);
  const outOffsets = large ? new BigInt64Array(count + 1) : new Int32Array(count + 1);
  const ow = large ? new Int32Array(outOffsets.buffer) : (outOffsets as Int32Array);
  let pos = 0;
  for (let k = 0; k < count; k++) {
    const l = local[k]!;
    if (l >= 0) {
      const b = batch === null ? 0 : batch[k]!;
      const s = offsetAt(offs[b]!, large, l);
      const size = offsetAt(offs[b]!, large, l + 1) - s;
      const src = vals[b]!;
      copyBytesPadded(src, views[b]!, src.byteLength - 8, s, s + size, padded, dv, pos);
      pos += size;
    }
    if (large) {
      ow[2 * k + 2] = pos | 0;
      ow[2 * k + 3] = Math.floor(pos / TWO_32);
    } else ow[k + 1] = pos;
  }
  return { valueOffsets: outOffsets, data: padded.subarray(0, total) };
}

/**
 * The common case of `gatherVariable` — 32-bit offsets, one source batch — as two tight loops,
 * values copied a word pair at a time (`copyBytesPadded`; a join's build side gathered at every
 * output row: h2o's q3 spends most of its time here).
 */
function gatherVariableSingle(part: Data, local: Int32Array, count: number, type: DataType, name: string) {
  const offs = part.valueOffsets as Int32Array;
  const vals = part.values as Uint8Array;
  let total = 0;
  for (let k = 0; k < count; k++) {
    const l = local[k]!;
    if (l >= 0) total += offs[l + 1]! - offs[l]!;
  }
  if (total > 0x7fffffff) throw new UnsupportedTypeError(name, String(type), `with ${total} bytes in one output batch (use LargeUtf8/LargeBinary)`);
  activeGuard?.ensure(total, `gather of column '${name}'`);
  const padded = new Uint8Array(total + COPY_PADDING);
  const dv = new DataView(padded.buffer);
  const sv = viewOf(vals);
  const lim = vals.byteLength - 8;
  const outOffsets = new Int32Array(count + 1);
  let pos = 0;
  for (let k = 0; k < count; k++) {
    const l = local[k]!;
    if (l >= 0) {
      const s = offs[l]!;
      const e = offs[l + 1]!;
      copyBytesPadded(vals, sv, lim, s, e, padded, dv, pos);
      pos += e - s;
    }
    outOffsets[k + 1] = pos;
  }
  return { valueOffsets: outOffsets, data: padded.subarray(0, total) };
}

/** Utf8View/BinaryView: copy the 16-byte views, keep the data buffers (ids rebased per batch). */
function gatherViews(parts: readonly Data[], loc: Located, count: number) {
  const views = new Int32Array(gatherFixed(parts, loc, count), 0, 4 * count);
  const buffers: Uint8Array[] = [];
  const bufferBase = parts.map((p) => {
    const b = buffers.length;
    buffers.push(...p.variadicBuffers);
    return b;
  });
  const { batch, local } = loc;
  if (batch !== null) {
    for (let k = 0; k < count; k++) {
      if (local[k]! >= 0 && views[4 * k]! > VIEW_INLINE) views[4 * k + 2]! += bufferBase[batch[k]!]!;
    }
  }
  return { views: new Uint8Array(views.buffer, 0, 16 * count), variadicBuffers: buffers };
}

// --- dictionaries ----------------------------------------------------------------------------

function gatherDictionary(parts: readonly Data[], loc: Located, count: number, base: object, name: string): Data {
  const type = parts[0]!.type as Dictionary;
  const codes = typedOutput(type.indices.ArrayType, gatherFixed(parts, loc, count));
  const { dictionary, shift } = commonDictionary(parts, type, name);
  if (shift !== null && loc.batch !== null) rebaseCodes(codes, type.indices, loc, count, shift);
  return make({ ...base, data: codes, dictionary });
}

/**
 * One dictionary for all parts: the shared one, the largest when every other is a prefix of it
 * (same leading Data chunks, as dictionary deltas build them), else all of them concatenated with
 * a code shift per part.
 */
function commonDictionary(parts: readonly Data[], type: Dictionary, name: string): { dictionary: Vector; shift: Int32Array | null } {
  const first = parts[0]!.dictionary!;
  if (parts.every((p) => p.dictionary === first)) return { dictionary: first, shift: null };
  let largest = first;
  for (const p of parts) if (p.dictionary!.data.length > largest.data.length) largest = p.dictionary!;
  const isPrefix = (v: Vector) => v.data.every((d, i) => largest.data[i] === d);
  if (parts.every((p) => isPrefix(p.dictionary!))) return { dictionary: largest, shift: null };

  const chunks: Data[] = [];
  const shift = new Int32Array(parts.length);
  let size = 0;
  parts.forEach((p, b) => {
    shift[b] = size;
    chunks.push(...p.dictionary!.data);
    size += p.dictionary!.length;
  });
  const maxCode = type.indices.isSigned ? 2 ** (type.indices.bitWidth - 1) - 1 : 2 ** type.indices.bitWidth - 1;
  if (size - 1 > maxCode) {
    throw new UnsupportedTypeError(name, String(type), `when merging batches with different dictionaries (${size} entries)`);
  }
  return { dictionary: new Vector(chunks), shift };
}

function rebaseCodes(codes: ArrayBufferView, indices: Int, loc: Located, count: number, shift: Int32Array): void {
  const { batch, local } = loc;
  const bits: number = indices.bitWidth;
  if (bits === 64) {
    const words = new Int32Array(codes.buffer, codes.byteOffset, 2 * count);
    for (let k = 0; k < count; k++) if (local[k]! >= 0) words[2 * k] = words[2 * k]! + shift[batch![k]!]!;
    return;
  }
  const c = codes as unknown as { [i: number]: number };
  for (let k = 0; k < count; k++) if (local[k]! >= 0) c[k] = c[k]! + shift[batch![k]!]!;
}
