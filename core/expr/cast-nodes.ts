/**
 * Cast kernels: the nodes `casts.ts` builds for `CAST(x AS T)` and for the implicit casts of
 * CASE / COALESCE branches to their common type, plus unary minus. Each is a loop over typed
 * arrays; rows at or beyond 2^53 take the 128-bit word path of exact.ts. A value that does not
 * fit raises an ExpressionError naming the expression, worded like DuckDB's Conversion Error —
 * but only for a row whose value matters (not NULL, and live: see `Ctx.live`).
 *
 * The rules, each checked against DuckDB 1.5.6 and read from its source (src/common/operator/
 * cast_operators.cpp, numeric_cast.hpp, decimal_cast_operators.hpp):
 * - integer -> integer: the value must fit the target ("Type INT32 with value 300 can't be cast
 *   because the value is out of range for the destination type INT8"); widening is the identity.
 * - integer or decimal -> DECIMAL(p, s) of a larger or equal scale: unscaled * 10^k, at most p
 *   digits ("Could not cast value 12345 to DECIMAL(4,1)") — the arithmetic's RescaleNode.
 * - decimal -> a smaller scale (a DECIMAL or an integer): divided by 10^k and rounded half away
 *   from zero (`TryCastDecimalToNumeric`, `DecimalScaleDownCheckOperator`: 2.45 -> 2.5,
 *   -2.45 -> -2.5, 2.5::INTEGER = 3), and it is the rounded value that must fit (99.96 ->
 *   DECIMAL(3,1) fails, 127.5::TINYINT fails, -128.4::TINYINT = -128).
 * - FLOAT / DOUBLE -> integer: rounded to nearest, ties to even (`std::nearbyint`: 2.5 -> 2,
 *   3.5 -> 4, -2.5 -> -2), NaN and ±inf fail, and the rounded value must lie in [MIN, MAX]. That
 *   is DuckDB's rule since commit 19bd13c ("Range check float => int casts on the rounded
 *   value"); DuckDB 1.5.6 still checks the unrounded value, so it turns 127.5::TINYINT into -128
 *   and 255.5::UTINYINT into 0 (a C++ out-of-range conversion) and refuses -128.4::TINYINT and
 *   -0.4::UINTEGER. joinlab follows the fixed rule; the two differ only for values within 0.5 of
 *   a type's bounds.
 * - FLOAT / DOUBLE -> DECIMAL(p, s): x * 10^s in double, rounded half away from zero (`round`),
 *   must be below 10^p in magnitude (`DoubleToDecimalCast`: 1.5 -> 2, 2.5 -> 3, 0.125 -> 0.13).
 * - DOUBLE -> FLOAT: the nearest float; a finite double beyond FLOAT's range fails, ±inf and NaN
 *   pass. Integers and decimals -> FLOAT / DOUBLE: numeric-nodes.ts's ToFloatNode.
 * - BOOLEAN -> number: 0 / 1 (1.0 for a DECIMAL, 0.1 for TRUE::DECIMAL(1,1)); number -> BOOLEAN:
 *   `x <> 0` (NaN is TRUE).
 * - DATE -> TIMESTAMP_*: days * 86400 * 10^d, ±infinity (±(2^31 - 1) days) to ±infinity
 *   (±(2^63 - 1)); a TIMESTAMP to a finer unit: * 10^k, ±infinity kept; TIMESTAMP -> DATE: the
 *   floor of the day, ±infinity to ±infinity. Out of range fails ("Could not convert
 *   Timestamp(S) to Timestamp(US)").
 * - Unary minus (`NegateOperator`): `-MIN` of a signed integer fails ("Overflow in negation of
 *   numeric value!"); on an unsigned integer every value but 0 fails — DuckDB's rule since
 *   commit be3a89f ("Fix negate operator wrap around"; 1.5.6 still wraps, -1::UTINYINT = 255);
 *   a decimal never overflows (its range is symmetric); floats negate exactly (-0.0, NaN kept).
 */
import { ExpressionError } from '../errors.ts';
import {
  bigintOf,
  divmod128,
  type ExactVec,
  fitsDecimal,
  fitsI64,
  fitsU64,
  isNegative,
  loadRow,
  MAX_EXACT,
  mul128,
  neg128,
  POW10_DOUBLE,
  POW10_WORDS,
  setFromDouble,
  storeRow,
  add128,
  cmpMag,
  sub128,
  TWO32,
  TWO53,
  wordsOf,
} from './exact.ts';
import { type Ctx, f64, i32, matters, Node, type NumVec, u32, u8, u8Filled, type VClass } from './node-base.ts';
import { decimalText } from './numeric-nodes.ts';
import { formatDouble } from './string-format.ts';
import { intRange, type IntKind, type NumType, typeName } from './numeric-types.ts';

