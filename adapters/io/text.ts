/**
 * Arrow values as text, the way DuckDB's `::VARCHAR` renders the same value — the CLI preview uses
 * it (so a join's first rows read like DuckDB's), and CSV output uses it for the types CSV has no
 * convention of its own for (times, intervals, UUIDs).
 *
 * Why DuckDB's rendering: it is the reference for every value joinlab carries (the round-trip test
 * compares the two renderings column by column), and it already answers the awkward cases —
 * `1 year 2 months 3 days 04:05:06.789` for intervals (Arrow's getters give `[14, 3, …]` word
 * arrays), canonical UUIDs (not 16 raw bytes), `\xAA` blob escapes, `infinity` dates and
 * timestamps (DuckDB's sentinels INT32/INT64 max), `(BC)` years, `+00` for instants in UTC, and
 * nested values (`[1, NULL]`, `{'a': 1}`, `{k=1}`) in which a string is quoted exactly when DuckDB
 * quotes it: when it is empty, spells NULL, has leading or trailing whitespace, or holds one of
 * `"'(),:=[]{}` (JSON text is never quoted).
 *
 * `columnText` builds one formatter per column (per child for nested columns), once, and returns a
 * function of the row; nothing is allocated per row but the string itself. Types without a DuckDB
 * rendering of their own: Duration as an interval's time part, Float16 as a float; unions are an
 * UnsupportedTypeError.
 */
import { type Data, DataType, IntervalUnit, Type, Vector } from 'apache-arrow';
import { halfToDouble } from '../../core/arrow/half-float.ts';
import { civilDateText } from '../../core/expr/calendar.ts';
import { UnsupportedTypeError } from '../../core/errors.ts';
import { EXTENSION_NAME, JSON_EXTENSION, UUID_EXTENSION, ADJUSTED_TO_UTC } from './parquet-types.ts';

/** Row `i` of `d` as text, or null for NULL. */
export type CellText = (i: number) => string | null;

/** What a column's field says beyond its type: extension name and TIME's UTC flag. */
export interface FieldInfo {
  readonly metadata?: ReadonlyMap<string, string>;
}

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true }); // a leading U+FEFF is data, not a byte-order mark
const INT32_MAX = 2147483647;
const INT64_MAX = 9223372036854775807n;
const UNIT_PER_SECOND = [1n, 1_000n, 1_000_000n, 1_000_000_000n];
const UNIT_DIGITS = [0, 3, 6, 9];

