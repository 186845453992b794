/**
 * Exact integer arithmetic for filter evaluation, without BigInt: the representation of an exact
 * (integer or decimal) column of values, and the 128-bit word arithmetic its slow path uses.
 *
 * An `ExactVec` is a `Float64Array` `f` plus, only when some value needs it, a `Uint32Array` `w`
 * of four little-endian 32-bit words per row (128-bit two's complement):
 *   - |f[k]| < 2^53: f[k] is the exact value (an integer, never -0) and w[k] is not looked at;
 *   - |f[k]| >= 2^53: w[4k .. 4k+3] holds the exact value and f[k] is its nearest double (ties to
 *     even; so "|f| >= 2^53" is exactly "|value| >= 2^53", rounding being monotonic);
 *   - w is null when no row is at or beyond 2^53 (or when `src` gives the words of a 64-bit
 *     column in place).
 * Kernels compute in doubles, which is exact while operands and result stay below 2^53 (an exact
 * sum, difference or product at or beyond 2^53 rounds to a double at or beyond 2^53, so the check
 * of the rounded result is exact), and send only the other rows to the word arithmetic here —
 * which also decides every overflow exactly. Integers and decimals (unscaled, the scale is in the
 * type) share the representation; every function below works on the words of one row, through
 * module-level scratch arrays (evaluation is synchronous and never re-entered).
 */

export interface ExactVec {
  readonly f: Float64Array;
  readonly w: Uint32Array | null;
  /**
   * Instead of `w`, for an Int64/UInt64 column: the words of row k are read in place, as
   * `words[2 * rows[k]]` (low) and `words[2 * rows[k] + 1]` (high), sign-extended when signed —
   * so gathering a 64-bit column copies no words; they are rarely needed.
   */
  readonly src: Int64Source | null;
  readonly nulls: Uint8Array | null;
}

export interface Int64Source {
  readonly words: Int32Array;
  readonly rows: Int32Array;
  readonly signed: boolean;
}

/** Whether some row of `v` may be at or beyond 2^53 (its words are in `w` or `src`). */
export function isWide(v: ExactVec): boolean {
  return v.w !== null || v.src !== null;
}

export const TWO32 = 4294967296;
export const TWO53 = 9007199254740992;
/** Largest magnitude a double holds exactly together with all smaller integers. */
export const MAX_EXACT = TWO53 - 1;
const TWO64 = 18446744073709551616;

/** 10^k as a double, spelled like a C++ literal (`1e23`, not `10 ** 23`, which V8 rounds differently). */
export const POW10_DOUBLE: readonly number[] = Array.from({ length: 40 }, (_, k) => Number(`1e${k}`));

/** 10^k as four words, k = 0..38. */
export const POW10_WORDS: readonly Uint32Array[] = Array.from({ length: 39 }, (_, k) => wordsOf(10n ** BigInt(k)));

/** `v` (any bigint in the signed 128-bit range) as four words. Compile time only. */
export function wordsOf(v: bigint): Uint32Array {
  const u = BigInt.asUintN(128, v);
  return Uint32Array.of(Number(u & 0xffffffffn), Number((u >> 32n) & 0xffffffffn), Number((u >> 64n) & 0xffffffffn), Number(u >> 96n));
}

/** The words at `src[o .. o+3]` as a bigint (for error messages and tests only). */
export function bigintOf(src: Uint32Array, o = 0): bigint {
  const u = BigInt(src[o]!) | (BigInt(src[o + 1]!) << 32n) | (BigInt(src[o + 2]!) << 64n) | (BigInt(src[o + 3]!) << 96n);
  return BigInt.asIntN(128, u);
}

/** Row k of an exact vector as a bigint (error messages and tests only). */
export function exactValue(v: ExactVec, k: number): bigint {
  const f = v.f[k]!;
  if (f > -TWO53 && f < TWO53) return BigInt(f);
  const d = new Uint32Array(4);
  loadRow(v, k, d);
  return bigintOf(d);
}

// ---- loading and storing one row ----------------------------------------------------------------

/** An integer double |x| < 2^53 as words at d[o .. o+3]. */
export function setFromDouble(x: number, d: Uint32Array, o: number): void {
  const lo = x >>> 0; // x mod 2^32 (ToUint32 is exact for integers)
  const hi = (x - lo) / TWO32; // exact, |hi| < 2^21
  d[o] = lo;
  d[o + 1] = hi >>> 0;
  const sign = hi < 0 ? 0xffffffff : 0;
  d[o + 2] = sign;
  d[o + 3] = sign;
}

