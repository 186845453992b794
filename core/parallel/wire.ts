/**
 * Record batches across threads: a batch becomes a plain tree of typed arrays (`BatchWire`) that
 * `postMessage` can carry, and back — the buffers themselves are never re-encoded.
 *
 * Why not Arrow IPC: an IPC message copies every buffer into one body and Arrow JS's writer drops
 * the views of a sliced Utf8View column; the wire keeps each buffer as it is, so a receiver sees
 * exactly the `Data` the sender had (same offset, same sliced `values`, same validity bit offset —
 * Arrow JS's `Data` constructor takes buffers as given, without re-slicing).
 *
 * What crosses how (`encodeBatch`'s `mode`):
 *  - `SharedArrayBuffer`-backed arrays are shared: both threads see the same memory, nothing is
 *    copied. Tables put in shared memory once (`shareBatch`) reach every worker for free.
 *  - `transfer` (a worker's output): the arrays' `ArrayBuffer`s are moved (listed once each in the
 *    transfer list, however many views share them). The sender must not touch them again.
 *  - `copy` (the caller keeps its batch, e.g. the user's table): each array is copied into a
 *    buffer of its own size — structured clone would copy the *whole* underlying buffer of a
 *    view, which for a batch sliced out of a large IPC body is the whole body — and that copy is
 *    then transferred.
 *
 * The schema crosses once per query (`encodeSchema`, a schema-only IPC stream); a batch's wire
 * carries only lengths, null counts, offsets and buffers, and is rebuilt against it. Dictionary
 * columns carry their dictionary's chunks; view columns their variadic data buffers.
 */
import { Data, RecordBatch, RecordBatchStreamWriter, Schema, Struct, Table, tableFromIPC, Type, Vector, type DataType } from 'apache-arrow';
import { isFixedWidth } from '../arrow/type-families.ts';
import type { KeyColumn } from '../keys/types.ts';

type Buffer = ArrayBufferView | undefined;

/** One `Data` node: its fields and buffers (`[valueOffsets, values, nullBitmap, typeIds]`). */
export interface DataWire {
  readonly offset: number;
  readonly length: number;
  readonly nullCount: number;
  readonly buffers: readonly Buffer[];
  readonly children: readonly DataWire[];
  readonly dictionary: readonly DataWire[] | null;
  readonly variadic: readonly Uint8Array[] | null;
}

export interface BatchWire {
  readonly length: number;
  readonly columns: readonly DataWire[];
}

export type WireMode = 'share' | 'transfer' | 'copy';

export interface EncodedBatch {
  readonly wire: BatchWire;
  /** Buffers to pass as `postMessage`'s transfer list (empty when everything is shared). */
  readonly transfer: ArrayBuffer[];
}

/** Whether `view` lives in shared memory (then it crosses threads without a copy). */
export function isShared(view: ArrayBufferView): boolean {
  return typeof SharedArrayBuffer !== 'undefined' && view.buffer instanceof SharedArrayBuffer;
}

/**
 * The wire of `batch`. `mode` says what happens to arrays that are not in shared memory (shared
 * ones are always shared): moved (`transfer`: the caller gives them up) or copied (`copy`).
 */
export function encodeBatch(batch: RecordBatch, mode: Exclude<WireMode, 'share'>): EncodedBatch {
  const { wires, transfer } = encodeBatches([batch], mode);
  return { wire: wires[0]!, transfer };
}

/**
 * Several batches in one message: one transfer list for all of them, so buffers that several
 * batches share (the slices of one probe batch) are moved once.
 */
