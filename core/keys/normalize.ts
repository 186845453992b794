/**
 * Normalisation: any Arrow key vector (several chunks, sliced data with a non-zero offset,
 * validity bitmaps at a bit offset, dictionary encoding, 8..128-bit physical widths) becomes ONE
 * `KeyColumn` in the representation `types.ts` describes, converted to the common `KeyKind` that
 * `resolveKeyKind` chose. After this step a left Int8 key and a right UInt32 key holding 7 are the
 * same two words; a plain and a dictionary-encoded "abc" are the same bytes.
 *
 * Invariants the rest of the engine relies on:
 *  - NULL rows have all-zero words (their source bytes are garbage in Arrow) and `nulls[i] = 1`;
 *    `nulls` is `null` iff no row is NULL.
 *  - floats: -0.0 is stored as +0.0 and every NaN as the canonical quiet NaN (0x7ff80000_00000000),
 *    so equality is word equality and hashing needs no special cases.
 *  - scaling (timestamp units, decimal scales, dates -> timestamps) is exact 32-bit-word arithmetic
 *    (no BigInt, no per-row allocation); a value that overflows the common type throws
 *    `KeyConversionError`, as DuckDB's implicit cast does (checked against 64-bit range for
 *    timestamps and |v| < 10^38 for decimals).
 *  - bytes: a single-chunk Utf8/Binary column is used zero-copy (its offsets need not start at 0);
 *    everything else is materialised into one offsets/bytes pair. Dictionary columns keep their
 *    codes; the normalised dictionary is cached per dictionary Vector, so batches sharing a
 *    dictionary share one `offsets` array (which the hash module uses to hash it once).
 */
import { DateUnit, Precision, Type } from 'apache-arrow';
import type { Data, DataType, Date_, Decimal, Dictionary, Float, Int, RecordBatch, Timestamp, Vector } from 'apache-arrow';
import { halfToDouble } from '../arrow/half-float.ts';
import { appendViewBytes, viewBytesLength } from '../arrow/views.ts';
import { JoinlabError, MissingColumnError, UnsupportedTypeError } from '../errors.ts';
import { UNIT_EXP, classifyKeyType } from './resolve.ts';
import type { BytesKeyColumn, FixedKeyColumn, KeyColumn, KeyKind } from './types.ts';

/** A key value that does not fit the common key type (DuckDB: "Conversion Error"). */
export class KeyConversionError extends JoinlabError {
  readonly kind = 'key-type-mismatch' as const;
  constructor(
    readonly column: string,
    readonly sqlType: string,
    detail: string,
  ) {
    super(`key column '${column}': ${detail} does not fit the common key type ${sqlType}`);
  }
}

/** Normalise one key vector (all its chunks) to `kind`. */
export function normalizeKeyColumn(vector: Vector, kind: KeyKind, name = 'key'): KeyColumn {
  return normalizeChunks(vector.data, vector.length, kind, name);
}

/** Normalise the named key columns of a batch; throws MissingColumnError for an unknown name. */
export function normalizeKeys(batch: RecordBatch, columns: readonly string[], kinds: readonly KeyKind[]): KeyColumn[] {
  const fields = batch.schema.fields;
  const out: KeyColumn[] = [];
  for (let k = 0; k < columns.length; k++) {
    const name = columns[k]!;
    const idx = fields.findIndex((f) => f.name === name);
    if (idx < 0) throw new MissingColumnError(name, 'record batch', fields.map((f) => f.name));
    out.push(normalizeKeyColumn(batch.getChildAt(idx)!, kinds[k]!, name));
  }
  return out;
}

/**
 * The raw values of a key column whose normalised form under `kind` is exactly their sign extension
 * to two words — one NULL-free chunk of signed Int32 under a 64-bit int kind, or of Date32 (days)
 * under DATE — or null for any other column. A row filter over such a column can test the 32-bit
 * values in place (`KeyFilter.testInt32`) instead of normalising a copy first: the common
 * surrogate-key and date join, where the copy cost more than the test.
 */
