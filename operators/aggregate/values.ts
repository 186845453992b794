/**
 * The value columns aggregates read, one batch at a time, as typed arrays straight from the Arrow
 * buffers — no per-batch copy where Arrow's layout already is the one the states loop over.
 *
 * Group keys go through core/keys/normalize.ts (every key type widened to one comparable
 * representation: that is what hashing and equality need). Aggregate inputs need less: a sum of
 * an Int32 column only has to read the Int32Array, and normalising it first (widening every value
 * to two words in a fresh array) cost more than the sum itself (measured ~17 ns a row against a
 * few). So an input column is read in one of three layouts, fixed by its type at bind time:
 *  - `numbers`: one JS number per row, exact — Int8..Int32, UInt8..UInt32, Float32/Float64,
 *    Date32 (days), Decimal32 (unscaled), and BOOLEAN as 0/1 (decoded from its bits), Float16
 *    decoded to doubles. The Arrow values array itself when there is one;
 *  - `words`: `width` little-endian 32-bit words per row, viewed over the Arrow buffer — Int64
 *    and UInt64 (2, `unsigned` for the latter), Date64 and timestamps (2, signed), Decimal64 (2),
 *    Decimal128 (4);
 *  - `bytes`: strings and binary as core/keys' bytes column (zero-copy for Utf8/Binary).
 * A dictionary-encoded fixed-width column is decoded (entries gathered by code). NULL rows
 * are a byte mask (`nulls[r] = 1`), absent when the batch has none; their values are garbage
 * and never read. Arrow JS hands a batch column's `values` already starting at its row 0; only
 * validity and boolean bitmaps carry a bit offset.
 */
import { Type } from 'apache-arrow';
import { isByteString } from '../../core/arrow/type-families.ts';
import type { Data, DataType, Decimal, Dictionary, Float, Int, Vector } from 'apache-arrow';
import { halfToDouble } from '../../core/arrow/half-float.ts';
import { UnsupportedTypeError } from '../../core/errors.ts';
import { normalizeKeyColumn } from '../../core/keys/normalize.ts';
import type { BytesKeyColumn, KeyKind } from '../../core/keys/types.ts';

export type ValueLayout =
  | { readonly layout: 'numbers' }
  | { readonly layout: 'words'; readonly width: 2 | 4; readonly unsigned: boolean }
  | { readonly layout: 'bytes'; readonly kind: KeyKind }
  /** The Arrow Null type: every row NULL. */
  | { readonly layout: 'nulls' };

export interface ValueView {
  readonly length: number;
  readonly numbers: ArrayLike<number> | null;
  readonly words: Int32Array | null;
  readonly bytes: BytesKeyColumn | null;
  /** 1 = NULL; null when no row is. */
  readonly nulls: Uint8Array | null;
}

/** How a column of `type` is read; null when it has no numeric, temporal or bytes layout. */
export function valueLayout(type: DataType, kind: KeyKind | null): ValueLayout | null {
  if (isByteString(type.typeId) || type.typeId === Type.FixedSizeBinary) return kind === null ? null : { layout: 'bytes', kind };
  switch (type.typeId) {
    case Type.Dictionary:
      return valueLayout((type as Dictionary).dictionary, kind);
    case Type.Null:
      return { layout: 'nulls' };
    case Type.Bool:
      return { layout: 'numbers' };
    case Type.Int:
      return (type as Int).bitWidth <= 32 ? { layout: 'numbers' } : { layout: 'words', width: 2, unsigned: !(type as Int).isSigned };
    case Type.Float:
      return { layout: 'numbers' };
    case Type.Decimal: {
      const bits = (type as Decimal).bitWidth;
      if (bits === 32) return { layout: 'numbers' };
      if (bits === 64) return { layout: 'words', width: 2, unsigned: false };
      if (bits === 128) return { layout: 'words', width: 4, unsigned: false };
      return null;
    }
    case Type.Date:
      return (type as unknown as { unit: number }).unit === 0 ? { layout: 'numbers' } : { layout: 'words', width: 2, unsigned: false };
    case Type.Timestamp:
      return { layout: 'words', width: 2, unsigned: false };
    default:
      return null;
  }
}

