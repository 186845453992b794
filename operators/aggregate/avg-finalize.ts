/**
 * `avg` of an exact (integer or decimal) column, finalised to the very double DuckDB returns.
 *
 * DuckDB keeps an exact sum and a count per group (a HUGEINT sum; an int64 one for SMALLINT and
 * DECIMAL(p <= 4)) and divides once at the end (extension/core_functions/aggregate/algebraic/
 * avg.cpp, `IntegerAverageOperation`, `IntegerAverageOperationHugeint`, `HugeintAverageOperation`,
 * `BindDecimalAvg`). Two finalisers exist, and which one runs depends on the input type:
 *
 *  - `double` (SMALLINT, DECIMAL(p <= 4): the `INT16` physical type):
 *      `double(sum) / (double(count) * scale)`, all in IEEE doubles — reproduced by JS doubles;
 *  - `long double` (TINYINT, INTEGER, BIGINT, the unsigned integers, DECIMAL(p >= 5)):
 *      `Hugeint::Cast<long double>(sum) / ((long double)count * scale)`, stored into a double.
 *    On x86-64 Linux (the platform DuckDB's Node binaries are built for here) `long double` is the
 *    x87 80-bit format: a 64-bit significand. So the quotient is rounded twice, first to 64 bits
 *    and then to 53 — which differs from the correctly rounded quotient whenever the 64-bit result
 *    lands exactly on a midpoint between two doubles. Measured on DuckDB 1.5.6: the avg of 2111
 *    INTEGERs summing to 188610 is 89.34628138323069, while 188610 / 2111 in doubles is
 *    89.3462813832307 (the SMALLINT finaliser's answer, and DOUBLE's).
 *
 * `scale` is `Hugeint::Cast<double>(10^s)` (DuckDB's own HUGEINT -> double conversion,
 * `hugeToDouble` in core/expr/exact.ts), 1 for integers; the hugeint -> long double cast is
 * `lower + upper * 2^64` with one rounding (exact below 2^64 in magnitude), which is round-to-64-bits.
 *
 * This module emulates that arithmetic without BigInt:
 *  - fast path (nearly every group): |sum| <= 2^53 and the divisor `count * scale` an integer
 *    <= 2^53, so both are exact doubles. Then `r = sum / divisor` is the correctly rounded quotient,
 *    and the double rounding can only differ from it when the true quotient is within half a
 *    64-bit ulp of a midpoint of two doubles. For integers S, D that needs D > 2^11 (a nonzero
 *    distance |S/D - M| is at least 2^(t-1)/D, the danger zone is 2^(t-12) wide, t the binade), so
 *    divisors up to 2048 return `r` directly; larger ones compute the residual S - r*D exactly
 *    (Dekker's two-product) and accept `r` unless it is within ~2^-10 of a half ulp.
 *  - slow path (the rest, about one group in a thousand, plus |sum| > 2^53 and huge scales):
 *    64-bit-significand emulation on 32-bit words — round the sum to 64 bits, multiply the
 *    count by the scale exactly and round to 64 bits, divide by restoring long division (66
 *    quotient bits and a sticky bit), round to 64 bits, then to 53. About a microsecond a group.
 */
import { hugeToDouble, mul128, POW10_WORDS, setFromDouble, TWO32, TWO53 } from '../../core/expr/exact.ts';

/** Which of DuckDB's two avg finalisers an exact input type gets. */
export type AvgRule = 'double' | 'long-double';

/** `Hugeint::Cast<double>(POWERS_OF_TEN[scale])`: the divisor factor of a DECIMAL(p, scale) avg. */
export function decimalAvgScale(scale: number): number {
  return scale === 0 ? 1 : hugeToDouble(POW10_WORDS[scale]!);
}

const TWO64 = 18446744073709551616;

/**
 * The double DuckDB returns for avg = sum / (count * scale): `sum` the exact sum as four
 * little-endian words of a 128-bit two's complement integer (read at `sum[o .. o+3]`), `count`
 * > 0, `scale` from `decimalAvgScale` (1 for integers).
 */
export function exactAvg(sum: Uint32Array, o: number, count: number, scale: number, rule: AvgRule): number {
  const w0 = sum[o]!;
  const w1 = sum[o + 1]!;
  const w2 = sum[o + 2]!;
  const w3 = sum[o + 3]!;
  if (rule === 'double') {
    // the state is an int64 (DuckDB's `double(state.value)`: int64 -> double, round to nearest)
    return toDoubleWords(w0, w1, w2, w3) / (count * scale);
  }
  // is the sum an exact double (|sum| <= 2^53)?
  const small = (w3 === 0 && w2 === 0 && w1 < 0x200000) || (w3 === 0xffffffff && w2 === 0xffffffff && w1 >= 0xffe00000);
  const divisor = count * scale;
  if (small && divisor <= TWO53 && Number.isInteger(divisor) && (scale === 1 || scale <= 1e22)) {
    const s = w3 === 0 ? w1 * TWO32 + w0 : -((~w1 >>> 0) * TWO32 + (~w0 >>> 0) + 1);
    if (s === 0) return 0;
    const r = s / divisor;
    if (divisor <= 2048 || residualIsSafe(s, divisor, r)) return r;
  }
  return extendedAvg(w0, w1, w2, w3, count, scale);
}