/** The physical type names DuckDB's conversion errors print. */
export const PHYSICAL: Record<IntKind, string> = {
  i8: 'INT8',
  i16: 'INT16',
  i32: 'INT32',
  i64: 'INT64',
  i128: 'INT128',
  u8: 'UINT8',
  u16: 'UINT16',
  u32: 'UINT32',
  u64: 'UINT64',
};

// scratch words (evaluation is synchronous and never re-entered)
const A = new Uint32Array(4);
const R = new Uint32Array(4);
const M = new Uint32Array(4);
const ONE = wordsOf(1n);

const TWO52 = 4503599627370496;

/** `std::nearbyint` in the default rounding mode: to nearest, ties to even. */
export function nearbyint(d: number): number {
  if (!(Math.abs(d) < TWO52)) return d; // NaN, ±inf and every double from 2^52 on are integers
  const fl = Math.floor(d);
  const diff = d - fl; // exact
  if (diff < 0.5) return fl + 0;
  if (diff > 0.5) return fl + 1;
  return fl % 2 === 0 ? fl + 0 : fl + 1;
}

/** C's `round`: to nearest, ties away from zero. */
export function roundHalfAway(d: number): number {
  if (!(Math.abs(d) < TWO52)) return d;
  const t = Math.trunc(d);
  const diff = d - t; // exact
  if (diff >= 0.5) return t + 1;
  if (diff <= -0.5) return t - 1;
  return t + 0;
}

/** An integral double |d| < 2^127 as four words at w[o .. o+3] (each step exact). */
export function wordsFromInteger(d: number, w: Uint32Array, o: number): void {
  if (d > -TWO53 && d < TWO53) {
    setFromDouble(d, w, o);
    return;
  }
  let m = Math.abs(d);
  const w3 = Math.floor(m / 2 ** 96);
  m -= w3 * 2 ** 96;
  const w2 = Math.floor(m / 2 ** 64);
  m -= w2 * 2 ** 64;
  const w1 = Math.floor(m / TWO32);
  m -= w1 * TWO32;
  R[0] = m;
  R[1] = w1;
  R[2] = w2;
  R[3] = w3;
  if (d < 0) neg128(R, R);
  w[o] = R[0]!;
  w[o + 1] = R[1]!;
  w[o + 2] = R[2]!;
  w[o + 3] = R[3]!;
}

/** Whether words `r` hold a value of integer type `kind`. */
function fitsKind(r: Uint32Array, kind: IntKind, lo: number, hi: number): boolean {
  switch (kind) {
    case 'i128':
      return true;
    case 'i64':
      return fitsI64(r);
    case 'u64':
      return fitsU64(r);
    default: {
      if (!fitsI64(r)) return false;
      const v = (r[1]! | 0) * TWO32 + r[0]!;
      return v >= lo && v <= hi;
    }
  }
}

/** [lo, hi] of an integer kind, clipped to the doubles that are exact (narrow rows are decided by these). */
function narrowRange(kind: IntKind): [number, number] {
  const [lo, hi] = intRange(kind);
  return [Math.max(Number(lo), -MAX_EXACT), Math.min(Number(hi), MAX_EXACT)];
}

/** Base of the one-argument cast nodes: raises where the argument raises, and may raise itself. */
abstract class CastNode extends Node {
  constructor(
    protected readonly a: Node,
    cls: VClass,
    label: string,
  ) {
    super(cls, label);
  }
  override get mayRaise(): boolean {
    return true;
  }
}

/**
 * An exact value checked against an integer type (an integer to a narrower one, or a decimal of
 * scale 0 to an integer). The values do not change, so the argument's vector is returned as is.
 */
export class IntRangeNode extends CastNode {
  private readonly lo: number;
  private readonly hi: number;
  private readonly kindLo: number;
  private readonly kindHi: number;

  constructor(
    a: Node,
    private readonly from: NumType,
    private readonly to: IntKind,
    cls: VClass,
    label: string,
  ) {
    super(a, cls, label);
    [this.lo, this.hi] = narrowRange(to);
    [this.kindLo, this.kindHi] = intRange(to).map(Number) as [number, number];
  }

