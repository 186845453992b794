/**
 * Bringing a container's statistics and the build side's keys into ONE comparable domain, so a
 * pushdown filter can ask "may this container hold a build key?".
 *
 * Why a separate step: container stats arrive in the *probe column's own* Arrow type (an Int32
 * column reports numbers, a Timestamp(s) column bigint seconds, a Decimal(10,2) column unscaled
 * bigints at scale 2), while the build keys were normalised to the join's common `KeyKind`
 * (BIGINT, TIMESTAMP_MS, DECIMAL(_, 4), ...). Comparing the two raw would be a silent wrong answer.
 *
 * Domains (a `KeyValue`), chosen by `kind.order`:
 *  - int / uint / decimal / bool -> bigint (ints widened; timestamps in `kind.timeUnit`; dates in
 *    days, or scaled into `kind.timeUnit` when the key is a timestamp; decimals unscaled at
 *    `kind.scale`; booleans 0/1).
 *  - float -> number, ordered with NaN above every number (DuckDB), -0 == 0.
 *  - bytes -> Uint8Array, ordered byte-wise (UTF-8 byte order == code point order).
 *
 * THE RULE: a conversion may only ever widen a range. Whenever a bound cannot be converted with
 * certainty it becomes `null` ("unbounded on that side"):
 *  - an unknown/absent stat, a stat of an unexpected JS type, an Arrow type we do not order
 *    (Float16 stats are accepted, Date64/Time/Interval/nested are not), a probe type the kind
 *    could not have been built from;
 *  - a float max of NaN (NaN is the top: nothing above it to compare against) and a float min of
 *    NaN (conservatively treated as unknown);
 *  - a string stat that is not well-formed UTF-16 or holds U+FFFD (a lossy decode of invalid
 *    UTF-8 bytes: re-encoding it would not give the column's bytes back).
 * Scaling down (a finer probe unit than the kind's — never produced by normalisation, handled
 * anyway) floors the min and ceils the max. Conversions into float that round (64-bit ints,
 * decimals) are widened outward by a relative 2^-48 and then rounded like normalisation rounds
 * (Math.fround for FLOAT), which is monotone, so the converted range still holds every
 * normalised value of the container.
 *
 * BigInt is used here only per container / per build partition, never per row.
 */
import { DateUnit, Type } from 'apache-arrow';
import { isByteString } from '../arrow/type-families.ts';
import type { DataType, Date_, Decimal, Dictionary, Timestamp } from 'apache-arrow';
import { UNIT_EXP } from '../keys/resolve.ts';
import type { BytesKeyColumn, FixedKeyColumn, KeyColumn, KeyKind, KeyValue } from '../keys/types.ts';
import { compareByteRanges, compareBytes, compareFloats, floatKeyView } from '../keys/byte-order.ts';
import { keyExtremes, wordExtremes } from '../keys/extremes.ts';
import { isBytesKey } from '../keys/types.ts';
import type { ColumnStats, StatValue } from '../scan/scan.ts';

export type { KeyValue } from '../keys/types.ts';

/** A closed range of key values; `null` on a side means unbounded (unknown) there. */
export interface KeyRange {
  readonly lo: KeyValue | null;
  readonly hi: KeyValue | null;
}

export const UNBOUNDED: KeyRange = Object.freeze({ lo: null, hi: null });

export type KeyDomain = 'bigint' | 'float' | 'bytes';

export function domainOf(kind: KeyKind): KeyDomain {
  if (kind.order === 'float') return 'float';
  if (kind.order === 'bytes') return 'bytes';
  return 'bigint';
}

const TIME_UNITS = ['SECOND', 'MILLISECOND', 'MICROSECOND', 'NANOSECOND'] as const;
const encoder = new TextEncoder();

// ---------------------------------------------------------------------------------------------
// ordering (byte order and float order are core/keys/byte-order.ts's)

/** Order of two values of the same domain; mixing domains is a bug and throws. */
export function compareKeyValues(a: KeyValue, b: KeyValue): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') return compareFloats(a, b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  throw new TypeError(`cannot compare key values of different domains (${typeof a} vs ${typeof b})`);
}

