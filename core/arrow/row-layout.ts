/**
 * A build side's payload laid out row-wise, so that gathering an output row costs one random
 * access, not one per column (DuckDB's `TupleDataCollection` row layout does the same for its
 * hash join's build side: src/include/duckdb/common/types/row/tuple_data_layout.hpp).
 *
 * Why: the probe side of a hash join reaches build rows in hash order, i.e. at random. Gathered
 * column by column, every output row costs a cache miss per fixed-width column and two or three
 * per string column (its offsets, then its bytes, once to size the output and once to copy);
 * h2o's q5 (10M x 10M, six build columns of which three strings) spends most of its time there.
 * Laid out as rows, a build row's fields share one or two cache lines: the gather misses once per
 * row and reads the other fields from the same line.
 *
 * A row: the fields widest first (so each is aligned to its width's word), then one NULL bit
 * per field (set: NULL, so a fresh zeroed buffer is all valid and only NULLs are written); the width is rounded up to 4 bytes. Fixed-width values (1, 2, 4, 8 or 16 bytes) are
 * stored as they are; a boolean as a byte; a string or binary value (32-bit offsets) as a 16-byte
 * view like Arrow's Utf8View: its length, then the bytes themselves when at most 12, or else the
 * value's offset in the source column (the one case that needs a second access, as in DuckDB).
 * Other types (large strings, dictionaries, nested, views) stay columnar: `covers` says which.
 *
 * The gather goes a chunk of rows at a time (CHUNK): the chunk's rows are fetched into cache by
 * the first field's pass and the other fields' passes read them from there; string bytes go into
 * output buffers that grow by doubling (no separate pass to size them). Output is ordinary Arrow
 * data of the source types — the layout is invisible to everything downstream.
 *
 * Measured here (2 cores, h2o data at 1e7 rows; tmp micro-benchmarks and `npm run bench -- --suite
 * h2o`): gathering 6 columns (3 strings) of 10M rows in random order, 64K rows a call, took 2.2–2.7 s
 * row-wise against 9.9–12.3 s column by column; laying x's 7 columns out (72-byte rows) takes
 * ~1.1 s alone and 2–2.4 s inside the join (a 720 MB buffer on a loaded heap). In h2o q5 (10M x
 * 10M, the build's 7 columns gathered for 9M output rows) the row-wise gather saved ~0.45 s of
 * ~1.6 s, less than the layout cost: the join took 7.1–9.1 s with it, 4.3–7.6 s without (this
 * machine's run-to-run spread is wide). So `hash.payloadLayout=auto` lays out only when the probe
 * has several times the build's rows (operators/hash-join/plan.ts); `rows` forces it. The other
 * way the issue named — sorting a chunk's matches by build row first — was not tried.
 *
 * Sharing: the row bytes are one buffer; `share()` hands it (copied into a SharedArrayBuffer
 * unless it already is one) with the field descriptions, and `RowLayout.restore` rebuilds the
 * gather over it and the worker's copy of the source batch (needed for long strings only).
 */
import { Type, makeData, type Data, type DataType, type RecordBatch } from 'apache-arrow';
import { isFixedWidth } from './type-families.ts';
import type { AllocationGuard } from './allocation-guard.ts';
import { copyBytes } from './views.ts';

/** Rows per gather chunk: 1024 rows of a 64-byte layout are 64 KiB, within a core's L2. */
const CHUNK = 1024;
const INLINE = 12;

type FieldKind = 'fixed' | 'bool' | 'string';

/** One laid-out column. */
export interface RowField {
  /** The column's index in the source batch. */
  readonly column: number;
  readonly kind: FieldKind;
  /** Bytes in the row: the value's width (fixed), 1 (bool) or 16 (string). */
  readonly bytes: number;
  /** Byte offset in the row. */
  readonly offset: number;
  /** Validity bit: byte `validityOffset + (bit >> 3)` of the row, bit `bit & 7`. */
  readonly bit: number;
}

/** A row layout handed to another thread: its fields and shared row bytes. */
export interface SharedRowLayout {
  readonly width: number;
  readonly rows: number;
  readonly validityOffset: number;
  readonly fields: readonly RowField[];
  readonly bytes: Uint8Array;
}

