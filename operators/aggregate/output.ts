/**
 * Arrow columns from the aggregate's per-group state arrays: one output batch's range of groups
 * [start, start + count) becomes one `Data`, built from typed arrays in one pass per buffer.
 *
 * min/max states hold their values in the layouts values.ts reads them in, so building a column is
 * a copy back into the input's own Arrow type: numbers (one double per group, exact) narrow to
 * the integer, float, Date32 or Decimal32 array they came from; words (2 or 4 per group) are the
 * Int64/UInt64/timestamp/Date64/Decimal buffer verbatim; bytes are a range of an arena per group.
 * A group whose state saw no value is NULL (its validity bit is clear and its slot zero).
 */
import { Decimal, Float64, Int64, makeData, Type } from 'apache-arrow';
import type { Data, DataType, FixedSizeBinary, Float, Int } from 'apache-arrow';
import { UnsupportedTypeError } from '../../core/errors.ts';

const TWO32 = 4294967296;

/** makeData's overloads need a concrete type; the builders here are generic over it. */
const make = makeData as unknown as (props: Record<string, unknown>) => Data;

export interface Validity {
  readonly nullBitmap: Uint8Array | undefined;
  readonly nullCount: number;
}

/** Validity of groups [start, start + count) where `valid[g] !== 0` (any numeric array). */
export function validityOf(valid: ArrayLike<number>, start: number, count: number): Validity {
  const bitmap = new Uint8Array((count + 7) >> 3);
  let nulls = 0;
  for (let k = 0; k < count; k++) {
    if (valid[start + k] !== 0) bitmap[k >> 3]! |= 1 << (k & 7);
    else nulls++;
  }
  return nulls === 0 ? { nullBitmap: undefined, nullCount: 0 } : { nullBitmap: bitmap, nullCount: nulls };
}

/** BIGINT counts (exact doubles < 2^53) as an Int64 column without NULLs. */
export function countData(counts: Float64Array, start: number, count: number): Data {
  const words = new Int32Array(2 * count);
  for (let k = 0; k < count; k++) {
    const c = counts[start + k]!;
    words[2 * k] = c % TWO32;
    words[2 * k + 1] = Math.floor(c / TWO32);
  }
  return make({ type: new Int64(), length: count, nullCount: 0, data: new BigInt64Array(words.buffer) });
}

/** A DOUBLE column of `values` (one per output row; NULL rows are zeroed). */
export function doubleColumn(values: Float64Array, v: Validity): Data {
  if (v.nullBitmap !== undefined) {
    const bm = v.nullBitmap;
    for (let k = 0; k < values.length; k++) if (((bm[k >> 3]! >> (k & 7)) & 1) === 0) values[k] = 0;
  }
  return make({ type: new Float64(), length: values.length, ...v, data: values });
}

/** A DECIMAL(38, scale) column from four words per row (already range-ordered, NULLs zeroed). */
export function decimal128Data(words: Uint32Array, scale: number, v: Validity, count: number): Data {
  return make({ type: new Decimal(scale, 38, 128), length: count, ...v, data: words });
}

/**
 * A min/max column of `type` (the input's value type) from one double per group: the integers
 * up to 32 bits, Float32/64, Date32, Decimal32 (unscaled), booleans (0/1).
 */