/** Whether some value in `range` may lie within [min, max] (both in the same domain). */
export function rangeMayOverlap(range: KeyRange, min: KeyValue, max: KeyValue): boolean {
  if (range.hi !== null && compareKeyValues(range.hi, min) < 0) return false;
  if (range.lo !== null && compareKeyValues(range.lo, max) > 0) return false;
  return true;
}

/** Whether `v` lies within `range` (unbounded sides always pass). */
export function rangeContains(range: KeyRange, v: KeyValue): boolean {
  if (range.lo !== null && compareKeyValues(v, range.lo) < 0) return false;
  if (range.hi !== null && compareKeyValues(v, range.hi) > 0) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// container stats -> key domain

interface CachedRange {
  readonly type: DataType;
  readonly kind: KeyKind;
  readonly range: KeyRange;
}
/** Stats objects are cached by the scans (zone maps per batch), so conversions are too. */
const rangeCache = new WeakMap<ColumnStats, CachedRange>();

/**
 * The range of a container's probe column `stats` (in the probe column's Arrow type `probeType`)
 * in the domain of `kind`. Unknown stats or sides give `null` sides (see the module comment).
 * Note: `min: null, max: null` (an all-NULL or stat-less column) is UNBOUNDED here; deciding that
 * an all-NULL container holds no matchable row needs its row count (the composer does that).
 */
export function statsToKeyRange(stats: ColumnStats | undefined, probeType: DataType, kind: KeyKind): KeyRange {
  if (stats === undefined) return UNBOUNDED;
  const cached = rangeCache.get(stats);
  if (cached !== undefined && cached.type === probeType && cached.kind === kind) return cached.range;
  const lo = stats.min === null ? null : statToKeyValue(stats.min, probeType, kind, false);
  const hi = stats.max === null ? null : statToKeyValue(stats.max, probeType, kind, true);
  const range = lo === null && hi === null ? UNBOUNDED : { lo, hi };
  rangeCache.set(stats, { type: probeType, kind, range });
  return range;
}

/**
 * One stat value of a probe column (type `probeType`) in the domain of `kind`, or `null` when it
 * cannot be converted with certainty. `upper` selects the rounding direction (true: this is a
 * max, round up / widen up; false: a min, round down / widen down).
 */
export function statToKeyValue(v: StatValue, probeType: DataType, kind: KeyKind, upper: boolean): KeyValue | null {
  const t = valueType(probeType);
  switch (domainOf(kind)) {
    case 'bigint':
      return toBigIntDomain(v, t, kind, upper);
    case 'float':
      return toFloatDomain(v, t, kind, upper);
    case 'bytes':
      return toBytesDomain(v, t);
  }
}

function valueType(t: DataType): DataType {
  return t.typeId === Type.Dictionary ? valueType((t as Dictionary).dictionary) : t;
}

/**
 * A stat that should be an integer: bigint, or a safe-integer number (a number beyond 2^53 may
 * already have been rounded by whoever produced it, so it is not trusted).
 */
function asInteger(v: StatValue): bigint | null {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  return null;
}

function pow10(e: number): bigint {
  return 10n ** BigInt(e);
}

/** `x * 10^diff`, or for a negative `diff` a division rounded down (min) or up (max). */
function rescale(x: bigint, diff: number, upper: boolean): bigint {
  if (diff === 0) return x;
  if (diff > 0) return x * pow10(diff);
  const d = pow10(-diff);
  const q = x / d; // truncates toward zero
  const r = x % d;
  if (r === 0n) return q;
  if (upper) return r > 0n ? q + 1n : q; // ceil
  return r < 0n ? q - 1n : q; // floor
}

function toBigIntDomain(v: StatValue, t: DataType, kind: KeyKind, upper: boolean): bigint | null {
  const isTime = kind.timeUnit !== undefined;
  const isDate = kind.sqlType === 'DATE';
  const decimal = kind.order === 'decimal';
  const scale = kind.scale ?? 0;
  switch (t.typeId) {
    case Type.Int: {
      if (isTime || isDate || kind.order === 'bool') return null;
      const x = asInteger(v);
      if (x === null) return null;
      return decimal ? x * pow10(scale) : x;
    }
    case Type.Bool: {
      if (isTime || isDate || typeof v !== 'boolean') return null;
      const x = v ? 1n : 0n;
      return decimal ? x * pow10(scale) : x;
    }
    case Type.Decimal: {
      if (!decimal) return null;
      const x = asInteger(v);
      if (x === null) return null;
      return rescale(x, scale - (t as Decimal).scale, upper);
    }
    case Type.Date: {
      // the stat convention covers day dates only (Date64 carries no usable stats)
      if ((t as Date_).unit !== DateUnit.DAY || kind.order !== 'int') return null;
      const days = asInteger(v);
      if (days === null) return null;
      if (isTime) return days * 86_400n * pow10(UNIT_EXP[kind.timeUnit!]);
      return isDate ? days : null;
    }
    case Type.Timestamp: {
      if (!isTime || kind.order !== 'int') return null;
      const x = asInteger(v);
      if (x === null) return null;
      const unit = TIME_UNITS[(t as Timestamp).unit];
      if (unit === undefined) return null;
      return rescale(x, UNIT_EXP[kind.timeUnit!] - UNIT_EXP[unit], upper);
    }
    default:
      return null;
  }
}

/** Widen a rounded double outward by a relative 2^-48 (plus the smallest subnormal). */
function widen(x: number, upper: boolean): number {
  if (!Number.isFinite(x)) return x;
  const eps = Math.abs(x) * 2 ** -48 + Number.MIN_VALUE;
  return upper ? x + eps : x - eps;
}

function toFloatDomain(v: StatValue, t: DataType, kind: KeyKind, upper: boolean): number | null {
  let x: number;
  switch (t.typeId) {
    case Type.Float:
      if (typeof v !== 'number' || v !== v) return null; // NaN: the top (max) / unknown (min)
      x = v;
      break;
    case Type.Int:
      if (typeof v === 'number') {
        if (!Number.isSafeInteger(v)) return null;
        x = v;
      } else if (typeof v === 'bigint') x = widen(Number(v), upper);
      else return null;
      break;
    case Type.Bool:
      if (typeof v !== 'boolean') return null;
      x = v ? 1 : 0;
      break;
    case Type.Decimal: {
      const u = asInteger(v);
      if (u === null) return null;
      x = widen(Number(u) / 10 ** (t as Decimal).scale, upper);
      break;
    }
    default:
      return null;
  }
  if (kind.sqlType === 'FLOAT') x = Math.fround(x);
  return x === 0 ? 0 : x;
}

function toBytesDomain(v: StatValue, t: DataType): Uint8Array | null {
  if (!isByteString(t.typeId) && t.typeId !== Type.FixedSizeBinary) return null;
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'string') return isFaithfulUtf16(v) ? encoder.encode(v) : null;
  return null;
}

