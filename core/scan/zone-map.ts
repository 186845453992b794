/**
 * Zone maps of in-memory record batches: min/max/null-count per column, so a `MemoryScan` can ask
 * a dynamic filter "may this batch hold a match?" exactly as a Parquet scan does with footer
 * statistics.
 *
 * Computed once per batch and cached in a WeakMap keyed by the RecordBatch (a batch dropped by its
 * table is collected with its stats). Columns are computed lazily on first request, so a filter
 * on one key column never pays for the payload columns.
 *
 * Ordering follows DuckDB, the reference:
 * - floats: NaN is above every number, so a batch holding a NaN has `max = NaN` (and `min = NaN`
 *   when every non-NULL value is NaN); -0.0 equals 0.0 and is reported as 0.
 * - strings compare by UTF-8 bytes (= code point order). JS `<` on strings is UTF-16 order, which
 *   differs for astral characters, so we compare the bytes in the Arrow buffer and decode only the
 *   final min/max.
 * - Int64/UInt64/timestamps and decimals are scanned through 32-bit word views by the key words'
 *   min/max pass (core/keys/extremes.ts; no BigInt per row); the bigint is built once for the result.
 * - dictionary columns: min/max over the dictionary entries the batch's rows actually *use*
 *   (tighter than the whole dictionary, which would also be a safe bound).
 * Degenerate cases: an all-NULL or empty column is `{ min: null, max: null, nullCount }`; types we
 * do not order (Float16, Date64, Time, Duration, Interval, views, nested types) have no stats
 * (`undefined`, i.e. "maybe").
 */
import { Data, DataType, type Decimal, type RecordBatch, type Vector } from 'apache-arrow';
import { isOffsetBytes } from '../arrow/type-families.ts';
import { compareByteRanges, compareBytes } from '../keys/byte-order.ts';
import { wordExtremes } from '../keys/extremes.ts';
import type { ColumnStats, ContainerStats, StatValue } from './scan.ts';

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true }); // a leading U+FEFF is data, not a byte-order mark

/** A container view of one batch; `columnBytes` is what decoding the column "costs" (buffer bytes). */
export interface BatchContainerStats extends ContainerStats {
  columnBytes(name: string): number;
}

interface Acc {
  count: number; // non-NULL values seen
  min: StatValue | null;
  max: StatValue | null;
}

type Mask = Uint8Array | null;

function hasNulls(d: Data): boolean {
  return d.nullCount > 0 && d.nullBitmap !== undefined && d.nullBitmap !== null && d.nullBitmap.length > 0;
}

/**
 * 1 for each row i of `d` that does not count — NULL, or left out by `mask` (mask[base + i] == 0:
 * a dictionary entry no row uses); null when every row counts.
 */
function skipMask(d: Data, mask: Mask, base: number): Uint8Array | null {
  const bm = hasNulls(d) ? d.nullBitmap! : null;
  if (bm === null && mask === null) return null;
  const n = d.length;
  const off = d.offset;
  const skip = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const p = off + i;
    if ((bm !== null && ((bm[p >> 3]! >> (p & 7)) & 1) === 0) || (mask !== null && mask[base + i] === 0)) skip[i] = 1;
  }
  return skip;
}

