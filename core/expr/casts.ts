/**
 * Compile-time typing of casts, CASE and COALESCE (the nodes are in cast-nodes.ts,
 * string-format.ts and conditional-nodes.ts):
 *
 * - `parseTypeName`: a DuckDB type name as written in `CAST(x AS T)` / `x::T` — the names and
 *   aliases DuckDB 1.5 accepts for the types joinlab evaluates (`INT`, `INT8`, `LONG`, `REAL`,
 *   `FLOAT8`, `TEXT`, `STRING`, `BOOL`, `DATETIME`, `NUMERIC`, …; `DECIMAL` alone is
 *   DECIMAL(18,3), `DECIMAL(p)` is DECIMAL(p,0), `VARCHAR(n)` is VARCHAR).
 * - `commonClass`: the result type of CASE / COALESCE — DuckDB's `LogicalType::MaxLogicalType`
 *   folded over the branches (CASE: the ELSE, NULL when absent, then each THEN; COALESCE: the
 *   arguments in order), as `ExpressionBinder` does (bind_case_expression.cpp,
 *   bind_operator_expression.cpp), checked against DuckDB 1.5.6 with `typeof`:
 *     NULL with T: T. Two integers of the same signedness: the wider; a signed S and an unsigned
 *     U: S when S is wider, else the signed type twice U's width (UTINYINT & TINYINT = SMALLINT,
 *     UINTEGER & INTEGER = BIGINT, UBIGINT & any signed = HUGEINT: `CombineNumericTypes`). An
 *     integer of decimal width w (TINYINT 3 … BIGINT 19, UBIGINT 20, HUGEINT 38) with DECIMAL(p,
 *     s): DECIMAL(min(38, max(p - s, w) + s), s) (`DecimalSizeCheck`); two decimals:
 *     DECIMAL(min(38, max(p1 - s1, p2 - s2) + max s), max s). Anything with FLOAT: FLOAT, with
 *     DOUBLE: DOUBLE. BOOLEAN with an integer: the integer (with a decimal or a float: an error).
 *     DATE with TIMESTAMP_x: TIMESTAMP_x; two timestamp units: the finer.
 *     An integer literal takes the other side's integer type when it fits it (TINYINT & 1 =
 *     TINYINT, UTINYINT & -1 = INTEGER), else its own (INTEGER below 2^31, …); with a decimal or
 *     a float it counts as its own type (DECIMAL(5,2) & 1 = DECIMAL(12,2)). A string literal takes
 *     the other side's type (INTEGER & '5' = INTEGER, converted at compile time). Literal-ness
 *     lasts one step only: the result of combining is a plain type (COALESCE(NULL, 1, tinyint) is
 *     INTEGER, COALESCE(1, 2, tinyint) is INTEGER, COALESCE('1', '2', tinyint) is an error).
 *     Anything else (VARCHAR with INTEGER, DATE with INTEGER, BOOLEAN with DOUBLE) is the
 *     ExpressionError "Cannot mix values of type … in COALESCE operator - an explicit cast is
 *     required", as DuckDB's Binder Error.
 * - `castTo`: the node converting a value to a type (the rules are in cast-nodes.ts). A string
 *   literal is converted at compile time (DuckDB's rules for the forms joinlab reads: decimal
 *   digits with an optional sign, point and exponent, surrounding spaces allowed, rounded half
 *   away from zero into an integer or decimal — '1.5'::INTEGER = 2; `inf`/`infinity`/`nan` for
 *   floats; true/t/yes/y/1 and false/f/no/n/0 for BOOLEAN, any case; dates and timestamps as in
 *   temporal-literals.ts); a literal that does not convert becomes a node that raises DuckDB's
 *   "Could not convert string" Conversion Error only if some row evaluates it, as in DuckDB.
 *
 * Refused (ExpressionError at compile time): casts of VARCHAR columns to other types (only string
 * literals convert), BLOB to or from anything else, DATE64 and time-zoned timestamps to another
 * type, a timestamp to a coarser unit, and casts DuckDB itself has not (DATE to INTEGER, …).
 */