/** Row k of `v` as words in `d[0..3]`. */
export function loadRow(v: ExactVec, k: number, d: Uint32Array): void {
  const f = v.f[k]!;
  if (f > -TWO53 && f < TWO53) setFromDouble(f, d, 0);
  else if (v.w !== null) {
    const w = v.w;
    const o = 4 * k;
    d[0] = w[o]!;
    d[1] = w[o + 1]!;
    d[2] = w[o + 2]!;
    d[3] = w[o + 3]!;
  } else {
    const s = v.src!;
    const r = s.rows[k]! << 1;
    const hi = s.words[r + 1]!;
    const sign = s.signed && hi < 0 ? 0xffffffff : 0;
    d[0] = s.words[r]! >>> 0;
    d[1] = hi >>> 0;
    d[2] = sign;
    d[3] = sign;
  }
}

/** Store words `r` as row k: f[k] = nearest double, and the words when the value is at or beyond 2^53. */
export function storeRow(r: Uint32Array, k: number, f: Float64Array, w: Uint32Array): void {
  const d = toDouble(r);
  f[k] = d;
  const o = 4 * k;
  w[o] = r[0]!;
  w[o + 1] = r[1]!;
  w[o + 2] = r[2]!;
  w[o + 3] = r[3]!;
}

// ---- word arithmetic (128-bit two's complement; results may alias inputs) -------------------------

const T0 = new Uint32Array(4);
const T1 = new Uint32Array(4);
const T2 = new Uint32Array(4);
const T3 = new Uint32Array(4);

export function isNegative(a: Uint32Array): boolean {
  return a[3]! >= 0x80000000;
}

/** r = a + b; returns true on signed 128-bit overflow. */
export function add128(a: Uint32Array, b: Uint32Array, r: Uint32Array): boolean {
  const sa = a[3]! >>> 31;
  const sb = b[3]! >>> 31;
  let c = 0;
  for (let i = 0; i < 4; i++) {
    const s = a[i]! + b[i]! + c;
    r[i] = s >>> 0;
    c = s >= TWO32 ? 1 : 0;
  }
  const sr = r[3]! >>> 31;
  return sa === sb && sr !== sa;
}

/** r = a - b; returns true on signed 128-bit overflow. */
export function sub128(a: Uint32Array, b: Uint32Array, r: Uint32Array): boolean {
  const sa = a[3]! >>> 31;
  const sb = b[3]! >>> 31;
  let borrow = 0;
  for (let i = 0; i < 4; i++) {
    const s = a[i]! - b[i]! - borrow;
    r[i] = s >>> 0;
    borrow = s < 0 ? 1 : 0;
  }
  const sr = r[3]! >>> 31;
  return sa !== sb && sr !== sa;
}

/** r = -a (two's complement; -MIN = MIN). */
export function neg128(a: Uint32Array, r: Uint32Array): void {
  let c = 1;
  for (let i = 0; i < 4; i++) {
    const s = (~a[i]! >>> 0) + c;
    r[i] = s >>> 0;
    c = s >= TWO32 ? 1 : 0;
  }
}

/** r = |a| read as an unsigned 128-bit magnitude (|MIN| = 2^127 is representable that way). */
function abs128(a: Uint32Array, r: Uint32Array): void {
  if (isNegative(a)) neg128(a, r);
  else {
    r[0] = a[0]!;
    r[1] = a[1]!;
    r[2] = a[2]!;
    r[3] = a[3]!;
  }
}

