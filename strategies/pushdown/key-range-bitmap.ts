/**
 * KeyRangeBitmap: one bit per bucket over the build side's key range [min, max], for ONE integer
 * key (kind order 'int' or 'uint': integers, dates, timestamps; a HUGEINT key only when every
 * build key fits in 64 bits). It answers "may a build key equal this value?" per probe row and
 * "may a build key lie in [lo, hi]?" per container (from min/max stats) — never a false "no".
 *
 * Layout. Keys are mapped to an order-preserving unsigned 64-bit space (signed keys get their
 * sign bit flipped) and kept as two 32-bit words. span = max - min + 1 (up to 2^64; computed with
 * BigInt once at build time), buckets = min(span, 2^20), width = ceil(span / buckets) keys per
 * bucket (width 1: the bitmap is exact). A key's bucket is
 *     floor(((hi - minHi) * 2^32 + (lo - minLo)) / width)   in doubles, clamped to buckets - 1.
 * Both parts are exact doubles, so the sum is the correctly rounded offset and every step is
 * monotone non-decreasing in the key. That is all correctness needs: build keys and probe values go
 * through the SAME function, so a present key finds its own bit, and every key in [lo, hi] has a
 * bucket between bucket(lo) and bucket(hi). (For width 1 the offset is < 2^20 and exact.)
 *
 * Bail-outs (return null = "no bitmap", the caller keeps everything the bitmap would decide):
 *  - 2 * distinct > min(span, buckets): the bitmap would be (nearly) saturated and prune nothing.
 *    With width 1, distinct = set bits; otherwise distinct comes from the hash table when it counted
 *    them, or is counted (with an early exit) only when the non-NULL row count could exceed the limit;
 *  - every reachable bucket is set (e.g. contiguous surrogate keys);
 *  - no non-NULL build key, a non-integer kind, or a HUGEINT build key outside int64.
 *
 * Hot path: `test` works on the probe column's words with typed-array reads only; `mayContain`
 * takes the two words of one value. `mayContainRange` (per container) checks the overlapped buckets
 * a 32-bit word at a time.
 */
import { popcount32 } from '../../core/bitset.ts';
import { keyExtremes, wordExtremes } from '../../core/keys/extremes.ts';
import type { FixedKeyColumn } from '../../core/keys/types.ts';
import { shareView } from '../../core/parallel/wire.ts';

export const MAX_BUCKETS = 1 << 20;
const TWO_32 = 4294967296;
const SIGN = 0x80000000;
const TWO_63 = 1n << 63n;
const TWO_53 = 2 ** 53;

export class KeyRangeBitmap {
  /** Signed ('int') or unsigned ('uint') 64-bit key order. */
  readonly signed: boolean;
  /** Bits allocated: min(span, 2^20). */
  readonly buckets: number;
  /** Buckets the key range reaches (bucket(max) + 1). */
  readonly reachable: number;
  /** Keys per bucket (an exact double <= 2^44); 1 means exact. */
  readonly width: number;
  /** Buckets holding at least one build key. */
  readonly setBuckets: number;
  /** max - min + 1 (up to 2^64). */
  readonly span: bigint;
  readonly #bits: Uint32Array;
  // min / max in the biased unsigned space, as words and as bigints (for container ranges)
  readonly #minH: number;
  readonly #minL: number;
  readonly #maxH: number;
  readonly #maxL: number;
  readonly #minU: bigint;
  readonly #maxU: bigint;
  /** max - min as a double (exact when below 2^53). */
  readonly #maxOffset: number;

  private constructor(signed: boolean, minH: number, minL: number, maxH: number, maxL: number, span: bigint, buckets: number, width: number, bits?: Uint32Array) {
    this.signed = signed;
    this.#minH = minH;
    this.#minL = minL;
    this.#maxH = maxH;
    this.#maxL = maxL;
    this.#minU = (BigInt(minH) << 32n) | BigInt(minL);
    this.#maxU = (BigInt(maxH) << 32n) | BigInt(maxL);
    this.#maxOffset = (maxH - minH) * TWO_32 + (maxL - minL);
    this.span = span;
    this.buckets = buckets;
    this.width = width;
    this.#bits = bits ?? new Uint32Array((buckets + 31) >>> 5);
    this.reachable = this.#bucket(maxH, maxL) + 1;
    this.setBuckets = 0;
  }

