/**
 * Compare two Arrow tables as multisets of rows: the verdict of every parity test.
 *
 * A join's output order is an implementation detail (hash vs sort-merge vs DuckDB), but its
 * multiset of rows is not, so rows are compared regardless of order while duplicates still count
 * (a row twice vs once is a mismatch). Each row is canonicalised into one string, type-aware, so
 * that representation differences that do not change the value do not count:
 * - integers of any width/signedness and decimals of any scale are exact decimal digits
 *   (Int64 5 == Decimal(10,2) 5.00; a HUGEINT result compares to an Int64 one),
 * - floats: -0.0 == 0.0, every NaN equal, optionally rounded to fewer significant digits,
 * - dates as milliseconds (Date32 == Date64), timestamps as nanoseconds (any unit, any zone: the
 *   instant is what counts), times of day as nanoseconds (Time32/Time64, any unit), intervals as
 *   (months, days, nanoseconds) (YEAR_MONTH/DAY_TIME == the same MONTH_DAY_NANO), binary and
 *   fixed-size binary (UUIDs) as hex, dictionaries decoded, NULL distinct from every value,
 * - strings exactly as their bytes say: a leading U+FEFF is part of the value (Arrow's own getter
 *   drops it), bytes that are not UTF-8 compare as bytes,
 * - lists (List/LargeList) and structs element by element with the same rules (a struct's field
 *   names and types are part of its family).
 * Other nested types (maps, fixed-size lists, unions) are keyed by their JSON form and only equal a
 * column of the very same Arrow type.
 * Values of different families (int vs float, string vs binary, date vs timestamp) never compare
 * equal, and the schema check reports them.
 *
 * Both key lists are sorted and merge-walked (O(n log n)); only the first `maxReported` missing and
 * extra rows are materialised for the report (found again by one linear pass), the counts are exact.
 */
import * as arrow from 'apache-arrow';
import { displayUtf8, exactUtf8 } from '../../core/arrow/utf8.ts';

/** A row as displayable JS values (bigint for 64-bit integers, strings for decimals/timestamps). */
export type Row = readonly unknown[];

export interface CompareOptions {
  /**
   * Relative float tolerance, implemented by rounding floats to `round(-log10(tol))` significant
   * digits before comparing (1e-12 -> 12 digits). Values straddling a rounding boundary still
   * differ. Default: exact (shortest round-trip representation).
   */
  readonly floatTolerance?: number;
  /** How many missing / extra rows to report (default 20). */
  readonly maxReported?: number;
}

export interface ComparisonResult {
  readonly equal: boolean;
  readonly actualRows: number;
  readonly expectedRows: number;
  /** Rows in `expected` but not in `actual` (first `maxReported`), with multiplicity. */
  readonly missing: Row[];
  /** Rows in `actual` but not in `expected` (first `maxReported`), with multiplicity. */
  readonly extra: Row[];
  readonly missingCount: number;
  readonly extraCount: number;
  readonly schemaProblems: string[];
  readonly actualColumns: string[];
  readonly expectedColumns: string[];
}

// ---------------------------------------------------------------------------------------------
// Per-type codecs
// ---------------------------------------------------------------------------------------------

/** Value family: values of different families never compare equal. */
type Family =
  | 'exact'
  | 'float'
  | 'bool'
  | 'string'
  | 'binary'
  | 'date'
  | 'timestamp'
  | 'time'
  | 'interval'
  | 'null'
  | `list<${string}>`
  | `struct<${string}>`
  | `other:${string}`;

interface Codec {
  readonly family: Family;
  /** Canonical key of valid row i. */
  key(data: arrow.Data): (i: number) => string;
  /** Display value of valid row i. */
  show(data: arrow.Data): (i: number) => unknown;
}

const MS_PER_DAY = 86_400_000;
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function hex(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]!];
  return s;
}