  override exact(ctx: Ctx): ExactVec {
    const x = this.a.exact(ctx);
    const f = x.f;
    const { lo, hi } = this;
    for (let k = 0; k < ctx.n; k++) {
      const v = f[k]!;
      if (v >= lo && v <= hi) continue;
      if (!matters(x.nulls, ctx.live, k)) continue;
      loadRow(x, k, A);
      if (!fitsKind(A, this.to, this.kindLo, this.kindHi)) throw this.error(bigintOf(A));
    }
    return x;
  }

  private error(v: bigint): ExpressionError {
    const why =
      this.from.k === 'dec'
        ? `Failed to cast decimal value ${v} to type ${PHYSICAL[this.to]}`
        : `Type ${PHYSICAL[(this.from as { int: IntKind }).int]} with value ${v} can't be cast because the value is out of range for the destination type ${PHYSICAL[this.to]}`;
    return new ExpressionError(`Conversion Error: ${why} in ${this.label}`);
  }
}

/**
 * A decimal to a smaller scale (`to`: a DECIMAL, or an integer = scale 0): unscaled / 10^k
 * rounded half away from zero, then checked against the target (see the module comment).
 */
export class RescaleDownNode extends CastNode {
  private fBuf?: Float64Array;
  private wBuf?: Uint32Array;
  private slowBuf?: Int32Array;
  private readonly k: number;
  private readonly lo: number;
  private readonly hi: number;

  constructor(
    a: Node,
    private readonly from: NumType & { k: 'dec' },
    private readonly to: NumType,
    cls: VClass,
    label: string,
  ) {
    super(a, cls, label);
    this.k = from.s - (to.k === 'dec' ? to.s : 0);
    if (to.k === 'dec') {
      const bound = to.p <= 15 ? 10 ** to.p - 1 : MAX_EXACT;
      [this.lo, this.hi] = [-bound, bound];
    } else {
      [this.lo, this.hi] = narrowRange((to as { int: IntKind }).int);
    }
  }

  override exact(ctx: Ctx): ExactVec {
    const n = ctx.n;
    const x = this.a.exact(ctx);
    const xf = x.f;
    const f = (this.fBuf = f64(this.fBuf, n));
    const slow = (this.slowBuf = i32(this.slowBuf, n));
    const k = this.k;
    const P = k <= 22 ? POW10_DOUBLE[k]! : NaN; // NaN: every row takes the word path
    const half = P / 2;
    const { lo, hi } = this;
    let c = 0;
    for (let j = 0; j < n; j++) {
      const p = xf[j]!;
      if (!(p > -TWO53 && p < TWO53) || P !== P) {
        slow[c++] = j;
        continue;
      }
      const r = p % P; // exact, the sign of p
      let q = (p - r) / P; // exact: p - r is a multiple of P below 2^53
      if (r >= half) q += 1;
      else if (r <= -half) q -= 1;
      q += 0;
      f[j] = q;
      if (!(q >= lo && q <= hi) && matters(x.nulls, ctx.live, j)) throw this.error(x, j);
    }
    let w: Uint32Array | null = null;
    if (c > 0) {
      w = this.wBuf = u32(this.wBuf, 4 * n);
      const pow = POW10_WORDS[k]!;
      for (let i = 0; i < c; i++) {
        const j = slow[i]!;
        loadRow(x, j, A);
        divmod128(A, pow, R, M);
        // round half away from zero: |m| * 2 >= 10^k
        const negM = isNegative(M);
        if (negM) neg128(M, M);
        add128(M, M, M);
        if (cmpMag(M, pow) >= 0) {
          if (isNegative(A)) sub128(R, ONE, R);
          else add128(R, ONE, R);
        }
        if (!this.fits(R)) {
          if (matters(x.nulls, ctx.live, j)) throw this.error(x, j);
          R.fill(0);
        }
        storeRow(R, j, f, w);
      }
    }
    return { f, w, src: null, nulls: x.nulls };
  }

  private fits(r: Uint32Array): boolean {
    if (this.to.k === 'dec') return fitsDecimal(r, this.to.p);
    const kind = (this.to as { int: IntKind }).int;
    const [lo, hi] = intRange(kind).map(Number) as [number, number];
    return fitsKind(r, kind, lo, hi);
  }