  /**
   * The bitmap of the non-NULL keys of `col` (rows with `skip[r] != 0` are ignored too), or null
   * when it would not prune (see the module comment). `knownDistinct`, the exact number of
   * distinct keys among those rows when the caller already knows it (a hash table counted them),
   * spares the counting pass.
   */
  static build(col: FixedKeyColumn, skip: Uint8Array | null = null, knownDistinct?: number): KeyRangeBitmap | null {
    const kind = col.kind;
    if (kind.order !== 'int' && kind.order !== 'uint') return null;
    // min(span, buckets) <= MAX_BUCKETS: a build with that many distinct keys is dense whatever its span
    if (knownDistinct !== undefined && 2 * knownDistinct > MAX_BUCKETS) return null;
    const w = kind.width;
    if (!(w === 2 || (w === 3 && kind.order === 'int'))) return null;
    const words = col.words;
    const n = col.length;
    const nulls = col.nulls;
    const flip = kind.order === 'int' ? SIGN : 0;
    // pass 1: min / max, non-NULL count — the build's cached extremes pass (core/keys/extremes.ts)
    // when it covers the rows, else the same pass over these rows
    const e = w === 2 && (skip === null || skip === nulls) ? keyExtremes(col) : wordExtremes(words, w, kind.order === 'uint', n, nulls, skip);
    if (e === null) return null;
    // a 3-word key beyond int64: in 96-bit order the int64 values are one interval, so the extremes decide
    if (w === 3 && (!fitsInt64(words, 3 * e.minRow) || !fitsInt64(words, 3 * e.maxRow))) return null;
    const count = e.count;
    // biased unsigned words
    const minH = (words[w * e.minRow + 1]! ^ flip) >>> 0;
    const minL = words[w * e.minRow]! >>> 0;
    const maxH = (words[w * e.maxRow + 1]! ^ flip) >>> 0;
    const maxL = words[w * e.maxRow]! >>> 0;
    const span = ((BigInt(maxH) << 32n) | BigInt(maxL)) - ((BigInt(minH) << 32n) | BigInt(minL)) + 1n;
    const buckets = span < BigInt(MAX_BUCKETS) ? Number(span) : MAX_BUCKETS;
    const width = Number((span + BigInt(buckets) - 1n) / BigInt(buckets));
    // dense: 2 * distinct > min(span, buckets) = buckets. Count only when it could be true.
    if (width > 1 && 2 * count > buckets) {
      const limit = buckets >>> 1;
      if ((knownDistinct ?? countDistinctUpTo(words, w, nulls, skip, n, limit)) > limit) return null;
    }
    const bm = new KeyRangeBitmap(flip !== 0, minH, minL, maxH, maxL, span, buckets, width);
    const set = bm.#fill(words, w, flip, nulls, skip, n);
    if (width === 1 && 2 * set > buckets) return null; // width 1: set buckets == distinct keys
    if (set >= bm.reachable) return null; // every reachable bucket set: nothing to exclude
    (bm as { setBuckets: number }).setBuckets = set;
    return bm;
  }