function pad(n: number | bigint, w: number): string {
  return String(n).padStart(w, '0');
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** Days since 1970-01-01 -> DuckDB's `YYYY-MM-DD`, `(BC)` for years before 1 (no year 0). */
export function dateText(days: number): string {
  if (days === INT32_MAX) return 'infinity';
  if (days === -INT32_MAX) return '-infinity';
  return civilDateText(days);
}

/** `.fraction` of `frac` units with `digits` digits, trailing zeros trimmed ('' for 0). */
function fraction(frac: bigint, digits: number): string {
  return frac === 0n ? '' : '.' + pad(frac, digits).replace(/0+$/, '');
}

/** A time of day in `unit` -> `HH:MM:SS[.fraction]` (24:00:00 included). */
export function timeText(v: bigint, unit: number): string {
  const per = UNIT_PER_SECOND[unit]!;
  const sec = floorDiv(v, per);
  const s = Number(sec);
  return `${pad(Math.floor(s / 3600), 2)}:${pad(Math.floor(s / 60) % 60, 2)}:${pad(s % 60, 2)}${fraction(v - sec * per, UNIT_DIGITS[unit]!)}`;
}

/** A timestamp in `unit` -> `YYYY-MM-DD HH:MM:SS[.fraction]`, `+00` appended for an instant. */
export function timestampText(v: bigint, unit: number, instant: boolean): string {
  if (v === INT64_MAX) return 'infinity';
  if (v === -INT64_MAX) return '-infinity';
  const per = UNIT_PER_SECOND[unit]!;
  const sec = floorDiv(v, per);
  const days = floorDiv(sec, 86400n);
  const date = dateText(Number(days));
  const bc = date.endsWith(' (BC)');
  const time = timeText((sec - days * 86400n) * per + (v - sec * per), unit);
  return `${bc ? date.slice(0, -5) : date} ${time}${instant ? '+00' : ''}${bc ? ' (BC)' : ''}`;
}

/** Signed `HH:MM:SS[.fraction]` of a span in nanoseconds (hours may exceed 24). */
function spanText(nanos: bigint): string {
  const neg = nanos < 0n;
  const a = neg ? -nanos : nanos;
  const sec = a / 1_000_000_000n;
  const h = sec / 3600n;
  return `${neg ? '-' : ''}${pad(h, 2)}:${pad((sec / 60n) % 60n, 2)}:${pad(sec % 60n, 2)}${fraction(a % 1_000_000_000n, 9)}`;
}

/** DuckDB's interval text: `1 year 2 months 3 days 04:05:06.789`, `00:00:00` for zero. */
export function intervalText(months: number, days: number, nanos: bigint): string {
  const parts: string[] = [];
  const years = Math.trunc(months / 12);
  const mon = months - years * 12;
  const unit = (n: number, one: string) => `${n} ${one}${Math.abs(n) === 1 ? '' : 's'}`;
  if (years !== 0) parts.push(unit(years, 'year'));
  if (mon !== 0) parts.push(unit(mon, 'month'));
  if (days !== 0) parts.push(unit(days, 'day'));
  if (nanos !== 0n || parts.length === 0) parts.push(spanText(nanos));
  return parts.join(' ');
}

/** Unscaled decimal -> text with `scale` fraction digits. */
export function decimalText(unscaled: bigint, scale: number): string {
  if (scale <= 0) return (unscaled * 10n ** BigInt(-scale)).toString();
  const neg = unscaled < 0n;
  const digits = (neg ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** DuckDB's float text: shortest digits, `.0` on integers, exponent below 1e-4 or from 1e16. */
export function floatText(v: number, single: boolean): string {
  if (Number.isNaN(v)) return 'nan';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  let exp = v.toExponential(); // shortest digits that round-trip as a double
  if (single) {
    for (let p = 1; p <= 9; p++) {
      const s = v.toExponential(p - 1);
      if (Math.fround(Number(s)) === v) {
        exp = s;
        break;
      }
    }
  }
  const [mant, e] = exp.split('e') as [string, string];
  const e10 = Number(e);
  if (e10 < -4 || e10 >= 16) return `${mant}e${e10 < 0 ? '-' : '+'}${pad(Math.abs(e10), 2)}`;
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  let s: string;
  if (e10 >= digits.length - 1) s = digits + '0'.repeat(e10 - digits.length + 1) + '.0';
  else if (e10 >= 0) s = `${digits.slice(0, e10 + 1)}.${digits.slice(e10 + 1)}`;
  else s = `0.${'0'.repeat(-e10 - 1)}${digits}`;
  return neg ? `-${s}` : s;
}

/** DuckDB's blob text: printable ASCII as is, other bytes and `\` as `\xHH`. */
export function blobText(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    s += c >= 0x20 && c < 0x7f && c !== 0x5c ? String.fromCharCode(c) : '\\x' + c.toString(16).toUpperCase().padStart(2, '0');
  }
  return s;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function uuidText(b: Uint8Array, at: number): string {
  let s = '';
  for (let k = 0; k < 16; k++) {
    if (k === 4 || k === 6 || k === 8 || k === 10) s += '-';
    s += HEX[b[at + k]!];
  }
  return s;
}

/** Does DuckDB quote this string inside a list, struct or map? */
function needsQuotes(s: string): boolean {
  if (s.length === 0 || s.toLowerCase() === 'null') return true;
  if (/^\s|\s$/.test(s)) return true;
  return /["'(),:=[\]{}]/.test(s);
}

function quoted(s: string): string {
  return needsQuotes(s) ? `'${s.replaceAll("'", "\\'")}'` : s;
}

/** Validity test of row i of `d` (true when it has no NULLs). */
function validity(d: Data): (i: number) => boolean {
  const bm = d.nullCount > 0 ? d.nullBitmap : null;
  if (!bm || bm.length === 0) return () => true;
  const off = d.offset;
  return (i) => ((bm[(off + i) >> 3]! >> ((off + i) & 7)) & 1) === 1;
}

/** Signed integer of `w` little-endian 32-bit words at row i. */
function wordsValue(words: Uint32Array, i: number, w: number): bigint {
  let x = 0n;
  for (let k = w - 1; k >= 0; k--) x = (x << 32n) | BigInt(words[i * w + k]!);
  return BigInt.asIntN(w * 32, x);
}

interface Formatter {
  /** Text of row i (valid). */
  readonly text: (i: number) => string;
  /** Whether the text is a string DuckDB quotes inside nested values when needed. */
  readonly stringLike: boolean;
}

function formatter(d: Data, info: FieldInfo, column: string): Formatter {
  const t = d.type;
  const ext = info.metadata?.get(EXTENSION_NAME);
  const num = (text: (i: number) => string): Formatter => ({ text, stringLike: false });
  const str = (text: (i: number) => string): Formatter => ({ text, stringLike: true });
  switch (t.typeId) {
    case Type.Null:
      return num(() => 'NULL');
    case Type.Bool: {
      const bits = d.values as Uint8Array;
      const off = d.offset;
      return num((i) => ((bits[(off + i) >> 3]! >> ((off + i) & 7)) & 1 ? 'true' : 'false'));
    }
    case Type.Int: {
      const v = d.values as ArrayLike<number | bigint>;
      return num((i) => String(v[i]));
    }
    case Type.Float: {
      const p = (t as DataType & { precision: number }).precision;
      if (p === 0) {
        const v = d.values as Uint16Array;
        return num((i) => floatText(halfToDouble(v[i]!), true));
      }
      const v = d.values as Float32Array | Float64Array;
      return num((i) => floatText(v[i]!, p === 1));
    }
    case Type.Decimal: {
      const { bitWidth, scale } = t as DataType & { bitWidth: number; scale: number };
      const w = bitWidth / 32;
      const words = d.values as Uint32Array;
      return num((i) => decimalText(wordsValue(words, i, w), scale));
    }
    case Type.Utf8:
    case Type.LargeUtf8:
    case Type.Utf8View: {
      const v = new Vector([d]);
      const f = (i: number) => v.get(i) as string;
      return ext === JSON_EXTENSION ? num(f) : str(f);
    }
    case Type.Binary:
    case Type.LargeBinary:
    case Type.BinaryView: {
      const v = new Vector([d]);
      return str((i) => blobText(v.get(i) as Uint8Array));
    }
    case Type.FixedSizeBinary: {
      const width = (t as DataType & { byteWidth: number }).byteWidth;
      const b = d.values as Uint8Array;
      if (ext === UUID_EXTENSION && width === 16) return str((i) => uuidText(b, 16 * i));
      return str((i) => blobText(b.subarray(width * i, width * (i + 1))));
    }
    case Type.Date: {
      if ((t as DataType & { unit: number }).unit === 0) {
        const v = d.values as Int32Array;
        return str((i) => dateText(v[i]!));
      }
      const v = d.values as BigInt64Array;
      return str((i) => dateText(Number(floorDiv(v[i]!, 86_400_000n))));
    }
    case Type.Time: {
      const unit = (t as DataType & { unit: number }).unit;
      const v = d.values as Int32Array | BigInt64Array;
      const utc = info.metadata?.has(ADJUSTED_TO_UTC) ? '+00' : '';
      return str((i) => timeText(BigInt(v[i]!), unit) + utc);
    }
    case Type.Timestamp: {
      const { unit, timezone } = t as DataType & { unit: number; timezone: string | null };
      const v = d.values as BigInt64Array;
      const instant = timezone !== null && timezone !== undefined && timezone !== '';
      return str((i) => timestampText(v[i]!, unit, instant));
    }
    case Type.Duration: {
      const unit = (t as DataType & { unit: number }).unit;
      const v = d.values as BigInt64Array;
      const toNanos = 10n ** BigInt(9 - UNIT_DIGITS[unit]!);
      return str((i) => spanText(v[i]! * toNanos));
    }
    case Type.Interval: {
      const unit = (t as DataType & { unit: number }).unit;
      const v = d.values as Int32Array;
      if (unit === IntervalUnit.YEAR_MONTH) return str((i) => intervalText(v[i]!, 0, 0n));
      if (unit === IntervalUnit.DAY_TIME) return str((i) => intervalText(0, v[2 * i]!, BigInt(v[2 * i + 1]!) * 1_000_000n));
      return str((i) => intervalText(v[4 * i]!, v[4 * i + 1]!, (BigInt(v[4 * i + 3]!) << 32n) | BigInt(v[4 * i + 2]! >>> 0)));
    }
    case Type.Dictionary: {
      const dict = d.dictionary!;
      const codes = d.values as ArrayLike<number | bigint>;
      const inner = dict.data.map((c) => cellFormatter(c, info, column));
      const starts: number[] = [];
      let n = 0;
      for (const c of dict.data) {
        starts.push(n);
        n += c.length;
      }
      const stringLike = dict.data.length > 0 ? formatter(dict.data[0]!, info, column).stringLike : true;
      const entry = (k: number) => {
        let c = starts.length - 1;
        while (c > 0 && starts[c]! > k) c--;
        return inner[c]!(k - starts[c]!);
      };
      return { text: (i) => entry(Number(codes[i]!)) ?? 'NULL', stringLike };
    }
    case Type.List:
    case Type.LargeList:
    case Type.FixedSizeList: {
      const child = d.children[0]!;
      const inner = nestedCell(child, t.children[0]!, column);
      if (t.typeId === Type.FixedSizeList) {
        const size = (t as DataType & { listSize: number }).listSize;
        return num((i) => listText(inner, i * size, (i + 1) * size));
      }
      const o = d.valueOffsets as unknown as ArrayLike<number | bigint>;
      return num((i) => listText(inner, Number(o[i]!), Number(o[i + 1]!)));
    }
    case Type.Map: {
      const entries = d.children[0]!;
      const key = nestedCell(entries.children[0]!, entries.type.children[0]!, column);
      const value = nestedCell(entries.children[1]!, entries.type.children[1]!, column);
      const o = d.valueOffsets as Int32Array;
      return num((i) => {
        const parts: string[] = [];
        for (let j = o[i]!; j < o[i + 1]!; j++) parts.push(`${key(j)}=${value(j)}`);
        return `{${parts.join(', ')}}`;
      });
    }
    case Type.Struct: {
      const fields = t.children as { name: string; metadata: Map<string, string> }[];
      const cells = d.children.map((c, k) => nestedCell(c, fields[k]!, column));
      const unnamed = fields.some((f) => f.name === '');
      return num((i) => {
        const parts = cells.map((cell, k) => (unnamed ? cell(i) : `'${fields[k]!.name.replaceAll("'", "\\'")}': ${cell(i)}`));
        return unnamed ? `(${parts.join(', ')})` : `{${parts.join(', ')}}`;
      });
    }
    default:
      throw new UnsupportedTypeError(column, String(t), 'as text');
  }
}

function listText(inner: (i: number) => string, start: number, end: number): string {
  const parts: string[] = [];
  for (let j = start; j < end; j++) parts.push(inner(j));
  return `[${parts.join(', ')}]`;
}

/** A child value's text as DuckDB writes it inside a nested value (`NULL`, quoted strings). */
function nestedCell(d: Data, info: FieldInfo, column: string): (i: number) => string {
  const f = formatter(d, info, column);
  const valid = validity(d);
  return f.stringLike ? (i) => (valid(i) ? quoted(f.text(i)) : 'NULL') : (i) => (valid(i) ? f.text(i) : 'NULL');
}

/**
 * A formatter of one column's Data: row i as DuckDB's `::VARCHAR` text, null for NULL. `info`
 * carries the field metadata (UUID / JSON extension, TIME's UTC flag). Throws
 * UnsupportedTypeError naming `column` for a type without a text form (unions).
 */
export function cellFormatter(d: Data, info: FieldInfo, column: string): CellText {
  const f = formatter(d, info, column);
  const valid = validity(d);
  return (i) => (valid(i) ? f.text(i) : null);
}

/**
 * A value of row `i` of `v` for the CLI preview: numbers stay numbers (the table right-aligns
 * them), NULL stays null, everything else is DuckDB's text for it.
 */
export function previewValue(v: Vector, i: number, info: FieldInfo = {}): unknown {
  const t = v.type;
  if (DataType.isInt(t) || (DataType.isFloat(t) && t.precision !== 0)) return v.get(i);
  let at = i;
  for (const d of v.data) {
    if (at < d.length) return cellFormatter(d, info, '(preview)')(at);
    at -= d.length;
  }
  return null;
}

