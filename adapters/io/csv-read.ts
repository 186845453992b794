/**
 * CSV input: a file read in chunks into Arrow record batches with typed columns.
 *
 * Parser: `csv-parse` (the node-csv project), not a hand-written one. Picked because it is the
 * most used and longest-maintained streaming CSV parser for Node (MIT, no dependencies), it is a
 * `stream.Transform` fed by a file read in 1 MiB chunks (the file is never one string), and it
 * handles what hand-written parsers get wrong: RFC 4180 quotes (`""` inside a quoted field),
 * delimiters and CR/LF/CRLF inside quoted fields, CRLF / LF / CR line ends (detected), a UTF-8 BOM,
 * and it reports ragged rows and unterminated quotes as errors instead of guessing. Its one gap:
 * it tells a quoted field from an unquoted one only through its per-field `cast` hook, which
 * allocates a context object per field (about 12x slower parsing). So the reader asks it for each
 * record's raw text (`raw`, a few percent) and, only for a record that has an empty field *and*
 * contains `""`, finds which empty fields were quoted by a scan over that record's text
 * (`quotedEmpties`; the record is already split and validated by csv-parse).
 *
 * What a file becomes:
 * - header: the first record names the columns (`header: false`: every record is data and the
 *   columns are `column0`, `column1`, …). An empty header name becomes `column<i>`; a repeated
 *   name gets `_1`, `_2`, … appended (as DuckDB does). An empty file is a table with no columns;
 *   a header-only file has its columns, as VARCHAR, and no rows.
 * - NULL: an empty *unquoted* field is NULL; an empty *quoted* field `""` is the empty string —
 *   exactly what csv.ts writes, so joinlab's own CSV reads back to the same values (DuckDB reads
 *   them the same way with `allow_quoted_nulls=false`). A blank line is skipped in a file of two or
 *   more columns (as DuckDB does) and is a NULL row in a one-column file (how csv.ts writes one).
 * - types, inferred from the first `sampleRows` data rows (default 20480, DuckDB's `sample_size`):
 *   each column gets the first type of BOOLEAN, INTEGER, BIGINT, DOUBLE, DATE, TIMESTAMP, VARCHAR
 *   that every non-NULL sampled value parses as (a column with no value in the sample is VARCHAR):
 *   - BOOLEAN: `true`/`false`/`t`/`f`, any case -> Arrow Bool;
 *   - INTEGER / BIGINT: `[+-]digits` -> Int32 when every sampled value fits, else Int64;
 *   - DOUBLE: decimal or exponent notation, `inf`/`infinity`/`nan` (any case, signed) -> Float64;
 *   - DATE: `YYYY-MM-DD` (also expanded years: `-YYYYYY-MM-DD`, `+YYYYYY-MM-DD`, and years past
 *     9999 unsigned as csv.ts and DuckDB write them, `10000-01-01`; and `infinity` /
 *     `-infinity`, DuckDB's sentinels) -> Date32 (days);
 *   - TIMESTAMP: `YYYY-MM-DD[T| ]HH:MM[:SS[.fraction]]` -> Timestamp in microseconds (DuckDB's
 *     TIMESTAMP), in nanoseconds when a sampled fraction has 7 to 9 digits (TIMESTAMP_NS); with a
 *     `Z` or `±HH[:MM]` offset on every value, the UTC instant with time zone `UTC` (TIMESTAMPTZ);
 *   - VARCHAR: anything else -> Utf8.
 *   The `types` option fixes a column's type by name instead (same names).
 * - a value after the sample that does not fit its column's type is never mangled. By default
 *   (`onMismatch: 'widen'`) the file is read again with that column widened to the narrowest type
 *   that holds what was read and the new value: INTEGER -> BIGINT -> DOUBLE, DATE -> TIMESTAMP,
 *   microseconds -> nanoseconds, anything else -> VARCHAR (the text as written); a read restarts
 *   at most a few times per column. `onMismatch: 'error'` raises a `CsvValueError` naming the file,
 *   line, column, value and type instead (`readCsvBatches`, which streams, always raises: batches
 *   it already yielded cannot be retyped).
 * - bad input — a row with more or fewer fields than the header, an unterminated or misplaced
 *   quote, a record over `MAX_RECORD_CHARS` (16 Mi characters, a guard against a runaway quote
 *   buffering the rest of a huge file) — is a `CsvReadError` (a `CorruptFileError`)
 *   naming the file and the line the record starts on.
 *
 * Building: each batch is `batchSize` rows (default 8192, the engine passes its `batchSize`),
 * every column a typed array filled in place (Int32Array, Float64Array, the Int64 words, a validity
 * bitmap; strings as one UTF-8 buffer + offsets encoded once per batch) and wrapped as Arrow Data;
 * nothing per row but the parser's own record array.
 *
 * Memory: `readCsvFile` keeps the batches (an Arrow Table, like an IPC input); `openScan` wraps it
 * in a `MemoryScan` sourced by the path. A file opened again unchanged (same size, mtime, inode,
 * options) while its table is still alive reuses it (`readCsvFileShared`), so a query naming a CSV
 * table twice parses it once.
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parse, type Parser } from 'csv-parse';
import {
  Bool,
  type Data,
  DataType,
  DateDay,
  Field,
  Float64,
  Int32,
  Int64,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  TimestampMicrosecond,
  TimestampNanosecond,
  Utf8,
} from 'apache-arrow';
import { CorruptFileError, UsageError } from '../../core/errors.ts';
import { assertRegularFile } from '../../core/input-file.ts';
import { daysFromCivil, monthDays } from '../../core/expr/calendar.ts';

export type CsvColumnType = 'BOOLEAN' | 'INTEGER' | 'BIGINT' | 'DOUBLE' | 'DATE' | 'TIMESTAMP' | 'TIMESTAMP_NS' | 'TIMESTAMPTZ' | 'TIMESTAMPTZ_NS' | 'VARCHAR';

export interface CsvReadOptions {
  /** Rows per record batch (default 8192). */
  readonly batchSize?: number;
  /** The first record names the columns (default true); false: `column0`, `column1`, …. */
  readonly header?: boolean;
  /** One character (not `"`, CR or LF), default `,`. */
  readonly delimiter?: string;
  /** Data rows the types are inferred from (default 20480). */
  readonly sampleRows?: number;
  /** Column name -> type, instead of inferring it. */
  readonly types?: Readonly<Record<string, CsvColumnType>>;
  /** A later value that does not fit its inferred type: widen the column and read again (default), or raise. */
  readonly onMismatch?: 'widen' | 'error';
}