import { ExpressionError, UnsupportedExpressionError } from '../errors.ts';
import type { Expr } from './ast.ts';
import {
  BoolToNumberNode,
  DoubleToFloatNode,
  FailingNode,
  FloatToExactNode,
  IntRangeNode,
  NumberToBoolNode,
  PHYSICAL,
  RescaleDownNode,
  RetypeNode,
  TemporalScaleUpNode,
  TimestampToDateNode,
} from './cast-nodes.ts';
import { numClass } from './column-types.ts';
import { LiteralNode, NullNode } from './leaf-nodes.ts';
import { BOOLEAN, type Node, type TemporalUnit, type VClass } from './node-base.ts';
import { RescaleNode, ToFloatNode } from './numeric-nodes.ts';
import {
  DOUBLE,
  decimalProps,
  decimalType,
  FLOAT,
  fitsInt,
  intRange,
  intType,
  type IntKind,
  isExact,
  isSigned,
  MAX_DECIMAL_WIDTH,
  maxIntType,
  type NumType,
  typeName,
} from './numeric-types.ts';
import { civilDateText } from './calendar.ts';
import { stringSource, ToStringNode } from './string-format.ts';
import { parseTemporal } from './temporal-literals.ts';

export const VARCHAR: VClass = { c: 'str', sql: 'VARCHAR' };
const BLOB: VClass = { c: 'bin', sql: 'BLOB' };

const time = (sql: string, unit: TemporalUnit): VClass => ({ c: 'time', sql, unit });

const TYPE_ALIASES: Record<string, VClass> = {};
function alias(cls: VClass, ...names: string[]): void {
  for (const n of names) TYPE_ALIASES[n] = cls;
}
alias(numClass(intType('i8')), 'TINYINT', 'INT1');
alias(numClass(intType('i16')), 'SMALLINT', 'INT2', 'INT16', 'SHORT');
alias(numClass(intType('i32')), 'INTEGER', 'INT', 'INT4', 'INT32', 'SIGNED');
alias(numClass(intType('i64')), 'BIGINT', 'INT8', 'INT64', 'LONG');
alias(numClass(intType('i128')), 'HUGEINT', 'INT128');
alias(numClass(intType('u8')), 'UTINYINT', 'UINT8');
alias(numClass(intType('u16')), 'USMALLINT', 'UINT16');
alias(numClass(intType('u32')), 'UINTEGER', 'UINT32');
alias(numClass(intType('u64')), 'UBIGINT', 'UINT64');
alias(numClass(FLOAT), 'FLOAT', 'FLOAT4', 'REAL');
alias(numClass(DOUBLE), 'DOUBLE', 'FLOAT8');
alias(BOOLEAN, 'BOOLEAN', 'BOOL', 'LOGICAL');
alias(time('DATE', 'day'), 'DATE');
alias(time('TIMESTAMP_S', 's'), 'TIMESTAMP_S');
alias(time('TIMESTAMP_MS', 'ms'), 'TIMESTAMP_MS');
alias(time('TIMESTAMP', 'us'), 'TIMESTAMP', 'DATETIME', 'TIMESTAMP_US');
alias(time('TIMESTAMP_NS', 'ns'), 'TIMESTAMP_NS');
alias(BLOB, 'BLOB', 'BYTEA', 'BINARY', 'VARBINARY');
const STRING_NAMES = new Set(['VARCHAR', 'TEXT', 'STRING', 'CHAR', 'BPCHAR', 'NVARCHAR']);

const TYPE_RE = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?\s*$/;

