/**
 * String and binary columns as the evaluator compares them: int32 offsets into one byte array
 * plus, for dictionaries, which entries are NULL. Utf8/Binary are used as they are (zero-copy);
 * LargeUtf8/LargeBinary offsets are narrowed and Utf8View/BinaryView values copied out once per
 * Data object, and a dictionary of several chunks is concatenated once per dictionary (both
 * cached weakly, so a batch's columns are normalised once however many nodes read them). A large
 * column beyond 2 GiB of bytes in one batch is an UnsupportedTypeError.
 */
import { type Data, type Vector, Type } from 'apache-arrow';
import { appendViewBytes, viewBytesLength } from '../arrow/views.ts';
import { UnsupportedTypeError } from '../errors.ts';
import { int32View } from './column-readers.ts';

/** Variable-width values as int32 offsets into one byte array (entry e = bytes[offsets[e] .. offsets[e+1])). */
export interface ByteSource {
  readonly offsets: Int32Array;
  readonly bytes: Uint8Array;
  /** Per-entry NULL mask (only for dictionaries whose values hold NULLs). */
  readonly entryNulls: Uint8Array | null;
}

const sourceCache = new WeakMap<object, ByteSource>();

/** Entries of a Utf8, Binary, LargeUtf8/LargeBinary or view column as a ByteSource (zero-copy for Utf8/Binary). */
export function byteSource(data: Data): ByteSource {
  const typeId = data.type.typeId;
  if (typeId === Type.Utf8 || typeId === Type.Binary) {
    return { offsets: data.valueOffsets as Int32Array, bytes: (data.values as Uint8Array) ?? new Uint8Array(0), entryNulls: null };
  }
  const cached = sourceCache.get(data);
  if (cached !== undefined) return cached;
  let src: ByteSource;
  if (typeId === Type.LargeUtf8 || typeId === Type.LargeBinary) {
    const w = int32View(data.valueOffsets as ArrayBufferView);
    const count = w.length >> 1;
    const offsets = new Int32Array(count);
    for (let e = 0; e < count; e++) {
      if (w[2 * e + 1] !== 0 || w[2 * e]! < 0) {
        throw new UnsupportedTypeError('(large string column)', String(data.type), 'in filters beyond 2 GiB of bytes per batch');
      }
      offsets[e] = w[2 * e]!;
    }
    src = { offsets, bytes: (data.values as Uint8Array) ?? new Uint8Array(0), entryNulls: null };
  } else if (typeId === Type.Utf8View || typeId === Type.BinaryView) {
    src = materializeViews(data);
  } else {
    throw new Error(`bug: no byte source for ${String(data.type)}`);
  }
  sourceCache.set(data, src);
  return src;
}

/** Copy a view column (16-byte views: inline <= 12 bytes, else buffer index + offset) into offsets + bytes. */
function materializeViews(data: Data): ByteSource {
  const offsets = new Int32Array(data.length + 1);
  const bytes = new Uint8Array(viewBytesLength(data));
  appendViewBytes(data, bytes, offsets, 0, 0);
  return { offsets, bytes, entryNulls: null };
}

/** A dictionary's values as one ByteSource (concatenating chunks, recording NULL entries). */
export function dictionarySource(dict: Vector): ByteSource {
  const chunks = dict.data;
  if (chunks.length === 1 && chunks[0]!.nullCount === 0) return byteSource(chunks[0]!);
  const cached = sourceCache.get(dict);
  if (cached !== undefined) return cached;
  let count = 0;
  let total = 0;
  const parts = chunks.map((c) => {
    const s = byteSource(c);
    count += c.length;
    total += s.offsets[c.length]! - s.offsets[0]!;
    return s;
  });
  const offsets = new Int32Array(count + 1);
  const bytes = new Uint8Array(total);
  const entryNulls = new Uint8Array(count);
  let e = 0;
  let pos = 0;
  for (let c = 0; c < chunks.length; c++) {
    const data = chunks[c]!;
    const s = parts[c]!;
    const start = s.offsets[0]!;
    const end = s.offsets[data.length]!;
    bytes.set(s.bytes.subarray(start, end), pos);
    const bm = data.nullCount > 0 ? data.nullBitmap : undefined;
    for (let i = 0; i < data.length; i++, e++) {
      offsets[e] = pos + s.offsets[i]! - start;
      if (bm !== undefined) {
        const p = data.offset + i;
        entryNulls[e] = ((bm[p >> 3]! >> (p & 7)) & 1) ^ 1;
      }
    }
    pos += end - start;
  }
  offsets[count] = pos;
  const src = { offsets, bytes, entryNulls };
  sourceCache.set(dict, src);
  return src;
}

/**
 * Copy bytes [start, end) of `src` to `dst` at `at`: a plain loop for short values (no subarray
 * view object per value), `set` for long ones.
 */
export function copyByteRange(src: Uint8Array, start: number, end: number, dst: Uint8Array, at: number): void {
  if (end - start > 32) {
    dst.set(src.subarray(start, end), at);
    return;
  }
  for (let i = start; i < end; i++) dst[at++] = src[i]!;
}
