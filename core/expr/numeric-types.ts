/**
 * DuckDB's typing of filter arithmetic and numeric comparisons, as pure functions over types
 * (no data): which type `a op b` has, which type each operand is cast to first, and which common
 * type a comparison uses. `evaluate.ts` builds its nodes from these answers; the parity fuzzer
 * (`adapters/datagen/random-cases.ts`) asks them too, to draw filters that cannot overflow.
 *
 * Everything here was checked against DuckDB 1.5 (`SELECT typeof(a op b)` over every pair of
 * numeric types, literals of every magnitude) and read from its source (v1.5.5):
 *
 * - Integers (`+ - * // %`): the operands are cast to one integer type and the result has that
 *   type — same types: that type; same signedness: the wider; a signed S with an unsigned U: S if
 *   S is wider, else BIGINT, or HUGEINT when U is UBIGINT (TINYINT + UTINYINT = BIGINT, BIGINT +
 *   UBIGINT = HUGEINT); HUGEINT with anything: HUGEINT. That is the cheapest implicit cast of
 *   DuckDB's function binder over the per-type overloads registered in
 *   src/function/scalar/operator/arithmetic.cpp (`OperatorAddFun` … `OperatorModuloFun`).
 *   Overflow of the result type is an error (AddOperatorOverflowCheck & co.: "Overflow in addition
 *   of INT32 (2147483647 + 1)!"); `x // 0` and `x % 0` are NULL, `MIN // -1` and `MIN % -1` are
 *   overflow errors (`BinaryNumericDivideWrapper`); `//` truncates toward zero and `%` has the
 *   sign of the dividend (C++ `/` and `%`).
 * - Integer literals (`1`) are INTEGER_LITERAL: a literal whose value fits the other operand's
 *   integer type takes that type (`tinyint + 1` is TINYINT, `utinyint - 1` is UTINYINT and
 *   overflows below 0); otherwise it has its natural type by magnitude — INTEGER below 2^31,
 *   BIGINT below 2^63 (and -2^63), else HUGEINT (`-2147483648` is BIGINT: its magnitude is).
 *   With a decimal or float operand a literal keeps its natural type.
 * - `/` is always floating-point division (`OperatorFloatDivideFun` has only FLOAT and DOUBLE
 *   overloads): DOUBLE, or FLOAT when a FLOAT operand meets no DOUBLE; IEEE semantics (x/0 = ±inf,
 *   0/0 = NaN; DuckDB's `ieee_floating_point_ops` defaults to true). On FLOAT/DOUBLE, `//` is the
 *   same division except that a zero divisor gives NULL (`BinaryZeroIsNullWrapper`), and `%` is
 *   `fmod` (x % 0 = NaN).
 * - Floats: any DOUBLE operand makes the operation DOUBLE, else any FLOAT makes it FLOAT; the other
 *   operand is cast (an integer to the nearest float; HUGEINT through DuckDB's two-part
 *   conversion, `CastBigintToFloating` in src/common/types/hugeint.cpp; a decimal per
 *   `TryCastDecimalToFloatingPoint` in src/common/operator/cast_operators.cpp).
 * - Decimals (`BindDecimalArithmetic`, `BindDecimalMultiply` in arithmetic.cpp): an integer
 *   operand counts as DECIMAL(w, 0) with w = 3 (TINYINT, UTINYINT), 5 (SMALLINT, USMALLINT),
 *   10 (INTEGER, UINTEGER), 19 (BIGINT), 20 (UBIGINT), 38 (HUGEINT).
 *   `+ -`: scale S = max scale, width W = max(S + max(w - s), max w) + 1; W above 18 while both
 *   inputs are at most 18 wide is capped to 18, above 38 capped to 38 (with an overflow check).
 *   Operands whose scale is not S are cast to DECIMAL(W, S) first ("Could not cast value 10 to
 *   DECIMAL(18,17)" when they do not fit). `*`: S = s1 + s2 (above 38: a bind error), W = w1 + w2,
 *   capped to 18 when both inputs are at most 18 wide and S < 18, and to 38. `%`: like `+` without
 *   the + 1, and DOUBLE when W exceeds 38 — a DOUBLE `%` whose zero divisor gives NULL, not NaN.
 *   `//` on a decimal is DOUBLE `//`. A result must stay
 *   below 10^W in magnitude (`TryDecimalAdd`, `TryDecimalMultiply`: "Overflow in multiplication
 *   of DECIMAL(18) …").
 * - Decimal literals (`1.25`) are DECIMAL(digits, fraction digits), leading zeros counted
 *   (`0.5` is DECIMAL(2,1)); a number written with an exponent is DOUBLE.
 * - Comparisons (`BoundComparisonExpression::TryBindComparison`,
 *   src/planner/binder/expression/bind_comparison_expression.cpp): integers compare exactly;
 *   with a decimal the common type is DECIMAL(min(38, max(S + max(w - s), max w)), S) (operands
 *   cast to it, which can fail past 38 digits); with a FLOAT (and no DOUBLE) both sides are cast
 *   to FLOAT (so INTEGER 16777217 = FLOAT 16777216), otherwise to DOUBLE (BIGINT 2^53 + 1 =
 *   DOUBLE 2^53).
 * - NULL arguments: arithmetic with the NULL literal, or with literals-only arithmetic that is NULL
 *   (`1 // 0`), is NULL and its other argument is not evaluated (DuckDB's binder:
 *   `FunctionBinder::BindScalarFunction`, src/function/function_binder.cpp; see evaluate.ts).
 *
 * Not replicated: DuckDB's optimizer rewrites, which can drop an error its typing would raise —
 * `x + 1 > 5` becomes `x > 4` (MoveConstantsRule, src/optimizer/rule/move_constants.cpp),
 * `x // 0` becomes NULL (ArithmeticSimplificationRule), an expression statistics prove NULL
 * becomes a constant. joinlab evaluates what was written; results agree whenever neither side
 * overflows (the differential test checks both the unoptimized and the optimizing DuckDB).
 */
