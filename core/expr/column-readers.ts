/**
 * Column readers: gather one column's values at the pair batch's row indices into the evaluator's
 * typed vectors, by the column's layout (column-types.ts) — floats as doubles (Float16 decoded,
 * decimals above 38 digits approximated), integers/decimals/temporals as an ExactVec whose words
 * are filled only when some gathered value is at or beyond 2^53 (64-bit columns then read them in
 * place), booleans as three-valued bytes, NULLs as a byte mask or `null` when the column has none.
 * Row indices are trusted (not bounds-checked: this is the hot path); a decimal wider than 128 bits
 * is an ExpressionError.
 */
import { type Data, type Decimal } from 'apache-arrow';
import { halfToDouble } from '../arrow/half-float.ts';
import { ExpressionError } from '../errors.ts';
import type { Layout } from './column-types.ts';
import { type Int64Source, toDouble, TWO32, TWO53 } from './exact.ts';
import { DENSE_ROWS } from './node-base.ts';

export function int32View(a: ArrayBufferView): Int32Array {
  return new Int32Array(a.buffer, a.byteOffset, a.byteLength >> 2);
}
function uint32View(a: ArrayBufferView): Uint32Array {
  return new Uint32Array(a.buffer, a.byteOffset, a.byteLength >> 2);
}

/** NULL mask of `data` at `rows` (1 = NULL) into `buf`, or `null` when the column has no NULLs. */
export function gatherNulls(data: Data, rows: Int32Array, n: number, buf: Uint8Array): Uint8Array | null {
  const bm = data.nullBitmap;
  if (bm === undefined || bm.length === 0 || data.nullCount === 0) return null;
  const off = data.offset;
  for (let k = 0; k < n; k++) {
    const p = off + rows[k]!;
    buf[k] = ((bm[p >> 3]! >> (p & 7)) & 1) ^ 1;
  }
  return buf;
}

/** FLOAT/DOUBLE columns (and decimals above 38 digits, approximately). */
export function gatherFloats(data: Data, layout: Layout, rows: Int32Array, n: number, out: Float64Array): void {
  switch (layout) {
    case 'float': {
      const v = data.values as Float32Array | Float64Array;
      if (DENSE_ROWS.has(rows)) out.set(v.subarray(0, n));
      else for (let k = 0; k < n; k++) out[k] = v[rows[k]!]!;
      return;
    }
    case 'half': {
      const v = data.values as Uint16Array;
      for (let k = 0; k < n; k++) out[k] = halfToDouble(v[rows[k]!]!);
      return;
    }
    case 'decimal-approx': {
      const t = data.type as Decimal;
      const w = uint32View(data.values as ArrayBufferView);
      const stride = t.bitWidth >> 5;
      const scale = 10 ** t.scale;
      for (let k = 0; k < n; k++) {
        const base = rows[k]! * stride;
        let v = w[base + stride - 1]! | 0; // most significant word is signed (two's complement)
        for (let j = stride - 2; j >= 0; j--) v = v * TWO32 + w[base + j]!;
        out[k] = v / scale;
      }
      return;
    }
    default:
      throw new Error(`bug: no float reader for layout ${layout}`);
  }
}

const ROW = new Uint32Array(4);

/**
 * Integer, decimal and temporal columns into an ExactVec: `f` always, words (from `words()`) only
 * when some gathered value is at or beyond 2^53. Returns the words or null.
 */