/** Nearest double of the 128-bit value (one rounding below 2^64; the int64 states never exceed it). */
function toDoubleWords(w0: number, w1: number, w2: number, w3: number): number {
  if (w3 === 0 && w2 === 0) return w1 * TWO32 + w0;
  if (w3 === 0xffffffff && w2 === 0xffffffff) return -((~w1 >>> 0) * TWO32 + (~w0 >>> 0) + 1);
  const hi = (w3 | 0) * TWO32 + w2;
  return hi * TWO64 + (w1 * TWO32 + w0);
}

// ---- fast path: is the correctly rounded quotient also the double-rounded one? --------------------

const F = new Float64Array(1);
const U = new Uint32Array(F.buffer);
const SPLIT = 134217729; // 2^27 + 1 (Veltkamp)

/**
 * Whether s / d (both integers, exact doubles, d > 2048) is far enough from a midpoint of two
 * doubles that rounding it first to 64 bits cannot move it onto one: |s - r*d| (exact, by
 * two-product) below d * (half an ulp of r) * (1 - 2^-9). At a power of two the ulp below is half
 * as wide; using it there is conservative on the other side.
 */
function residualIsSafe(s: number, d: number, r: number): boolean {
  const p = r * d;
  // err = r*d - p exactly (Dekker): split both factors into 26-bit halves
  let t = SPLIT * r;
  const rh = t - (t - r);
  const rl = r - rh;
  t = SPLIT * d;
  const dh = t - (t - d);
  const dl = d - dh;
  const err = rh * dh - p + rh * dl + rl * dh + rl * dl;
  const e = s - p - err; // s - p is exact (Sterbenz: p is within a factor 2 of s)
  F[0] = r;
  const hi = U[1]!;
  const exp = ((hi >>> 20) & 0x7ff) - 1075; // ulp(r) = 2^exp for a normal r
  let ulp = 2 ** exp;
  if ((hi & 0xfffff) === 0 && U[0] === 0) ulp /= 2;
  return Math.abs(e) < d * ulp * 0.5 * (1 - 2 ** -9);
}

// ---- slow path: x87 extended precision on words -----------------------------------------------------

/** Scratch for the 128-bit product count * scale. */
const A = new Uint32Array(4);
const B = new Uint32Array(4);
const P = new Uint32Array(4);
const MAG = new Uint32Array(4);

/** A positive value m * 2^e with m a 64-bit significand (top bit set): the last `round64` result. */
let mHi = 0;
let mLo = 0;
let mExp = 0;

/** |value| of the 128-bit two's complement words, into MAG; returns true when negative. */
function magnitude(w0: number, w1: number, w2: number, w3: number): boolean {
  const negative = w3 >= 0x80000000;
  if (!negative) {
    MAG[0] = w0;
    MAG[1] = w1;
    MAG[2] = w2;
    MAG[3] = w3;
    return false;
  }
  MAG[0] = w0;
  MAG[1] = w1;
  MAG[2] = w2;
  MAG[3] = w3;
  let c = 1;
  for (let k = 0; k < 4; k++) {
    const v = (~MAG[k]! >>> 0) + c;
    MAG[k] = v >>> 0;
    c = v >= TWO32 ? 1 : 0;
  }
  return true;
}

/** Bit `b` of the 128-bit magnitude `m`. */
function bit(m: Uint32Array, b: number): number {
  return (m[b >> 5]! >>> (b & 31)) & 1;
}

/**
 * Round the nonzero magnitude `m` (4 words) to a 64-bit significand, ties to even (x87's
 * round-to-nearest): sets mHi, mLo, mExp.
 */