import { ExpressionError } from '../errors.ts';
import type { ArithOp } from './ast.ts';

export type IntKind = 'i8' | 'i16' | 'i32' | 'i64' | 'i128' | 'u8' | 'u16' | 'u32' | 'u64';

export type NumType =
  | { readonly k: 'int'; readonly int: IntKind }
  | { readonly k: 'dec'; readonly p: number; readonly s: number }
  | { readonly k: 'f32' }
  | { readonly k: 'f64' };

export const MAX_DECIMAL_WIDTH = 38;
const MAX_WIDTH_INT64 = 18;

const INT_NAMES: Record<IntKind, string> = {
  i8: 'TINYINT',
  i16: 'SMALLINT',
  i32: 'INTEGER',
  i64: 'BIGINT',
  i128: 'HUGEINT',
  u8: 'UTINYINT',
  u16: 'USMALLINT',
  u32: 'UINTEGER',
  u64: 'UBIGINT',
};

const INT_BITS: Record<IntKind, number> = { i8: 8, i16: 16, i32: 32, i64: 64, i128: 128, u8: 8, u16: 16, u32: 32, u64: 64 };

/** Width of the DECIMAL an integer type converts to (DuckDB's `GetDecimalProperties`). */
const INT_DECIMAL_WIDTH: Record<IntKind, number> = { i8: 3, i16: 5, i32: 10, i64: 19, i128: 38, u8: 3, u16: 5, u32: 10, u64: 20 };

export const intType = (int: IntKind): NumType => ({ k: 'int', int });
export const decimalType = (p: number, s: number): NumType => ({ k: 'dec', p, s });
export const FLOAT: NumType = { k: 'f32' };
export const DOUBLE: NumType = { k: 'f64' };

export function isSigned(kind: IntKind): boolean {
  return kind[0] === 'i';
}

/** Inclusive value range of an integer type. */
export function intRange(kind: IntKind): readonly [bigint, bigint] {
  const bits = BigInt(INT_BITS[kind]);
  return isSigned(kind) ? [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n] : [0n, (1n << bits) - 1n];
}

export function fitsInt(v: bigint, kind: IntKind): boolean {
  const [lo, hi] = intRange(kind);
  return v >= lo && v <= hi;
}

/** DuckDB's name of a type, as `typeof()` prints it. */
export function typeName(t: NumType): string {
  switch (t.k) {
    case 'int':
      return INT_NAMES[t.int];
    case 'dec':
      return `DECIMAL(${t.p},${t.s})`;
    case 'f32':
      return 'FLOAT';
    case 'f64':
      return 'DOUBLE';
  }
}