  private error(x: ExactVec, j: number): ExpressionError {
    loadRow(x, j, A);
    const original = bigintOf(A);
    if (this.to.k === 'dec') {
      return new ExpressionError(
        `Conversion Error: Casting value "${decimalText(original, this.from.s)}" to type ${typeName(this.to)} failed: value is out of range! in ${this.label}`,
      );
    }
    // DuckDB names the rounded value
    const p = 10n ** BigInt(this.k);
    const neg = original < 0n;
    const m = neg ? -original : original;
    let q = m / p;
    if ((m % p) * 2n >= p) q += 1n;
    const kind = (this.to as { int: IntKind }).int;
    return new ExpressionError(`Conversion Error: Failed to cast decimal value ${neg ? -q : q} to type ${PHYSICAL[kind]} in ${this.label}`);
  }
}

/** FLOAT / DOUBLE -> an integer (nearest, ties to even) or a DECIMAL (x * 10^s, ties away from zero). */
export class FloatToExactNode extends CastNode {
  private fBuf?: Float64Array;
  private wBuf?: Uint32Array;
  private readonly min: number;
  private readonly max: number;
  private readonly scaleFactor: number;

  constructor(
    a: Node,
    private readonly single: boolean,
    private readonly to: NumType,
    cls: VClass,
    label: string,
  ) {
    super(a, cls, label);
    if (to.k === 'dec') {
      this.scaleFactor = POW10_DOUBLE[to.s]!;
      this.max = POW10_DOUBLE[to.p]!;
      this.min = -this.max;
    } else {
      this.scaleFactor = 1;
      const kind = (to as { int: IntKind }).int;
      const [lo, hi] = intRange(kind);
      // DuckDB's bounds: [MIN, MAX + 1) as doubles (powers of two); HUGEINT: (-2^127, 2^127)
      this.min = Number(lo);
      this.max = Number(hi + 1n);
    }
  }

  override exact(ctx: Ctx): ExactVec {
    const n = ctx.n;
    const x = this.a.num(ctx);
    const v = x.values;
    const f = (this.fBuf = f64(this.fBuf, n));
    const { min, max } = this;
    const decimal = this.to.k === 'dec';
    const huge = this.to.k === 'int' && this.to.int === 'i128';
    let w: Uint32Array | null = null;
    for (let k = 0; k < n; k++) {
      const d = v[k]!;
      let r: number;
      let ok: boolean;
      if (decimal) {
        r = roundHalfAway(d * this.scaleFactor);
        ok = r > min && r < max; // NaN and ±inf fail
      } else {
        r = nearbyint(d);
        ok = huge ? r > min && r < max : r >= min && r < max;
      }
      if (!ok) {
        if (matters(x.nulls, ctx.live, k)) throw this.error(d);
        f[k] = 0;
        continue;
      }
      r += 0; // no -0
      f[k] = r;
      if (!(r > -TWO53 && r < TWO53)) {
        if (w === null) w = this.wBuf = u32(this.wBuf, 4 * n);
        wordsFromInteger(r, w, 4 * k);
      }
    }
    return { f, w, src: null, nulls: x.nulls };
  }

  private error(d: number): ExpressionError {
    if (this.to.k === 'dec') {
      return new ExpressionError(`Conversion Error: Could not cast value ${d.toFixed(6)} to ${typeName(this.to)} in ${this.label}`);
    }
    const kind = (this.to as { int: IntKind }).int;
    return new ExpressionError(
      `Conversion Error: Type ${this.single ? 'FLOAT' : 'DOUBLE'} with value ${formatDouble(d, this.single)} can't be cast because the value is out of range for the destination type ${PHYSICAL[kind]} in ${this.label}`,
    );
  }
}

/** DOUBLE -> FLOAT: the nearest float; a finite double beyond FLOAT's range fails. */
export class DoubleToFloatNode extends CastNode {
  private buf?: Float64Array;

  override num(ctx: Ctx): NumVec {
    const n = ctx.n;
    const x = this.a.num(ctx);
    const v = x.values;
    const out = (this.buf = f64(this.buf, n));
    for (let k = 0; k < n; k++) {
      const d = v[k]!;
      const r = Math.fround(d);
      if (r === Infinity || r === -Infinity) {
        if (Number.isFinite(d) && matters(x.nulls, ctx.live, k)) {
          throw new ExpressionError(
            `Conversion Error: Type DOUBLE with value ${formatDouble(d, false)} can't be cast because the value is out of range for the destination type FLOAT in ${this.label}`,
          );
        }
      }
      out[k] = r;
    }
    return { values: out, nulls: x.nulls };
  }
}

