/**
 * CSV output. (CSV input is csv-read.ts: it infers column types from a sample of rows and reads
 * what this module writes back to the same values — NULL vs `""`, dates, timestamps, floats —
 * for the types it infers; anything else comes back as VARCHAR text.)
 *
 * Conventions, chosen so DuckDB's `read_csv` reads the file back to the same values:
 * - RFC 4180 quoting: a field is quoted when it contains the delimiter, `"`, CR or LF, or when it
 *   starts with U+FEFF; quotes are doubled. NULL is an empty unquoted field; an empty *string* is
 *   written `""` so the two stay distinguishable (DuckDB does the same; read it back with
 *   `allow_quoted_nulls=false`). A leading U+FEFF is quoted because a reader may strip a BOM at the
 *   very start of a file (csv-parse's `bom`, DuckDB): inside quotes it is data. Every other
 *   character — NUL, inner BOMs, lone CR — is written as is (quoted when RFC 4180 says so).
 * - strings are decoded exactly (core/arrow/utf8.ts): a leading U+FEFF is kept, and a value whose
 *   bytes are not valid UTF-8 (e.g. from a JS string with a lone surrogate) is refused with an
 *   `InvalidUtf8Error` naming column and row — CSV is text, and no reader would get those bytes
 *   back. Binary columns carry any bytes (blob text below).
 * - integers, Int64/UInt64 and decimals as exact decimal digits (bigints never go through a
 *   double); Float32 with the shortest digits that round-trip as float32; NaN / Infinity /
 *   -Infinity spelled out; -0.0 as `-0`.
 * - dates `YYYY-MM-DD` (proleptic Gregorian, computed arithmetically so any Int32 day count
 *   works; years before 0 as ISO 8601's expanded `-YYYYYY`, years past 9999 with their digits,
 *   `10000-01-01`: the forms DuckDB's `read_csv` reads — it refuses a `+` sign); timestamps
 *   `YYYY-MM-DDTHH:MM:SS[.fraction]` with the fraction in the column's unit, trailing zeros
 *   trimmed, and `Z` appended when the column has a time zone (Arrow stores UTC instants).
 * - binary as DuckDB's blob text: printable ASCII as is, other bytes and `\` as `\xHH`.
 * - DuckDB's sentinels INT32_MAX / INT64_MAX (and their negations) for dates and timestamps as
 *   `infinity` / `-infinity`, as DuckDB writes and reads them.
 * - times, intervals, UUIDs (`arrow.uuid`), other fixed-size binary, string and binary views,
 *   Float16: DuckDB's own text for them (text.ts), which `read_csv` reads back as the same value
 *   given the column type (`HH:MM:SS.ffffff`, `+00` for a TIME adjusted to UTC, `1 year 2 months 3
 *   days 04:05:06.789`, canonical UUIDs).
 * - dictionary columns print their values. Nested columns (CSV has no nested values), durations
 *   (no DuckDB type reads them back) and unions are an `UnsupportedTypeError` naming the column,
 *   raised by `checkCsvWritable` before anything is written.
 * Lines end with `\n` (configurable); the file is written batch by batch, atomically.
 */
import { open } from 'node:fs/promises';
import { Data, DataType, Type, type Field, type RecordBatch, type Schema, type Table, type Vector } from 'apache-arrow';
import { isOffsetBytes } from '../../core/arrow/type-families.ts';
import { UnsupportedTypeError } from '../../core/errors.ts';
import { writeFileAtomic } from './atomic.ts';
import { civilFromDays } from '../../core/expr/calendar.ts';
import { cellFormatter } from './text.ts';
import { checkBatchUtf8, exactUtf8 } from '../../core/arrow/utf8.ts';

export const CSV_EXTENSIONS: readonly string[] = ['.csv'];

export function isCsvPath(path: string): boolean {
  return path.toLowerCase().endsWith('.csv');
}

export interface CsvOptions {
  /** Default `,`. */
  readonly delimiter?: string;
  /** Write a header line with the column names (default true). */
  readonly header?: boolean;
  /** Default `\n`. */
  readonly newline?: '\n' | '\r\n';
}

/**
 * Quote a (non-NULL) field when RFC 4180 requires it; the empty string is always quoted, and so is
 * a field starting with U+FEFF (a reader may take it for a byte-order mark at the start of a file).
 */
export function csvField(s: string, delimiter = ','): string {
  if (s.length === 0) return '""';
  if (s.charCodeAt(0) === 0xfeff || s.includes(delimiter) || s.includes('"') || s.includes('\n') || s.includes('\r')) {
    return `"${s.replaceAll('"', '""')}"`;
  }
  return s;
}