export function sameType(a: NumType, b: NumType): boolean {
  return typeName(a) === typeName(b);
}

/** The natural type of an integer literal (by magnitude, as DuckDB's parser types it), or null beyond HUGEINT. */
export function literalIntType(v: bigint): IntKind | null {
  const m = v < 0n ? -v : v;
  if (m < 1n << 31n) return 'i32';
  if (m < 1n << 63n || (v < 0n && m === 1n << 63n)) return 'i64';
  if (m < 1n << 127n || (v < 0n && m === 1n << 127n)) return 'i128';
  return null;
}

/** The integer type both operands are cast to (see the module comment). */
export function maxIntType(a: IntKind, b: IntKind): IntKind {
  if (a === b) return a;
  if (a === 'i128' || b === 'i128') return 'i128';
  const sa = isSigned(a);
  const sb = isSigned(b);
  if (sa === sb) return INT_BITS[a] >= INT_BITS[b] ? a : b;
  const [s, u] = sa ? [a, b] : [b, a];
  if (INT_BITS[s] > INT_BITS[u]) return s;
  return u === 'u64' ? 'i128' : 'i64';
}

/** (width, scale) of an integer or decimal type as a DECIMAL. */
export function decimalProps(t: NumType): readonly [number, number] {
  if (t.k === 'dec') return [t.p, t.s];
  if (t.k === 'int') return [INT_DECIMAL_WIDTH[t.int], 0];
  throw new Error(`bug: ${typeName(t)} has no decimal properties`);
}

/** Whether values of type `t` are held exactly (integers, decimals) rather than as floats. */
export function isExact(t: NumType): boolean {
  return t.k === 'int' || t.k === 'dec';
}

/**
 * How `a op b` is evaluated: the result type and the type each operand is converted to first
 * (`left`/`right`; for decimal `*` the operands keep their own scale). Throws ExpressionError for a
 * decimal product whose scale would exceed 38 (a bind error in DuckDB too).
 */
export interface ArithBinding {
  readonly result: NumType;
  readonly left: NumType;
  readonly right: NumType;
  /**
   * A DOUBLE `%` that a decimal operand fell back to (its DECIMAL would exceed 38 digits): DuckDB
   * binds it with the zero-is-NULL wrapper (`BindDecimalModulo`), so `x % 0` is NULL there,
   * where a plain DOUBLE `%` gives NaN.
   */
  readonly zeroIsNull?: boolean;
}

/**
 * `aLit` / `bLit`: the value when the operand is an integer literal (it adapts to the other
 * operand's integer type when it fits), else null.
 */
export function bindArithmetic(op: ArithOp, a: NumType, b: NumType, aLit: bigint | null, bLit: bigint | null, where: string): ArithBinding {
  [a, b] = adaptLiterals(a, b, aLit, bLit);
  const both = (t: NumType): ArithBinding => ({ result: t, left: t, right: t });
  if (a.k === 'f64' || b.k === 'f64') return both(DOUBLE);
  if (a.k === 'f32' || b.k === 'f32') return both(FLOAT);
  if (op === '/') return both(DOUBLE);
  if (a.k === 'int' && b.k === 'int') return both(intType(maxIntType(a.int, b.int)));
  // a decimal is involved (the other operand is an integer or a decimal)
  if (op === '//') return both(DOUBLE);
  const [wa, sa] = decimalProps(a);
  const [wb, sb] = decimalProps(b);
  if (op === '*') {
    let width = wa + wb;
    const scale = sa + sb;
    const maxWidth = Math.max(wa, wb);
    if (scale > MAX_DECIMAL_WIDTH) {
      throw new ExpressionError(
        `cannot multiply ${typeName(a)} by ${typeName(b)} in ${where}: the product needs scale ${scale}, above DECIMAL's maximum of 38 (as in DuckDB)`,
      );
    }
    if (width > MAX_WIDTH_INT64 && maxWidth <= MAX_WIDTH_INT64 && scale < MAX_WIDTH_INT64) width = MAX_WIDTH_INT64;
    if (width > MAX_DECIMAL_WIDTH) width = MAX_DECIMAL_WIDTH;
    return { result: decimalType(width, scale), left: decimalType(wa, sa), right: decimalType(wb, sb) };
  }
  const scale = Math.max(sa, sb);
  const maxWidth = Math.max(wa, wb);
  let width = Math.max(scale + Math.max(wa - sa, wb - sb), maxWidth);
  if (op === '%') {
    if (width > MAX_DECIMAL_WIDTH) return { ...both(DOUBLE), zeroIsNull: true };
  } else {
    width += 1;
    if (width > MAX_WIDTH_INT64 && maxWidth <= MAX_WIDTH_INT64) width = MAX_WIDTH_INT64;
    if (width > MAX_DECIMAL_WIDTH) width = MAX_DECIMAL_WIDTH;
  }
  return both(decimalType(width, scale));
}