/** A node seen under another type whose values are the same (FLOAT -> DOUBLE, an integer widened). */
export class RetypeNode extends Node {
  constructor(
    private readonly a: Node,
    cls: VClass,
    label: string,
  ) {
    super(cls, label);
  }
  override get mayRaise(): boolean {
    return this.a.mayRaise;
  }
  override num(ctx: Ctx): NumVec {
    return this.a.num(ctx);
  }
  override exact(ctx: Ctx): ExactVec {
    return this.a.exact(ctx);
  }
  override bool(ctx: Ctx): Uint8Array {
    return this.a.bool(ctx);
  }
  override nulls(ctx: Ctx): Uint8Array | null {
    return this.a.nulls(ctx);
  }
}

/**
 * BOOLEAN -> a number: 0 or `one` — 1, a float 1.0, or for DECIMAL(p, s) the unscaled 10^s, except
 * that DuckDB gives TRUE the unscaled 1 when p = s (`TryCastBoolToDecimal`: TRUE::DECIMAL(1,1) is
 * 0.1), so it never fails.
 */
export class BoolToNumberNode extends Node {
  private fBuf?: Float64Array;
  private nullBuf?: Uint8Array;

  constructor(
    private readonly a: Node,
    private readonly one: number,
    cls: VClass,
    label: string,
  ) {
    super(cls, label);
  }

  override get mayRaise(): boolean {
    return this.a.mayRaise;
  }

  private values(ctx: Ctx): { f: Float64Array; nulls: Uint8Array | null } {
    const n = ctx.n;
    const v = this.a.bool(ctx);
    const f = (this.fBuf = f64(this.fBuf, n));
    const nulls = (this.nullBuf = u8(this.nullBuf, n));
    let any = 0;
    for (let k = 0; k < n; k++) {
      const b = v[k]!;
      const isNull = b === 2 ? 1 : 0;
      nulls[k] = isNull;
      any |= isNull;
      f[k] = b === 1 ? this.one : 0;
    }
    return { f, nulls: any ? nulls : null };
  }

  override exact(ctx: Ctx): ExactVec {
    const { f, nulls } = this.values(ctx);
    return { f, w: null, src: null, nulls };
  }

  override num(ctx: Ctx): NumVec {
    const { f, nulls } = this.values(ctx);
    return { values: f, nulls };
  }
}

/** A number -> BOOLEAN: `x <> 0` (NaN is TRUE), NULL stays NULL. */
export class NumberToBoolNode extends Node {
  private buf?: Uint8Array;

  constructor(
    private readonly a: Node,
    private readonly exactInput: boolean,
    cls: VClass,
    label: string,
  ) {
    super(cls, label);
  }

  override get mayRaise(): boolean {
    return this.a.mayRaise;
  }

  override bool(ctx: Ctx): Uint8Array {
    const n = ctx.n;
    const out = (this.buf = u8(this.buf, n));
    let values: Float64Array;
    let nulls: Uint8Array | null;
    if (this.exactInput) {
      const x = this.a.exact(ctx);
      values = x.f; // a wide row's double is far from 0
      nulls = x.nulls;
    } else {
      const x = this.a.num(ctx);
      values = x.values;
      nulls = x.nulls;
    }
    for (let k = 0; k < n; k++) out[k] = values[k] === 0 ? 0 : 1;
    if (nulls !== null) for (let k = 0; k < n; k++) if (nulls[k]) out[k] = 2;
    return out;
  }
}

const INT64_MAX_WORDS = wordsOf(2n ** 63n - 1n);
const INT64_NEG_MAX_WORDS = wordsOf(-(2n ** 63n - 1n));
const INT32_INFINITY = 2147483647;

/**
 * A temporal value times a constant (DATE -> TIMESTAMP_*: days * 86400 * 10^d; a TIMESTAMP to a
 * finer unit: * 10^k), within BIGINT; the ±infinity sentinels (`infinityIn`) map to ±(2^63 - 1).
 */
export class TemporalScaleUpNode extends CastNode {
  private fBuf?: Float64Array;
  private wBuf?: Uint32Array;
  private readonly factorWords: Uint32Array;