/** Well-formed (no lone surrogate) and free of U+FFFD (the mark of a lossy UTF-8 decode). */
function isFaithfulUtf16(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0xfffd) return false;
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// build keys -> key domain

/** Row `row` of a normalised key column as a `KeyValue` (build time / per container only). */
export function keyValueAt(col: KeyColumn, row: number): KeyValue {
  if (isBytesKey(col)) {
    const e = col.codes === null ? row : col.codes[row]!;
    return col.bytes.slice(col.offsets[e]!, col.offsets[e + 1]!);
  }
  return fixedValueAt(col.words, col.kind, row);
}

/** The value of `kind.width` words at row `row` of `words`. */
export function fixedValueAt(words: Int32Array, kind: KeyKind, row: number): KeyValue {
  const w = kind.width;
  const o = row * w;
  if (kind.order === 'float') {
    const buf = new Int32Array([words[o]!, words[o + 1]!]);
    const x = new Float64Array(buf.buffer)[0]!;
    return x === 0 ? 0 : x;
  }
  if (kind.order === 'bool') return BigInt(words[o]!);
  if (kind.order === 'uint') return (BigInt(words[o + 1]! >>> 0) << 32n) | BigInt(words[o]! >>> 0);
  let v = BigInt(words[o + w - 1]!); // top word signed
  for (let k = w - 2; k >= 0; k--) v = (v << 32n) | BigInt(words[o + k]! >>> 0);
  return v;
}