function numberStats(d: Data, isFloat: boolean, mask: Mask, base: number): Acc {
  const v = d.values as ArrayLike<number>;
  const n = d.length;
  const skip = skipMask(d, mask, base);
  let min = Infinity;
  let max = -Infinity;
  let count = 0;
  let numbers = 0;
  let nan = false;
  for (let i = 0; i < n; i++) {
    if (skip !== null && skip[i] !== 0) continue;
    const x = v[i]!;
    count++;
    if (x !== x) {
      nan = true;
      continue;
    }
    numbers++;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  if (count === 0) return { count, min: null, max: null };
  if (!isFloat) return { count, min, max };
  if (numbers === 0) return { count, min: NaN, max: NaN };
  return { count, min: min === 0 ? 0 : min, max: nan ? NaN : max === 0 ? 0 : max };
}

/** Int64/UInt64/timestamps: the values' little-endian 32-bit words, ordered like normalised key words. */
function int64Stats(d: Data, signed: boolean, mask: Mask, base: number): Acc {
  const values = d.values as BigInt64Array | BigUint64Array | undefined;
  if (d.length === 0 || values === undefined) return { count: 0, min: null, max: null }; // an empty column may have no buffer
  const words = new Int32Array(values.buffer, values.byteOffset, d.length * 2);
  const e = wordExtremes(words, 2, !signed, d.length, skipMask(d, mask, base));
  if (e === null) return { count: 0, min: null, max: null };
  return { count: e.count, min: values[e.minRow]!, max: values[e.maxRow]! };
}

function decimalValue(words: Uint32Array, w: number, i: number): bigint {
  let v = 0n;
  for (let k = w - 1; k >= 0; k--) v = (v << 32n) | BigInt(words[i * w + k]!);
  return BigInt.asIntN(w * 32, v);
}

/** Decimals: `w` little-endian 32-bit words per value, the top one signed. */
function decimalStats(d: Data, mask: Mask, base: number): Acc {
  const w = (d.type as Decimal).bitWidth / 32;
  const words = d.values as Uint32Array | undefined;
  if (d.length === 0 || words === undefined) return { count: 0, min: null, max: null };
  const signedWords = new Int32Array(words.buffer, words.byteOffset, words.length);
  const e = wordExtremes(signedWords, w, false, d.length, skipMask(d, mask, base));
  if (e === null) return { count: 0, min: null, max: null };
  return { count: e.count, min: decimalValue(words, w, e.minRow), max: decimalValue(words, w, e.maxRow) };
}

function boolStats(d: Data, mask: Mask, base: number): Acc {
  const bits = d.values as Uint8Array;
  const n = d.length;
  const skip = skipMask(d, mask, base);
  const off = d.offset;
  let sawTrue = false;
  let sawFalse = false;
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (skip !== null && skip[i] !== 0) continue;
    const p = off + i;
    count++;
    if ((bits[p >> 3]! >> (p & 7)) & 1) sawTrue = true;
    else sawFalse = true;
    if (sawTrue && sawFalse) break;
  }
  if (count === 0) return { count, min: null, max: null };
  return { count, min: !sawFalse, max: sawTrue };
}

/** Utf8/Binary (32-bit offsets), LargeUtf8/LargeBinary (64-bit offsets) and FixedSizeBinary. */
function bytesStats(d: Data, asString: boolean, mask: Mask, base: number): Acc {
  const n = d.length;
  const v = d.values as Uint8Array;
  const skip = skipMask(d, mask, base);
  const fixedWidth = DataType.isFixedSizeBinary(d.type) ? d.type.byteWidth : 0;
  const o32 = fixedWidth === 0 && d.valueOffsets instanceof Int32Array ? d.valueOffsets : null;
  const large = fixedWidth === 0 && o32 === null;
  const w32 = large
    ? new Uint32Array(d.valueOffsets.buffer, d.valueOffsets.byteOffset, d.valueOffsets.byteLength >> 2)
    : null;
  let minS = 0;
  let minE = 0;
  let maxS = 0;
  let maxE = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (skip !== null && skip[i] !== 0) continue;
    let s: number;
    let e: number;
    if (o32 !== null) {
      s = o32[i]!;
      e = o32[i + 1]!;
    } else if (w32 !== null) {
      s = w32[2 * i]! + w32[2 * i + 1]! * 4294967296;
      e = w32[2 * i + 2]! + w32[2 * i + 3]! * 4294967296;
    } else {
      s = i * fixedWidth;
      e = s + fixedWidth;
    }
    if (count++ === 0) {
      minS = maxS = s;
      minE = maxE = e;
      continue;
    }
    if (compareByteRanges(v, s, e, v, minS, minE) < 0) {
      minS = s;
      minE = e;
    }
    if (compareByteRanges(v, s, e, v, maxS, maxE) > 0) {
      maxS = s;
      maxE = e;
    }
  }
  if (count === 0) return { count, min: null, max: null };
  if (asString) return { count, min: utf8.decode(v.subarray(minS, minE)), max: utf8.decode(v.subarray(maxS, maxE)) };
  return { count, min: v.slice(minS, minE), max: v.slice(maxS, maxE) };
}