export const DEFAULT_SAMPLE_ROWS = 20480;
const DEFAULT_BATCH_SIZE = 8192;
const CHUNK_BYTES = 1 << 20;
/** csv-parse's `max_record_size`: a runaway quote stops here instead of buffering the rest of the file. */
export const MAX_RECORD_CHARS = 1 << 24;

/** Malformed CSV: a ragged row, an unterminated quote; names the file and the record's first line. */
export class CsvReadError extends CorruptFileError {
  constructor(
    path: string,
    readonly line: number,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(path, `line ${line}: ${detail}`, options);
  }
}

/** A value that does not fit its column's type (`onMismatch: 'error'`). */
export class CsvValueError extends CorruptFileError {
  constructor(
    path: string,
    readonly line: number,
    readonly column: string,
    readonly value: string,
    readonly columnType: CsvColumnType,
  ) {
    super(path, `line ${line}, column '${column}': ${JSON.stringify(value)} is not a ${columnType} (the type inferred for the column; read with onMismatch 'widen' to widen it)`);
  }
}

/** Internal: a mismatch at parser record `record` (0-based, header included), before its line is known. */
class Mismatch {
  constructor(
    readonly record: number,
    readonly column: number,
    readonly value: string,
  ) {}
}

// ------------------------------------------------------------------------------------------------
// Value parsers: one per type, each `(s) -> ok`, writing into the column's arrays
// ------------------------------------------------------------------------------------------------

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const TWO32 = 4294967296;

/** `[+-]digits` -> number when it has at most 15 digits, else bigint (exact); null when not an integer. */
function parseInteger(s: string): number | bigint | null {
  const n = s.length;
  let i = 0;
  const c0 = s.charCodeAt(0);
  if (c0 === 43 || c0 === 45) i = 1;
  if (i === n) return null;
  for (let k = i; k < n; k++) {
    const c = s.charCodeAt(k);
    if (c < 48 || c > 57) return null;
  }
  if (n - i <= 15) return c0 === 45 ? -Number(s.slice(1)) || 0 : Number(s); // -0 -> 0
  return BigInt(s);
}

function fitsInt64(v: number | bigint): boolean {
  return typeof v === 'number' || (v >= INT64_MIN && v <= INT64_MAX);
}

const FLOAT_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const FLOAT_SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;

/** DuckDB's DOUBLE text -> number, or undefined. */
function parseDouble(s: string): number | undefined {
  if (FLOAT_RE.test(s)) return Number(s);
  const m = FLOAT_SPECIAL.exec(s);
  if (m === null) return undefined;
  if (m[2]!.toLowerCase() === 'nan') return NaN;
  return m[1] === '-' ? -Infinity : Infinity;
}