/**
 * Rows of the smallest and largest value of `col` among rows whose `skip` entry is 0 (all rows
 * when `skip` is null), by the kind's order — word comparisons, no BigInt per row. `null` when
 * no row qualifies.
 */
export function extremeRows(col: KeyColumn, rows: number, skip: Uint8Array | null): { minRow: number; maxRow: number } | null {
  const kind = col.kind;
  if (!isBytesKey(col) && kind.order !== 'float') {
    if (kind.width === 2 && (kind.order === 'int' || kind.order === 'uint') && col.length === rows && (skip === null || skip === col.nulls)) {
      return keyExtremes(col); // the build's shared (cached) pass
    }
    return wordExtremes(col.words, kind.width, kind.order === 'uint' || kind.order === 'bool', rows, skip);
  }
  let first = 0;
  if (skip !== null) while (first < rows && skip[first] !== 0) first++;
  if (first >= rows) return null;
  return isBytesKey(col) ? bytesExtremes(col, rows, skip, first) : floatExtremes(col, rows, skip, first);
}

function floatExtremes(col: FixedKeyColumn, rows: number, skip: Uint8Array | null, first: number) {
  const f = floatKeyView(col);
  let minRow = first;
  let maxRow = first;
  let min = f[first]!;
  let max = f[first]!;
  for (let r = first + 1; r < rows; r++) {
    if (skip !== null && skip[r] !== 0) continue;
    const x = f[r]!;
    if (x !== x) {
      // NaN is the top: it is the max once seen; it is the min only while min is NaN too
      if (max === max) {
        max = x;
        maxRow = r;
      }
      continue;
    }
    if (min !== min || x < min) {
      min = x;
      minRow = r;
    }
    if (max === max && x > max) {
      max = x;
      maxRow = r;
    }
  }
  return { minRow, maxRow };
}

function bytesExtremes(col: BytesKeyColumn, rows: number, skip: Uint8Array | null, first: number) {
  const { offsets, bytes, codes } = col;
  let minE = codes === null ? first : codes[first]!;
  let maxE = minE;
  let minRow = first;
  let maxRow = first;
  for (let r = first + 1; r < rows; r++) {
    if (skip !== null && skip[r] !== 0) continue;
    const e = codes === null ? r : codes[r]!;
    if (e === minE || e === maxE) continue;
    if (compareEntries(bytes, offsets, e, minE) < 0) {
      minE = e;
      minRow = r;
    } else if (compareEntries(bytes, offsets, e, maxE) > 0) {
      maxE = e;
      maxRow = r;
    }
  }
  return { minRow, maxRow };
}

function compareEntries(bytes: Uint8Array, offsets: Int32Array, a: number, b: number): number {
  return compareByteRanges(bytes, offsets[a]!, offsets[a + 1]!, bytes, offsets[b]!, offsets[b + 1]!);
}

// ---------------------------------------------------------------------------------------------
// formatting (descriptions)

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A short human-readable rendering of a key value of `kind` (for filter descriptions). */
export function formatKeyValue(kind: KeyKind, v: KeyValue): string {
  if (v instanceof Uint8Array) {
    const cut = v.length > 24 ? v.subarray(0, 24) : v;
    const more = v.length > 24 ? '…' : '';
    if (kind.sqlType === 'VARCHAR') {
      try {
        return `'${decoder.decode(cut).replace(/'/g, "''")}${more}'`;
      } catch {
        // fall through to hex
      }
    }
    return `x'${Array.from(cut, (b) => b.toString(16).padStart(2, '0')).join('')}${more}'`;
  }
  if (typeof v === 'number') return Number.isNaN(v) ? "'NaN'" : String(v);
  if (kind.order === 'decimal' && (kind.scale ?? 0) > 0) {
    const s = kind.scale!;
    const neg = v < 0n;
    const digits = (neg ? -v : v).toString().padStart(s + 1, '0');
    return `${neg ? '-' : ''}${digits.slice(0, -s)}.${digits.slice(-s)}`;
  }
  if (kind.order === 'bool') return v === 0n ? 'false' : 'true';
  return v.toString();
}
