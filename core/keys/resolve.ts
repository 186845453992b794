/**
 * Key type reconciliation: the two sides of an equi-join (or a range predicate) arrive with their
 * own Arrow types; before anything is hashed or compared both are mapped to ONE common `KeyKind`,
 * the way DuckDB's comparison binder picks an implicit cast target. Everything downstream (hash
 * maps, comparators, pushdown) then works on identical words for identical values.
 *
 * Rules (verified against DuckDB 1.x with `typeof([a, b])` and `a = b`):
 *  - integers: same signedness -> the wider; signed S vs unsigned U -> S if U is narrower, else the
 *    next signed width above U (UINTEGER vs INTEGER = BIGINT; UBIGINT vs any signed = HUGEINT, the
 *    only 3-word int kind). UBIGINT vs narrower unsigned stays UBIGINT ('uint'). BOOLEAN counts as a
 *    1-bit unsigned integer when it meets an integer (`true = 1` holds in DuckDB) or a decimal,
 *    and as 0.0/1.0 when it meets a float.
 *  - floats: any float with a float, an integer, a decimal or a boolean -> FLOAT when neither side is 64-bit
 *    (DuckDB rounds the integer to float32: `16777217::INT = 16777216::FLOAT`), else DOUBLE.
 *  - decimals (comparison rules, NOT list_value's): scale = max scale; width = max(p1, p2,
 *    scale + max integer digits), capped at 38. Integers take part with their DuckDB decimal
 *    width (INTEGER = 10 digits, BIGINT = 19, UBIGINT = 20). Values that do not fit the common
 *    type fail at normalisation time, as DuckDB's cast does.
 *  - dates (Date32/Date64) with dates -> DATE (int days); a date meeting a timestamp becomes a
 *    timestamp in that timestamp's unit (DuckDB: DATE vs TIMESTAMP_S = TIMESTAMP_S).
 *  - timestamps: the finer unit wins (TIMESTAMP_S vs TIMESTAMP_NS = TIMESTAMP_NS). Both sides must
 *    agree on having a time zone: mixing them depends on DuckDB's session TimeZone, so we refuse.
 *  - Utf8 / LargeUtf8 / Utf8View / Dictionary<utf8> -> VARCHAR bytes; Binary / LargeBinary /
 *    BinaryView / FixedSizeBinary / Dictionary<binary> -> BLOB bytes; VARCHAR = BLOB compares the
 *    bytes (DuckDB casts the VARCHAR to BLOB). Strings never meet numbers: DuckDB would try to
 *    parse every string, a data-dependent failure joinlab refuses up front.
 *  - the Arrow Null type (an all-NULL column) takes the other side's kind.
 * A dictionary of non-string values is classified by its value type (it is decoded later).
 */
import { DataType, Precision, Type } from 'apache-arrow';
import type { Decimal, Dictionary, Float, Int, Timestamp } from 'apache-arrow';
import { KeyTypeMismatchError, UnsupportedTypeError } from '../errors.ts';
import type { KeyKind } from './types.ts';

export type TimeUnitName = NonNullable<KeyKind['timeUnit']>;

/** What a key column *is*, independent of its physical Arrow layout. */
export type KeyClass =
  | { readonly c: 'null' }
  | { readonly c: 'bool' }
  | { readonly c: 'int'; readonly signed: boolean; readonly bits: number }
  | { readonly c: 'float'; readonly bits: number }
  | { readonly c: 'decimal'; readonly precision: number; readonly scale: number }
  | { readonly c: 'date' }
  | { readonly c: 'timestamp'; readonly unit: TimeUnitName; readonly tz: string | null }
  | { readonly c: 'utf8' }
  | { readonly c: 'binary' };

const UNIT_NAMES: readonly TimeUnitName[] = ['SECOND', 'MILLISECOND', 'MICROSECOND', 'NANOSECOND'];
/** Decimal exponent of each unit: seconds * 10^exp = the unit. */
export const UNIT_EXP: Readonly<Record<TimeUnitName, number>> = {
  SECOND: 0,
  MILLISECOND: 3,
  MICROSECOND: 6,
  NANOSECOND: 9,
};
const TIMESTAMP_SQL: Readonly<Record<TimeUnitName, string>> = {
  SECOND: 'TIMESTAMP_S',
  MILLISECOND: 'TIMESTAMP_MS',
  MICROSECOND: 'TIMESTAMP',
  NANOSECOND: 'TIMESTAMP_NS',
};
const MAX_DECIMAL_WIDTH = 38;

