/**
 * Offsets of ONE integer key from the build's minimum, and the branch-free "is this probe key in
 * range and present?" pass over them — shared by the layouts that address by the key itself:
 * `array` (slot[offset], presence bits beside it) and `rank` (bits + rank counts interleaved).
 *
 * A `KeyOffsets` is fixed by the build's analysis (array.ts `analyzeArrayKeys`): width (1 or 2
 * words), min, span. Every offset is an int32 — span <= 2^30 — computed as `(lo - minLo) | 0`, the
 * low-word difference mod 2^32 read as signed. A key is in range iff that is in [0, span) AND its
 * high word is the one it must be:
 *  - NARROW (every build key has the same high word H, i.e. minLo + span <= 2^32): high word == H.
 *    A key with high word H below min wraps to >= 2^32 - minLo >= span, one above the keys' last
 *    low word to a negative number: both rejected.
 *  - WIDE (the range crosses one high-word boundary): (hi' - minHi) equals the borrow out of the
 *    low subtraction (unsigned lo < minLo, tested as signed on sign-flipped words); hi' is the high
 *    word with the sign bit flipped for unsigned keys. `(hi' - minHi) | 0` wraps only for a
 *    difference near -2^32, which needs minHi = 2^31 - 1, and then the range cannot cross a boundary.
 *  - 1 word (int8..int32, bool): `(key - min) | 0`; a wrapped difference lands at >= span or below
 *    0 as above.
 *
 * `selectHits` computes, for a window of probe rows row(k) (k in [from, to); row(k) = k or
 * list[k]), a hit mask per 32 rows: bit set iff the key is in range, not NULL, and its presence bit
 * is set in `bits` (bit o of word (o >>> 5) << dirShift: rank interleaves a count word after each
 * bits word, dirShift 1; array keeps plain bits, dirShift 0). `expandHits` turns the masks into the
 * rows, in order. Why masks, and why int32 only (measured over 10M rows, Node 20):
 *  - one store per row (a candidate list) is ~1.8x slower than one mask word per 32 rows
 *    (windowed-probe.ts `expandMasks` says why);
 *  - an unsigned `>>> 0`, or a difference that may leave the int32 range, makes V8 compute in
 *    doubles (~1.5x slower);
 *  - a branch on "in range?" mispredicts on about every other row of a probe spread twice as wide
 *    as the build: out-of-range rows read word 0 instead and are masked out.
 */

/** What the array layout learned from one pass over the build keys (cached per BuildInput). */
export interface ArrayKeyAnalysis {
  /** Why the array layout cannot index these keys, or null. */
  readonly reason: string | null;
  /**
   * What about the key itself (columns, type, NULL rule), not its span, keeps a range-addressed
   * layout from indexing it, as a predicate each layout puts its own name before ("needs exactly
   * one key column, got 2"): null when only the span is too wide, in which case
   * count/span/width/flip/min are all set (the `rank` layout indexes wider spans from the same
   * analysis).
   */
  readonly keyReason: string | null;
  /** Non-NULL build rows (the rows that would be inserted). */
  readonly count: number;
  /** max - min + 1 over non-NULL keys (0 when none; may be inexact above 2^53 — only compared). */
  readonly span: number;
  /** Words per key (1 or 2) when supported. */
  readonly width: number;
  /** Sign-bit flip applied to the high word (0 signed, 0x80000000 unsigned). */
  readonly flip: number;
  /** min's high word (flipped) and unsigned low word; for width 1, minLo is the signed value. */
  readonly minHi: number;
  readonly minLo: number;
}
import { expandMasks, WINDOW } from './windowed-probe.ts';

const SIGN = 0x80000000 | 0;

/** How to turn one integer key column's words into offsets from the build's minimum. */
export interface KeyOffsets {
  /** Words per key: 1 or 2. */
  readonly width: number;
  /** max - min + 1 (<= 2^30). */
  readonly span: number;
  /** 2-word keys whose build values share one high word (see the module comment). */
  readonly narrow: boolean;
  /** Sign-bit flip of the high word (0 signed, 0x80000000 unsigned). */
  readonly flip: number;
  /** min's flipped high word; its low word as int32 (the signed value for width 1). */
  readonly minHi: number;
  readonly minLo: number;
}

export function keyOffsets(a: ArrayKeyAnalysis): KeyOffsets {
  return { width: a.width, span: a.span, narrow: a.width === 2 && a.minLo + a.span <= 2 ** 32, flip: a.flip, minHi: a.minHi, minLo: a.minLo | 0 };
}