export function rawInt32Keys(vector: Vector, kind: KeyKind): Int32Array | null {
  if (kind.order !== 'int' || kind.width !== 2 || vector.data.length !== 1) return null;
  const d = vector.data[0]!;
  if (d.nullCount !== 0) return null;
  if (d.typeId === Type.Int) {
    const t = d.type as unknown as Int;
    if (t.bitWidth !== 32 || !t.isSigned || kind.timeUnit !== undefined || kind.sqlType === 'DATE') return null;
  } else if (d.typeId === Type.Date) {
    if ((d.type as Date_).unit !== DateUnit.DAY || kind.sqlType !== 'DATE') return null;
  } else return null;
  return (d.values as Int32Array).subarray(0, d.length);
}

/** 1 where any key column is NULL; `null` when no column has a NULL. Always a fresh array. */
export function anyNullMask(cols: readonly KeyColumn[]): Uint8Array | null {
  let mask: Uint8Array | null = null;
  for (const c of cols) {
    const n = c.nulls;
    if (n === null) continue;
    if (mask === null) {
      mask = n.slice(0, c.length);
      continue;
    }
    for (let i = 0; i < c.length; i++) mask[i] |= n[i]!;
  }
  return mask;
}

function normalizeChunks(chunks: readonly Data[], length: number, kind: KeyKind, name: string): KeyColumn {
  return kind.width === 0 ? normalizeBytes(chunks, length, kind, name) : normalizeFixed(chunks, length, kind, name);
}

// ---------------------------------------------------------------------------------------------
// NULL bookkeeping

/** Lazily allocated byte-per-row NULL mask. */
class NullMask {
  arr: Uint8Array | null = null;
  constructor(readonly length: number) {}
  ensure(): Uint8Array {
    return (this.arr ??= new Uint8Array(this.length));
  }
}

/** Mark the NULL rows of one chunk (validity bitmap at `d.offset`, or the Null type). */
function markChunkNulls(d: Data, mask: NullMask, base: number): void {
  if (d.typeId === Type.Null) {
    mask.ensure().fill(1, base, base + d.length);
    return;
  }
  const bm = d.nullBitmap;
  if (!bm || bm.length === 0 || d.nullCount === 0) return;
  const nulls = mask.ensure();
  const off = d.offset;
  for (let i = 0; i < d.length; i++) {
    const p = off + i;
    nulls[base + i] = ((bm[p >> 3]! >> (p & 7)) & 1) ^ 1;
  }
}

function isBitSet(bits: Uint8Array, p: number): number {
  return (bits[p >> 3]! >> (p & 7)) & 1;
}

// ---------------------------------------------------------------------------------------------
// Fixed-width kinds

/**
 * A single chunk of Int64/UInt64 without NULLs is already in the normalised layout (two
 * little-endian words per row): view its buffer instead of copying it. Key columns are read-only,
 * so sharing the input's buffer is safe.
 */
function viewAsWords(chunks: readonly Data[], kind: KeyKind): Int32Array | null {
  if (chunks.length !== 1 || kind.width !== 2) return null;
  const d = chunks[0]!;
  if (d.typeId !== Type.Int || d.nullCount !== 0) return null;
  const t = d.type as unknown as { bitWidth: number; isSigned: boolean };
  if (t.bitWidth !== 64 || t.isSigned !== (kind.order === 'int') || (kind.order !== 'int' && kind.order !== 'uint')) return null;
  const v = d.values as BigInt64Array;
  return new Int32Array(v.buffer, v.byteOffset, d.length * 2);
}

function normalizeFixed(chunks: readonly Data[], length: number, kind: KeyKind, name: string): FixedKeyColumn {
  const view = viewAsWords(chunks, kind);
  if (view !== null) return { kind, length, words: view, nulls: null };
  const w = kind.width;
  const words = new Int32Array(length * w);
  const mask = new NullMask(length);
  let base = 0;
  for (const d of chunks) {
    markChunkNulls(d, mask, base);
    if (d.typeId === Type.Dictionary) fillFromDictionary(d, kind, words, base, mask, name);
    else if (d.typeId !== Type.Null) fillFixedChunk(d, kind, words, base, mask.arr, name);
    base += d.length;
  }
  const nulls = mask.arr;
  if (nulls !== null) zeroNullRows(words, w, nulls, length);
  if (kind.order === 'float') canonicalizeFloats(words, length);
  return { kind, length, words, nulls };
}