/** Code-point (= UTF-8 byte) order of two JS strings. */
function cmpCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (0xD800..0xDFFF) encodes a code point above 0xFFFF: it sorts above 0xE000..0xFFFF.
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

function cmpStat(a: StatValue, b: StatValue): number {
  if (typeof a === 'string' && typeof b === 'string') return cmpCodePoints(a, b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

function isNaNStat(v: StatValue | null): boolean {
  return typeof v === 'number' && Number.isNaN(v);
}

/** Merge two accumulators of the same column type (NaN-aware: NaN is the largest value). */
function merge(a: Acc, b: Acc): Acc {
  if (a.count === 0) return b;
  if (b.count === 0) return a;
  let min: StatValue;
  if (isNaNStat(a.min)) min = b.min!;
  else if (isNaNStat(b.min)) min = a.min!;
  else min = cmpStat(a.min!, b.min!) <= 0 ? a.min! : b.min!;
  const max = isNaNStat(a.max) || isNaNStat(b.max) ? NaN : cmpStat(a.max!, b.max!) >= 0 ? a.max! : b.max!;
  return { count: a.count + b.count, min, max };
}

/** Stats of a flat (non-dictionary) column, or null when the type has no order we support. */
function flatStats(d: Data, mask: Mask, base: number): Acc | null {
  const t = d.type;
  if (DataType.isInt(t)) {
    if (t.bitWidth === 64) return int64Stats(d, t.isSigned, mask, base);
    return numberStats(d, false, mask, base);
  }
  if (DataType.isFloat(t)) return t.precision === 0 ? null : numberStats(d, true, mask, base);
  if (DataType.isDate(t)) return t.unit === 0 ? numberStats(d, false, mask, base) : null;
  if (DataType.isTimestamp(t)) return int64Stats(d, true, mask, base);
  if (DataType.isDecimal(t)) return decimalStats(d, mask, base);
  if (DataType.isBool(t)) return boolStats(d, mask, base);
  if (DataType.isUtf8(t) || DataType.isLargeUtf8(t)) return bytesStats(d, true, mask, base);
  if (DataType.isBinary(t) || DataType.isLargeBinary(t) || DataType.isFixedSizeBinary(t)) {
    return bytesStats(d, false, mask, base);
  }
  return null;
}

function dictionaryStats(d: Data): ColumnStats | undefined {
  const dict = d.dictionary as Vector | undefined;
  if (!dict) return undefined;
  const dictLen = dict.length;
  const used = new Uint8Array(dictLen);
  const idx = d.values as ArrayLike<number> | BigInt64Array | BigUint64Array;
  const wide = idx instanceof BigInt64Array || idx instanceof BigUint64Array;
  const codes: ArrayLike<number> = wide
    ? new Uint32Array(idx.buffer, idx.byteOffset, idx.length * 2)
    : (idx as ArrayLike<number>);
  const step = wide ? 2 : 1;
  const n = d.length;
  const bm = hasNulls(d) ? d.nullBitmap! : null;
  const off = d.offset;
  // Rows whose dictionary entry is itself NULL are NULL rows too.
  let dictNulls: Uint8Array | null = null;
  let b0 = 0;
  for (const chunk of dict.data) {
    if (hasNulls(chunk)) {
      dictNulls ??= new Uint8Array(dictLen);
      for (let i = 0; i < chunk.length; i++) {
        const p = chunk.offset + i;
        if (((chunk.nullBitmap![p >> 3]! >> (p & 7)) & 1) === 0) dictNulls[b0 + i] = 1;
      }
    }
    b0 += chunk.length;
  }
  let nullCount = 0;
  for (let i = 0; i < n; i++) {
    if (bm !== null) {
      const p = off + i;
      if (((bm[p >> 3]! >> (p & 7)) & 1) === 0) {
        nullCount++;
        continue;
      }
    }
    const c = codes[i * step]!;
    if (c < 0 || c >= dictLen) return undefined; // malformed: claim nothing
    if (dictNulls !== null && dictNulls[c] === 1) nullCount++;
    else used[c] = 1;
  }
  let acc: Acc = { count: 0, min: null, max: null };
  let base = 0;
  for (const chunk of dict.data) {
    const part = flatStats(chunk, used, base);
    if (part === null) return undefined;
    acc = merge(acc, part);
    base += chunk.length;
  }
  return { min: acc.count > 0 ? acc.min : null, max: acc.count > 0 ? acc.max : null, nullCount };
}

/** Stats of one column (uncached); `undefined` when its type has no supported order. */
export function columnStatsOf(d: Data): ColumnStats | undefined {
  const t = d.type;
  if (DataType.isNull(t)) return { min: null, max: null, nullCount: d.length };
  // no rows, or every row NULL: nothing to order (an all-NULL column may come without a values buffer)
  if (d.length === 0 || d.nullCount === d.length) return { min: null, max: null, nullCount: d.length };
  if (DataType.isDictionary(t)) return dictionaryStats(d);
  const acc = flatStats(d, null, 0);
  if (acc === null) return undefined;
  return { min: acc.min, max: acc.max, nullCount: d.nullCount };
}

/** Buffer bytes one column of a batch occupies (what a scan "decodes" when it keeps the batch). */
export function dataByteSize(d: Data): number {
  let n = hasNulls(d) ? (d.length + 7) >> 3 : 0;
  const t = d.type;
  if (DataType.isBool(t)) n += (d.length + 7) >> 3;
  else if (d.valueOffsets && isOffsetBytes(t.typeId)) {
    const o = d.valueOffsets;
    n += (d.length + 1) * o.BYTES_PER_ELEMENT;
    if (o instanceof Int32Array) n += o[d.length]! - o[0]!;
    else {
      const w = new Uint32Array(o.buffer, o.byteOffset, o.byteLength >> 2);
      n += w[2 * d.length]! + w[2 * d.length + 1]! * 4294967296 - (w[0]! + w[1]! * 4294967296);
    }
  } else if (d.values) {
    // builders pad buffers to 64 bytes: charge only the slots of this batch's rows
    n += Math.min(d.values.byteLength, d.length * d.values.BYTES_PER_ELEMENT * d.stride);
  } else if (d.valueOffsets) n += (d.length + 1) * d.valueOffsets.BYTES_PER_ELEMENT;
  for (const c of d.children ?? []) n += dataByteSize(c);
  return n;
}

class BatchZoneMap {
  readonly #batch: RecordBatch;
  readonly #stats = new Map<string, ColumnStats | undefined>();
  readonly #bytes = new Map<string, number>();
  #total = -1;
  constructor(batch: RecordBatch) {
    this.#batch = batch;
  }
  #data(name: string): Data | undefined {
    const i = this.#batch.schema.fields.findIndex((f) => f.name === name);
    return i < 0 ? undefined : this.#batch.data.children[i];
  }
  column(name: string): ColumnStats | undefined {
    if (this.#stats.has(name)) return this.#stats.get(name);
    const d = this.#data(name);
    const s = d ? columnStatsOf(d) : undefined;
    this.#stats.set(name, s);
    return s;
  }
  columnBytes(name: string): number {
    let b = this.#bytes.get(name);
    if (b === undefined) {
      const d = this.#data(name);
      b = d ? dataByteSize(d) : 0;
      this.#bytes.set(name, b);
    }
    return b;
  }
  get bytes(): number {
    if (this.#total < 0) {
      let t = 0;
      for (const f of this.#batch.schema.fields) t += this.columnBytes(f.name);
      this.#total = t;
    }
    return this.#total;
  }
}

class BatchContainer implements BatchContainerStats {
  readonly #zm: BatchZoneMap;
  constructor(
    zm: BatchZoneMap,
    readonly index: number,
    readonly numRows: number,
  ) {
    this.#zm = zm;
  }
  get bytes(): number {
    return this.#zm.bytes;
  }
  column(name: string): ColumnStats | undefined {
    return this.#zm.column(name);
  }
  columnBytes(name: string): number {
    return this.#zm.columnBytes(name);
  }
}

const cache = new WeakMap<RecordBatch, BatchZoneMap>();

/** The zone map of `batch` as container `index` (stats cached per batch, computed per column on demand). */
export function zoneMapOf(batch: RecordBatch, index = 0): BatchContainerStats {
  let zm = cache.get(batch);
  if (!zm) {
    zm = new BatchZoneMap(batch);
    cache.set(batch, zm);
  }
  return new BatchContainer(zm, index, batch.numRows);
}