  constructor(
    a: Node,
    private readonly factor: number,
    /** The input's +infinity (2^31 - 1 for DATE, 2^63 - 1 for a TIMESTAMP). */
    private readonly infinityIn: 'date' | 'timestamp',
    private readonly describe: (v: bigint) => string,
    cls: VClass,
    label: string,
  ) {
    super(a, cls, label);
    this.factorWords = wordsOf(BigInt(factor));
  }

  override exact(ctx: Ctx): ExactVec {
    const n = ctx.n;
    const x = this.a.exact(ctx);
    const xf = x.f;
    const f = (this.fBuf = f64(this.fBuf, n));
    const F = this.factor;
    let w: Uint32Array | null = null;
    const dateIn = this.infinityIn === 'date';
    for (let k = 0; k < n; k++) {
      const p = xf[k]!;
      const r = p * F + 0;
      const infinite = dateIn && (p === INT32_INFINITY || p === -INT32_INFINITY);
      if (r >= -MAX_EXACT && r <= MAX_EXACT && !infinite) {
        f[k] = r;
        continue;
      }
      if (w === null) w = this.wBuf = u32(this.wBuf, 4 * n);
      loadRow(x, k, A);
      if (infinite || (!dateIn && (equal(A, INT64_MAX_WORDS) || equal(A, INT64_NEG_MAX_WORDS)))) {
        storeRow(p > 0 ? INT64_MAX_WORDS : INT64_NEG_MAX_WORDS, k, f, w);
        continue;
      }
      if (mul128(A, this.factorWords, R) || !fitsI64(R)) {
        if (matters(x.nulls, ctx.live, k)) throw new ExpressionError(`Conversion Error: ${this.describe(bigintOf(A))} in ${this.label}`);
        R.fill(0);
      }
      storeRow(R, k, f, w);
    }
    return { f, w, src: null, nulls: x.nulls };
  }
}

function equal(a: Uint32Array, b: Uint32Array): boolean {
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3];
}

/** TIMESTAMP_* -> DATE: the floor of value / (86400 * 10^d); ±infinity (±(2^63 - 1)) to ±infinity (±(2^31 - 1)). */
export class TimestampToDateNode extends CastNode {
  private fBuf?: Float64Array;
  private readonly divisorWords: Uint32Array;

  constructor(
    a: Node,
    private readonly divisor: number,
    cls: VClass,
    label: string,
  ) {
    super(a, cls, label);
    this.divisorWords = wordsOf(BigInt(divisor));
  }

  override exact(ctx: Ctx): ExactVec {
    const n = ctx.n;
    const x = this.a.exact(ctx);
    const xf = x.f;
    const f = (this.fBuf = f64(this.fBuf, n));
    const D = this.divisor;
    for (let k = 0; k < n; k++) {
      const p = xf[k]!;
      let q: number;
      if (p > -TWO53 && p < TWO53) {
        const r = p % D;
        q = (p - r) / D;
        if (r < 0) q -= 1;
      } else {
        loadRow(x, k, A);
        if (equal(A, INT64_MAX_WORDS) || equal(A, INT64_NEG_MAX_WORDS)) {
          f[k] = p > 0 ? INT32_INFINITY : -INT32_INFINITY;
          continue;
        }
        divmod128(A, this.divisorWords, R, M);
        q = (R[1]! | 0) * TWO32 + R[0]!; // |quotient| < 2^63 / 86400: two words
        if (isNegative(M) && (M[0] | M[1] | M[2] | M[3]) !== 0) q -= 1;
      }
      if (!(q >= -INT32_INFINITY && q <= INT32_INFINITY) && matters(x.nulls, ctx.live, k)) {
        throw new ExpressionError(`Conversion Error: timestamp ${exactText(x, k)} is out of DATE's range in ${this.label}`);
      }
      f[k] = q + 0;
    }
    return { f, w: null, src: null, nulls: x.nulls };
  }
}

function exactText(x: ExactVec, k: number): string {
  loadRow(x, k, A);
  return bigintOf(A).toString();
}

/** Unary minus over integers and decimals (see the module comment for what overflows). */
export class NegateExactNode extends Node {
  private fBuf?: Float64Array;
  private wBuf?: Uint32Array;
  /** The one narrow value that cannot be negated (a signed MIN a double holds), or NaN. */
  private readonly narrowMin: number;
  private readonly unsigned: boolean;
  private readonly minWords: Uint32Array | null;