/** Classify one Arrow type; throws UnsupportedTypeError for anything that cannot be a key. */
export function classifyKeyType(type: DataType, name: string): KeyClass {
  switch (type.typeId) {
    case Type.Null:
      return { c: 'null' };
    case Type.Bool:
      return { c: 'bool' };
    case Type.Int: {
      const t = type as Int;
      return { c: 'int', signed: t.isSigned, bits: t.bitWidth };
    }
    case Type.Float: {
      const p = (type as Float).precision;
      return { c: 'float', bits: p === Precision.DOUBLE ? 64 : p === Precision.SINGLE ? 32 : 16 };
    }
    case Type.Decimal: {
      const t = type as Decimal;
      if (t.bitWidth > 128) throw new UnsupportedTypeError(name, String(type), 'as a join key (Decimal256)');
      return { c: 'decimal', precision: t.precision, scale: t.scale };
    }
    case Type.Date:
      return { c: 'date' };
    case Type.Timestamp: {
      const t = type as Timestamp;
      return { c: 'timestamp', unit: UNIT_NAMES[t.unit]!, tz: t.timezone ? t.timezone : null };
    }
    case Type.Utf8:
    case Type.LargeUtf8:
    case Type.Utf8View:
      return { c: 'utf8' };
    case Type.Binary:
    case Type.LargeBinary:
    case Type.BinaryView:
    case Type.FixedSizeBinary:
      return { c: 'binary' };
    case Type.Dictionary:
      return classifyKeyType((type as Dictionary).dictionary, name);
    default:
      throw new UnsupportedTypeError(name, String(type), 'as a join key');
  }
}

/** The key kind of one side on its own (range predicates, sorting a single input). */
export function keyKindOf(type: DataType, name: string): KeyKind {
  return resolveKeyKind(type, type, name, name);
}

/** Reconcile both sides' types into the common kind DuckDB would compare them as. */
export function resolveKeyKind(leftType: DataType, rightType: DataType, leftName: string, rightName: string): KeyKind {
  const l = classifyKeyType(leftType, leftName);
  const r = classifyKeyType(rightType, rightName);
  const kind = commonKind(l, r);
  if (kind === null) throw new KeyTypeMismatchError(leftName, String(leftType), rightName, String(rightType));
  if (kind === TZ_MISMATCH) {
    throw new KeyTypeMismatchError(
      leftName,
      String(leftType),
      rightName,
      String(rightType),
      'cannot be compared: one side has a time zone and the other does not (cast explicitly)',
    );
  }
  return kind;
}

const TZ_MISMATCH: KeyKind = { order: 'int', width: 2, sqlType: '<tz mismatch>' };
const NULL_KIND: KeyKind = { order: 'int', width: 2, sqlType: 'NULL' };