/** Exact decimal text of `v / 10^scale`; `trim` drops trailing fractional zeros. */
export function decimalText(v: bigint, scale: number, trim: boolean): string {
  if (scale <= 0) return (v * 10n ** BigInt(-scale)).toString();
  const neg = v < 0n;
  const digits = (neg ? -v : v).toString().padStart(scale + 1, '0');
  const int = digits.slice(0, -scale);
  let frac = digits.slice(-scale);
  if (trim) frac = frac.replace(/0+$/, '');
  return (neg ? '-' : '') + (frac ? `${int}.${frac}` : int);
}

function canonFloat(v: number, digits: number | undefined): string {
  if (Number.isNaN(v)) return 'nan';
  if (v === 0) return '0'; // folds -0.0
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  return digits === undefined ? String(v) : String(Number(v.toPrecision(digits)));
}

function isoFromNanos(ns: bigint): string {
  const ms = floorDiv(ns, 1_000_000n);
  const sub = ns - ms * 1_000_000n;
  const d = new Date(Number(ms));
  if (Number.isNaN(d.getTime())) return `${ns}ns`;
  const iso = d.toISOString();
  return sub === 0n ? iso : `${iso.slice(0, -1)}${sub.toString().padStart(6, '0').replace(/0+$/, '')}Z`;
}

/** HH:MM:SS[.fraction] of a time of day in nanoseconds (24:00:00 allowed, as DuckDB does). */
function timeFromNanos(ns: bigint): string {
  if (ns < 0n) return `${ns}ns`;
  const s = ns / 1_000_000_000n;
  const frac = ns % 1_000_000_000n;
  const p = (x: bigint) => x.toString().padStart(2, '0');
  const text = `${p(s / 3600n)}:${p((s / 60n) % 60n)}:${p(s % 60n)}`;
  return frac === 0n ? text : `${text}.${frac.toString().padStart(9, '0').replace(/0+$/, '')}`;
}

function isoFromDateMs(ms: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return `${ms}ms`;
  return ms % MS_PER_DAY === 0 ? d.toISOString().slice(0, 10) : d.toISOString();
}

function bigIntFromWords(words: Uint32Array, start: number, stride: number): bigint {
  let v = 0n;
  for (let k = stride - 1; k >= 0; k--) v = (v << 32n) | BigInt(words[start + k]!);
  return BigInt.asIntN(stride * 32, v);
}

const getter = (data: arrow.Data) => {
  const v = arrow.makeVector(data);
  return (i: number) => v.get(i) as unknown;
};

/**
 * A string value exactly: Arrow's getter (like `new TextDecoder()`) drops a leading U+FEFF, so
 * `'\uFEFFa'` would equal `'a'`. Utf8 / LargeUtf8 bytes are decoded keeping it; bytes that are not
 * UTF-8 stay bytes (keyed by hex, so two different invalid values never compare equal).
 */
const stringReader = (data: arrow.Data): ((i: number) => string | Uint8Array) => {
  if (!(arrow.DataType.isUtf8(data.type) || arrow.DataType.isLargeUtf8(data.type))) return getter(data) as (i: number) => string;
  const o = data.valueOffsets as ArrayLike<number | bigint>;
  const v = data.values as Uint8Array;
  return (i) => {
    const b = v.subarray(Number(o[i]!), Number(o[i + 1]!));
    try {
      return exactUtf8.decode(b);
    } catch {
      return b;
    }
  };
};

function stringify(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x instanceof Uint8Array ? hex(x) : x)) ?? String(v);
}

const NANOS_PER_UNIT: Record<number, bigint> = {
  [arrow.TimeUnit.SECOND]: 1_000_000_000n,
  [arrow.TimeUnit.MILLISECOND]: 1_000_000n,
  [arrow.TimeUnit.MICROSECOND]: 1_000n,
  [arrow.TimeUnit.NANOSECOND]: 1n,
};

/**
 * A codec whose key and display form both derive from one reader of the raw value: `read(d)` is
 * built once per Data, then each row is read once per key or display call.
 */
function readCodec<T>(family: Family, read: (d: arrow.Data) => (i: number) => T, key: (v: T) => string, show: (v: T) => unknown = (v) => v): Codec {
  return {
    family,
    key: (d) => {
      const r = read(d);
      return (i) => key(r(i));
    },
    show: (d) => {
      const r = read(d);
      return (i) => show(r(i));
    },
  };
}