function parseBool(s: string): number {
  if (s.length > 5) return -1;
  switch (s.toLowerCase()) {
    case 'true':
    case 't':
      return 1;
    case 'false':
    case 'f':
      return 0;
    default:
      return -1;
  }
}

const DATE_RE = /^([+-]?)(\d{4,7})-(\d\d)-(\d\d)$/;
const DATE_INF = 2147483647;

/** `YYYY-MM-DD` (or `±YYYYYY-MM-DD`, `10000-01-01`, `infinity`) -> days since 1970-01-01, or undefined. */
function parseDate(s: string): number | undefined {
  const m = DATE_RE.exec(s);
  if (m === null) {
    const l = s.toLowerCase();
    return l === 'infinity' ? DATE_INF : l === '-infinity' ? -DATE_INF : undefined;
  }
  return civilDays(m[1]!, m[2]!, m[3]!, m[4]!);
}

function civilDays(sign: string, ys: string, ms: string, ds: string): number | undefined {
  if (ys.length > 4 && ys.startsWith('0') && sign === '') return undefined; // unsigned: 10000 and on, as DuckDB writes them
  const y = sign === '-' ? -Number(ys) : Number(ys);
  const mo = Number(ms);
  const d = Number(ds);
  if (mo < 1 || mo > 12 || d < 1 || d > monthDays(y, mo)) return undefined;
  return daysFromCivil(y, mo, d);
}

const TS_RE = /^([+-]?)(\d{4,7})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d\d(?::?\d\d)?)?$/i;

/** A parsed timestamp: the instant (or wall time) in the unit asked for, its fraction digits, whether it had an offset. */
interface TsParse {
  value: number | bigint;
  digits: number;
  tz: boolean;
}
const TS: TsParse = { value: 0, digits: 0, tz: false };
const TS_INF = (1n << 63n) - 1n;