function round64(m: Uint32Array, exp: number): void {
  let top = 127;
  while (top >= 0 && bit(m, top) === 0) top--;
  const len = top + 1;
  if (len <= 64) {
    // exact: shift left so that bit 63 is set (the top two words are zero)
    const sh = 64 - len;
    const h = m[1]!;
    const l = m[0]!;
    if (sh === 0) {
      mHi = h;
      mLo = l;
    } else if (sh >= 32) {
      mHi = (l << (sh - 32)) >>> 0;
      mLo = 0;
    } else {
      mHi = ((h << sh) | (l >>> (32 - sh))) >>> 0;
      mLo = (l << sh) >>> 0;
    }
    mExp = exp - sh;
    return;
  }
  const drop = len - 64;
  // significand = bits [drop, len)
  let h = 0;
  let l = 0;
  for (let b = len - 1; b >= drop; b--) {
    h = ((h << 1) | (l >>> 31)) >>> 0;
    l = ((l << 1) | bit(m, b)) >>> 0;
  }
  const guard = bit(m, drop - 1);
  let sticky = 0;
  for (let b = drop - 2; b >= 0 && sticky === 0; b--) sticky = bit(m, b);
  if (guard === 1 && (sticky === 1 || (l & 1) === 1)) {
    l = (l + 1) >>> 0;
    if (l === 0) {
      h = (h + 1) >>> 0;
      if (h === 0) {
        h = 0x80000000; // carried out to 2^64: significand 2^63, exponent + 1
        mExp = exp + drop + 1;
        mHi = h;
        mLo = 0;
        return;
      }
    }
  }
  mHi = h;
  mLo = l;
  mExp = exp + drop;
}

/** The divisor (long double)count * (long double)scale, rounded to 64 bits: into mHi/mLo/mExp. */
function extendedDivisor(count: number, scale: number): void {
  // scale = sm * 2^se with sm an integer < 2^53
  F[0] = scale;
  const hi = U[1]!;
  const biased = (hi >>> 20) & 0x7ff;
  const sm = (hi & 0xfffff) * TWO32 + U[0]! + (biased === 0 ? 0 : 2 ** 52);
  const se = (biased === 0 ? 1 : biased) - 1075;
  setFromDouble(count, A, 0);
  setFromDouble(sm, B, 0);
  mul128(A, B, P); // < 2^106: never overflows
  round64(P, se);
}

/** round53(round64(round64(sum) / round64(count * scale))), signed. */
function extendedAvg(w0: number, w1: number, w2: number, w3: number, count: number, scale: number): number {
  const negative = magnitude(w0, w1, w2, w3);
  if (MAG[0] === 0 && MAG[1] === 0 && MAG[2] === 0 && MAG[3] === 0) return 0;
  round64(MAG, 0);
  const nh = mHi;
  const nl = mLo;
  const ne = mExp;
  extendedDivisor(count, scale);
  const dh = mHi;
  const dl = mLo;
  const de = mExp;

  // restoring division of the 64-bit significands: q = floor(N * 2^65 / D), 65 or 66 bits
  let rh = nh;
  let rl = nl;
  let qh = 0; // high bits of q (up to 34), as a double
  let ql = 0; // low 32 bits of q
  const first = rh > dh || (rh === dh && rl >= dl) ? 1 : 0;
  if (first === 1) {
    rl -= dl;
    if (rl < 0) {
      rl += TWO32;
      rh -= 1;
    }
    rh -= dh;
  }
  ql = first;
  for (let step = 0; step < 65; step++) {
    // R = 2R
    rl *= 2;
    rh *= 2;
    if (rl >= TWO32) {
      rl -= TWO32;
      rh += 1;
    }
    let b = 0;
    if (rh > dh || (rh === dh && rl >= dl)) {
      b = 1;
      rl -= dl;
      if (rl < 0) {
        rl += TWO32;
        rh -= 1;
      }
      rh -= dh;
    }
    // q = 2q + b
    ql = ql * 2 + b;
    qh *= 2;
    if (ql >= TWO32) {
      ql -= TWO32;
      qh += 1;
    }
  }
  let sticky = rh !== 0 || rl !== 0 ? 1 : 0;
  // q has 66 bits when first = 1, else 65: drop the extra ones to keep 64, with rounding
  const drop = first === 1 ? 2 : 1;
  const div = drop === 2 ? 4 : 2;
  const low = ql % div;
  const guard = drop === 2 ? low >> 1 : low;
  if (drop === 2 && (low & 1) === 1) sticky = 1;
  // q >> drop
  ql = Math.floor(ql / div) + (qh % div) * (TWO32 / div);
  qh = Math.floor(qh / div);
  let exp = ne - de - 65 + drop;
  if (guard === 1 && (sticky === 1 || ql % 2 === 1)) {
    ql += 1;
    if (ql === TWO32) {
      ql = 0;
      qh += 1;
      if (qh === TWO32) {
        qh = 0x80000000;
        exp += 1;
      }
    }
  }
  // now the 64-bit significand qh:ql; round to 53 bits (ties to even; nothing below it is lost)
  const low11 = ql % 2048;
  let m53 = qh * 2097152 + Math.floor(ql / 2048); // qh * 2^21 + ql >> 11: < 2^53
  if (low11 > 1024 || (low11 === 1024 && m53 % 2 === 1)) m53 += 1;
  const v = m53 * 2 ** (exp + 11);
  return negative ? -v : v;
}