function codecFor(type: arrow.DataType, digits: number | undefined): Codec {
  switch (type.typeId) {
    case arrow.Type.Null:
      return { family: 'null', key: () => () => 'N', show: () => () => null };
    case arrow.Type.Int:
      return readCodec(
        'exact',
        (d) => {
          const values = d.values as ArrayLike<number | bigint>;
          return (i) => values[i];
        },
        (v) => `n${v}`,
      );
    case arrow.Type.Float: {
      const half = (type as arrow.Float).precision === arrow.Precision.HALF;
      const read = (d: arrow.Data): ((i: number) => number) => {
        if (half) return getter(d) as (i: number) => number;
        const values = d.values as Float32Array | Float64Array;
        return (i) => values[i]!;
      };
      return readCodec('float', read, (v) => `f${canonFloat(v, digits)}`);
    }
    case arrow.Type.Decimal: {
      const t = type as arrow.Decimal;
      const stride = t.bitWidth / 32;
      const read = (d: arrow.Data) => {
        const words = d.values as Uint32Array;
        return (i: number) => bigIntFromWords(words, i * stride, stride);
      };
      return readCodec('exact', read, (v) => `n${decimalText(v, t.scale, true)}`, (v) => decimalText(v, t.scale, false));
    }
    case arrow.Type.Bool: {
      const read = (d: arrow.Data) => {
        const bits = d.values as Uint8Array;
        const off = d.offset;
        return (i: number) => ((bits[(off + i) >> 3]! >> ((off + i) & 7)) & 1) === 1;
      };
      return readCodec('bool', read, (v) => (v ? 'b1' : 'b0'));
    }
    case arrow.Type.Utf8:
    case arrow.Type.LargeUtf8:
    case arrow.Type.Utf8View:
      return readCodec('string', stringReader, (v) => {
        const s = v as string | Uint8Array;
        return typeof s === 'string' ? `s${s.length}:${s}` : `S${hex(s)}`;
      }, (v) => (typeof v === 'string' ? v : displayUtf8.decode(v as Uint8Array)));
    case arrow.Type.Binary:
    case arrow.Type.LargeBinary:
    case arrow.Type.BinaryView:
    case arrow.Type.FixedSizeBinary:
      return readCodec(
        'binary',
        getter,
        (v) => `x${hex(v as Uint8Array)}`,
        (v) => `0x${hex(v as Uint8Array)}`,
      );
    case arrow.Type.Date: {
      const day = (type as arrow.Date_).unit === arrow.DateUnit.DAY;
      const read = (d: arrow.Data) => {
        if (day) {
          const days = d.values as Int32Array;
          return (i: number) => days[i]! * MS_PER_DAY;
        }
        const ms = d.values as BigInt64Array;
        return (i: number) => Number(ms[i]!);
      };
      return readCodec('date', read, (v) => `d${v}`, isoFromDateMs);
    }
    case arrow.Type.Timestamp: {
      const f = NANOS_PER_UNIT[(type as arrow.Timestamp).unit]!;
      const read = (d: arrow.Data) => {
        const values = d.values as BigInt64Array;
        return (i: number) => values[i]! * f;
      };
      return readCodec('timestamp', read, (v) => `t${v}`, isoFromNanos);
    }
    case arrow.Type.Time: {
      const t = type as arrow.Time;
      const f = NANOS_PER_UNIT[t.unit]!;
      const read = (d: arrow.Data) => {
        if (t.bitWidth === 32) {
          const values = d.values as Int32Array;
          return (i: number) => BigInt(values[i]!) * f;
        }
        const values = d.values as BigInt64Array;
        return (i: number) => values[i]! * f;
      };
      return readCodec('time', read, (v) => `h${v}`, timeFromNanos);
    }
    case arrow.Type.Interval: {
      const unit = (type as arrow.Interval).unit as number;
      const read = (d: arrow.Data): ((i: number) => [number, number, bigint]) => {
        const v = d.values as Int32Array;
        if (unit === arrow.IntervalUnit.YEAR_MONTH) return (i) => [v[i]!, 0, 0n];
        if (unit === arrow.IntervalUnit.DAY_TIME) return (i) => [0, v[2 * i]!, BigInt(v[2 * i + 1]!) * 1_000_000n];
        return (i) => [v[4 * i]!, v[4 * i + 1]!, (BigInt(v[4 * i + 3]!) << 32n) | BigInt(v[4 * i + 2]! >>> 0)];
      };
      return readCodec(
        'interval',
        read,
        ([m, days, ns]) => `i${m}:${days}:${ns}`,
        ([m, days, ns]) => `${m} months ${days} days ${ns} ns`,
      );
    }
    case arrow.Type.List:
    case arrow.Type.LargeList: {
      const inner = codecFor((type as arrow.List).children[0]!.type, digits);
      const items = <T>(d: arrow.Data, make: (c: arrow.Data) => (k: number) => T, nullValue: T) => {
        const offsets = d.valueOffsets as Int32Array | BigInt64Array;
        const child = d.children[0]!;
        const f = make(child);
        return (i: number): T[] => {
          const out: T[] = [];
          for (let k = Number(offsets[i]!); k < Number(offsets[i + 1]!); k++) out.push(child.getValid(k) ? f(k) : nullValue);
          return out;
        };
      };
      return {
        family: `list<${inner.family}>`,
        key: (d) => {
          const r = items(d, inner.key, 'N');
          return (i) => {
            const xs = r(i);
            return `l${xs.length}(${xs.join(',')})`; // string keys are length-prefixed: unambiguous
          };
        },
        show: (d) => items(d, inner.show, null),
      };
    }
    case arrow.Type.Struct: {
      const fields = (type as arrow.Struct).children;
      const inner = fields.map((f) => codecFor(f.type, digits));
      return {
        family: `struct<${fields.map((f, j) => `${f.name.length}:${f.name}:${inner[j]!.family}`).join(',')}>`,
        key: (d) => {
          const fs = d.children.map((c, j) => {
            const f = inner[j]!.key(c);
            return (i: number) => (c.getValid(i) ? f(i) : 'N');
          });
          return (i) => `r(${fs.map((f) => f(i)).join(',')})`;
        },
        show: (d) => {
          const fs = d.children.map((c, j) => {
            const f = inner[j]!.show(c);
            return (i: number) => (c.getValid(i) ? f(i) : null);
          });
          return (i) => Object.fromEntries(fields.map((f, j) => [f.name, fs[j]!(i)]));
        },
      };
    }
    case arrow.Type.Dictionary: {
      const inner = codecFor((type as arrow.Dictionary).dictionary, digits);
      return {
        family: inner.family,
        key: (d) => dictionaryLookup(d, inner.key, 'N'),
        show: (d) => dictionaryLookup(d, inner.show, null),
      };
    }
    default:
      return {
        family: `other:${String(type)}`,
        key: (d) => {
          const g = getter(d);
          return (i) => `o${stringify(g(i))}`;
        },
        show: getter,
      };
  }
}