/** out[r] = offset of build row r's key (-1 for a NULL row), rows [from, rows); every non-NULL key is in range. */
export function buildOffsets(k: KeyOffsets, w: Int32Array, nulls: Uint8Array | null, rows: number, out: Int32Array, from = 0): void {
  const stride = k.width;
  const minLo = k.minLo;
  for (let r = from; r < rows; r++) out[r] = nulls !== null && nulls[r] !== 0 ? -1 : (w[stride * r]! - minLo) | 0;
}

/** The offset of probe row q's key, for a row known to be in range (a hit). */
export function offsetAt(k: KeyOffsets, pw: Int32Array, q: number): number {
  return (pw[k.width * q]! - k.minLo) | 0;
}

/** Hit masks of one window (32 rows per word). */
const masks = new Int32Array(WINDOW / 32);

/** The window's hit masks (see the module comment); a span of 0 hits nothing. */
export function selectHits(k: KeyOffsets, bits: Int32Array, dirShift: number, pw: Int32Array, pn: Uint8Array | null, list: Int32Array | null, from: number, to: number): void {
  if (k.span === 0) masks.fill(0);
  else if (k.width === 1) maskW1(bits, dirShift, k.span, k.minLo, pw, pn, list, from, to);
  else if (k.narrow) maskNarrow(bits, dirShift, k.span, k.minHi ^ k.flip, k.minLo, pw, pn, list, from, to);
  else maskWide(bits, dirShift, k.span, k.flip, k.minHi, k.minLo, pw, pn, list, from, to);
}

/** The rows whose mask bit is set, in order, into `rows`; returns their count. */
export function expandHits(list: Int32Array | null, from: number, to: number, rows: Int32Array): number {
  return expandMasks(masks, list, from, to, rows);
}

function maskNarrow(
  dir: Int32Array,
  sh: number,
  span: number,
  hi: number,
  minLo: number,
  pw: Int32Array,
  pn: Uint8Array | null,
  list: Int32Array | null,
  from: number,
  to: number,
): void {
  let m = 0;
  for (let base = from; base < to; base += 32) {
    const end = to - base < 32 ? to : base + 32;
    let mask = 0;
    if (list === null && pn === null) {
      for (let q = base; q < end; q++) {
        const d = (pw[2 * q]! - minLo) | 0;
        const live = +(pw[2 * q + 1] === hi) & +(d >= 0) & +(d < span);
        const o = d & -live;
        mask |= ((dir[(o >>> 5) << sh]! >>> (o & 31)) & live) << (q - base);
      }
    } else {
      for (let k = base; k < end; k++) {
        const q = list === null ? k : list[k]!;
        const d = (pw[2 * q]! - minLo) | 0;
        const live = +(pw[2 * q + 1] === hi) & +(d >= 0) & +(d < span) & (pn === null ? 1 : 1 - pn[q]!);
        const o = d & -live;
        mask |= ((dir[(o >>> 5) << sh]! >>> (o & 31)) & live) << (k - base);
      }
    }
    masks[m++] = mask;
  }
}

function maskWide(
  dir: Int32Array,
  sh: number,
  span: number,
  flip: number,
  minHi: number,
  minLo: number,
  pw: Int32Array,
  pn: Uint8Array | null,
  list: Int32Array | null,
  from: number,
  to: number,
): void {
  const minLoFlipped = minLo ^ SIGN;
  let m = 0;
  for (let base = from; base < to; base += 32) {
    const end = to - base < 32 ? to : base + 32;
    let mask = 0;
    for (let k = base; k < end; k++) {
      const q = list === null ? k : list[k]!;
      const lo = pw[2 * q]!;
      const borrow = +((lo ^ SIGN) < minLoFlipped);
      const d = (lo - minLo) | 0;
      const live = +((((pw[2 * q + 1]! ^ flip) - minHi) | 0) === borrow) & +(d >= 0) & +(d < span) & (pn === null ? 1 : 1 - pn[q]!);
      const o = d & -live;
      mask |= ((dir[(o >>> 5) << sh]! >>> (o & 31)) & live) << (k - base);
    }
    masks[m++] = mask;
  }
}

function maskW1(dir: Int32Array, sh: number, span: number, minV: number, pw: Int32Array, pn: Uint8Array | null, list: Int32Array | null, from: number, to: number): void {
  let m = 0;
  for (let base = from; base < to; base += 32) {
    const end = to - base < 32 ? to : base + 32;
    let mask = 0;
    for (let k = base; k < end; k++) {
      const q = list === null ? k : list[k]!;
      const d = (pw[q]! - minV) | 0;
      const live = +(d >= 0) & +(d < span) & (pn === null ? 1 : 1 - pn[q]!);
      const o = d & -live;
      mask |= ((dir[(o >>> 5) << sh]! >>> (o & 31)) & live) << (k - base);
    }
    masks[m++] = mask;
  }
}