function commonKind(l: KeyClass, r: KeyClass): KeyKind | null {
  if (l.c === 'null') return r.c === 'null' ? NULL_KIND : commonKind(r, r);
  if (r.c === 'null') return commonKind(l, l);
  switch (l.c) {
    case 'bool':
      if (r.c === 'bool') return { order: 'bool', width: 1, sqlType: 'BOOLEAN' };
      if (r.c === 'int') return integerKind(BOOL_AS_INT, r);
      if (r.c === 'decimal') return decimalKind(l, r);
      if (r.c === 'float') return floatKind(l, r);
      return null;
    case 'int':
      if (r.c === 'int') return integerKind(l, r);
      if (r.c === 'bool') return integerKind(l, BOOL_AS_INT);
      if (r.c === 'float') return floatKind(l, r);
      if (r.c === 'decimal') return decimalKind(l, r);
      return null;
    case 'float':
      return r.c === 'float' || r.c === 'int' || r.c === 'decimal' || r.c === 'bool' ? floatKind(l, r) : null;
    case 'decimal':
      if (r.c === 'float') return floatKind(l, r);
      return r.c === 'decimal' || r.c === 'int' || r.c === 'bool' ? decimalKind(l, r) : null;
    case 'date':
      if (r.c === 'date') return { order: 'int', width: 2, sqlType: 'DATE' };
      if (r.c === 'timestamp') return r.tz === null ? timestampKind(r.unit, null) : TZ_MISMATCH;
      return null;
    case 'timestamp':
      if (r.c === 'date') return commonKind(r, l);
      if (r.c !== 'timestamp') return null;
      if ((l.tz === null) !== (r.tz === null)) return TZ_MISMATCH;
      return timestampKind(UNIT_EXP[l.unit] >= UNIT_EXP[r.unit] ? l.unit : r.unit, l.tz);
    case 'utf8':
      if (r.c === 'utf8') return { order: 'bytes', width: 0, sqlType: 'VARCHAR' };
      return r.c === 'binary' ? { order: 'bytes', width: 0, sqlType: 'BLOB' } : null;
    case 'binary':
      return r.c === 'binary' || r.c === 'utf8' ? { order: 'bytes', width: 0, sqlType: 'BLOB' } : null;
  }
}

const BOOL_AS_INT = { c: 'int', signed: false, bits: 1 } as const;
const SIGNED_SQL: Readonly<Record<number, string>> = { 8: 'TINYINT', 16: 'SMALLINT', 32: 'INTEGER', 64: 'BIGINT', 128: 'HUGEINT' };
const UNSIGNED_SQL: Readonly<Record<number, string>> = { 1: 'BOOLEAN', 8: 'UTINYINT', 16: 'USMALLINT', 32: 'UINTEGER', 64: 'UBIGINT' };

type IntClass = { readonly signed: boolean; readonly bits: number };

/** DuckDB's integer widening; see the module comment. */
function integerKind(a: IntClass, b: IntClass): KeyKind {
  let signed: boolean;
  let bits: number;
  if (a.signed === b.signed) {
    signed = a.signed;
    bits = Math.max(a.bits, b.bits);
  } else {
    const s = a.signed ? a : b;
    const u = a.signed ? b : a;
    signed = true;
    bits = u.bits < s.bits ? s.bits : Math.max(8, u.bits) * 2;
  }
  if (signed) return { order: 'int', width: bits > 64 ? 3 : 2, sqlType: SIGNED_SQL[bits]! };
  return { order: bits === 64 ? 'uint' : 'int', width: 2, sqlType: UNSIGNED_SQL[bits]! };
}

function floatKind(a: KeyClass, b: KeyClass): KeyKind {
  const double = (a.c === 'float' && a.bits === 64) || (b.c === 'float' && b.bits === 64);
  return { order: 'float', width: 2, sqlType: double ? 'DOUBLE' : 'FLOAT' };
}

/** Digits an integer type occupies as a DECIMAL (DuckDB's GetDecimalProperties). */
function decimalDigits(c: KeyClass): { width: number; scale: number } {
  if (c.c === 'decimal') return { width: c.precision, scale: c.scale };
  if (c.c === 'bool') return { width: 1, scale: 0 };
  if (c.c !== 'int') throw new Error(`not a decimal-compatible class: ${c.c}`);
  const digits = c.bits <= 8 ? 3 : c.bits <= 16 ? 5 : c.bits <= 32 ? 10 : c.signed ? 19 : 20;
  return { width: digits, scale: 0 };
}

function decimalKind(a: KeyClass, b: KeyClass): KeyKind {
  const x = decimalDigits(a);
  const y = decimalDigits(b);
  const scale = Math.max(x.scale, y.scale);
  const intDigits = Math.max(x.width - x.scale, y.width - y.scale);
  const width = Math.min(MAX_DECIMAL_WIDTH, Math.max(x.width, y.width, scale + intDigits));
  return { order: 'decimal', width: 4, sqlType: `DECIMAL(${width},${scale})`, scale };
}

function timestampKind(unit: TimeUnitName, tz: string | null): KeyKind {
  return { order: 'int', width: 2, sqlType: tz === null ? TIMESTAMP_SQL[unit] : 'TIMESTAMP WITH TIME ZONE', timeUnit: unit };
}