function zeroNullRows(words: Int32Array, w: number, nulls: Uint8Array, length: number): void {
  // the common widths without a call per row (fill() per NULL row cost ~8 ns a row)
  if (w === 2) {
    for (let i = 0; i < length; i++) {
      if (nulls[i] !== 0) {
        words[2 * i] = 0;
        words[2 * i + 1] = 0;
      }
    }
  } else if (w === 1) {
    for (let i = 0; i < length; i++) if (nulls[i] !== 0) words[i] = 0;
  } else {
    for (let i = 0; i < length; i++) if (nulls[i] !== 0) words.fill(0, i * w, i * w + w);
  }
}

function unsupported(d: Data, kind: KeyKind, name: string): never {
  throw new UnsupportedTypeError(name, String(d.type), `as a ${kind.sqlType} key`);
}

function fillFixedChunk(d: Data, kind: KeyKind, words: Int32Array, base: number, nulls: Uint8Array | null, name: string): void {
  if (kind.order === 'float') return fillFloat(d, kind, words, base, name);
  if (kind.order === 'bool') {
    if (d.typeId !== Type.Bool) unsupported(d, kind, name);
    return readBools(d, words, base, 1);
  }
  return fillInteger(d, kind, words, base, nulls, name);
}

/** Decode a dictionary of fixed-width values: normalise the dictionary once, gather by code. */
function fillFromDictionary(d: Data, kind: KeyKind, words: Int32Array, base: number, mask: NullMask, name: string): void {
  const dict = cachedDictionary(d.dictionary!, kind, name) as FixedKeyColumn;
  const codes = readCodes(d);
  const w = kind.width;
  const dw = dict.words;
  const dn = dict.nulls;
  const rowNulls = mask.arr;
  for (let i = 0; i < d.length; i++) {
    if (rowNulls !== null && rowNulls[base + i] !== 0) continue;
    const c = codes[i]!;
    if (dn !== null && dn[c] !== 0) {
      mask.ensure()[base + i] = 1;
      continue;
    }
    for (let k = 0; k < w; k++) words[(base + i) * w + k] = dw[c * w + k]!;
  }
}

// --- integers, dates, timestamps, decimals ------------------------------------------------------

/** How a source integer becomes the target: multiply by `factors` (each <= 2^20), maybe ms->days. */
interface IntConversion {
  readonly factors: readonly number[];
  readonly msToDays: boolean;
  /** Check |v| < 10^38 after scaling (decimal targets). */
  readonly decimalLimit: boolean;
}

const NO_CONVERSION: IntConversion = { factors: [], msToDays: false, decimalLimit: false };

function fillInteger(d: Data, kind: KeyKind, words: Int32Array, base: number, nulls: Uint8Array | null, name: string): void {
  const conv = integerConversion(d.type, kind, name);
  extendIntoWords(d, words, base, kind.width, kind, name);
  if (conv.msToDays) millisToDays(words, base, d.length, kind.width);
  if (conv.factors.length > 0) scaleRows(words, base, d.length, kind, conv, nulls, name);
}