/** Maps dictionary codes through the per-entry function of the dictionary's own codec. */
function dictionaryLookup<T>(data: arrow.Data, make: (d: arrow.Data) => (i: number) => T, nullValue: T): (i: number) => T {
  const codes = data.values as ArrayLike<number | bigint>;
  const chunks = data.dictionary!.data;
  const fns = chunks.map((c) => make(c));
  const starts: number[] = [];
  let n = 0;
  for (const c of chunks) {
    starts.push(n);
    n += c.length;
  }
  return (i) => {
    const k = Number(codes[i]!);
    let c = chunks.length - 1;
    while (c > 0 && starts[c]! > k) c--;
    const j = k - starts[c]!;
    return chunks[c]!.getValid(j) ? fns[c]!(j) : nullValue;
  };
}

// ---------------------------------------------------------------------------------------------
// Row keys
// ---------------------------------------------------------------------------------------------

const SEP = '\u0001';

interface Keyed {
  readonly table: arrow.Table;
  readonly codecs: Codec[];
  readonly keys: string[];
  /** First global row index of each batch. */
  readonly starts: number[];
}

function keyRows(table: arrow.Table, digits: number | undefined): Keyed {
  const codecs = table.schema.fields.map((f) => codecFor(f.type, digits));
  const keys: string[] = new Array(table.numRows);
  const starts: number[] = [];
  let base = 0;
  for (const batch of table.batches) {
    starts.push(base);
    const n = batch.numRows;
    for (let i = 0; i < n; i++) keys[base + i] = '';
    codecs.forEach((codec, c) => {
      const d = batch.data.children[c]!;
      const key = codec.key(d);
      const hasNulls = d.nullCount > 0;
      for (let i = 0; i < n; i++) {
        keys[base + i] += (c ? SEP : '') + (hasNulls && !d.getValid(i) ? 'N' : key(i));
      }
    });
    base += n;
  }
  return { table, codecs, keys, starts };
}