export function encodeBatches(
  batches: readonly RecordBatch[],
  mode: Exclude<WireMode, 'share'>,
  /** With `transfer`: buffers the sender still needs (views of them are copied, not moved). */
  keep?: ReadonlySet<ArrayBufferLike>,
): { wires: BatchWire[]; transfer: ArrayBuffer[] } {
  const transfer = new Set<ArrayBuffer>();
  const copies = new Map<ArrayBufferView, ArrayBufferView>();
  const visit = <T extends ArrayBufferView>(view: T): T => {
    if (isShared(view)) return view;
    let v = view;
    if (mode === 'copy' || keep?.has(view.buffer) === true) {
      v = (copies.get(view) as T | undefined) ?? compactCopy(view);
      copies.set(view, v);
    }
    transfer.add(v.buffer as ArrayBuffer);
    return v;
  };
  const wires = batches.map((b) => ({ length: b.numRows, columns: b.data.children.map((d) => encodeData(d, visit)) }));
  return { wires, transfer: [...transfer] };
}

/**
 * Every `ArrayBuffer` the batches' columns point into with data (not shared ones, nor the empty
 * views Arrow JS gives a column without NULLs: the wire never moves or copies those).
 */
export function buffersOf(batches: readonly RecordBatch[]): Set<ArrayBufferLike> {
  const out = new Set<ArrayBufferLike>();
  const visit = (d: Data): void => {
    for (const b of [d.valueOffsets, d.values, d.nullBitmap, d.typeIds]) if (b !== undefined && b !== null && b.byteLength > 0 && !isShared(b)) out.add(b.buffer);
    for (const v of d.variadicBuffers) if (v.byteLength > 0 && !isShared(v)) out.add(v.buffer);
    d.children.forEach(visit);
    d.dictionary?.data.forEach(visit);
  };
  for (const b of batches) b.data.children.forEach(visit);
  return out;
}

/** `batch` rebuilt from its wire, against the schema it was encoded with. */
export function decodeBatch(wire: BatchWire, schema: Schema): RecordBatch {
  if (wire.columns.length !== schema.fields.length) throw new RangeError(`batch wire has ${wire.columns.length} columns, schema ${schema.fields.length}`);
  const children = wire.columns.map((c, i) => decodeData(c, schema.fields[i]!.type));
  const data = new Data(new Struct(schema.fields), 0, wire.length, 0, undefined, children);
  return new RecordBatch(schema, data);
}

/** The schema as bytes (a schema-only IPC stream), for `decodeSchema` on another thread. */
export function encodeSchema(schema: Schema): Uint8Array {
  const writer = RecordBatchStreamWriter.writeAll(new Table(schema));
  return writer.toUint8Array(true);
}

export function decodeSchema(bytes: Uint8Array): Schema {
  return tableFromIPC(bytes).schema;
}

/**
 * `batch` with every buffer copied into shared memory (one `SharedArrayBuffer` per buffer), so it
 * reaches any number of workers without a copy. Buffers already shared are kept. Only the batch's
 * own rows are copied (`trimmedViews`): a batch sliced out of a larger column — every batch of a
 * table built by slicing one column — keeps views that run to the end of that column (all of its
 * string bytes), and copying those whole once copied a 10M-row string column's 100 MB with each
 * of its 153 batches (15 GB for `shareTable` of one such table).
 */
export function shareBatch(batch: RecordBatch, dictionaries: Map<Data, Data> = new Map()): RecordBatch {
  const columns = batch.data.children.map((d) => shareData(d, dictionaries));
  return new RecordBatch(batch.schema, new Data(new Struct(batch.schema.fields), 0, batch.numRows, 0, undefined, columns));
}

/** A normalised key column with every array in shared memory (those already there as they are). */
export function shareKeyColumn(c: KeyColumn): KeyColumn {
  const nulls = c.nulls === null ? null : shareView(c.nulls);
  if ('words' in c) return { ...c, words: shareView(c.words), nulls };
  return { ...c, offsets: shareView(c.offsets), bytes: shareView(c.bytes), codes: c.codes === null ? null : shareView(c.codes), nulls };
}

/** Every batch of `table` in shared memory (`shareBatch`). */
export function shareTable(table: Table): Table {
  const dictionaries = new Map<Data, Data>();
  return new Table(table.schema, table.batches.map((b) => shareBatch(b, dictionaries)));
}