  /** Sets the bucket of every qualifying row; returns the number of set buckets. */
  #fill(words: Int32Array, w: number, flip: number, nulls: Uint8Array | null, skip: Uint8Array | null, n: number): number {
    const bits = this.#bits;
    for (let r = 0; r < n; r++) {
      if ((nulls !== null && nulls[r] !== 0) || (skip !== null && skip[r] !== 0)) continue;
      const o = r * w;
      const b = this.#bucket((words[o + 1]! ^ flip) >>> 0, words[o]! >>> 0);
      bits[b >>> 5] |= 1 << (b & 31);
    }
    let set = 0;
    for (let i = 0; i < bits.length; i++) set += popcount32(bits[i]!);
    return set;
  }

  /** Bucket of a key in range, given as biased unsigned words (monotone; see the module comment). */
  #bucket(h: number, l: number): number {
    const off = (h - this.#minH) * TWO_32 + (l - this.#minL);
    const b = this.width === 1 ? off : Math.floor(off / this.width);
    return b < this.buckets ? b : this.buckets - 1;
  }

  /**
   * Per value: may a build key equal the 64-bit value with low word `lo` and high word `hi` (as
   * stored in normalised key words; signedness is the bitmap's)?
   */
  mayContain(lo: number, hi: number): boolean {
    const h = (this.signed ? hi ^ SIGN : hi) >>> 0;
    const l = lo >>> 0;
    const minH = this.#minH;
    const maxH = this.#maxH;
    if (h < minH || (h === minH && l < this.#minL)) return false;
    if (h > maxH || (h === maxH && l > this.#maxL)) return false;
    const b = this.#bucket(h, l);
    return ((this.#bits[b >>> 5]! >>> (b & 31)) & 1) !== 0;
  }

  /**
   * Row level over a normalised key column of the bitmap's kind: clears `keep[r]` for every
   * listed row (all rows when `rows` is null) whose key no build key can equal. Rows already 0
   * are skipped; NULL rows must not be listed (their words are 0, a real value).
   */
  test(col: FixedKeyColumn, rows: Int32Array | null, keep: Uint8Array): void {
    if (col.kind.width === 2 && this.#maxOffset < TWO_53) return this.#test2(col.words, rows === null ? col.length : rows.length, rows, keep);
    const words = col.words;
    const w = col.kind.width;
    const flip = this.signed ? SIGN : 0;
    const bits = this.#bits;
    const minH = this.#minH;
    const minL = this.#minL;
    const maxH = this.#maxH;
    const maxL = this.#maxL;
    const width = this.width;
    const last = this.buckets - 1;
    const count = rows === null ? col.length : rows.length;
    for (let i = 0; i < count; i++) {
      const r = rows === null ? i : rows[i]!;
      if (keep[r] === 0) continue;
      const o = r * w;
      if (w === 3 && !fitsInt64(words, o)) {
        keep[r] = 0; // beyond int64: outside [min, max]
        continue;
      }
      const h = (words[o + 1]! ^ flip) >>> 0;
      const l = words[o]! >>> 0;
      if (h < minH || (h === minH && l < minL) || h > maxH || (h === maxH && l > maxL)) {
        keep[r] = 0;
        continue;
      }
      const off = (h - minH) * TWO_32 + (l - minL);
      let b = width === 1 ? off : Math.floor(off / width);
      if (b > last) b = last;
      if (((bits[b >>> 5]! >>> (b & 31)) & 1) === 0) keep[r] = 0;
    }
  }

  /**
   * `test` for 2-word keys when max - min < 2^53: a row's offset from min is then an exact double
   * (or a double that is exactly negative / beyond the span for keys outside [min, max]), so one
   * branch-free pass decides every row: the bucket is clamped into the bit array, and the range
   * test ANDed with the bit (about half the rows of a kept container miss: branches mispredict).
   */
  #test2(words: Int32Array, count: number, rows: Int32Array | null, keep: Uint8Array): void {
    const flip = this.signed ? SIGN : 0;
    const bits = this.#bits;
    const minH = this.#minH;
    const minL = this.#minL;
    const maxOff = this.#maxOffset;
    const width = this.width;
    const last = this.buckets - 1;
    for (let i = 0; i < count; i++) {
      const r = rows === null ? i : rows[i]!;
      const off = (((words[2 * r + 1]! ^ flip) >>> 0) - minH) * TWO_32 + ((words[2 * r]! >>> 0) - minL);
      const inside = +(off >= 0) & +(off <= maxOff);
      let b = width === 1 ? off : Math.floor(off / width);
      b = b < 0 ? 0 : b > last ? last : b;
      keep[r] &= inside & (bits[b >>> 5]! >>> (b & 31));
    }
  }

  /**
   * `test` over int32 values standing for their sign extension (`rawInt32Keys`; a signed
   * bitmap): a value's offset from min is `v - min` as a double — the same exact double `#bucket`
   * computes from the words while min and the offsets stay within 2^53 — so each value finds the
   * bucket its normalised words would. Outside that range the values are widened and tested as words.
   */
  testInt32(values: Int32Array, rows: Int32Array | null, keep: Uint8Array): void {
    const min = (this.#minH - SIGN) * TWO_32 + this.#minL;
    if (!this.signed || this.#maxOffset >= TWO_53 || Math.abs(min) >= TWO_53) {
      const words = new Int32Array(2 * values.length);
      for (let r = 0; r < values.length; r++) {
        words[2 * r] = values[r]!;
        words[2 * r + 1] = values[r]! >> 31;
      }
      return this.test({ kind: { order: 'int', width: 2, sqlType: 'BIGINT' }, length: values.length, words, nulls: null }, rows, keep);
    }
    const bits = this.#bits;
    const maxOff = this.#maxOffset;
    const width = this.width;
    const last = this.buckets - 1;
    const count = rows === null ? values.length : rows.length;
    for (let i = 0; i < count; i++) {
      const r = rows === null ? i : rows[i]!;
      const off = values[r]! - min;
      const inside = +(off >= 0) & +(off <= maxOff);
      let b = width === 1 ? off : Math.floor(off / width);
      b = b < 0 ? 0 : b > last ? last : b;
      keep[r] &= inside & (bits[b >>> 5]! >>> (b & 31));
    }
  }

  /**
   * Per container: may a build key lie in [lo, hi] (values in the key's own domain — bigint, or
   * an integral number; `null` = unbounded on that side)? Non-integral numbers are rounded
   * inward, NaN or an inverted infinity answers "maybe".
   */
  mayContainRange(lo: bigint | number | null, hi: bigint | number | null): boolean {
    const bias = this.signed ? TWO_63 : 0n;
    let a: bigint;
    let b: bigint;
    if (lo === null || lo === -Infinity) a = this.#minU;
    else if (typeof lo === 'number') {
      if (!Number.isFinite(lo)) return true; // NaN or +Infinity as a lower bound: not a usable stat
      a = BigInt(Math.ceil(lo)) + bias;
    } else a = lo + bias;
    if (hi === null || hi === Infinity) b = this.#maxU;
    else if (typeof hi === 'number') {
      if (!Number.isFinite(hi)) return true;
      b = BigInt(Math.floor(hi)) + bias;
    } else b = hi + bias;
    if (a < this.#minU) a = this.#minU;
    if (b > this.#maxU) b = this.#maxU;
    if (a > b) return false;
    const b0 = this.#bucket(Number(a >> 32n), Number(a & 0xffffffffn));
    const b1 = this.#bucket(Number(b >> 32n), Number(b & 0xffffffffn));
    return anyBitSet(this.#bits, b0, b1);
  }

  /** e.g. `BITMAP(1048576 buckets x 2 keys, 200000 set)`. */
  get description(): string {
    return `BITMAP(${this.buckets} buckets${this.width > 1 ? ` x ${this.width} keys` : ''}, ${this.setBuckets} set)`;
  }

  /** The bitmap as plain data for a worker thread (`restore`); the bits (up to 128 KiB) in shared memory. */
  share(): SharedKeyRangeBitmap {
    return {
      signed: this.signed,
      words: [this.#minH, this.#minL, this.#maxH, this.#maxL],
      span: this.span,
      buckets: this.buckets,
      width: this.width,
      setBuckets: this.setBuckets,
      bits: shareView(this.#bits),
    };
  }

  /** The bitmap `share()` described, over the same bits. */
  static restore(s: SharedKeyRangeBitmap): KeyRangeBitmap {
    const [minH, minL, maxH, maxL] = s.words;
    const bm = new KeyRangeBitmap(s.signed, minH, minL, maxH, maxL, s.span, s.buckets, s.width, s.bits);
    (bm as { setBuckets: number }).setBuckets = s.setBuckets;
    return bm;
  }

  /** Bytes held by the bit array. */
  get memoryBytes(): number {
    return this.#bits.byteLength;
  }
}

/** A `KeyRangeBitmap` as plain data: its biased min / max words, sizing and bits. */
export interface SharedKeyRangeBitmap {
  readonly signed: boolean;
  readonly words: readonly [number, number, number, number];
  readonly span: bigint;
  readonly buckets: number;
  readonly width: number;
  readonly setBuckets: number;
  readonly bits: Uint32Array;
}

/** Whether any bit in [b0, b1] is set, a 32-bit word at a time. */
export function anyBitSet(bits: Uint32Array, b0: number, b1: number): boolean {
  if (b0 > b1) return false;
  const w0 = b0 >>> 5;
  const w1 = b1 >>> 5;
  const head = (0xffffffff << (b0 & 31)) >>> 0;
  const tail = 0xffffffff >>> (31 - (b1 & 31));
  if (w0 === w1) return (bits[w0]! & head & tail) !== 0;
  if ((bits[w0]! & head) !== 0) return true;
  for (let w = w0 + 1; w < w1; w++) if (bits[w] !== 0) return true;
  return (bits[w1]! & tail) !== 0;
}

/** Whether the 3-word value at words[o, o + 3) fits in int64 (its top word sign-extends the middle one). */
function fitsInt64(words: Int32Array, o: number): boolean {
  return words[o + 2] === words[o + 1]! >> 31;
}

/**
 * Distinct 64-bit keys (the two low words of each row) among qualifying rows, counting stops once
 * it exceeds `limit` (returns limit + 1). Open addressing over typed arrays; build time only.
 */
function countDistinctUpTo(words: Int32Array, w: number, nulls: Uint8Array | null, skip: Uint8Array | null, n: number, limit: number): number {
  let cap = 16;
  const want = 2 * Math.min(n, limit + 1);
  while (cap < want) cap <<= 1;
  const mask = cap - 1;
  const los = new Int32Array(cap);
  const his = new Int32Array(cap);
  const used = new Uint8Array(cap);
  let distinct = 0;
  for (let r = 0; r < n; r++) {
    if ((nulls !== null && nulls[r] !== 0) || (skip !== null && skip[r] !== 0)) continue;
    const l = words[r * w]!;
    const h = words[r * w + 1]!;
    let x = Math.imul(l ^ Math.imul(h, 0x9e3779b1), 0x85ebca6b);
    x ^= x >>> 15;
    x = Math.imul(x, 0xc2b2ae35);
    x ^= x >>> 13;
    let s = x & mask;
    for (;;) {
      if (used[s] === 0) {
        used[s] = 1;
        los[s] = l;
        his[s] = h;
        if (++distinct > limit) return distinct;
        break;
      }
      if (los[s] === l && his[s] === h) break;
      s = (s + 1) & mask;
    }
  }
  return distinct;
}