/** The class of a DuckDB type name (see the module comment); ExpressionError for one joinlab does not know. */
export function parseTypeName(text: string, where: string): VClass {
  const m = TYPE_RE.exec(text);
  const bad = (why: string): never => {
    throw new ExpressionError(`cannot cast to '${text}': ${why} in ${where}`);
  };
  if (m === null) return bad('expected a type name like INTEGER, DECIMAL(10,2), VARCHAR, DATE or TIMESTAMP');
  const name = m[1]!.toUpperCase();
  const p = m[2] === undefined ? null : Number(m[2]);
  const s = m[3] === undefined ? null : Number(m[3]);
  if (name === 'DECIMAL' || name === 'NUMERIC' || name === 'DEC') {
    const width = p ?? 18;
    const scale = s ?? (p === null ? 3 : 0);
    if (width < 1 || width > MAX_DECIMAL_WIDTH) bad(`a DECIMAL's width must be between 1 and ${MAX_DECIMAL_WIDTH}`);
    if (scale > width) bad("a DECIMAL's scale cannot exceed its width");
    return numClass(decimalType(width, scale));
  }
  if (STRING_NAMES.has(name)) {
    if (s !== null) bad('VARCHAR takes at most a length');
    return VARCHAR;
  }
  const cls = TYPE_ALIASES[name];
  if (cls === undefined) return bad('unknown or unsupported type (joinlab evaluates numbers, BOOLEAN, VARCHAR, BLOB, DATE and TIMESTAMP)');
  if (p !== null) bad(`${name} takes no parameters`);
  return cls;
}

/** An operand being typed: its node and the expression it came from (literals are typed by their value). */
export interface Operand {
  readonly node: Node;
  readonly expr: Expr;
}

function stringLiteral(op: Operand): string | null {
  return op.expr.kind === 'literal' && typeof op.expr.value === 'string' ? op.expr.value : null;
}

// ---- common type of CASE / COALESCE ---------------------------------------------------------------

function intKindOf(t: NumType): IntKind | null {
  return t.k === 'int' ? t.int : null;
}

const INT_BITS: Record<IntKind, number> = { i8: 8, i16: 16, i32: 32, i64: 64, i128: 128, u8: 8, u16: 16, u32: 32, u64: 64 };
const SIGNED_OF_BITS: Record<number, IntKind> = { 16: 'i16', 32: 'i32', 64: 'i64', 128: 'i128' };

/** DuckDB's max logical type of two integer types (not the arithmetic's; see the module comment). */
function maxIntKind(a: IntKind, b: IntKind): IntKind {
  if (isSigned(a) === isSigned(b)) return maxIntType(a, b);
  const [s, u] = isSigned(a) ? [a, b] : [b, a];
  if (INT_BITS[s] > INT_BITS[u]) return s;
  return SIGNED_OF_BITS[2 * INT_BITS[u]]!;
}

/** DuckDB's max logical type of two numeric types. */
export function maxNumType(a: NumType, b: NumType): NumType {
  if (a.k === 'f64' || b.k === 'f64') return DOUBLE;
  if (a.k === 'f32' || b.k === 'f32') return FLOAT;
  const ka = intKindOf(a);
  const kb = intKindOf(b);
  if (ka !== null && kb !== null) return intType(maxIntKind(ka, kb));
  const [wa, sa] = decimalProps(a);
  const [wb, sb] = decimalProps(b);
  const scale = Math.max(sa, sb);
  const width = Math.min(MAX_DECIMAL_WIDTH, Math.max(wa - sa, wb - sb) + scale);
  if (a.k === 'dec' && b.k === 'dec') return decimalType(width, scale);
  // an integer with a decimal: the decimal, grown when the integer needs more integer digits
  const dec = (a.k === 'dec' ? a : b) as NumType & { k: 'dec' };
  const w = a.k === 'dec' ? wb : wa;
  return w > dec.p - dec.s ? decimalType(Math.min(MAX_DECIMAL_WIDTH, w + dec.s), dec.s) : dec;
}

const TS_ORDER: Record<TemporalUnit, number> = { day: 0, 'date-ms': -1, s: 1, ms: 2, us: 3, ns: 4 };

interface TypeState {
  readonly cls: VClass;
  /** An integer literal's value (it adapts to the other side's integer type). */
  readonly intLit: bigint | null;
  /** A string literal (it takes the other side's type). */
  readonly strLit: boolean;
}