function integerConversion(type: DataType, kind: KeyKind, name: string): IntConversion {
  const fail = (): never => {
    throw new UnsupportedTypeError(name, String(type), `as a ${kind.sqlType} key`);
  };
  const decimal = kind.order === 'decimal';
  switch (type.typeId) {
    case Type.Int:
      if (kind.timeUnit !== undefined || kind.sqlType === 'DATE') fail();
      if (kind.order === 'uint' && (type as Int).isSigned) fail();
      if (kind.order === 'int' && kind.width === 2 && !(type as Int).isSigned && (type as Int).bitWidth === 64) fail();
      return decimal ? scaleBy(kind.scale ?? 0, 1, true) : NO_CONVERSION;
    case Type.Bool:
      if (kind.timeUnit !== undefined || kind.sqlType === 'DATE') fail();
      return decimal ? scaleBy(kind.scale ?? 0, 1, true) : NO_CONVERSION;
    case Type.Decimal: {
      const diff = (kind.scale ?? 0) - (type as Decimal).scale;
      if (!decimal || diff < 0) fail();
      return scaleBy(diff, 1, true);
    }
    case Type.Date: {
      const msToDays = (type as Date_).unit === DateUnit.MILLISECOND;
      if (kind.sqlType === 'DATE') return { factors: [], msToDays, decimalLimit: false };
      if (kind.timeUnit === undefined) fail();
      return { ...scaleBy(UNIT_EXP[kind.timeUnit!], 86_400, false), msToDays };
    }
    case Type.Timestamp: {
      if (kind.timeUnit === undefined) fail();
      // Arrow's TimeUnit is SECOND=0 .. NANOSECOND=3: three decimal digits per step
      const diff = UNIT_EXP[kind.timeUnit!] - 3 * (type as Timestamp).unit;
      if (diff < 0) fail();
      return scaleBy(diff, 1, false);
    }
    default:
      return fail();
  }
}

/** Factors for `extra * 10^exp`, each small enough for exact double arithmetic on a word. */
function scaleBy(exp: number, extra: number, decimalLimit: boolean): IntConversion {
  const factors: number[] = [];
  if (extra !== 1) factors.push(extra);
  for (let e = exp; e > 0; e -= 6) factors.push(10 ** Math.min(e, 6));
  return { factors, msToDays: false, decimalLimit };
}