/** A copy of `view` in shared memory (the view itself when it already is). */
export function shareView<T extends ArrayBufferView>(view: T): T {
  if (isShared(view)) return view;
  const shared = new SharedArrayBuffer(view.byteLength);
  new Uint8Array(shared).set(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
  return new (view.constructor as new (b: ArrayBufferLike, o: number, n: number) => T)(shared, 0, elements(view));
}

function elements(view: ArrayBufferView): number {
  return view.byteLength / ((view as unknown as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1);
}

/** `view` in a buffer of exactly its size (the view itself when it already fills its buffer). */
function compactCopy<T extends ArrayBufferView>(view: T): T {
  return (view as unknown as { slice(): T }).slice();
}

/**
 * The views of `d` cut to the rows it covers, and the row offset they are read at. A slice of a
 * column (a morsel cut from a larger batch, or every batch of a table built by slicing one column)
 * keeps views that run to the end of the whole column — and, for strings, all of its bytes — so
 * copying them as they are would copy the rest of the column with every morsel (measured: a
 * 10M-row string probe in 64K-row morsels copied ~12 GB and took 17 s instead of 1). Fixed-width
 * values are cut at the end; 32-bit offsets are cut and rebased with their bytes cut to the rows'
 * range; bit-packed buffers (validity, booleans), which a slice keeps from bit 0 and reads at
 * `d.offset`, are copied from the slice's first bit, so the wire's offset becomes 0. Other layouts
 * (large offsets, views, unions, nested) are kept as they are, and so is a column in shared memory
 * (it crosses as it is).
 *
 * A zero-length validity bitmap is what Arrow JS gives a column without NULLs: it is no reason to
 * keep the other views whole (a bail-out on it once copied every string morsel's whole column).
 */
type Views = [ArrayBufferView | undefined, ArrayBufferView | undefined, ArrayBufferView | undefined, ArrayBufferView | undefined];
function trimmedViews(d: Data): { views: Views; offset: number } {
  const asIs: Views = [d.valueOffsets ?? undefined, d.values ?? undefined, d.nullBitmap ?? undefined, d.typeIds ?? undefined];
  const kept = { views: asIs, offset: d.offset };
  // shared memory crosses without a copy: nothing to save, and a rebased copy would not be shared
  if (asIs.some((v) => v !== undefined && isShared(v))) return kept;
  // an empty offsets/values view (or one whose buffer an earlier reply moved away: a NULL-padded
  // side's cached empty column is in every output batch) has nothing to cut: encodeData replaces it
  if ((asIs[0] !== undefined && asIs[0].byteLength === 0) || (asIs[1] !== undefined && asIs[1].byteLength === 0)) return kept;
  const bitmap = d.nullBitmap && d.nullBitmap.byteLength > 0 ? bitsFrom(d.nullBitmap, d.offset, d.length) : d.nullBitmap ?? undefined;
  const id = d.type.typeId;
  const values = d.values as (ArrayBufferView & { length: number; subarray(a: number, b: number): ArrayBufferView }) | undefined;
  if ((id === Type.Utf8 || id === Type.Binary) && d.valueOffsets !== undefined && d.valueOffsets !== null && values !== undefined) {
    const offs = (d.valueOffsets as Int32Array).subarray(0, d.length + 1);
    const start = offs[0]!;
    const rebased = start === 0 ? offs : rebase(offs, start);
    return { views: [rebased, values.subarray(start, offs[d.length]!), bitmap, undefined], offset: 0 };
  }
  if (isFixedWidth(id) && values !== undefined) return { views: [undefined, values.subarray(0, Math.min(values.length, d.length * d.stride)), bitmap, undefined], offset: 0 };
  if (id === Type.Bool && values !== undefined) return { views: [undefined, bitsFrom(values as Uint8Array, d.offset, d.length), bitmap, undefined], offset: 0 };
  return kept;
}

/** `offs` minus `start`, in a new array. */
function rebase(offs: Int32Array, start: number): Int32Array {
  const out = new Int32Array(offs.length);
  for (let i = 0; i < offs.length; i++) out[i] = offs[i]! - start;
  return out;
}

/** Bits [from, from + n) of `bits` from bit 0 of a new array (a view of `bits` when `from` is byte-aligned). */
function bitsFrom(bits: Uint8Array, from: number, n: number): Uint8Array {
  const first = from >>> 3;
  const bytes = (n + 7) >>> 3;
  const shift = from & 7;
  if (shift === 0) return bits.subarray(first, Math.min(bits.length, first + bytes));
  const out = new Uint8Array(bytes);
  const last = bits.length - 1;
  for (let i = 0, j = first; i < bytes; i++, j++) {
    const lo = bits[j]! >>> shift;
    const hi = j < last ? (bits[j + 1]! << (8 - shift)) & 0xff : 0;
    out[i] = lo | hi;
  }
  return out;
}

function encodeData(d: Data, visit: <T extends ArrayBufferView>(v: T) => T): DataWire {
  // an empty view is replaced by a fresh one: cloning it would copy whatever buffer it points into
  const { views, offset } = trimmedViews(d);
  const buffers: Buffer[] = views.map((b) =>
    b === undefined || b === null ? undefined : b.byteLength === 0 ? new (b.constructor as new (n: number) => ArrayBufferView)(0) : visit(b),
  );
  return {
    offset,
    length: d.length,
    nullCount: d.nullCount,
    buffers,
    children: d.children.map((c) => encodeData(c, visit)),
    dictionary: d.dictionary ? d.dictionary.data.map((c) => encodeData(c, visit)) : null,
    variadic: d.variadicBuffers.length > 0 ? d.variadicBuffers.map((b) => visit(b)) : null,
  };
}

function decodeData(w: DataWire, type: DataType): Data {
  const t = type as DataType & { children?: { type: DataType }[]; dictionary?: DataType };
  const children = w.children.map((c, i) => decodeData(c, t.children![i]!.type));
  const dictionary = w.dictionary === null ? undefined : new Vector(w.dictionary.map((c) => decodeData(c, t.dictionary!)));
  const [offsets, values, validity, typeIds] = w.buffers;
  // Data's constructor keeps buffers as given (no re-slicing by offset): the sender's exact layout
  const buffers = [offsets, values, validity, typeIds] as unknown as ConstructorParameters<typeof Data>[4];
  return new Data(type, w.offset, w.length, w.nullCount, buffers, children, dictionary, w.variadic ?? undefined);
}

/**
 * `d` in shared memory, its views cut to its rows where their layout allows (see `trimmedViews`).
 * `dictionaries`: the dictionary chunks shared so far (the batches of a table usually share one
 * dictionary: it is copied once, not once per batch).
 */
function shareData(d: Data, dictionaries: Map<Data, Data>): Data {
  const { views, offset } = trimmedViews(d);
  const buf = (b: ArrayBufferView | undefined | null) => (b === undefined || b === null ? undefined : shareView(b));
  const buffers = views.map(buf) as unknown as ConstructorParameters<typeof Data>[4];
  const chunk = (c: Data): Data => {
    let shared = dictionaries.get(c);
    if (shared === undefined) dictionaries.set(c, (shared = shareData(c, dictionaries)));
    return shared;
  };
  const dictionary = d.dictionary ? new Vector(d.dictionary.data.map(chunk)) : undefined;
  const variadic = d.variadicBuffers.length > 0 ? d.variadicBuffers.map((b) => shareView(b)) : undefined;
  return new Data(d.type, offset, d.length, d.nullCount, buffers, d.children.map((c) => shareData(c, dictionaries)), dictionary, variadic);
}

