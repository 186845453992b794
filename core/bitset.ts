/**
 * A fixed-length bitset over `Uint32Array` words: one bit per row for matched flags, mark columns
 * and filter results, processed a word (32 rows) at a time.
 *
 * Invariants: bit i lives in word i >>> 5 at position i & 31 (LSB first), and every bit at or past
 * `length` is zero (so popcount, scans and the Arrow conversion need no tail masking on read).
 * On a little-endian host that layout IS Arrow's validity/boolean layout (LSB-first bytes), which
 * is why `toArrowBool` is a byte copy; the module refuses to load on a big-endian host.
 */
import { Bool, makeData, makeVector } from 'apache-arrow';
import type { Vector } from 'apache-arrow';

if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) {
  throw new Error('joinlab bitsets assume a little-endian host');
}

/** Bits [0, n) of a word set: n in 1..32. */
function lowMask(n: number): number {
  return n >= 32 ? -1 : (1 << n) - 1;
}

/** Set bits in a 32-bit word (SWAR). */
export function popcount32(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number;
}

export class Bitset {
  readonly length: number;
  readonly words: Uint32Array;

  constructor(length: number) {
    if (!Number.isInteger(length) || length < 0) throw new RangeError(`bitset length must be a non-negative integer, got ${length}`);
    this.length = length;
    this.words = new Uint32Array((length + 31) >>> 5);
  }

  /** Byte-per-row 0/1 (any non-zero byte counts as set) -> bits, 32 rows per word. */
  static fromBytes(u8: Uint8Array): Bitset {
    const out = new Bitset(u8.length);
    const words = out.words;
    for (let w = 0; w < words.length; w++) {
      const base = w << 5;
      const end = Math.min(32, u8.length - base);
      let word = 0;
      for (let b = 0; b < end; b++) if (u8[base + b] !== 0) word |= 1 << b;
      words[w] = word;
    }
    return out;
  }

  // get/set/clear do not bounds-check (hot paths): callers keep 0 <= i < length.
  get(i: number): boolean {
    return ((this.words[i >>> 5]! >>> (i & 31)) & 1) !== 0;
  }

  set(i: number): void {
    this.words[i >>> 5]! |= 1 << (i & 31);
  }

  clear(i: number): void {
    this.words[i >>> 5]! &= ~(1 << (i & 31));
  }

  /** Set bits [start, end): whole words in the middle, masked words at the ends. */
  setRange(start: number, end: number): void {
    if (start < 0 || end > this.length || start > end) throw new RangeError(`setRange out of bounds: [${start}, ${end}) of ${this.length}`);
    if (start === end) return;
    const words = this.words;
    const first = start >>> 5;
    const last = (end - 1) >>> 5;
    const headMask = -1 << (start & 31);
    const tailMask = lowMask(((end - 1) & 31) + 1);
    if (first === last) {
      words[first]! |= headMask & tailMask;
      return;
    }
    words[first]! |= headMask;
    for (let w = first + 1; w < last; w++) words[w] = 0xffffffff;
    words[last]! |= tailMask;
  }

  /** Bits [0, n) from byte-per-row flags `u8[k] === 1` (k < n); the rest of the bitset untouched. */
  setFromBytes(u8: Uint8Array, n: number): void {
    if (n > this.length) throw new RangeError(`setFromBytes: ${n} rows into a bitset of ${this.length}`);
    const words = this.words;
    const full = n >>> 5;
    for (let w = 0; w < full; w++) {
      const base = w << 5;
      let word = 0;
      for (let b = 0; b < 32; b++) word |= (u8[base + b]! & 1) << b;
      words[w] = word;
    }
    const rest = n & 31;
    if (rest !== 0) {
      const base = full << 5;
      let word = 0;
      for (let b = 0; b < rest; b++) word |= (u8[base + b]! & 1) << b;
      words[full] = (words[full]! & ~lowMask(rest)) | word;
    }
  }

  setAll(): void {
    const words = this.words;
    words.fill(0xffffffff);
    const tail = this.length & 31;
    if (tail !== 0) words[words.length - 1] = lowMask(tail);
  }

  clearAll(): void {
    this.words.fill(0);
  }

  /**
   * this[dstOffset + k] |= src[srcOffset + k] for k in [0, length), at any bit offsets: each step
   * fills the rest of one destination word from (at most) two source words, so after the first
   * step the loop moves 32 bits at a time.
   */
  orRange(src: Bitset, srcOffset: number, dstOffset: number, length: number): void {
    if (srcOffset < 0 || dstOffset < 0 || length < 0 || srcOffset + length > src.length || dstOffset + length > this.length) {
      throw new RangeError(`orRange out of bounds: src ${srcOffset}+${length} of ${src.length}, dst ${dstOffset}+${length} of ${this.length}`);
    }
    const dst = this.words;
    const from = src.words;
    let s = srcOffset;
    let d = dstOffset;
    let left = length;
    while (left > 0) {
      const db = d & 31;
      const n = Math.min(32 - db, left);
      dst[d >>> 5]! |= readBits(from, s, n) << db;
      s += n;
      d += n;
      left -= n;
    }
  }

  /** Set bits in [start, end). */
  popcount(start = 0, end = this.length): number {
    if (start >= end) return 0;
    const words = this.words;
    const first = start >>> 5;
    const last = (end - 1) >>> 5;
    const headMask = -1 << (start & 31);
    const tailMask = lowMask(((end - 1) & 31) + 1);
    if (first === last) return popcount32(words[first]! & headMask & tailMask);
    let count = popcount32(words[first]! & headMask);
    for (let w = first + 1; w < last; w++) count += popcount32(words[w]!);
    return count + popcount32(words[last]! & tailMask);
  }

  countOnes(): number {
    return this.popcount(0, this.length);
  }

  /** First set bit at or after `from`, or -1. */
  nextSetBit(from: number): number {
    if (from >= this.length) return -1;
    const words = this.words;
    let w = from >>> 5;
    let word = words[w]! & (-1 << (from & 31));
    while (word === 0) {
      if (++w >= words.length) return -1;
      word = words[w]! | 0;
    }
    const i = (w << 5) + (31 - Math.clz32(word & -word));
    return i < this.length ? i : -1;
  }

  /** First clear bit at or after `from` (below `length`), or -1. */
  nextClearBit(from: number): number {
    if (from >= this.length) return -1;
    const words = this.words;
    let w = from >>> 5;
    let word = ~words[w]! & (-1 << (from & 31));
    while (word === 0) {
      if (++w >= words.length) return -1;
      word = ~words[w]!;
    }
    const i = (w << 5) + (31 - Math.clz32(word & -word));
    return i < this.length ? i : -1;
  }

  /** Bytes [0, ceil(length / 8)) of the words: Arrow's LSB-first boolean bitmap. Shares memory. */
  bytes(): Uint8Array {
    return new Uint8Array(this.words.buffer, this.words.byteOffset, (this.length + 7) >>> 3);
  }

  /** A non-null Arrow boolean vector of the bits (a copy: later changes to the bitset don't show). */
  toArrowBool(): Vector<Bool> {
    const data = makeData({ type: new Bool(), data: this.bytes().slice(), length: this.length, nullCount: 0 });
    return makeVector(data);
  }
}

/** `n` (1..32) bits of `words` starting at bit `pos`, in the low bits of the result. */
function readBits(words: Uint32Array, pos: number, n: number): number {
  const w = pos >>> 5;
  const sh = pos & 31;
  let v = words[w]! >>> sh;
  if (sh + n > 32) v |= words[w + 1]! << (32 - sh);
  return n === 32 ? v | 0 : v & lowMask(n);
}