function pad(n: number, w: number): string {
  return String(n).padStart(w, '0');
}

const INT32_MAX = 2147483647;
const INT64_MAX = 9223372036854775807n;

/** Days since 1970-01-01 -> `YYYY-MM-DD`; `-YYYYYY` before year 0, 5+ digits past 9999. */
export function formatDate(days: number): string {
  if (days === INT32_MAX) return 'infinity';
  if (days === -INT32_MAX) return '-infinity';
  const [y, m, d] = civilFromDays(days);
  const year = y < 0 ? '-' + pad(-y, 6) : pad(y, 4); // 10000 and on unsigned: DuckDB reads no '+'
  return `${year}-${pad(m, 2)}-${pad(d, 2)}`;
}

const UNIT_PER_SECOND = [1n, 1_000n, 1_000_000n, 1_000_000_000n];
const UNIT_DIGITS = [0, 3, 6, 9];

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** A timestamp in `unit` (0 = s .. 3 = ns) -> ISO 8601. */
export function formatTimestamp(v: bigint, unit: number, utc: boolean): string {
  if (v === INT64_MAX) return 'infinity';
  if (v === -INT64_MAX) return '-infinity';
  const per = UNIT_PER_SECOND[unit]!;
  const sec = floorDiv(v, per);
  const frac = v - sec * per;
  const days = floorDiv(sec, 86400n);
  const sod = Number(sec - days * 86400n);
  let s = `${formatDate(Number(days))}T${pad(Math.floor(sod / 3600), 2)}:${pad(Math.floor(sod / 60) % 60, 2)}:${pad(sod % 60, 2)}`;
  if (frac !== 0n) s += '.' + frac.toString().padStart(UNIT_DIGITS[unit]!, '0').replace(/0+$/, '');
  return utc ? s + 'Z' : s;
}

function formatFloat(v: number, single: boolean): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  if (!single) return String(v);
  for (let p = 1; p <= 9; p++) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return String(Number(s));
  }
  return String(v);
}