/** Unsigned comparison of two magnitudes: -1, 0, 1. */
export function cmpMag(a: Uint32Array, b: Uint32Array): number {
  for (let i = 3; i >= 0; i--) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Signed comparison: -1, 0, 1. */
export function cmp128(a: Uint32Array, b: Uint32Array): number {
  const x = a[3]! | 0;
  const y = b[3]! | 0;
  if (x !== y) return x < y ? -1 : 1;
  for (let i = 2; i >= 0; i--) {
    const p = a[i]!;
    const q = b[i]!;
    if (p !== q) return p < q ? -1 : 1;
  }
  return 0;
}

const LIMBS_A = new Float64Array(8);
const LIMBS_B = new Float64Array(8);
const PROD = new Float64Array(16);

/** r = a * b; returns true on signed 128-bit overflow (16-bit limbs, every partial sum exact in a double). */
export function mul128(a: Uint32Array, b: Uint32Array, r: Uint32Array): boolean {
  const negative = isNegative(a) !== isNegative(b);
  abs128(a, T0);
  abs128(b, T1);
  for (let i = 0; i < 4; i++) {
    LIMBS_A[2 * i] = T0[i]! & 0xffff;
    LIMBS_A[2 * i + 1] = T0[i]! >>> 16;
    LIMBS_B[2 * i] = T1[i]! & 0xffff;
    LIMBS_B[2 * i + 1] = T1[i]! >>> 16;
  }
  PROD.fill(0);
  for (let i = 0; i < 8; i++) {
    const x = LIMBS_A[i]!;
    if (x === 0) continue;
    for (let j = 0; j < 8; j++) PROD[i + j] += x * LIMBS_B[j]!; // < 8 * 2^32: exact
  }
  let carry = 0;
  let high = 0;
  for (let t = 0; t < 16; t++) {
    const v = PROD[t]! + carry;
    const limb = v % 65536;
    carry = (v - limb) / 65536;
    if (t < 8) {
      if (t & 1) T2[t >> 1] = (T2[t >> 1]! | (limb << 16)) >>> 0;
      else T2[t >> 1] = limb;
    } else if (limb !== 0) high = 1;
  }
  if (high || carry) return true;
  // magnitude in T2 (unsigned); it must be < 2^127, or exactly 2^127 for a negative product
  const top = T2[3]!;
  if (top >= 0x80000000) {
    const isMin = top === 0x80000000 && T2[2] === 0 && T2[1] === 0 && T2[0] === 0;
    if (!(negative && isMin)) return true;
  }
  if (negative) neg128(T2, r);
  else {
    r[0] = T2[0]!;
    r[1] = T2[1]!;
    r[2] = T2[2]!;
    r[3] = T2[3]!;
  }
  return false;
}

/**
 * Truncating division: q = trunc(a / b), m = a - q * b (sign of a), b != 0. Returns true on
 * overflow (MIN / -1). Binary long division over the magnitudes; only the slow path gets here.
 */
export function divmod128(a: Uint32Array, b: Uint32Array, q: Uint32Array, m: Uint32Array): boolean {
  const negA = isNegative(a);
  const negQ = negA !== isNegative(b);
  abs128(a, T0);
  abs128(b, T1);
  T2.fill(0); // quotient
  T3.fill(0); // remainder
  let top = 127;
  while (top >= 0 && ((T0[top >> 5]! >>> (top & 31)) & 1) === 0) top--;
  for (let bit = top; bit >= 0; bit--) {
    // T3 = (T3 << 1) | bit of T0
    T3[3] = ((T3[3]! << 1) | (T3[2]! >>> 31)) >>> 0;
    T3[2] = ((T3[2]! << 1) | (T3[1]! >>> 31)) >>> 0;
    T3[1] = ((T3[1]! << 1) | (T3[0]! >>> 31)) >>> 0;
    T3[0] = ((T3[0]! << 1) | ((T0[bit >> 5]! >>> (bit & 31)) & 1)) >>> 0;
    if (cmpMag(T3, T1) >= 0) {
      sub128(T3, T1, T3);
      T2[bit >> 5] = (T2[bit >> 5]! | (1 << (bit & 31))) >>> 0;
    }
  }
  const overflow = !negQ && T2[3]! >= 0x80000000;
  if (negQ) neg128(T2, q);
  else q.set(T2);
  if (negA) neg128(T3, m);
  else m.set(T3);
  return overflow;
}

// ---- conversions to floating point ---------------------------------------------------------------

function bitLength(m: Uint32Array): number {
  for (let i = 3; i >= 0; i--) {
    const x = m[i]!;
    if (x !== 0) return 32 * i + 32 - Math.clz32(x);
  }
  return 0;
}

/** The integer made of bits [pos, pos + count) of magnitude m (count <= 53). */
function bitsAt(m: Uint32Array, pos: number, count: number): number {
  let v = 0;
  let b = pos + count; // exclusive upper bit
  while (b > pos) {
    const word = (b - 1) >> 5;
    const base = word << 5;
    const start = pos > base ? pos : base;
    const n = b - start;
    const shifted = m[word]! >>> (start - base);
    const part = n === 32 ? shifted : shifted & ((1 << n) - 1) & 0xffffffff;
    v = v * 2 ** n + (part >>> 0);
    b = start;
  }
  return v;
}

function anyBitBelow(m: Uint32Array, pos: number): boolean {
  const word = pos >> 5;
  for (let i = 0; i < word; i++) if (m[i] !== 0) return true;
  const rest = pos & 31;
  return rest !== 0 && (m[word]! & ((1 << rest) - 1)) !== 0;
}

/** Magnitude m rounded to `precision` significant bits, ties to even (53: a double, 24: a float). */
function roundMag(m: Uint32Array, precision: number): number {
  const len = bitLength(m);
  if (len <= 53) return m[3]! * 2 ** 96 + m[2]! * TWO64 + m[1]! * TWO32 + m[0]!; // exact
  if (len <= precision) return bitsAt(m, 0, len); // unreachable for precision <= 53
  const shift = len - precision;
  let q = bitsAt(m, shift, precision);
  const roundBit = (m[(shift - 1) >> 5]! >>> ((shift - 1) & 31)) & 1;
  if (roundBit && (q % 2 === 1 || anyBitBelow(m, shift - 1))) q += 1;
  return q * 2 ** shift;
}

/** The nearest double to a 128-bit value (ties to even), as C++ converts int64 and uint64. */
export function toDouble(a: Uint32Array): number {
  const neg = isNegative(a);
  abs128(a, T0);
  let d: number;
  if (T0[3] === 0 && T0[2] === 0) d = T0[1]! * TWO32 + T0[0]!; // one rounding: exact product plus a word
  else d = roundMag(T0, 53);
  return neg ? -d : d;
}

/** The nearest float32 to a value (ties to even, one rounding: C++ `(float)int64` / `(float)uint64`). */
export function toFloat32(a: Uint32Array): number {
  const neg = isNegative(a);
  abs128(a, T0);
  let d: number;
  if (T0[3] === 0 && T0[2] === 0 && T0[1]! < 0x200000) d = Math.fround(T0[1]! * TWO32 + T0[0]!); // exact, then one rounding
  else d = roundMag(T0, 24);
  return neg ? -d : d;
}

/**
 * DuckDB's HUGEINT -> DOUBLE (`CastBigintToFloating`, src/common/types/hugeint.cpp): lower and
 * upper 64-bit halves converted separately and combined, `-(double)(UINT64_MAX - lower) - 1` when
 * upper is -1. Not always the nearest double; used wherever DuckDB converts a HUGEINT (or a
 * DECIMAL wider than 18 digits).
 */
export function hugeToDouble(a: Uint32Array): number {
  if (a[3] === 0xffffffff && a[2] === 0xffffffff) {
    const t = (~a[1]! >>> 0) * TWO32 + (~a[0]! >>> 0); // UINT64_MAX - lower, rounded once
    return -t - 1;
  }
  const lower = a[1]! * TWO32 + a[0]!;
  const upper = (a[3]! | 0) * TWO32 + a[2]!;
  return lower + upper * TWO64;
}

// ---- range checks --------------------------------------------------------------------------------

/** Whether words r hold a value in [-(2^63), 2^63). */
export function fitsI64(r: Uint32Array): boolean {
  const sign = r[1]! >= 0x80000000 ? 0xffffffff : 0;
  return r[2] === sign && r[3] === sign;
}

/** Whether words r hold a value in [0, 2^64). */
export function fitsU64(r: Uint32Array): boolean {
  return r[2] === 0 && r[3] === 0;
}

/** Whether |r| < 10^width. */
export function fitsDecimal(r: Uint32Array, width: number): boolean {
  abs128(r, T0);
  return cmpMag(T0, POW10_WORDS[width]!) < 0;
}

/** Whether |r| <= 2^53 (the limit of DuckDB's exact fast path in decimal -> double). */
export function magAtMost2p53(r: Uint32Array): boolean {
  abs128(r, T0);
  return T0[3] === 0 && T0[2] === 0 && (T0[1]! < 0x200000 || (T0[1] === 0x200000 && T0[0] === 0));
}