/**
 * The type both sides of a numeric comparison are converted to. Exact types compare exactly, so
 * for two integers the answer is only "exact" (the wider of them); with a decimal it is the
 * DECIMAL the operands are cast to (the cast may fail, as in DuckDB).
 */
export function bindComparison(a: NumType, b: NumType, aLit: bigint | null, bLit: bigint | null): NumType {
  [a, b] = adaptLiterals(a, b, aLit, bLit);
  if (a.k === 'f64' || b.k === 'f64') return DOUBLE;
  if (a.k === 'f32' || b.k === 'f32') return FLOAT;
  if (a.k === 'int' && b.k === 'int') return intType(maxIntType(a.int, b.int));
  const [wa, sa] = decimalProps(a);
  const [wb, sb] = decimalProps(b);
  const scale = Math.max(sa, sb);
  const width = Math.min(MAX_DECIMAL_WIDTH, Math.max(scale + Math.max(wa - sa, wb - sb), wa, wb));
  return decimalType(width, scale);
}

function adaptLiterals(a: NumType, b: NumType, aLit: bigint | null, bLit: bigint | null): [NumType, NumType] {
  if (aLit !== null && bLit === null && b.k === 'int' && fitsInt(aLit, b.int)) return [b, b];
  if (bLit !== null && aLit === null && a.k === 'int' && fitsInt(bLit, a.int)) return [a, a];
  return [a, b];
}

/** The type of a number literal `v` in a filter (see `evaluate.ts`): integer, DECIMAL or DOUBLE. */
export type LiteralType =
  | { readonly t: NumType; readonly int: bigint; readonly unscaled: bigint }
  | { readonly t: NumType; readonly int: null; readonly unscaled: bigint }
  | { readonly t: NumType; readonly int: null; readonly unscaled: null };

/**
 * A number literal's type, from its value (the AST keeps numbers, not their spelling):
 * - an integer value (a bigint, or a finite number with no fraction, other than -0) below 2^127 in
 *   magnitude is an integer literal of its natural type (`1e3` is the integer 1000);
 * - any other finite number is a DECIMAL with the digits of its shortest round-trip spelling
 *   (`String(v)`: `0.5` is DECIMAL(2,1), as DuckDB types the text `0.5`), or DOUBLE when that
 *   spelling has an exponent (`1e-7`);
 * - NaN, ±Infinity, -0 and integers of 2^127 or more are DOUBLE.
 * Throws for a bigint beyond HUGEINT.
 */
export function literalType(v: number | bigint, where: string): LiteralType {
  if (typeof v === 'bigint') {
    const kind = literalIntType(v);
    if (kind === null) throw new ExpressionError(`integer literal ${v} is out of range (beyond HUGEINT) in ${where}`);
    return { t: intType(kind), int: v, unscaled: v };
  }
  if (!Number.isFinite(v) || Object.is(v, -0)) return { t: DOUBLE, int: null, unscaled: null };
  if (Number.isInteger(v)) {
    if (Math.abs(v) >= 2 ** 127) return { t: DOUBLE, int: null, unscaled: null };
    const int = BigInt(v);
    return { t: intType(literalIntType(int)!), int, unscaled: int };
  }
  const text = String(Math.abs(v));
  if (text.includes('e')) return { t: DOUBLE, int: null, unscaled: null };
  const dot = text.indexOf('.');
  const digits = text.slice(0, dot) + text.slice(dot + 1);
  if (digits.length > MAX_DECIMAL_WIDTH) return { t: DOUBLE, int: null, unscaled: null };
  const unscaled = BigInt(digits) * (v < 0 ? -1n : 1n);
  return { t: decimalType(digits.length, text.length - dot - 1), int: null, unscaled };
}