function rowAt(k: Keyed, g: number): Row {
  let lo = 0;
  let hi = k.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (k.starts[mid]! <= g) lo = mid;
    else hi = mid - 1;
  }
  const batch = k.table.batches[lo]!;
  const i = g - k.starts[lo]!;
  return k.codecs.map((codec, c) => {
    const d = batch.data.children[c]!;
    return d.getValid(i) ? codec.show(d)(i) : null;
  });
}

/** Global row index of the first row with each wanted key (one linear pass). */
function firstRowOf(keys: readonly string[], wanted: readonly string[]): Map<string, number> {
  const out = new Map<string, number>(wanted.map((k) => [k, -1]));
  let left = out.size;
  for (let g = 0; g < keys.length && left > 0; g++) {
    if (out.get(keys[g]!) === -1) {
      out.set(keys[g]!, g);
      left--;
    }
  }
  return out;
}

function schemaProblems(actual: arrow.Schema, expected: arrow.Schema, digits: number | undefined): string[] {
  const problems: string[] = [];
  const a = actual.fields;
  const e = expected.fields;
  if (a.length !== e.length) {
    problems.push(
      `column count differs: actual ${a.length} (${a.map((f) => f.name).join(', ')}), expected ${e.length} (${e.map((f) => f.name).join(', ')})`,
    );
  }
  for (let c = 0; c < Math.min(a.length, e.length); c++) {
    if (a[c]!.name !== e[c]!.name) problems.push(`column ${c}: actual name '${a[c]!.name}', expected '${e[c]!.name}'`);
    const fa = codecFor(a[c]!.type, digits).family;
    const fe = codecFor(e[c]!.type, digits).family;
    if (fa !== fe && fa !== 'null' && fe !== 'null') {
      problems.push(`column ${c} '${e[c]!.name}': actual type ${a[c]!.type} (${fa}) cannot equal expected type ${e[c]!.type} (${fe})`);
    }
  }
  return problems;
}

/** Compares `actual` with `expected` as multisets of rows (see the module comment). */
export function compareResults(actual: arrow.Table, expected: arrow.Table, options: CompareOptions = {}): ComparisonResult {
  const tol = options.floatTolerance;
  const digits = tol !== undefined && tol > 0 ? Math.max(1, Math.min(17, Math.round(-Math.log10(tol)))) : undefined;
  const max = options.maxReported ?? 20;

  const problems = schemaProblems(actual.schema, expected.schema, digits);
  const A = keyRows(actual, digits);
  const E = keyRows(expected, digits);
  // Plain (native) string sorts; both use the same UTF-16 code-unit order as `<` below.
  const sa = A.keys.slice().sort();
  const se = E.keys.slice().sort();

  const missingKeys: string[] = [];
  const extraKeys: string[] = [];
  let missingCount = 0;
  let extraCount = 0;
  let i = 0;
  let j = 0;
  while (i < sa.length || j < se.length) {
    const ka = i < sa.length ? sa[i]! : undefined;
    const ke = j < se.length ? se[j]! : undefined;
    if (ke === undefined || (ka !== undefined && ka < ke)) {
      if (extraCount++ < max) extraKeys.push(ka!);
      i++;
    } else if (ka === undefined || ka > ke) {
      if (missingCount++ < max) missingKeys.push(ke);
      j++;
    } else {
      i++;
      j++;
    }
  }
  const extraAt = firstRowOf(A.keys, extraKeys);
  const missingAt = firstRowOf(E.keys, missingKeys);
  const missing = missingKeys.map((k) => rowAt(E, missingAt.get(k)!));
  const extra = extraKeys.map((k) => rowAt(A, extraAt.get(k)!));

  return {
    equal: problems.length === 0 && missingCount === 0 && extraCount === 0,
    actualRows: actual.numRows,
    expectedRows: expected.numRows,
    missing,
    extra,
    missingCount,
    extraCount,
    schemaProblems: problems,
    actualColumns: actual.schema.fields.map((f) => f.name),
    expectedColumns: expected.schema.fields.map((f) => f.name),
  };
}