function combine(a: TypeState, b: TypeState, fail: () => never): VClass {
  const ca = a.cls;
  const cb = b.cls;
  if (ca.c === 'null') return cb;
  if (cb.c === 'null') return ca;
  if (a.strLit && b.strLit) return VARCHAR;
  if (a.strLit) return cb;
  if (b.strLit) return ca;
  if (ca.c === 'num' && cb.c === 'num') {
    const [ta, tb] = [ca.t, cb.t];
    if (a.intLit !== null && b.intLit === null && tb.k === 'int' && fitsInt(a.intLit, tb.int)) return cb;
    if (b.intLit !== null && a.intLit === null && ta.k === 'int' && fitsInt(b.intLit, ta.int)) return ca;
    const t = maxNumType(ta, tb);
    return typeName(t) === ca.sql ? ca : typeName(t) === cb.sql ? cb : numClass(t);
  }
  if (ca.c === 'bool' && cb.c === 'bool') return BOOLEAN;
  if (ca.c === 'bool' && cb.c === 'num' && cb.t.k === 'int') return cb;
  if (cb.c === 'bool' && ca.c === 'num' && ca.t.k === 'int') return ca;
  if ((ca.c === 'str' && cb.c === 'str') || (ca.c === 'bin' && cb.c === 'bin')) return ca;
  if (ca.c === 'time' && cb.c === 'time') return temporalCommon(ca, cb) ?? fail();
  return fail();
}

/**
 * The type two temporal values meet in (CASE / COALESCE branches, comparison operands): the same
 * type, else DATE with TIMESTAMP_x is TIMESTAMP_x and two timestamp units the finer; null for a
 * time zone or DATE64 (which joinlab does not convert).
 */
export function temporalCommon(ca: VClass & { c: 'time' }, cb: VClass & { c: 'time' }): VClass | null {
  if (ca.sql === cb.sql) return ca;
  const zoned = ca.tz !== undefined || cb.tz !== undefined;
  if (zoned || ca.unit === 'date-ms' || cb.unit === 'date-ms') return null;
  return TS_ORDER[ca.unit] >= TS_ORDER[cb.unit] ? ca : cb;
}

/**
 * The type CASE / COALESCE values have (`what` names the construct in errors, as DuckDB does:
 * 'CASE expression', 'COALESCE operator'); operands in DuckDB's fold order.
 */
export function commonClass(ops: readonly Operand[], what: string, label: string): VClass {
  let state: TypeState = stateOf(ops[0]!);
  for (let i = 1; i < ops.length; i++) {
    const next = stateOf(ops[i]!);
    const fail = (): never => {
      throw new ExpressionError(
        `Cannot mix values of type ${state.cls.sql} and ${next.cls.sql} in ${what} - an explicit cast is required, in ${label}`,
      );
    };
    state = { cls: combine(state, next, fail), intLit: null, strLit: false };
  }
  return state.cls;
}

function stateOf(op: Operand): TypeState {
  return { cls: op.node.cls, intLit: op.node.intLiteral, strLit: stringLiteral(op) !== null && op.node.cls.c === 'str' };
}

// ---- casts ---------------------------------------------------------------------------------------

function sameClass(a: VClass, b: VClass): boolean {
  return a.c === b.c && a.sql === b.sql && (a.c !== 'time' || (b.c === 'time' && a.unit === b.unit));
}

const UNIT_DIGITS: Record<TemporalUnit, number> = { day: 0, 'date-ms': 3, s: 0, ms: 3, us: 6, ns: 9 };
const UNIT_NAMES: Record<TemporalUnit, string> = { day: 'DATE', 'date-ms': 'DATE64', s: 'S', ms: 'MS', us: 'US', ns: 'NS' };