/** Bytes per value of a fixed-width column (1, 2, 4, 8 or 16), or 0 when it is not one the layout stores. */
function fixedBytes(d: Data): number {
  if (!isFixedWidth(d.type.typeId)) return 0;
  const w = (d.values as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT * d.stride;
  return w === 1 || w === 2 || w === 4 || w === 8 || w === 16 ? w : 0;
}

function kindOf(d: Data): FieldKind | null {
  const id = d.type.typeId;
  if (id === Type.Bool) return 'bool';
  if (id === Type.Utf8 || id === Type.Binary) return 'string';
  return fixedBytes(d) > 0 ? 'fixed' : null;
}

export class RowLayout {
  readonly width: number;
  readonly rows: number;
  readonly validityOffset: number;
  readonly fields: readonly RowField[];
  readonly bytes: Uint8Array;
  readonly #words: Int32Array;
  readonly #halves: Uint16Array;
  readonly #byField = new Map<number, RowField>();
  readonly #source: RecordBatch;

  private constructor(source: RecordBatch, width: number, validityOffset: number, fields: readonly RowField[], bytes: Uint8Array) {
    this.#source = source;
    this.width = width;
    this.rows = source.numRows;
    this.validityOffset = validityOffset;
    this.fields = fields;
    this.bytes = bytes;
    this.#words = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
    this.#halves = new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 1);
    for (const f of fields) this.#byField.set(f.column, f);
  }

  /** The row width `columns` of `batch` would take (0 when none of them can be laid out). */
  static widthOf(batch: RecordBatch, columns: readonly number[]): number {
    return RowLayout.#plan(batch, columns).width;
  }

  static #plan(batch: RecordBatch, columns: readonly number[]): { width: number; validityOffset: number; fields: RowField[] } {
    const wanted = columns
      .map((c) => {
        const d = batch.data.children[c]!;
        const kind = kindOf(d);
        if (kind === null) return null;
        return { column: c, kind, bytes: kind === 'string' ? 16 : kind === 'bool' ? 1 : fixedBytes(d) };
      })
      .filter((f): f is { column: number; kind: FieldKind; bytes: number } => f !== null);
    if (wanted.length === 0) return { width: 0, validityOffset: 0, fields: [] };
    // widest first: every field lands at a multiple of its own width (up to 4)
    const order = [...wanted].sort((a, b) => b.bytes - a.bytes || a.column - b.column);
    let offset = 0;
    const fields: RowField[] = order.map((f, bit) => {
      const field = { ...f, offset, bit };
      offset += f.bytes;
      return field;
    });
    const validityOffset = offset;
    const width = Math.ceil((offset + Math.ceil(fields.length / 8)) / 4) * 4;
    return { width, validityOffset, fields };
  }

  /** Lays out `columns` of `batch` (those it can; `covers` tells) in a buffer from `allocate`. */
  static build(batch: RecordBatch, columns: readonly number[], allocate: (bytes: number) => Uint8Array = (n) => new Uint8Array(n)): RowLayout {
    const { width, validityOffset, fields } = RowLayout.#plan(batch, columns);
    const rows = batch.numRows;
    const layout = new RowLayout(batch, width, validityOffset, fields, allocate(width * rows));
    // a chunk of rows at a time, every field into it: the chunk's rows stay in cache across the
    // fields (field by field over all rows would miss once per row per field)
    const fillers = fields.map((f) => layout.#filler(f, batch.data.children[f.column]!));
    for (let from = 0; from < rows; from += CHUNK) {
      const to = Math.min(rows, from + CHUNK);
      for (const fill of fillers) fill(from, to);
    }
    return layout;
  }

  /** Rebuilds a shared layout over `source` (the same rows, e.g. a worker's view of the shared build batch). */
  static restore(shared: SharedRowLayout, source: RecordBatch): RowLayout {
    if (source.numRows !== shared.rows) throw new RangeError(`row layout of ${shared.rows} rows restored over a batch of ${source.numRows}`);
    return new RowLayout(source, shared.width, shared.validityOffset, shared.fields, shared.bytes);
  }

  share(): SharedRowLayout {
    let bytes = this.bytes;
    if (!(bytes.buffer instanceof SharedArrayBuffer)) {
      bytes = new Uint8Array(new SharedArrayBuffer(this.bytes.byteLength));
      bytes.set(this.bytes);
    }
    return { width: this.width, rows: this.rows, validityOffset: this.validityOffset, fields: this.fields, bytes };
  }

  get memoryBytes(): number {
    return this.bytes.byteLength;
  }

  covers(column: number): boolean {
    return this.#byField.has(column);
  }

  /**
   * A filler of field `f` from source column `d`: its typed views made once, then called per chunk
   * of rows [from, to). Only NULLs write a validity bit (a set bit is a NULL: a fresh buffer is all
   * valid), so a column without NULLs costs nothing there.
   */
  #filler(f: RowField, d: Data): (from: number, to: number) => void {
    const W = this.width;
    const bytes = this.bytes;
    const words = this.#words;
    const vbyte = this.validityOffset + (f.bit >> 3);
    const vmask = 1 << (f.bit & 7);
    const bitmap = d.nullCount > 0 ? d.nullBitmap : null;
    const off = d.offset;
    const nulls =
      bitmap === null
        ? null
        : (from: number, to: number) => {
            for (let r = from; r < to; r++) {
              const p = off + r;
              if (((bitmap[p >> 3]! >> (p & 7)) & 1) === 0) bytes[r * W + vbyte]! |= vmask;
            }
          };
    let values: (from: number, to: number) => void;
    if (f.kind === 'bool') {
      const v = d.values as Uint8Array;
      values = (from, to) => {
        for (let r = from; r < to; r++) {
          const p = off + r;
          bytes[r * W + f.offset] = (v[p >> 3]! >> (p & 7)) & 1;
        }
      };
    } else if (f.kind === 'string') {
      values = stringFiller(d.valueOffsets as Int32Array, d.values as Uint8Array, bytes, words, W, f.offset);
    } else {
      const raw = d.values as unknown as ArrayBufferView;
      const src = new Uint8Array(raw.buffer, raw.byteOffset, this.rows * f.bytes);
      if (f.bytes >= 4 && src.byteOffset % 4 === 0) {
        // word copies: the source is word-aligned (Arrow buffers are), the field is too
        const sw = new Int32Array(src.buffer, src.byteOffset, (this.rows * f.bytes) >> 2);
        values = f.bytes === 4 ? fill4(sw, words, W >> 2, f.offset >> 2) : f.bytes === 8 ? fill8(sw, words, W >> 2, f.offset >> 2) : fillWords(sw, words, W >> 2, f.offset >> 2, f.bytes >> 2);
      } else {
        values = (from, to) => {
          for (let r = from; r < to; r++) for (let j = 0; j < f.bytes; j++) bytes[r * W + f.offset + j] = src[r * f.bytes + j]!;
        };
      }
    }
    return nulls === null
      ? values
      : (from, to) => {
          nulls(from, to);
          values(from, to);
        };
  }

  /**
   * Columns `columns` (each `covers`ed) of rows `local[0..count)` (-1: NULL), as Arrow data of the
   * source's types, in a chunked pass over the rows (module comment).
   */
  gather(columns: readonly number[], local: Int32Array, count: number, guard?: AllocationGuard): Data[] {
    const fields = columns.map((c) => this.#byField.get(c)!);
    let padded = false;
    for (let k = 0; k < count && !padded; k++) padded = local[k]! < 0;
    const source = this.#source.data.children;
    const outs = fields.map((f) => new FieldOutput(f, source[f.column]!, count, padded, guard));
    for (let from = 0; from < count; from += CHUNK) {
      const to = Math.min(count, from + CHUNK);
      for (let i = 0; i < fields.length; i++) this.#gatherChunk(fields[i]!, outs[i]!, source[fields[i]!.column]!, local, from, to);
    }
    return outs.map((o) => o.finish());
  }

  #gatherChunk(f: RowField, out: FieldOutput, src: Data, local: Int32Array, from: number, to: number): void {
    const W = this.width;
    const bytes = this.bytes;
    if (out.validity !== null) {
      const vbyte = this.validityOffset + (f.bit >> 3);
      const vmask = 1 << (f.bit & 7);
      const v = out.validity;
      for (let k = from; k < to; k++) {
        const l = local[k]!;
        if (l >= 0 && (bytes[l * W + vbyte]! & vmask) === 0) v[k >> 3]! |= 1 << (k & 7);
        else out.nulls++;
      }
    }
    switch (f.kind) {
      case 'fixed':
        if (f.bytes === 4) gather4(this.#words, W >> 2, f.offset >> 2, out.words!, local, from, to);
        else if (f.bytes === 8) gather8(this.#words, W >> 2, f.offset >> 2, out.words!, local, from, to);
        else if (f.bytes === 16) gather16(this.#words, W >> 2, f.offset >> 2, out.words!, local, from, to);
        else if (f.bytes === 2) gather2(this.#halves, W >> 1, f.offset >> 1, out.halves!, local, from, to);
        else gather1(bytes, W, f.offset, out.bytes!, local, from, to);
        break;
      case 'bool': {
        const o = out.bytes!;
        for (let k = from; k < to; k++) {
          const l = local[k]!;
          if (l >= 0 && bytes[l * W + f.offset] === 1) o[k >> 3]! |= 1 << (k & 7);
        }
        break;
      }
      case 'string':
        out.appendStrings(bytes, this.#words, W, f.offset, src.values as Uint8Array, local, from, to);
        break;
    }
  }
}

function fill4(src: Int32Array, words: Int32Array, W4: number, o4: number): (from: number, to: number) => void {
  return (from, to) => {
    for (let r = from; r < to; r++) words[r * W4 + o4] = src[r]!;
  };
}

function fill8(src: Int32Array, words: Int32Array, W4: number, o4: number): (from: number, to: number) => void {
  return (from, to) => {
    for (let r = from; r < to; r++) {
      const b = r * W4 + o4;
      words[b] = src[2 * r]!;
      words[b + 1] = src[2 * r + 1]!;
    }
  };
}

function fillWords(src: Int32Array, words: Int32Array, W4: number, o4: number, n: number): (from: number, to: number) => void {
  return (from, to) => {
    for (let r = from; r < to; r++) for (let j = 0; j < n; j++) words[r * W4 + o4 + j] = src[r * n + j]!;
  };
}

/** Strings as 16-byte views in the row: the length, then the bytes (at most 12) or their source offset. */
function stringFiller(offs: Int32Array, vals: Uint8Array, bytes: Uint8Array, words: Int32Array, W: number, offset: number): (from: number, to: number) => void {
  const W4 = W >> 2;
  const o4 = offset >> 2;
  return (from, to) => {
    for (let r = from; r < to; r++) {
      const s = offs[r]!;
      const n = offs[r + 1]! - s;
      words[r * W4 + o4] = n;
      if (n <= INLINE) {
        const at = r * W + offset + 4;
        for (let j = 0; j < n; j++) bytes[at + j] = vals[s + j]!;
      } else words[r * W4 + o4 + 1] = s;
    }
  };
}

function gather4(words: Int32Array, W4: number, o4: number, out: Int32Array, local: Int32Array, from: number, to: number): void {
  for (let k = from; k < to; k++) {
    const l = local[k]!;
    if (l >= 0) out[k] = words[l * W4 + o4]!;
  }
}

function gather8(words: Int32Array, W4: number, o4: number, out: Int32Array, local: Int32Array, from: number, to: number): void {
  for (let k = from; k < to; k++) {
    const l = local[k]!;
    if (l >= 0) {
      const b = l * W4 + o4;
      out[2 * k] = words[b]!;
      out[2 * k + 1] = words[b + 1]!;
    }
  }
}

function gather16(words: Int32Array, W4: number, o4: number, out: Int32Array, local: Int32Array, from: number, to: number): void {
  for (let k = from; k < to; k++) {
    const l = local[k]!;
    if (l >= 0) for (let j = 0; j < 4; j++) out[4 * k + j] = words[l * W4 + o4 + j]!;
  }
}

function gather2(halves: Uint16Array, W2: number, o2: number, out: Uint16Array, local: Int32Array, from: number, to: number): void {
  for (let k = from; k < to; k++) {
    const l = local[k]!;
    if (l >= 0) out[k] = halves[l * W2 + o2]!;
  }
}

function gather1(bytes: Uint8Array, W: number, o: number, out: Uint8Array, local: Int32Array, from: number, to: number): void {
  for (let k = from; k < to; k++) {
    const l = local[k]!;
    if (l >= 0) out[k] = bytes[l * W + o]!;
  }
}

/** One output column under construction. */
class FieldOutput {
  readonly validity: Uint8Array | null;
  nulls = 0;
  readonly buffer: ArrayBuffer | null = null;
  readonly words: Int32Array | null = null;
  readonly halves: Uint16Array | null = null;
  readonly bytes: Uint8Array | null = null;
  readonly #offsets: Int32Array | null = null;
  #data: Uint8Array = new Uint8Array(0);
  #pos = 0;

  constructor(
    readonly field: RowField,
    readonly src: Data,
    readonly count: number,
    padded: boolean,
    readonly guard: AllocationGuard | undefined,
  ) {
    this.validity = padded || src.nullCount > 0 ? new Uint8Array(((count + 63) >>> 6) << 3) : null;
    if (field.kind === 'fixed') {
      this.buffer = new ArrayBuffer(Math.ceil((count * field.bytes) / 8) * 8);
      if (field.bytes >= 4) this.words = new Int32Array(this.buffer);
      else if (field.bytes === 2) this.halves = new Uint16Array(this.buffer);
      else this.bytes = new Uint8Array(this.buffer);
    } else if (field.kind === 'bool') {
      this.bytes = new Uint8Array(((count + 63) >>> 6) << 3);
    } else {
      this.#offsets = new Int32Array(count + 1);
      // the source's mean value length, with room: grown by doubling if the rows are longer
      const offs = src.valueOffsets as Int32Array;
      const mean = src.length > 0 ? (offs[src.length]! - offs[0]!) / src.length : 0;
      this.#data = this.#allocate(Math.ceil(count * mean * 1.25) + 64);
    }
  }

  #allocate(bytes: number): Uint8Array {
    this.guard?.ensure(bytes, `gather of column '${this.src.type}'`);
    return new Uint8Array(bytes);
  }

  appendStrings(rowBytes: Uint8Array, words: Int32Array, W: number, offset: number, srcValues: Uint8Array, local: Int32Array, from: number, to: number): void {
    const offs = this.#offsets!;
    const W4 = W >> 2;
    const o4 = offset >> 2;
    let pos = this.#pos;
    let data = this.#data;
    for (let k = from; k < to; k++) {
      const l = local[k]!;
      if (l >= 0) {
        const w = l * W4 + o4;
        const n = words[w]!;
        if (pos + n > data.length) {
          const grown = this.#allocate(Math.max(2 * data.length, pos + n));
          grown.set(data.subarray(0, pos));
          data = grown;
        }
        if (n <= INLINE) copyBytes(rowBytes, l * W + offset + 4, n, data, pos);
        else copyBytes(srcValues, words[w + 1]!, n, data, pos);
        pos += n;
      }
      offs[k + 1] = pos;
    }
    this.#pos = pos;
    this.#data = data;
  }

  finish(): Data {
    const type = this.src.type as DataType;
    const validity = this.validity;
    const nullCount = validity === null ? 0 : this.nulls;
    const base = { type, length: this.count, nullCount, nullBitmap: nullCount > 0 ? validity : null };
    if (this.field.kind === 'string') return makeData({ ...base, valueOffsets: this.#offsets!, data: this.#data.subarray(0, this.#pos) } as never);
    if (this.field.kind === 'bool') return makeData({ ...base, data: this.bytes! } as never);
    const Ctor = (type as DataType & { ArrayType: new (b: ArrayBuffer) => ArrayBufferView }).ArrayType;
    return makeData({ ...base, data: new Ctor(this.buffer!) } as never);
  }
}