  constructor(
    private readonly a: Node,
    type: NumType,
    cls: VClass,
    label: string,
  ) {
    super(cls, label);
    const kind = type.k === 'int' ? type.int : null;
    this.unsigned = kind !== null && kind[0] === 'u';
    const min = kind !== null && !this.unsigned ? intRange(kind)[0] : null;
    this.narrowMin = min !== null && min >= -BigInt(MAX_EXACT) ? Number(min) : NaN;
    this.minWords = min !== null && min < -BigInt(MAX_EXACT) ? wordsOf(min) : null;
  }

  override get mayRaise(): boolean {
    return this.a.mayRaise || this.unsigned || this.narrowMin === this.narrowMin || this.minWords !== null;
  }

  override exact(ctx: Ctx): ExactVec {
    const n = ctx.n;
    const x = this.a.exact(ctx);
    const xf = x.f;
    const f = (this.fBuf = f64(this.fBuf, n));
    const min = this.narrowMin;
    const unsigned = this.unsigned;
    let w: Uint32Array | null = null;
    for (let k = 0; k < n; k++) {
      const p = xf[k]!;
      f[k] = 0 - p;
      if ((unsigned && p !== 0) || p === min) {
        if (matters(x.nulls, ctx.live, k)) throw this.overflow();
        f[k] = 0;
        continue;
      }
      if (p > -TWO53 && p < TWO53) continue;
      if (w === null) w = this.wBuf = u32(this.wBuf, 4 * n);
      loadRow(x, k, A);
      if (this.minWords !== null && equal(A, this.minWords)) {
        if (matters(x.nulls, ctx.live, k)) throw this.overflow();
        A.fill(0);
      }
      neg128(A, A);
      storeRow(A, k, f, w);
    }
    return { f, w, src: null, nulls: x.nulls };
  }

  private overflow(): ExpressionError {
    return new ExpressionError(`Out of Range Error: Overflow in negation of numeric value! in ${this.label}`);
  }
}

/** Unary minus over FLOAT / DOUBLE: exact IEEE negation. */
export class NegateFloatNode extends Node {
  private buf?: Float64Array;

  constructor(
    private readonly a: Node,
    cls: VClass,
    label: string,
  ) {
    super(cls, label);
  }

  override get mayRaise(): boolean {
    return this.a.mayRaise;
  }

  override num(ctx: Ctx): NumVec {
    const n = ctx.n;
    const x = this.a.num(ctx);
    const v = x.values;
    const out = (this.buf = f64(this.buf, n));
    for (let k = 0; k < n; k++) out[k] = -v[k]!;
    return { values: out, nulls: x.nulls };
  }
}

/**
 * A value known at compile time not to convert (a string literal that is no number of the type,
 * `'x'::INTEGER`): DuckDB raises when the cast runs, so an unselected CASE branch or a COALESCE
 * argument never reached does not fail — this node raises only when some live row evaluates it.
 */
export class FailingNode extends Node {
  private nullBuf?: Uint8Array;
  private fBuf?: Float64Array;
  private boolBuf?: Uint8Array;

  constructor(
    private readonly message: string,
    cls: VClass,
    label: string,
  ) {
    super(cls, label);
  }

  override get mayRaise(): boolean {
    return true;
  }

  private check(ctx: Ctx): void {
    const live = ctx.live;
    if (live === null) {
      if (ctx.n > 0) throw new ExpressionError(this.message);
      return;
    }
    for (let k = 0; k < ctx.n; k++) if (live[k] === 1) throw new ExpressionError(this.message);
  }

  private allNull(ctx: Ctx): Uint8Array {
    return (this.nullBuf = u8Filled(this.nullBuf, ctx.n, 1));
  }

  override exact(ctx: Ctx): ExactVec {
    this.check(ctx);
    return { f: (this.fBuf = f64(this.fBuf, ctx.n)), w: null, src: null, nulls: this.allNull(ctx) };
  }
  override num(ctx: Ctx): NumVec {
    this.check(ctx);
    return { values: (this.fBuf = f64(this.fBuf, ctx.n)), nulls: this.allNull(ctx) };
  }
  override bool(ctx: Ctx): Uint8Array {
    this.check(ctx);
    return (this.boolBuf = u8Filled(this.boolBuf, ctx.n, 2));
  }
  override nulls(ctx: Ctx): Uint8Array {
    this.check(ctx);
    return this.allNull(ctx);
  }
}