/** One batch's column (`v` has a single chunk) in `layout`. */
export function readValues(v: Vector, layout: ValueLayout, name: string): ValueView {
  if (layout.layout === 'bytes') {
    const bytes = normalizeKeyColumn(v, layout.kind, name) as BytesKeyColumn;
    return { length: v.length, numbers: null, words: null, bytes, nulls: bytes.nulls };
  }
  const d = v.data[0]!;
  const n = d.length;
  if (layout.layout === 'nulls') return { length: n, numbers: new Uint8Array(n), words: null, bytes: null, nulls: n === 0 ? null : new Uint8Array(n).fill(1) };
  const nulls = nullBytes(d);
  // the Data holding the values, and the code of each row into it for a dictionary
  const isDict = d.typeId === Type.Dictionary;
  const src = isDict ? d.dictionary!.data[0]! : d;
  const codes = isDict ? codesOf(d) : null;
  if (layout.layout === 'words') {
    const w = layout.width;
    const vals = src.values as ArrayBufferView;
    const words = new Int32Array(vals.buffer, vals.byteOffset, src.length * w);
    if (codes === null) return { length: n, numbers: null, words, bytes: null, nulls };
    const out = new Int32Array(n * w);
    for (let i = 0; i < n; i++) {
      if (nulls !== null && nulls[i] === 1) continue;
      const c = codes[i]!;
      for (let j = 0; j < w; j++) out[i * w + j] = words[c * w + j]!;
    }
    return { length: n, numbers: null, words: out, bytes: null, nulls };
  }
  return { length: n, numbers: numbersOf(src, codes, n, nulls, name), words: null, bytes: null, nulls };
}

/** The values of `src` as numbers, row i being entry `codes[i]` (or i). */
function numbersOf(src: Data, codes: ArrayLike<number> | null, n: number, nulls: Uint8Array | null, name: string): ArrayLike<number> {
  const at = (i: number): number => (codes === null ? i : nulls !== null && nulls[i] === 1 ? 0 : codes[i]!);
  switch (src.typeId) {
    case Type.Bool: {
      const bits = src.values as Uint8Array;
      const out = new Uint8Array(n);
      const off = src.offset;
      for (let i = 0; i < n; i++) {
        const p = off + at(i);
        out[i] = (bits[p >> 3]! >> (p & 7)) & 1;
      }
      return out;
    }
    case Type.Float:
      if ((src.type as Float).precision === 0) {
        const half = src.values as Uint16Array;
        const out = new Float64Array(n);
        for (let i = 0; i < n; i++) out[i] = halfToDouble(half[at(i)]!);
        return out;
      }
      break;
    case Type.Decimal:
    case Type.Int:
    case Type.Date:
      break;
    default:
      throw new UnsupportedTypeError(name, String(src.type), 'as an aggregate input');
  }
  const vals = src.values as ArrayBufferView & ArrayLike<number>;
  const plain = src.typeId === Type.Decimal ? new Int32Array(vals.buffer, vals.byteOffset, src.length) : vals;
  if (codes === null) return plain;
  const out = new Float64Array(n); // holds every 32-bit integer and every float exactly
  for (let i = 0; i < n; i++) out[i] = plain[at(i)]!;
  return out;
}

/** 1 where row i is NULL (validity bitmap at `d.offset`), or null when none is. */
export function nullBytes(d: Data): Uint8Array | null {
  const n = d.length;
  if (d.typeId === Type.Null) return n === 0 ? null : new Uint8Array(n).fill(1);
  const bm = d.nullBitmap;
  let mask: Uint8Array | null = null;
  if (bm && bm.length > 0 && d.nullCount !== 0) {
    mask = new Uint8Array(n);
    const off = d.offset;
    for (let i = 0; i < n; i++) {
      const p = off + i;
      mask[i] = ((bm[p >> 3]! >> (p & 7)) & 1) ^ 1;
    }
  }
  if (d.typeId === Type.Dictionary) {
    // rows pointing at a NULL dictionary entry are NULL too
    const dict = d.dictionary!.data[0];
    if (d.dictionary!.data.length !== 1) throw new UnsupportedTypeError('dictionary', String(d.type), 'with a chunked dictionary');
    const entryNulls = dict === undefined ? null : nullBytes(dict);
    if (entryNulls !== null) {
      const codes = codesOf(d);
      for (let i = 0; i < n; i++) if (entryNulls[codes[i]!] === 1) (mask ??= new Uint8Array(n))[i] = 1;
    }
  }
  return mask;
}

/** Dictionary indices as 32-bit codes (64-bit ones read as their low word). */
function codesOf(d: Data): ArrayLike<number> {
  const bits: number = (d.type as Dictionary).indices.bitWidth;
  if (bits !== 64) return d.values as ArrayLike<number>;
  const v = d.values as BigInt64Array;
  const words = new Int32Array(v.buffer, v.byteOffset, 2 * d.length);
  const out = new Int32Array(d.length);
  for (let i = 0; i < d.length; i++) out[i] = words[2 * i]!;
  return out;
}