export function numberValueData(type: DataType, values: Float64Array, has: Uint8Array, start: number, count: number, name: string): Data {
  const v = validityOf(has, start, count);
  const src = values.subarray(start, start + count);
  switch (type.typeId) {
    case Type.Int: {
      const t = type as Int;
      const Ctor = t.isSigned ? (t.bitWidth === 8 ? Int8Array : t.bitWidth === 16 ? Int16Array : Int32Array) : t.bitWidth === 8 ? Uint8Array : t.bitWidth === 16 ? Uint16Array : Uint32Array;
      return make({ type, length: count, ...v, data: Ctor.from(src) });
    }
    case Type.Float: {
      const p = (type as Float).precision;
      if (p === 2) return make({ type, length: count, ...v, data: src.slice() });
      if (p === 1) return make({ type, length: count, ...v, data: Float32Array.from(src) });
      throw new UnsupportedTypeError(name, String(type), 'by min/max (half floats)');
    }
    case Type.Date:
    case Type.Decimal:
      return make({ type, length: count, ...v, data: Int32Array.from(src) });
    case Type.Bool: {
      const bits = new Uint8Array((count + 7) >> 3);
      for (let k = 0; k < count; k++) if (src[k] !== 0) bits[k >> 3]! |= 1 << (k & 7);
      return make({ type, length: count, ...v, data: bits });
    }
    default:
      throw new UnsupportedTypeError(name, String(type), 'by min/max');
  }
}

/**
 * A min/max column of `type` from `width` words per group: Int64/UInt64, timestamps, Date64 and
 * Decimal64 (2 words), Decimal128 (4) — the Arrow layout itself, copied.
 */
export function wordValueData(type: DataType, width: number, words: Int32Array, has: Uint8Array, start: number, count: number, name: string): Data {
  const v = validityOf(has, start, count);
  const out = words.slice(start * width, (start + count) * width);
  switch (type.typeId) {
    case Type.Int:
      return make({ type, length: count, ...v, data: (type as Int).isSigned ? new BigInt64Array(out.buffer) : new BigUint64Array(out.buffer) });
    case Type.Date:
    case Type.Timestamp:
      return make({ type, length: count, ...v, data: new BigInt64Array(out.buffer) });
    case Type.Decimal:
      return make({ type, length: count, ...v, data: new Uint32Array(out.buffer) });
    default:
      throw new UnsupportedTypeError(name, String(type), 'by min/max');
  }
}

/**
 * A min/max column of a bytes type from per-group ranges of `arena`: Utf8/Binary (32-bit
 * offsets), LargeUtf8/LargeBinary (64-bit), FixedSizeBinary; the view types come out as
 * Utf8/Binary (see `minMaxOutputType`).
 */
export function bytesValueData(type: DataType, arena: Uint8Array, starts: Int32Array, lens: Int32Array, has: Uint8Array, start: number, count: number, name: string): Data {
  const v = validityOf(has, start, count);
  let total = 0;
  for (let k = 0; k < count; k++) if (has[start + k] !== 0) total += lens[start + k]!;
  if (type.typeId === Type.FixedSizeBinary) {
    const w = (type as FixedSizeBinary).byteWidth;
    const out = new Uint8Array(count * w);
    for (let k = 0; k < count; k++) if (has[start + k] !== 0) out.set(arena.subarray(starts[start + k]!, starts[start + k]! + w), k * w);
    return make({ type, length: count, ...v, data: out });
  }
  if (total > 0x7fffffff && (type.typeId === Type.Utf8 || type.typeId === Type.Binary)) {
    throw new UnsupportedTypeError(name, String(type), `by min/max: ${total} bytes in one output batch`);
  }
  const data = new Uint8Array(total);
  const offsets = new Int32Array(count + 1);
  let pos = 0;
  for (let k = 0; k < count; k++) {
    const g = start + k;
    if (has[g] !== 0) {
      const n = lens[g]!;
      data.set(arena.subarray(starts[g]!, starts[g]! + n), pos);
      pos += n;
    }
    offsets[k + 1] = pos;
  }
  if (type.typeId === Type.LargeUtf8 || type.typeId === Type.LargeBinary) {
    const wide = new Int32Array(2 * (count + 1));
    for (let k = 0; k <= count; k++) wide[2 * k] = offsets[k]!;
    return make({ type, length: count, ...v, valueOffsets: new BigInt64Array(wide.buffer), data });
  }
  return make({ type, length: count, ...v, valueOffsets: offsets, data });
}