/** Fills `TS`; false when `s` is no timestamp. `nanos`: the value in ns, else µs (a finer fraction fails). */
function parseTimestamp(s: string, nanos: boolean): boolean {
  const m = TS_RE.exec(s);
  if (m === null) {
    const l = s.toLowerCase();
    if (l !== 'infinity' && l !== '-infinity') return false;
    TS.value = l === 'infinity' ? TS_INF : -TS_INF;
    TS.digits = 0;
    TS.tz = false;
    return true;
  }
  const days = civilDays(m[1]!, m[2]!, m[3]!, m[4]!);
  if (days === undefined) return false;
  const h = m[5] === undefined ? 0 : Number(m[5]);
  const mi = m[6] === undefined ? 0 : Number(m[6]);
  const sec = m[7] === undefined ? 0 : Number(m[7]);
  if (h > 23 || mi > 59 || sec > 59) return false;
  const frac = m[8] ?? '';
  if (frac.length > (nanos ? 9 : 6)) return false;
  let offset = 0;
  const z = m[9];
  if (z !== undefined && z.toUpperCase() !== 'Z') {
    const oh = Number(z.slice(1, 3));
    const om = z.length > 3 ? Number(z.slice(-2)) : 0;
    if (oh > 23 || om > 59) return false;
    offset = (z[0] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  const seconds = days * 86400 + h * 3600 + mi * 60 + sec - offset;
  const unitDigits = nanos ? 9 : 6;
  const f = frac.length === 0 ? 0 : Number(frac.padEnd(unitDigits, '0'));
  const per = nanos ? 1e9 : 1e6;
  const approx = seconds * per;
  TS.value = Math.abs(approx) < 2 ** 53 - per ? approx + f : BigInt(seconds) * BigInt(per) + BigInt(f);
  if (typeof TS.value === 'bigint' && (TS.value > INT64_MAX || TS.value < INT64_MIN)) return false;
  TS.digits = frac.length;
  TS.tz = z !== undefined;
  return true;
}

// ------------------------------------------------------------------------------------------------
// Type inference
// ------------------------------------------------------------------------------------------------

/** What the sampled values of one column still allow. */
class Candidates {
  bool = true;
  int32 = true;
  int64 = true;
  double = true;
  date = true;
  ts = true;
  tsNanos = false;
  tz = false;
  noTz = false;
  seen = false;

  add(s: string): void {
    this.seen = true;
    if (this.bool && parseBool(s) < 0) this.bool = false;
    if (this.int64) {
      const v = parseInteger(s);
      if (v === null || !fitsInt64(v)) this.int32 = this.int64 = false;
      else if (this.int32 && (typeof v === 'bigint' || v < INT32_MIN || v > INT32_MAX)) this.int32 = false;
    }
    if (this.double && parseDouble(s) === undefined) this.double = false;
    if (this.date && parseDate(s) === undefined) this.date = false;
    if (this.ts) {
      if (!parseTimestamp(s, false) && !(parseTimestamp(s, true) && (this.tsNanos = true))) this.ts = false;
      else {
        if (TS.tz) this.tz = true;
        else if (s.length > 9) this.noTz = true; // not the `infinity` sentinels
      }
    }
  }

  type(): CsvColumnType {
    if (!this.seen) return 'VARCHAR';
    if (this.bool) return 'BOOLEAN';
    if (this.int32) return 'INTEGER';
    if (this.int64) return 'BIGINT';
    if (this.double) return 'DOUBLE';
    if (this.date) return 'DATE';
    if (this.ts && !(this.tz && this.noTz)) return this.tz ? (this.tsNanos ? 'TIMESTAMPTZ_NS' : 'TIMESTAMPTZ') : this.tsNanos ? 'TIMESTAMP_NS' : 'TIMESTAMP';
    return 'VARCHAR';
  }
}

/** The column's type after `value` did not fit `type`: the narrowest wider type holding both. */
export function widenedType(type: CsvColumnType, value: string): CsvColumnType {
  const int = parseInteger(value);
  const isTs = (nanos: boolean) => parseTimestamp(value, nanos);
  switch (type) {
    case 'INTEGER':
      if (int !== null && fitsInt64(int)) return 'BIGINT';
      return parseDouble(value) !== undefined ? 'DOUBLE' : 'VARCHAR';
    case 'BIGINT':
      return parseDouble(value) !== undefined ? 'DOUBLE' : 'VARCHAR';
    case 'DATE':
      if (isTs(false)) return TS.tz ? 'VARCHAR' : 'TIMESTAMP';
      return isTs(true) && !TS.tz ? 'TIMESTAMP_NS' : 'VARCHAR';
    case 'TIMESTAMP':
      return isTs(true) && !TS.tz ? 'TIMESTAMP_NS' : 'VARCHAR';
    case 'TIMESTAMPTZ':
      return isTs(true) && TS.tz ? 'TIMESTAMPTZ_NS' : 'VARCHAR';
    default:
      return 'VARCHAR';
  }
}

export function arrowTypeOf(t: CsvColumnType): DataType {
  switch (t) {
    case 'BOOLEAN':
      return new Bool();
    case 'INTEGER':
      return new Int32();
    case 'BIGINT':
      return new Int64();
    case 'DOUBLE':
      return new Float64();
    case 'DATE':
      return new DateDay();
    case 'TIMESTAMP':
      return new TimestampMicrosecond();
    case 'TIMESTAMP_NS':
      return new TimestampNanosecond();
    case 'TIMESTAMPTZ':
      return new TimestampMicrosecond('UTC');
    case 'TIMESTAMPTZ_NS':
      return new TimestampNanosecond('UTC');
    case 'VARCHAR':
      return new Utf8();
  }
}

// ------------------------------------------------------------------------------------------------
// Column builders: typed arrays of one batch
// ------------------------------------------------------------------------------------------------

interface ColumnBuilder {
  /** Row `i` is `s` (non-NULL); false when `s` does not fit. */
  set(i: number, s: string): boolean;
  /** The first `n` rows as Arrow Data with this validity. */
  finish(n: number, nullCount: number, validity: Uint8Array): Data;
}

function validityOf(n: number, nullCount: number, validity: Uint8Array): Uint8Array | undefined {
  return nullCount === 0 ? undefined : validity.slice(0, (n + 7) >> 3);
}

class Int32Builder implements ColumnBuilder {
  readonly values: Int32Array;
  constructor(cap: number) {
    this.values = new Int32Array(cap);
  }
  set(i: number, s: string): boolean {
    const v = parseInteger(s);
    if (typeof v !== 'number' || v < INT32_MIN || v > INT32_MAX) return false;
    this.values[i] = v;
    return true;
  }
  finish(n: number, nullCount: number, validity: Uint8Array): Data {
    const data = this.values.slice(0, n);
    this.values.fill(0);
    return makeData({ type: new Int32(), length: n, nullCount, nullBitmap: validityOf(n, nullCount, validity), data });
  }
}

/** 64-bit values as little-endian 32-bit word pairs: exact numbers go in without a bigint. */
class Int64Words {
  readonly words: Int32Array;
  readonly big: BigInt64Array;
  constructor(cap: number) {
    this.big = new BigInt64Array(cap);
    this.words = new Int32Array(this.big.buffer);
  }
  put(i: number, v: number | bigint): void {
    if (typeof v === 'bigint') {
      this.big[i] = v;
      return;
    }
    const hi = Math.floor(v / TWO32);
    this.words[2 * i] = (v - hi * TWO32) | 0;
    this.words[2 * i + 1] = hi;
  }
  /** The first `n` values (a copy), and zeroes for the next batch. */
  take(n: number): BigInt64Array {
    const out = this.big.slice(0, n);
    this.words.fill(0);
    return out;
  }
}

class Int64Builder implements ColumnBuilder {
  readonly v: Int64Words;
  constructor(cap: number) {
    this.v = new Int64Words(cap);
  }
  set(i: number, s: string): boolean {
    const x = parseInteger(s);
    if (x === null || !fitsInt64(x)) return false;
    this.v.put(i, x);
    return true;
  }
  finish(n: number, nullCount: number, validity: Uint8Array): Data {
    return makeData({ type: new Int64(), length: n, nullCount, nullBitmap: validityOf(n, nullCount, validity), data: this.v.take(n) });
  }
}

class DoubleBuilder implements ColumnBuilder {
  readonly values: Float64Array;
  constructor(cap: number) {
    this.values = new Float64Array(cap);
  }
  set(i: number, s: string): boolean {
    const v = parseDouble(s);
    if (v === undefined) return false;
    this.values[i] = v;
    return true;
  }
  finish(n: number, nullCount: number, validity: Uint8Array): Data {
    const data = this.values.slice(0, n);
    this.values.fill(0);
    return makeData({ type: new Float64(), length: n, nullCount, nullBitmap: validityOf(n, nullCount, validity), data });
  }
}

class BoolBuilder implements ColumnBuilder {
  readonly bits: Uint8Array;
  constructor(cap: number) {
    this.bits = new Uint8Array((cap + 7) >> 3);
  }
  set(i: number, s: string): boolean {
    const b = parseBool(s);
    if (b < 0) return false;
    if (b === 1) this.bits[i >> 3]! |= 1 << (i & 7);
    return true;
  }
  finish(n: number, nullCount: number, validity: Uint8Array): Data {
    const data = this.bits.slice(0, (n + 7) >> 3);
    this.bits.fill(0);
    return makeData({ type: new Bool(), length: n, nullCount, nullBitmap: validityOf(n, nullCount, validity), data });
  }
}

class DateBuilder implements ColumnBuilder {
  readonly values: Int32Array;
  constructor(cap: number) {
    this.values = new Int32Array(cap);
  }
  set(i: number, s: string): boolean {
    const v = parseDate(s);
    if (v === undefined) return false;
    this.values[i] = v;
    return true;
  }
  finish(n: number, nullCount: number, validity: Uint8Array): Data {
    const data = this.values.slice(0, n);
    this.values.fill(0);
    return makeData({ type: new DateDay(), length: n, nullCount, nullBitmap: validityOf(n, nullCount, validity), data });
  }
}

class TimestampBuilder implements ColumnBuilder {
  readonly v: Int64Words;
  constructor(
    cap: number,
    readonly type: CsvColumnType,
  ) {
    this.v = new Int64Words(cap);
  }
  set(i: number, s: string): boolean {
    const nanos = this.type === 'TIMESTAMP_NS' || this.type === 'TIMESTAMPTZ_NS';
    const tz = this.type === 'TIMESTAMPTZ' || this.type === 'TIMESTAMPTZ_NS';
    if (!parseTimestamp(s, nanos)) return false;
    if (TS.tz !== tz && !(s.length < 10)) return false; // `infinity` fits either
    this.v.put(i, TS.value);
    return true;
  }
  finish(n: number, nullCount: number, validity: Uint8Array): Data {
    return makeData({ type: arrowTypeOf(this.type) as TimestampMicrosecond, length: n, nullCount, nullBitmap: validityOf(n, nullCount, validity), data: this.v.take(n) });
  }
}

const encoder = new TextEncoder();

class Utf8Builder implements ColumnBuilder {
  readonly strings: string[];
  constructor(cap: number) {
    this.strings = new Array<string>(cap).fill('');
  }
  set(i: number, s: string): boolean {
    this.strings[i] = s;
    return true;
  }
  finish(n: number, nullCount: number, validity: Uint8Array): Data {
    const parts = this.strings;
    const joined = (n === parts.length ? parts : parts.slice(0, n)).join('');
    const data = encoder.encode(joined);
    const offsets = new Int32Array(n + 1);
    const ascii = data.length === joined.length;
    let at = 0;
    for (let i = 0; i < n; i++) {
      const s = parts[i]!;
      at += ascii ? s.length : Buffer.byteLength(s, 'utf8');
      offsets[i + 1] = at;
      parts[i] = ''; // NULL rows of the next batch stay empty
    }
    return makeData({ type: new Utf8(), length: n, nullCount, nullBitmap: validityOf(n, nullCount, validity), valueOffsets: offsets, data });
  }
}

function builderFor(t: CsvColumnType, cap: number): ColumnBuilder {
  switch (t) {
    case 'BOOLEAN':
      return new BoolBuilder(cap);
    case 'INTEGER':
      return new Int32Builder(cap);
    case 'BIGINT':
      return new Int64Builder(cap);
    case 'DOUBLE':
      return new DoubleBuilder(cap);
    case 'DATE':
      return new DateBuilder(cap);
    case 'VARCHAR':
      return new Utf8Builder(cap);
    default:
      return new TimestampBuilder(cap, t);
  }
}

// ------------------------------------------------------------------------------------------------
// Parsing
// ------------------------------------------------------------------------------------------------

/** No field of the record was a quoted empty one (shared: records with NULLs allocate nothing). */
const NONE_QUOTED: ReadonlySet<number> = new Set();

interface RawRecord {
  readonly record: string[];
  readonly raw: string;
}

/** The delimiter option: one character other than the quote, CR and LF. */
function delimiterOf(options: CsvReadOptions): string {
  const d = options.delimiter ?? ',';
  if (d.length !== 1 || d === '"' || d === '\r' || d === '\n') throw new UsageError(`CSV delimiter must be one character other than '"', CR and LF, got ${JSON.stringify(d)}`);
  return d;
}

/** csv-parse over the file read in 1 MiB chunks; `relaxed` (the sample) takes ragged rows without an error. */
function parserFor(path: string, delimiter: string, skipBlankLines: boolean, relaxed: boolean): { parser: Parser; close(): void } {
  const input = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  const parser = parse({ bom: true, raw: true, delimiter, skip_empty_lines: skipBlankLines, relax_column_count: relaxed, max_record_size: MAX_RECORD_CHARS });
  input.on('error', (e) => parser.destroy(e));
  input.pipe(parser);
  return {
    parser,
    close() {
      input.destroy();
      parser.destroy();
    },
  };
}

/**
 * Which of a record's fields were quoted and empty (`""`), from its raw text; called only for a
 * record with an empty field whose text contains `""` (csv-parse has split and validated it).
 */
export function quotedEmpties(raw: string, delimiter: string, quote = '"'): Set<number> {
  const out = new Set<number>();
  let i = 0;
  const n = raw.length;
  while (i < n && (raw[i] === '\r' || raw[i] === '\n')) i++; // blank lines skipped before the record
  for (let field = 0; i <= n; field++) {
    if (raw[i] === quote) {
      const start = i;
      i++;
      for (;;) {
        if (i >= n) return out;
        if (raw[i] === quote) {
          if (raw[i + 1] === quote) i += 2;
          else break;
        } else i++;
      }
      if (i === start + 1) out.add(field);
      i++; // closing quote
    } else {
      while (i < n && raw[i] !== delimiter && raw[i] !== '\r' && raw[i] !== '\n') i++;
    }
    if (raw[i] !== delimiter) return out;
    i++;
  }
  return out;
}

/** Column names from a header record: empty -> `column<i>`, repeats -> `_1`, `_2`, …. */
function columnNames(header: readonly string[] | null, count: number): string[] {
  const names: string[] = [];
  const used = new Set<string>();
  for (let i = 0; i < count; i++) {
    const base = header === null || header[i] === '' ? `column${i}` : header[i]!;
    let name = base;
    for (let k = 1; used.has(name); k++) name = `${base}_${k}`;
    used.add(name);
    names.push(name);
  }
  return names;
}

/** The file's shape from its first records: column names and inferred types. */
export interface CsvLayout {
  readonly names: readonly string[];
  readonly types: CsvColumnType[];
}

/** Parses the header and the first `sampleRows` data rows and infers each column's type. */
export async function sniffCsv(path: string, options: CsvReadOptions = {}): Promise<CsvLayout> {
  const delimiter = delimiterOf(options);
  const header = options.header ?? true;
  const sampleRows = options.sampleRows ?? DEFAULT_SAMPLE_ROWS;
  const { parser, close } = parserFor(path, delimiter, false, true);
  let names: string[] | null = null;
  let cands: Candidates[] = [];
  let rows = 0;
  try {
    for await (const { record, raw } of parser as AsyncIterable<RawRecord>) {
      if (names === null) {
        names = columnNames(header ? record : null, record.length);
        cands = names.map(() => new Candidates());
        if (header) continue;
      }
      if (rows >= sampleRows) break;
      if (record.length !== names.length) continue; // a blank line, or a ragged row the read reports
      rows++;
      let quoted: ReadonlySet<number> | null = null;
      for (let j = 0; j < record.length; j++) {
        const s = record[j]!;
        if (s === '') {
          quoted ??= raw.includes('""') ? quotedEmpties(raw, delimiter) : NONE_QUOTED;
          if (!quoted.has(j)) continue;
        }
        cands[j]!.add(s);
      }
    }
  } catch (e) {
    // the read reports malformed input with its line; the sample uses what parsed before it
    if (names === null) throw await csvError(path, options, e, 0);
  } finally {
    close();
  }
  if (names === null) return { names: [], types: [] };
  const types = names.map((n, j) => options.types?.[n] ?? cands[j]!.type());
  return { names, types };
}

/**
 * The file as record batches of `layout`'s types, streamed: a value that does not fit its column's
 * type raises a `CsvValueError` (its line found by a second look at the file).
 */
export async function* readCsvBatches(path: string, layout: CsvLayout, options: CsvReadOptions = {}): AsyncGenerator<RecordBatch> {
  try {
    yield* batchesOf(path, layout, options);
  } catch (e) {
    if (e instanceof Mismatch) {
      const name = layout.names[e.column]!;
      throw new CsvValueError(path, await recordLine(path, options, layout.names.length, e.record), name, e.value, layout.types[e.column]!);
    }
    throw e;
  }
}

async function* batchesOf(path: string, layout: CsvLayout, options: CsvReadOptions): AsyncGenerator<RecordBatch> {
  const width = layout.names.length;
  if (width === 0) return;
  const delimiter = delimiterOf(options);
  const header = options.header ?? true;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const fields = layout.names.map((n, j) => new Field(n, arrowTypeOf(layout.types[j]!), true));
  const schema = new Schema(fields);
  const struct = new Struct(fields);
  const { parser, close } = parserFor(path, delimiter, width > 1, false);
  const builders = layout.types.map((t) => builderFor(t, batchSize)); // reused: `finish` copies out and clears
  const validity = layout.types.map(() => new Uint8Array((batchSize + 7) >> 3));
  const nulls = new Int32Array(width);
  let row = 0;
  let recordNo = -1;
  const flush = (): RecordBatch => {
    const children = builders.map((b, j) => b.finish(row, nulls[j]!, validity[j]!));
    const batch = new RecordBatch(schema, makeData({ type: struct, length: row, nullCount: 0, children }));
    for (const v of validity) v.fill(0);
    nulls.fill(0);
    row = 0;
    return batch;
  };
  try {
    for await (const { record, raw } of parser as AsyncIterable<RawRecord>) {
      recordNo++;
      if (header && recordNo === 0) continue;
      let quoted: ReadonlySet<number> | null = null;
      const byte = row >> 3;
      const bit = 1 << (row & 7);
      for (let j = 0; j < width; j++) {
        const s = record[j]!;
        if (s === '') {
          quoted ??= raw.includes('""') ? quotedEmpties(raw, delimiter) : NONE_QUOTED;
          if (!quoted.has(j)) {
            nulls[j]!++;
            continue;
          }
        }
        if (!builders[j]!.set(row, s)) throw new Mismatch(recordNo, j, s);
        validity[j]![byte]! |= bit;
      }
      if (++row === batchSize) yield flush();
    }
  } catch (e) {
    if (e instanceof Mismatch) throw e;
    throw await csvError(path, options, e, width);
  } finally {
    close();
  }
  if (row > 0) yield flush();
}

/** A csv-parse error as a CsvReadError naming the line its record starts on. */
async function csvError(path: string, options: CsvReadOptions, e: unknown, width: number): Promise<unknown> {
  const err = e as { code?: unknown; records?: unknown; message?: unknown; lines?: unknown };
  if (typeof err?.code !== 'string' || !err.code.startsWith('CSV_')) return e;
  const record = typeof err.records === 'number' ? err.records : 0;
  let line = typeof err.lines === 'number' ? err.lines : 0;
  try {
    line = await recordLine(path, options, width, record);
  } catch {
    // keep csv-parse's line
  }
  let detail = String(err.message).replace(/ (on|at) line \d+/, '').replace(/^[^:]*: /, '');
  if (err.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH') detail = `a row of a different number of fields than the ${options.header ?? true ? 'header' : 'first row'} (${detail})`;
  else if (err.code === 'CSV_QUOTE_NOT_CLOSED') detail = 'a quoted field is never closed (unterminated quote)';
  else if (err.code === 'CSV_MAX_RECORD_SIZE') detail = `a record longer than ${MAX_RECORD_CHARS} characters (an unterminated quote?)`;
  return new CsvReadError(path, line, detail, { cause: e });
}

/**
 * The line (1-based) parser record `record` (0-based, header included) starts on: the byte its
 * predecessor ended at (a second parse up to it), past any blank lines, then the line breaks
 * before it counted in the file's bytes (CRLF, LF or CR each one break). Only for error messages.
 */
async function recordLine(path: string, options: CsvReadOptions, width: number, record: number): Promise<number> {
  let end = 0;
  if (record > 0) {
    const input = createReadStream(path, { highWaterMark: CHUNK_BYTES });
    const parser = parse({
      bom: true,
      delimiter: options.delimiter ?? ',',
      skip_empty_lines: width > 1,
      relax_column_count: true,
      max_record_size: MAX_RECORD_CHARS,
      to: record,
      on_record: (r: string[], ctx: { bytes: number }) => {
        end = ctx.bytes;
        return r;
      },
    });
    input.on('error', (e) => parser.destroy(e));
    input.pipe(parser);
    try {
      for await (const _ of parser) {
        // counting bytes
      }
    } catch {
      // the record itself may be the broken one: `end` is its predecessor's end
    } finally {
      input.destroy();
    }
  }
  const fh = await open(path);
  try {
    let line = 1;
    let pos = 0;
    let prevCr = false;
    const buf = Buffer.alloc(CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) return line;
      for (let k = 0; k < bytesRead; k++, pos++) {
        const c = buf[k]!;
        if (pos >= end) {
          if (!(width > 1 && (c === 10 || c === 13))) return line; // else a blank line before the record
        }
        if (c === 10) {
          if (!prevCr) line++;
          prevCr = false;
        } else if (c === 13) {
          line++;
          prevCr = true;
        } else prevCr = false;
      }
    }
  } finally {
    await fh.close();
  }
}

/**
 * The whole file as a Table (batches of `batchSize`); with `onMismatch: 'widen'` (default) a
 * value that does not fit its column widens the column and the file is read again.
 */
export async function readCsvFile(path: string, options: CsvReadOptions = {}): Promise<Table> {
  await assertRegularFile(path, 'input'); // a missing file, a directory, a FIFO: typed errors
  const layout = await sniffCsv(path, options);
  for (;;) {
    const batches: RecordBatch[] = [];
    try {
      for await (const b of batchesOf(path, layout, options)) batches.push(b);
    } catch (e) {
      if (!(e instanceof Mismatch)) throw e;
      const name = layout.names[e.column]!;
      const type = layout.types[e.column]!;
      if ((options.onMismatch ?? 'widen') === 'error' || options.types?.[name] !== undefined) {
        throw new CsvValueError(path, await recordLine(path, options, layout.names.length, e.record), name, e.value, type);
      }
      layout.types[e.column] = widenedType(type, e.value);
      continue;
    }
    const fields = layout.names.map((n, j) => new Field(n, arrowTypeOf(layout.types[j]!), true));
    return batches.length === 0 ? new Table(new Schema(fields)) : new Table(batches);
  }
}

const shared = new Map<string, WeakRef<Table> | Promise<Table>>();

/**
 * `readCsvFile`, reusing the table of an earlier read of the same unchanged file (same resolved
 * path, size, mtime, inode and options) while that table is still referenced.
 */
export async function readCsvFileShared(path: string, options: CsvReadOptions = {}): Promise<Table> {
  const st = await stat(path);
  const key = JSON.stringify([resolve(path), st.size, st.mtimeMs, st.ctimeMs, st.ino, options]);
  const hit = shared.get(key);
  if (hit instanceof Promise) return hit;
  const alive = hit?.deref();
  if (alive !== undefined) return alive;
  const reading = readCsvFile(path, options);
  shared.set(key, reading);
  try {
    const table = await reading;
    shared.set(key, new WeakRef(table));
    return table;
  } catch (e) {
    shared.delete(key);
    throw e;
  } finally {
    for (const [k, v] of shared) if (!(v instanceof Promise) && v.deref() === undefined) shared.delete(k);
  }
}