export function formatDecimal(unscaled: bigint, scale: number): string {
  if (scale <= 0) return (unscaled * 10n ** BigInt(-scale)).toString();
  const neg = unscaled < 0n;
  const digits = (neg ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

function formatBlob(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    s += c >= 0x20 && c < 0x7f && c !== 0x5c ? String.fromCharCode(c) : '\\x' + c.toString(16).toUpperCase().padStart(2, '0');
  }
  return s;
}

/** Why CSV output cannot carry `type` exactly, or null when it can. */
function csvUnwritable(type: DataType): string | null {
  switch (type.typeId) {
    case Type.Dictionary:
      return csvUnwritable((type as DataType & { dictionary: DataType }).dictionary);
    case Type.Duration:
      return 'DuckDB has no duration type to read it back as';
    case Type.List:
    case Type.LargeList:
    case Type.FixedSizeList:
    case Type.Struct:
    case Type.Map:
      return 'CSV has no nested values';
    case Type.Union:
      return 'CSV has no union values';
    default:
      return null;
  }
}

/** Throws UnsupportedTypeError for the first column CSV output cannot carry exactly. */
export function checkCsvWritable(schema: Schema): void {
  for (const f of schema.fields) {
    const why = csvUnwritable(f.type);
    if (why !== null) throw new UnsupportedTypeError(f.name, String(f.type), `in CSV output (${why})`);
  }
}

/** Formatted, already-quoted cells of one column (`''` for NULL). */
function formatColumn(d: Data, field: Field, delimiter: string): string[] {
  const name = field.name;
  const n = d.length;
  const out: string[] = new Array(n);
  const t = d.type;
  const bm = d.nullCount > 0 && d.nullBitmap && d.nullBitmap.length > 0 ? d.nullBitmap : null;
  const valid = (i: number): boolean => bm === null || ((bm[(d.offset + i) >> 3]! >> ((d.offset + i) & 7)) & 1) === 1;
  if (DataType.isNull(t)) return out.fill('');
  if (DataType.isDictionary(t)) {
    const dict = d.dictionary as Vector;
    const formatted: string[] = [];
    for (const chunk of dict.data) for (const s of formatColumn(chunk, field, delimiter)) formatted.push(s);
    const idx = d.values as ArrayLike<number | bigint>;
    for (let i = 0; i < n; i++) out[i] = valid(i) ? formatted[Number(idx[i]!)]! : '';
    return out;
  }
  let cell: (i: number) => string;
  if (DataType.isInt(t) || DataType.isDate(t) || DataType.isTimestamp(t)) {
    const v = d.values as ArrayLike<number | bigint>;
    if (DataType.isTimestamp(t)) {
      const utc = t.timezone !== null && t.timezone !== undefined && t.timezone !== '';
      cell = (i) => formatTimestamp(v[i] as bigint, t.unit, utc);
    } else if (DataType.isDate(t)) {
      cell = t.unit === 0 ? (i) => formatDate(v[i] as number) : (i) => formatDate(Number(floorDiv(BigInt(v[i]!), 86_400_000n)));
    } else cell = (i) => String(v[i]);
  } else if (DataType.isFloat(t) && t.precision !== 0) {
    const v = d.values as Float32Array | Float64Array;
    const single = t.precision === 1;
    cell = (i) => formatFloat(v[i]!, single);
  } else if (DataType.isBool(t)) {
    const bits = d.values as Uint8Array;
    cell = (i) => (((bits[(d.offset + i) >> 3]! >> ((d.offset + i) & 7)) & 1) === 1 ? 'true' : 'false');
  } else if (DataType.isDecimal(t)) {
    const w = t.bitWidth / 32;
    const words = d.values as Uint32Array;
    cell = (i) => {
      let x = 0n;
      for (let k = w - 1; k >= 0; k--) x = (x << 32n) | BigInt(words[i * w + k]!);
      return formatDecimal(BigInt.asIntN(t.bitWidth, x), t.scale);
    };
  } else if (isOffsetBytes(t.typeId)) {
    const v = d.values as Uint8Array;
    const o = d.valueOffsets;
    const str = DataType.isUtf8(t) || DataType.isLargeUtf8(t);
    cell = (i) => {
      const bytes = v.subarray(Number(o[i]!), Number(o[i + 1]!));
      return csvField(str ? exactUtf8.decode(bytes) : formatBlob(bytes), delimiter);
    };
  } else if (csvUnwritable(t) === null) {
    const text = cellFormatter(d, field, name);
    cell = (i) => csvField(text(i)!, delimiter);
  } else {
    throw new UnsupportedTypeError(name, String(t), 'in CSV output');
  }
  for (let i = 0; i < n; i++) out[i] = valid(i) ? cell(i) : '';
  return out;
}

function batchToCsv(batch: RecordBatch, delimiter: string, newline: string): string {
  const cols = batch.schema.fields.map((f, c) => formatColumn(batch.data.children[c]!, f, delimiter));
  const lines: string[] = new Array(batch.numRows);
  for (let r = 0; r < batch.numRows; r++) {
    let line = '';
    for (let c = 0; c < cols.length; c++) line += (c > 0 ? delimiter : '') + cols[c]![r];
    lines[r] = line + newline;
  }
  return lines.join('');
}

function headerLine(schema: Schema, delimiter: string, newline: string): string {
  return schema.fields.map((f) => csvField(f.name, delimiter)).join(delimiter) + newline;
}

/** The whole table as CSV text (for tests and small outputs). */
export function tableToCsv(table: Table, options: CsvOptions = {}): string {
  const delimiter = options.delimiter ?? ',';
  const newline = options.newline ?? '\n';
  checkCsvWritable(table.schema);
  let s = options.header === false ? '' : headerLine(table.schema, delimiter, newline);
  let rows = 0;
  for (const b of table.batches) {
    checkBatchUtf8(b, 'CSV output', rows);
    s += batchToCsv(b, delimiter, newline);
    rows += b.numRows;
  }
  return s;
}

/** Write the table as CSV, batch by batch, atomically. */
export async function writeCsvFile(path: string, table: Table, options: CsvOptions = {}): Promise<void> {
  await writeCsvBatches(path, table.schema, table.batches, options);
}

/**
 * Write `batches` (all of `schema`) as CSV, each batch's text written before the next batch is
 * pulled, atomically; returns the rows written.
 */
export async function writeCsvBatches(path: string, schema: Schema, batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>, options: CsvOptions = {}): Promise<number> {
  const delimiter = options.delimiter ?? ',';
  const newline = options.newline ?? '\n';
  checkCsvWritable(schema); // before the file is created
  let rows = 0;
  await writeFileAtomic(path, async (tmp) => {
    const fh = await open(tmp, 'wx');
    try {
      if (options.header !== false) await fh.write(headerLine(schema, delimiter, newline));
      for await (const b of batches) {
        checkBatchUtf8(b, 'CSV output', rows);
        await fh.write(batchToCsv(b, delimiter, newline));
        rows += b.numRows;
      }
      await fh.sync();
    } finally {
      await fh.close();
    }
  });
  return rows;
}