/**
 * Where two results that are equal as multisets differ in ORDER (a query with ORDER BY): the first
 * row whose `columns` (by name; default every column, for a total order) differ, as a message, or
 * null when every row agrees. Values compare as in `compareResults`.
 */
export function orderDifference(actual: arrow.Table, expected: arrow.Table, columns?: readonly string[], options: CompareOptions = {}): string | null {
  const tol = options.floatTolerance;
  const digits = tol !== undefined && tol > 0 ? Math.max(1, Math.min(17, Math.round(-Math.log10(tol)))) : undefined;
  const pick = (t: arrow.Table, which: string): arrow.Table | string => {
    if (columns === undefined) return t;
    const at = columns.map((c) => t.schema.fields.findIndex((f) => f.name === c));
    const missing = at.findIndex((i) => i < 0);
    return missing >= 0 ? `the ${which} result has no column ${columns[missing]}` : t.selectAt(at);
  };
  const a = pick(actual, 'actual');
  const e = pick(expected, 'expected');
  if (typeof a === 'string') return a;
  if (typeof e === 'string') return e;
  const A = keyRows(a, digits);
  const E = keyRows(e, digits);
  const names = a.schema.fields.map((f) => f.name).join(', ');
  for (let r = 0; r < Math.min(A.keys.length, E.keys.length); r++) {
    if (A.keys[r] !== E.keys[r]) return `row ${r + 1}: (${names}) is (${rowAt(A, r).map(formatCell).join(', ')}) in actual, (${rowAt(E, r).map(formatCell).join(', ')}) in expected`;
  }
  return A.keys.length === E.keys.length ? null : `actual has ${A.keys.length} rows, expected ${E.keys.length}`;
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

function formatCell(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return stringify(v);
}

function formatRows(title: string, columns: readonly string[], rows: readonly Row[], count: number): string[] {
  if (count === 0) return [];
  const lines = [`${title}: ${count} row${count === 1 ? '' : 's'}${rows.length < count ? ` (showing ${rows.length})` : ''}`];
  lines.push(`  (${columns.join(', ')})`);
  for (const r of rows) lines.push(`  (${r.map(formatCell).join(', ')})`);
  return lines;
}

/** A readable multi-line report of a comparison. */
export function formatComparison(result: ComparisonResult): string {
  const lines: string[] = [];
  if (result.equal) {
    lines.push(`MATCH: ${result.actualRows} rows, columns (${result.actualColumns.join(', ')})`);
    return lines.join('\n');
  }
  lines.push(`MISMATCH: actual ${result.actualRows} rows, expected ${result.expectedRows} rows`);
  if (result.schemaProblems.length) {
    lines.push('schema problems:');
    for (const p of result.schemaProblems) lines.push(`  - ${p}`);
  }
  lines.push(...formatRows('missing (in expected, not in actual)', result.expectedColumns, result.missing, result.missingCount));
  lines.push(...formatRows('extra (in actual, not in expected)', result.actualColumns, result.extra, result.extraCount));
  return lines.join('\n');
}