/** A node giving `op`'s values as type `to` (see the module comment and cast-nodes.ts). */
export function castTo(op: Operand, to: VClass, label: string): Node {
  const node = op.node;
  const from = node.cls;
  if (node instanceof NullNode || from.c === 'null') return new NullNode(to, label);
  if (sameClass(from, to)) return node;
  const text = stringLiteral(op);
  if (text !== null && from.c === 'str') return convertString(text, to, label);
  const refuse = (why = ''): never => {
    const message = `cannot cast ${node.label} (${from.sql}) to ${to.sql}${why} in ${label}`;
    throw why.includes('joinlab') ? new UnsupportedExpressionError(message) : new ExpressionError(message);
  };
  switch (to.c) {
    case 'num':
      if (from.c === 'num') return numericCast(node, from.t, to, label);
      if (from.c === 'bool') {
        const t = to.t;
        if (t.k !== 'dec') return new BoolToNumberNode(node, 1, to, label);
        return new BoolToNumberNode(node, t.p > t.s ? 10 ** t.s : 1, to, label); // DuckDB's TRUE::DECIMAL(1,1) = 0.1
      }
      if (from.c === 'str') refuse(': joinlab converts string literals, not VARCHAR columns');
      return refuse();
    case 'bool':
      if (from.c === 'num') return new NumberToBoolNode(node, isExact(from.t), to, label);
      if (from.c === 'str') refuse(': joinlab converts string literals, not VARCHAR columns');
      return refuse();
    case 'str': {
      const source = stringSource(from);
      if (source === null) return refuse();
      if (from.c === 'time' && from.tz !== undefined) refuse(': time-zoned timestamps are not supported');
      return new ToStringNode(node, source, to, label);
    }
    case 'time':
      if (from.c !== 'time') {
        if (from.c === 'str') refuse(': joinlab converts string literals, not VARCHAR columns');
        return refuse();
      }
      return temporalCast(node, from, to, label, refuse);
    default:
      return refuse();
  }
}

function numericCast(node: Node, from: NumType, toCls: VClass & { c: 'num' }, label: string): Node {
  const to = toCls.t;
  if (typeName(from) === typeName(to)) return new RetypeNode(node, toCls, label); // e.g. a DECIMAL(40,2) column read as DOUBLE
  if (from.k === 'f32' || from.k === 'f64') {
    if (to.k === 'f64') return new RetypeNode(node, toCls, label); // FLOAT values are exact doubles
    if (to.k === 'f32') return new DoubleToFloatNode(node, toCls, label);
    return new FloatToExactNode(node, from.k === 'f32', to, toCls, label);
  }
  // from an integer or a decimal
  if (to.k === 'f32' || to.k === 'f64') return new ToFloatNode(node, from, to.k === 'f32', toCls, label);
  const fromScale = from.k === 'dec' ? from.s : 0;
  if (to.k === 'int') {
    if (fromScale > 0) return new RescaleDownNode(node, from as NumType & { k: 'dec' }, to, toCls, label);
    if (from.k === 'int') {
      const [lo, hi] = intRange(from.int);
      const [tlo, thi] = intRange(to.int);
      if (tlo <= lo && hi <= thi) return new RetypeNode(node, toCls, label);
    }
    return new IntRangeNode(node, from, to.int, toCls, label);
  }
  const dec = to as NumType & { k: 'dec' };
  if (dec.s < fromScale) return new RescaleDownNode(node, from as NumType & { k: 'dec' }, dec, toCls, label);
  const [w] = decimalProps(from);
  if (dec.s === fromScale && dec.p >= w) return new RetypeNode(node, toCls, label);
  return new RescaleNode(node, from, dec, label);
}