export function gatherExact(
  data: Data,
  layout: Layout,
  rows: Int32Array,
  n: number,
  f: Float64Array,
  words: () => Uint32Array,
): Uint32Array | Int64Source | null {
  switch (layout) {
    case 'small-int': {
      const v = data.values as Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array;
      if (DENSE_ROWS.has(rows)) f.set(v.subarray(0, n));
      else for (let k = 0; k < n; k++) f[k] = v[rows[k]!]!;
      return null;
    }
    case 'i64':
    case 'u64': {
      // f (hi * 2^32 + lo rounds once: the nearest double); the words stay in the column, read
      // in place through `src` when some row is at or beyond 2^53
      const src = int32View(data.values as ArrayBufferView);
      const signed = layout === 'i64';
      const big = signed ? gatherI64(src, rows, n, f) : gatherU64(src, rows, n, f);
      return big ? { words: src, rows, signed } : null;
    }
    case 'decimal': {
      const t = data.type as Decimal;
      const src = uint32View(data.values as ArrayBufferView);
      const stride = t.bitWidth >> 5;
      let big = false;
      if (stride === 4) {
        for (let k = 0; k < n; k++) {
          const base = rows[k]! << 2;
          const hi = src[base + 1]! | 0;
          const sign = hi < 0 ? 0xffffffff : 0;
          if (src[base + 2] === sign && src[base + 3] === sign) {
            const d = hi * TWO32 + src[base]!;
            f[k] = d;
            if (!(d > -TWO53 && d < TWO53)) big = true;
          } else {
            f[k] = Infinity; // at or beyond 2^64: the words decide, below
            big = true;
          }
        }
      } else {
        for (let k = 0; k < n; k++) {
          decimalWords(src, rows[k]! * stride, stride, ROW);
          const d = toDouble(ROW);
          f[k] = d;
          if (!(d > -TWO53 && d < TWO53)) big = true;
        }
      }
      if (!big) return null;
      const w = words();
      for (let k = 0; k < n; k++) {
        const d = f[k]!;
        if (d > -TWO53 && d < TWO53) continue;
        decimalWords(src, rows[k]! * stride, stride, ROW);
        w.set(ROW, 4 * k);
        f[k] = toDouble(ROW);
      }
      return w;
    }
    default:
      throw new Error(`bug: no exact reader for layout ${layout}`);
  }
}

/**
 * f[k] = the nearest double of signed 64-bit row rows[k]; returns whether some value may be at or
 * beyond 2^53 — decided on the high word alone (|high| < 2^21 - 1 is below 2^53; a value just
 * under the limit may be reported wide too, which only costs the wide path).
 */
function gatherI64(src: Int32Array, rows: Int32Array, n: number, f: Float64Array): boolean {
  let big = false;
  for (let k = 0; k < n; k++) {
    const r = rows[k]! << 1;
    const hi = src[r + 1]!;
    f[k] = hi * TWO32 + (src[r]! >>> 0);
    if (hi > 0x1ffffe || hi < -0x1ffffe) big = true;
  }
  return big;
}

function gatherU64(src: Int32Array, rows: Int32Array, n: number, f: Float64Array): boolean {
  let big = false;
  for (let k = 0; k < n; k++) {
    const r = rows[k]! << 1;
    const hi = src[r + 1]!;
    f[k] = (hi >>> 0) * TWO32 + (src[r]! >>> 0);
    if (hi > 0x1ffffe || hi < 0) big = true; // hi < 0: at or beyond 2^63
  }
  return big;
}

/** One decimal value of `stride` words at `base` as four words (sign-extended; beyond 128 bits is an error). */
function decimalWords(src: Uint32Array, base: number, stride: number, out: Uint32Array): void {
  for (let j = 0; j < 4; j++) out[j] = j < stride ? src[base + j]! : 0;
  if (stride < 4) {
    const sign = (src[base + stride - 1]! | 0) < 0 ? 0xffffffff : 0;
    for (let j = stride; j < 4; j++) out[j] = sign;
  } else if (stride > 4) {
    const sign = (src[base + 3]! | 0) < 0 ? 0xffffffff : 0;
    for (let j = 4; j < stride; j++) {
      if (src[base + j] !== sign) throw new ExpressionError('a decimal value does not fit 128 bits (its precision is at most 38 digits)');
    }
  }
}

export function gatherBools(data: Data, rows: Int32Array, n: number, out: Uint8Array, nulls: Uint8Array | null): void {
  const bits = data.values as Uint8Array;
  const off = data.offset;
  for (let k = 0; k < n; k++) {
    const p = off + rows[k]!;
    out[k] = (bits[p >> 3]! >> (p & 7)) & 1;
  }
  if (nulls !== null) for (let k = 0; k < n; k++) if (nulls[k]) out[k] = 2;
}