/** Write each row's raw integer (sign- or zero-extended) into `w` words per row. */
function extendIntoWords(d: Data, words: Int32Array, base: number, w: number, kind: KeyKind, name: string): void {
  const n = d.length;
  switch (d.typeId) {
    case Type.Bool:
      return readBools(d, words, base, w);
    case Type.Int: {
      const t = d.type as Int;
      if (t.bitWidth === 64) return extendWords(int32Words(d.values, 2 * n), 2, t.isSigned, words, base, w, n);
      return extendSmall(d.values as ArrayLike<number>, t.isSigned, words, base, w, n);
    }
    case Type.Date:
      if ((d.values as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT === 8) {
        return extendWords(int32Words(d.values, 2 * n), 2, true, words, base, w, n);
      }
      return extendSmall(d.values as Int32Array, true, words, base, w, n);
    case Type.Timestamp:
      return extendWords(int32Words(d.values, 2 * n), 2, true, words, base, w, n);
    case Type.Decimal: {
      const stride = d.stride;
      if (stride > w) unsupported(d, kind, name);
      return extendWords(int32Words(d.values, stride * n), stride, true, words, base, w, n);
    }
    default:
      unsupported(d, kind, name);
  }
}

/** View any typed array's bytes as `count` int32 words (64/128-bit values, never boxed). */
function int32Words(values: unknown, count: number): Int32Array {
  const v = values as ArrayBufferView;
  return new Int32Array(v.buffer, v.byteOffset, count);
}

function extendSmall(src: ArrayLike<number>, signed: boolean, words: Int32Array, base: number, w: number, n: number): void {
  for (let i = 0; i < n; i++) {
    const v = src[i]!;
    const o = (base + i) * w;
    words[o] = v | 0;
    const ext = signed ? v >> 31 : 0;
    for (let k = 1; k < w; k++) words[o + k] = ext;
  }
}

/** Copy `stride` source words per row, then sign/zero-extend to `w` words. */
function extendWords(src: Int32Array, stride: number, signed: boolean, words: Int32Array, base: number, w: number, n: number): void {
  if (stride === w) {
    words.set(src.subarray(0, n * w), base * w); // nothing to extend: one block copy
    return;
  }
  for (let i = 0; i < n; i++) {
    const s = i * stride;
    const o = (base + i) * w;
    for (let k = 0; k < stride; k++) words[o + k] = src[s + k]!;
    const ext = signed ? src[s + stride - 1]! >> 31 : 0;
    for (let k = stride; k < w; k++) words[o + k] = ext;
  }
}

/** Bit-packed booleans (bit offset `d.offset`) -> 0/1 in the low word. */
function readBools(d: Data, words: Int32Array, base: number, w: number): void {
  const bits = d.values as Uint8Array;
  const off = d.offset;
  for (let i = 0; i < d.length; i++) {
    const o = (base + i) * w;
    words[o] = isBitSet(bits, off + i);
    for (let k = 1; k < w; k++) words[o + k] = 0;
  }
}

const TWO_32 = 4294967296;
const MS_PER_DAY = 86_400_000;

/**
 * Date64 (ms) -> days, truncating toward zero like DuckDB's Arrow reader. Goes through a double,
 * exact for |ms| < 2^53 (every date within +-285,000 years).
 */
function millisToDays(words: Int32Array, base: number, n: number, w: number): void {
  for (let i = 0; i < n; i++) {
    const o = (base + i) * w;
    const days = Math.trunc((words[o + 1]! * TWO_32 + (words[o]! >>> 0)) / MS_PER_DAY);
    words[o] = days | 0; // ToInt32 is exact modular reduction for integral doubles
    const hi = Math.floor(days / TWO_32) | 0;
    words[o + 1] = hi;
    for (let k = 2; k < w; k++) words[o + k] = hi >> 31;
  }
}

/** 10^38 as four little-endian words: the bound of DECIMAL(38, s) (computed once). */
const DECIMAL_LIMIT: Int32Array = (() => {
  const out = new Int32Array(4);
  let v = 10n ** 38n;
  for (let k = 0; k < 4; k++) {
    out[k] = Number(BigInt.asIntN(32, v));
    v >>= 32n;
  }
  return out;
})();

function scaleRows(
  words: Int32Array,
  base: number,
  n: number,
  kind: KeyKind,
  conv: IntConversion,
  nulls: Uint8Array | null,
  name: string,
): void {
  const w = kind.width;
  for (let i = 0; i < n; i++) {
    if (nulls !== null && nulls[base + i] !== 0) continue;
    if (!scaleRow(words, (base + i) * w, w, conv.factors, conv.decimalLimit)) {
      throw new KeyConversionError(name, kind.sqlType, `the value in row ${base + i} (scaled by ${conv.factors.join('*')})`);
    }
  }
}

/**
 * Multiply the two's-complement integer in words[o, o+w) by each factor, in place. Works on the
 * magnitude: every word * factor (< 2^32 * 2^20) plus carry stays an exact double. Returns false
 * on overflow (a carry out, the sign bit reached, or |v| >= 10^38 when `decimalLimit`).
 */
function scaleRow(words: Int32Array, o: number, w: number, factors: readonly number[], decimalLimit: boolean): boolean {
  const negative = words[o + w - 1]! < 0;
  if (negative) negateWords(words, o, w);
  for (let f = 0; f < factors.length; f++) {
    const m = factors[f]!;
    let carry = 0;
    for (let k = 0; k < w; k++) {
      const p = (words[o + k]! >>> 0) * m + carry;
      words[o + k] = p | 0;
      carry = Math.floor(p / TWO_32);
    }
    if (carry !== 0) return false;
  }
  if (words[o + w - 1]! < 0) return false;
  if (decimalLimit && !magnitudeBelow(words, o, DECIMAL_LIMIT, w)) return false;
  if (negative) negateWords(words, o, w);
  return true;
}

function negateWords(words: Int32Array, o: number, w: number): void {
  let carry = 1;
  for (let k = 0; k < w; k++) {
    const v = (~words[o + k]! >>> 0) + carry;
    words[o + k] = v | 0;
    carry = v > 0xffffffff ? 1 : 0;
  }
}

/** Unsigned words[o, o+w) < limit (limit has >= w words; the extra words must be zero). */
function magnitudeBelow(words: Int32Array, o: number, limit: Int32Array, w: number): boolean {
  for (let k = w - 1; k >= 0; k--) {
    const a = words[o + k]! >>> 0;
    const b = limit[k]! >>> 0;
    if (a !== b) return a < b;
  }
  return false;
}

// --- floats ----------------------------------------------------------------------------------

function fillFloat(d: Data, kind: KeyKind, words: Int32Array, base: number, name: string): void {
  const f64 = new Float64Array(words.buffer, words.byteOffset, words.length >> 1);
  const n = d.length;
  switch (d.typeId) {
    case Type.Float: {
      const p = (d.type as Float).precision;
      if (p === Precision.HALF) {
        const src = d.values as Uint16Array;
        for (let i = 0; i < n; i++) f64[base + i] = halfToDouble(src[i]!);
      } else {
        const src = d.values as Float32Array | Float64Array;
        for (let i = 0; i < n; i++) f64[base + i] = src[i]!;
      }
      break;
    }
    case Type.Int: {
      const t = d.type as Int;
      if (t.bitWidth === 64) int64ToDoubles(int32Words(d.values, 2 * n), t.isSigned, f64, base, n);
      else {
        const src = d.values as ArrayLike<number>;
        for (let i = 0; i < n; i++) f64[base + i] = src[i]!;
      }
      break;
    }
    case Type.Bool: {
      const bits = d.values as Uint8Array;
      for (let i = 0; i < n; i++) f64[base + i] = isBitSet(bits, d.offset + i);
      break;
    }
    case Type.Decimal:
      decimalToDoubles(d, f64, base);
      break;
    default:
      unsupported(d, kind, name);
  }
  if (kind.sqlType === 'FLOAT') {
    for (let i = 0; i < n; i++) f64[base + i] = Math.fround(f64[base + i]!);
  }
}

/** hi * 2^32 + lo is exact before the final addition, so the conversion rounds once (correctly). */
function int64ToDoubles(src: Int32Array, signed: boolean, f64: Float64Array, base: number, n: number): void {
  for (let i = 0; i < n; i++) {
    const hi = signed ? src[2 * i + 1]! : src[2 * i + 1]! >>> 0;
    f64[base + i] = hi * TWO_32 + (src[2 * i]! >>> 0);
  }
}

/**
 * DuckDB: double(unscaled) / 10^scale. Exact for |unscaled| < 2^64 up to the one rounding; wider
 * values are summed word by word (may differ from DuckDB by an ulp; DuckDB's own hugeint -> double
 * is not correctly rounded either).
 */
function decimalToDoubles(d: Data, f64: Float64Array, base: number): void {
  const stride = d.stride;
  const n = d.length;
  const src = int32Words(d.values, stride * n);
  const div = Number(`1e${(d.type as Decimal).scale}`);
  for (let i = 0; i < n; i++) {
    const o = i * stride;
    let v: number;
    if (stride === 1) v = src[o]!;
    else if (stride === 2 || (src[o + 3] === src[o + 1]! >> 31 && src[o + 2] === src[o + 1]! >> 31)) {
      v = src[o + 1]! * TWO_32 + (src[o]! >>> 0);
    } else {
      v = ((src[o + 3]! * TWO_32 + (src[o + 2]! >>> 0)) * TWO_32 + (src[o + 1]! >>> 0)) * TWO_32 + (src[o]! >>> 0);
    }
    f64[base + i] = v / div;
  }
}

const CANONICAL_NAN_HI = 0x7ff80000;

/** Fold -0.0 to +0.0 and every NaN to the canonical NaN, so equal keys have equal words. */
function canonicalizeFloats(words: Int32Array, length: number): void {
  const f64 = new Float64Array(words.buffer, words.byteOffset, length);
  for (let i = 0; i < length; i++) {
    const x = f64[i]!;
    if (x === 0) {
      words[2 * i] = 0;
      words[2 * i + 1] = 0;
    } else if (x !== x) {
      words[2 * i] = 0;
      words[2 * i + 1] = CANONICAL_NAN_HI;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Dictionaries

/** Dictionary index buffer -> Int32Array codes (zero-copy for Int32 indices). */
function readCodes(d: Data): Int32Array {
  const t = (d.type as Dictionary).indices;
  const bits: number = t.bitWidth;
  const n = d.length;
  if (bits === 32 && t.isSigned) return d.values as Int32Array;
  const out = new Int32Array(n);
  if (bits === 64) {
    const src = int32Words(d.values, 2 * n);
    for (let i = 0; i < n; i++) out[i] = src[2 * i]!;
  } else {
    const src = d.values as ArrayLike<number>;
    for (let i = 0; i < n; i++) out[i] = src[i]!;
  }
  return out;
}

const dictionaryCache = new WeakMap<Vector, Map<string, KeyColumn>>();

function kindKey(kind: KeyKind): string {
  return `${kind.order}|${kind.width}|${kind.sqlType}|${kind.scale ?? ''}|${kind.timeUnit ?? ''}`;
}

/** The normalised form of a dictionary Vector (entries as rows), computed once per kind. */
function cachedDictionary(dict: Vector, kind: KeyKind, name: string): KeyColumn {
  let byKind = dictionaryCache.get(dict);
  if (byKind === undefined) dictionaryCache.set(dict, (byKind = new Map()));
  const key = kindKey(kind);
  let col = byKind.get(key);
  if (col === undefined) byKind.set(key, (col = normalizeChunks(dict.data, dict.length, kind, name)));
  return col;
}

// ---------------------------------------------------------------------------------------------
// Bytes

const MAX_BYTES = 0x7fffffff;

function normalizeBytes(chunks: readonly Data[], length: number, kind: KeyKind, name: string): BytesKeyColumn {
  for (const d of chunks) checkBytesChunk(d, kind, name);
  if (chunks.length > 0 && chunks[0]!.typeId === Type.Dictionary) return dictionaryBytes(chunks, length, kind, name);
  const mask = new NullMask(length);
  let base = 0;
  for (const d of chunks) {
    markChunkNulls(d, mask, base);
    base += d.length;
  }
  const only = chunks.length === 1 ? chunks[0]! : null;
  if (only !== null && (only.typeId === Type.Utf8 || only.typeId === Type.Binary)) {
    return { kind, length, offsets: only.valueOffsets as Int32Array, bytes: only.values as Uint8Array, codes: null, nulls: mask.arr };
  }
  const { offsets, bytes } = materializeBytes(chunks, length, name);
  return { kind, length, offsets, bytes, codes: null, nulls: mask.arr };
}

function checkBytesChunk(d: Data, kind: KeyKind, name: string): void {
  const c = d.typeId === Type.Null ? 'null' : classifyKeyType(d.type, name).c;
  if (c !== 'utf8' && c !== 'binary' && c !== 'null') unsupported(d, kind, name);
}

/** Copy every chunk's values into one offsets/bytes pair (offsets start at 0). */
function materializeBytes(chunks: readonly Data[], length: number, name: string): { offsets: Int32Array; bytes: Uint8Array } {
  let total = 0;
  for (const d of chunks) total += chunkByteLength(d);
  if (total > MAX_BYTES) {
    throw new UnsupportedTypeError(name, String(chunks[0]!.type), `as a join key: ${total} bytes of key data in one batch (max 2^31-1)`);
  }
  const bytes = new Uint8Array(total);
  const offsets = new Int32Array(length + 1);
  let base = 0;
  let pos = 0;
  for (const d of chunks) {
    pos = appendChunkBytes(d, bytes, offsets, base, pos);
    base += d.length;
  }
  return { offsets, bytes };
}

/** Value offset `i` of a (Large)Utf8/Binary chunk as a number (64-bit offsets read as two words). */
function valueOffset(d: Data, i: number): number {
  const vo = d.valueOffsets as Int32Array | BigInt64Array;
  if (vo instanceof Int32Array) return vo[i]!;
  const words = int32Words(vo, 2 * (i + 1));
  return words[2 * i + 1]! * TWO_32 + (words[2 * i]! >>> 0);
}

function chunkByteLength(d: Data): number {
  switch (d.typeId) {
    case Type.Null:
      return 0;
    case Type.FixedSizeBinary:
      return d.length * d.stride;
    case Type.Utf8View:
    case Type.BinaryView:
      return viewBytesLength(d);
    default:
      // a zero-row chunk may have no offsets at all (an empty table's batch)
      return d.length === 0 ? 0 : valueOffset(d, d.length) - valueOffset(d, 0);
  }
}

function appendChunkBytes(d: Data, bytes: Uint8Array, offsets: Int32Array, base: number, pos: number): number {
  const n = d.length;
  if (n === 0) return pos; // a zero-row chunk may have no offsets buffer at all
  switch (d.typeId) {
    case Type.Null:
      offsets.fill(pos, base + 1, base + n + 1);
      return pos;
    case Type.FixedSizeBinary: {
      const w = d.stride;
      bytes.set((d.values as Uint8Array).subarray(0, n * w), pos);
      for (let i = 1; i <= n; i++) offsets[base + i] = pos + i * w;
      return pos + n * w;
    }
    case Type.Utf8View:
    case Type.BinaryView:
      return appendViewBytes(d, bytes, offsets, base, pos);
    default: {
      const start = valueOffset(d, 0);
      const end = valueOffset(d, n);
      bytes.set((d.values as Uint8Array).subarray(start, end), pos);
      for (let i = 1; i <= n; i++) offsets[base + i] = valueOffset(d, i) - start + pos;
      return pos + (end - start);
    }
  }
}

/** Dictionary<string|binary>: codes per row, entries from the (cached, possibly merged) dictionaries. */
function dictionaryBytes(chunks: readonly Data[], length: number, kind: KeyKind, name: string): BytesKeyColumn {
  const dicts: Vector[] = [];
  const dictIndex = chunks.map((d) => {
    let k = dicts.indexOf(d.dictionary!);
    if (k < 0) k = dicts.push(d.dictionary!) - 1;
    return k;
  });
  const entries = dicts.map((v) => cachedDictionary(v, kind, name) as BytesKeyColumn);
  const merged = entries.length === 1 ? entries[0]! : mergeEntries(entries, name);
  const entryBase = new Int32Array(entries.length);
  for (let k = 1; k < entries.length; k++) entryBase[k] = entryBase[k - 1]! + entries[k - 1]!.length;

  const mask = new NullMask(length);
  const only = chunks.length === 1 ? readCodes(chunks[0]!) : null;
  const codes = only ?? new Int32Array(length);
  let base = 0;
  for (let c = 0; c < chunks.length; c++) {
    const d = chunks[c]!;
    markChunkNulls(d, mask, base);
    if (only === null) {
      const src = readCodes(d);
      const shift = entryBase[dictIndex[c]!]!;
      for (let i = 0; i < d.length; i++) codes[base + i] = src[i]! + shift;
    }
    base += d.length;
  }
  if (merged.nulls !== null) markEntryNulls(codes, merged.nulls, mask, length);
  return { kind, length, offsets: merged.offsets, bytes: merged.bytes, codes, nulls: mask.arr };
}

function markEntryNulls(codes: Int32Array, entryNulls: Uint8Array, mask: NullMask, length: number): void {
  for (let i = 0; i < length; i++) {
    if (entryNulls[codes[i]!] !== 0) mask.ensure()[i] = 1;
  }
}

/** Rare: chunks with different dictionaries. Concatenate their entries (codes get rebased). */
function mergeEntries(entries: readonly BytesKeyColumn[], name: string): BytesKeyColumn {
  let count = 0;
  let total = 0;
  for (const e of entries) {
    count += e.length;
    total += e.offsets[e.length]! - e.offsets[0]!;
  }
  if (total > MAX_BYTES) throw new UnsupportedTypeError(name, entries[0]!.kind.sqlType, 'as a join key: dictionary over 2^31-1 bytes');
  const offsets = new Int32Array(count + 1);
  const bytes = new Uint8Array(total);
  let nulls: Uint8Array | null = null;
  let row = 0;
  let pos = 0;
  for (const e of entries) {
    const start = e.offsets[0]!;
    const end = e.offsets[e.length]!;
    bytes.set(e.bytes.subarray(start, end), pos);
    for (let i = 1; i <= e.length; i++) offsets[row + i] = e.offsets[i]! - start + pos;
    if (e.nulls !== null) (nulls ??= new Uint8Array(count)).set(e.nulls.subarray(0, e.length), row);
    row += e.length;
    pos += end - start;
  }
  return { kind: entries[0]!.kind, length: count, offsets, bytes, codes: null, nulls };
}