function temporalCast(node: Node, from: VClass & { c: 'time' }, to: VClass & { c: 'time' }, label: string, refuse: (why?: string) => never): Node {
  if (from.tz !== undefined || from.unit === 'date-ms' || to.unit === 'date-ms') refuse(': only DATE and TIMESTAMP_S/MS/(US)/NS convert');
  const df = UNIT_DIGITS[from.unit];
  const dt = UNIT_DIGITS[to.unit];
  if (from.unit === 'day') {
    const factor = 86400 * 10 ** dt;
    const describe = (v: bigint) => `Type INT32 with value ${civilDateText(Number(v))} can't be cast to the destination type INT64`;
    return new TemporalScaleUpNode(node, factor, 'date', describe, to, label);
  }
  if (to.unit === 'day') return new TimestampToDateNode(node, 86400 * 10 ** df, to, label);
  if (dt < df) refuse(': joinlab converts timestamps to finer units only');
  const describe = () => `Could not convert Timestamp(${UNIT_NAMES[from.unit]}) to Timestamp(${UNIT_NAMES[to.unit]})`;
  return new TemporalScaleUpNode(node, 10 ** (dt - df), 'timestamp', describe, to, label);
}


// ---- string literals -----------------------------------------------------------------------------

const NUMBER_RE = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;
const FLOAT_WORD_RE = /^\s*([+-]?)(inf|infinity|nan)\s*$/i;
const TRUE_WORDS = new Set(['true', 't', 'yes', 'y', '1']);
const FALSE_WORDS = new Set(['false', 'f', 'no', 'n', '0']);

/** The exact value of decimal text, rounded half away from zero to `scale` digits (null: not a number). */
function parseScaled(text: string, scale: number): bigint | null {
  const m = NUMBER_RE.exec(text);
  if (m === null) return null;
  const [, sign, int = '', frac = '', exp = '0'] = m;
  if (int === '' && frac === '') return null;
  const e = Number(exp);
  if (!Number.isSafeInteger(e) || Math.abs(e) > 400) return null;
  const digits = BigInt(int + frac || '0');
  const shift = e - frac.length + scale; // value * 10^scale = digits * 10^shift
  let v: bigint;
  if (shift >= 0) v = digits * 10n ** BigInt(shift);
  else {
    const p = 10n ** BigInt(-shift);
    v = digits / p;
    if ((digits % p) * 2n >= p) v += 1n;
  }
  return sign === '-' ? -v : v;
}

/** A string literal as a constant of type `to` (DuckDB's string casts for the forms in the module comment). */
function convertString(text: string, to: VClass, label: string): Node {
  const fail = (target: string) => new FailingNode(`Conversion Error: Could not convert string '${text}' to ${target} in ${label}`, to, label);
  switch (to.c) {
    case 'num': {
      const t = to.t;
      if (t.k === 'int') {
        const v = parseScaled(text, 0);
        return v !== null && fitsInt(v, t.int) ? new LiteralNode(to, label, v) : fail(PHYSICAL[t.int]);
      }
      if (t.k === 'dec') {
        const v = parseScaled(text, t.s);
        return v !== null && (v < 0n ? -v : v) < 10n ** BigInt(t.p) ? new LiteralNode(to, label, v) : fail(typeName(t));
      }
      const word = FLOAT_WORD_RE.exec(text);
      let d: number;
      if (word !== null) d = word[2]!.toLowerCase() === 'nan' ? NaN : word[1] === '-' ? -Infinity : Infinity;
      else if (NUMBER_RE.test(text) && /\d/.test(text)) d = Number(text.trim());
      else return fail(typeName(t));
      return new LiteralNode(to, label, t.k === 'f32' ? Math.fround(d) : d);
    }
    case 'bool': {
      const lower = text.toLowerCase();
      if (TRUE_WORDS.has(lower)) return new LiteralNode(BOOLEAN, label, true);
      if (FALSE_WORDS.has(lower)) return new LiteralNode(BOOLEAN, label, false);
      return fail('BOOL');
    }
    case 'time': {
      if (to.unit === 'date-ms' || to.tz !== undefined) return fail(to.sql);
      try {
        return new LiteralNode(to, label, parseTemporal(text, to.unit, to.sql, label));
      } catch (e) {
        if (e instanceof ExpressionError) return fail(to.sql);
        throw e;
      }
    }
    default:
      // DuckDB casts strings to more types (BLOB, …) than the evaluator does: unsupported, not an error in the query
      throw new UnsupportedExpressionError(`a cast of a string to ${to.sql} (in ${label})`);
  }
}
