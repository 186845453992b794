import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as arrow from 'apache-arrow';
import { CorruptFileError, FileNotFoundError, UnsupportedTypeError } from '../../core/errors.ts';
import { Engine } from '../../composition.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { DuckDBSession } from './session.ts';
import { joinToSql } from './join-sql.ts';
import { compareResults, formatComparison } from './compare.ts';
import { writeInt128Words } from './session.ts';

// --- hand-made Arrow columns with explicit types ----------------------------------------------

/** A null bitmap (and count) from a list of `valid` flags. */
function bitmap(valid: readonly boolean[]): { nullCount: number; nullBitmap?: Uint8Array } {
  const bits = new Uint8Array((valid.length + 7) >> 3);
  let nulls = 0;
  valid.forEach((v, i) => (v ? (bits[i >> 3]! |= 1 << (i & 7)) : nulls++));
  return nulls ? { nullCount: nulls, nullBitmap: bits } : { nullCount: 0 };
}

/** A fixed-width vector from raw values; `null` entries become NULL (value slot left 0). */
function fixed<T extends arrow.DataType>(type: T, Ctor: { new (n: number): any }, values: readonly (number | bigint | null)[]) {
  const data = new Ctor(values.length);
  values.forEach((v, i) => {
    if (v !== null) data[i] = v;
  });
  return arrow.makeVector(arrow.makeData({ type, length: values.length, ...bitmap(values.map((v) => v !== null)), data } as never));
}

function decimal(precision: number, scale: number, scaled: readonly (bigint | null)[]) {
  const words = new Uint32Array(scaled.length * 4);
  scaled.forEach((v, i) => v !== null && writeInt128Words(words, i * 4, v));
  const type = new arrow.Decimal(scale, precision, 128);
  return arrow.makeVector(arrow.makeData({ type, length: scaled.length, ...bitmap(scaled.map((v) => v !== null)), data: words }));
}

/** A MONTH_DAY_NANO vector from (months, days, nanos) triples. */
function intervals(rows: readonly ([number, number, bigint] | null)[]) {
  const words = new Int32Array(rows.length * 4);
  rows.forEach((r, i) => {
    if (!r) return;
    words[4 * i] = r[0];
    words[4 * i + 1] = r[1];
    words[4 * i + 2] = Number(BigInt.asIntN(32, r[2]));
    words[4 * i + 3] = Number(BigInt.asIntN(32, r[2] >> 32n));
  });
  const type = new arrow.IntervalMonthDayNano();
  return arrow.makeVector(arrow.makeData({ type, length: rows.length, ...bitmap(rows.map((r) => r !== null)), data: words }));
}

/** (months, days, nanos) of every row of a MONTH_DAY_NANO column, read from the raw words. */
function intervalWords(t: arrow.Table, name: string): ([number, number, bigint] | null)[] {
  const out: ([number, number, bigint] | null)[] = [];
  for (const d of t.getChild(name)!.data) {
    const w = d.values as Int32Array;
    for (let i = 0; i < d.length; i++) {
      out.push(d.getValid(i) ? [w[4 * i]!, w[4 * i + 1]!, (BigInt(w[4 * i + 3]!) << 32n) | BigInt(w[4 * i + 2]! >>> 0)] : null);
    }
  }
  return out;
}

/** Raw 64-bit values of a column (NULL rows as null). */
function raw64(t: arrow.Table, name: string): (bigint | null)[] {
  const out: (bigint | null)[] = [];
  for (const d of t.getChild(name)!.data) {
    const v = d.values as BigInt64Array;
    for (let i = 0; i < d.length; i++) out.push(d.getValid(i) ? v[i]! : null);
  }
  return out;
}

function uuidBytes(s: string): Uint8Array {
  const hex = s.replace(/-/g, '');
  return Uint8Array.from({ length: 16 }, (_, k) => parseInt(hex.slice(2 * k, 2 * k + 2), 16));
}

function uuidTexts(t: arrow.Table, name: string): (string | null)[] {
  const out: (string | null)[] = [];
  for (const d of t.getChild(name)!.data) {
    const b = d.values as Uint8Array;
    for (let i = 0; i < d.length; i++) {
      if (!d.getValid(i)) {
        out.push(null);
        continue;
      }
      const h = Array.from(b.subarray(16 * i, 16 * i + 16), (x) => x.toString(16).padStart(2, '0')).join('');
      out.push(`${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`);
    }
  }
  return out;
}

function uuidField(name: string): arrow.Field {
  return new arrow.Field(name, new arrow.FixedSizeBinary(16), true, new Map([['ARROW:extension:name', 'arrow.uuid']]));
}

function fixedBinary(width: number, rows: readonly (Uint8Array | null)[]): arrow.Data {
  const bytes = new Uint8Array(rows.length * width);
  rows.forEach((r, i) => r && bytes.set(r, i * width));
  return arrow.makeData({ type: new arrow.FixedSizeBinary(width), length: rows.length, ...bitmap(rows.map((r) => r !== null)), data: bytes });
}

/** One record batch over `children` (the schema is taken from the table constructor's). */
function recordBatch(length: number, children: arrow.Data[]): arrow.RecordBatch {
  const fields = children.map((c, i) => new arrow.Field(`c${i}`, c.type, true));
  const schema = new arrow.Schema(fields);
  return new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(fields), length, nullCount: 0, children }));
}

/** A table of `schema` over the batches' columns (fields, with their metadata, from `schema`). */
function tableOf(schema: arrow.Schema, batches: arrow.RecordBatch[]): arrow.Table {
  return new arrow.Table(
    schema,
    batches.map(
      (b) =>
        new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: b.numRows, nullCount: 0, children: b.data.children })),
    ),
  );
}

/** `t` with column `name` replaced by `data`. */
function withColumn(t: arrow.Table, name: string, data: arrow.Data): arrow.Table {
  const fields = t.schema.fields.map((f) => (f.name === name ? new arrow.Field(name, data.type, true) : f));
  const children = t.schema.fields.map((f, c) => (f.name === name ? data : t.batches[0]!.data.children[c]!));
  const schema = new arrow.Schema(fields);
  return new arrow.Table(schema, [new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(fields), length: t.numRows, nullCount: 0, children }))]);
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;

function everyTypeTable(): arrow.Table {
  const TU = arrow.TimeUnit;
  return new arrow.Table({
    i8: fixed(new arrow.Int8(), Int8Array, [-128, 127, null, 0]),
    i16: fixed(new arrow.Int16(), Int16Array, [-32768, 32767, null, 0]),
    i32: fixed(new arrow.Int32(), Int32Array, [-(2 ** 31), 2 ** 31 - 1, null, 0]),
    i64: fixed(new arrow.Int64(), BigInt64Array, [I64_MIN, I64_MAX, null, 0n]),
    u8: fixed(new arrow.Uint8(), Uint8Array, [0, 255, null, 1]),
    u16: fixed(new arrow.Uint16(), Uint16Array, [0, 65535, null, 1]),
    u32: fixed(new arrow.Uint32(), Uint32Array, [0, 2 ** 32 - 1, null, 1]),
    u64: fixed(new arrow.Uint64(), BigUint64Array, [0n, U64_MAX, null, 1n]),
    f32: fixed(new arrow.Float32(), Float32Array, [NaN, -0, null, 3.4028234663852886e38]),
    f64: fixed(new arrow.Float64(), Float64Array, [NaN, -0, null, -Infinity]),
    b: arrow.vectorFromArray([true, false, null, true], new arrow.Bool()),
    s: arrow.vectorFromArray(['héllo wörld ✓ 😀', '', null, 'plain'], new arrow.Utf8()),
    ls: arrow.vectorFromArray(['large', '', null, '日本語'], new arrow.LargeUtf8()),
    ds: arrow.vectorFromArray(['x', 'y', null, 'x'], new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32())),
    bin: arrow.vectorFromArray([new Uint8Array([0, 255, 1]), new Uint8Array([]), null, new Uint8Array([42])], new arrow.Binary()),
    d32: fixed(new arrow.DateDay(), Int32Array, [0, -719162, null, 2932896]),
    d64: fixed(new arrow.DateMillisecond(), BigInt64Array, [0n, 86_400_000n * 19_000n, null, -86_400_000n]),
    ts_s: fixed(new arrow.Timestamp(TU.SECOND), BigInt64Array, [0n, 1_700_000_000n, null, -1n]),
    ts_ms: fixed(new arrow.Timestamp(TU.MILLISECOND), BigInt64Array, [0n, 1_700_000_000_123n, null, -1n]),
    ts_us: fixed(new arrow.Timestamp(TU.MICROSECOND), BigInt64Array, [0n, 1_700_000_000_123_456n, null, -1n]),
    ts_ns: fixed(new arrow.Timestamp(TU.NANOSECOND), BigInt64Array, [0n, 1_700_000_000_123_456_789n, null, -1n]),
    ts_tz: fixed(new arrow.Timestamp(TU.MICROSECOND, 'UTC'), BigInt64Array, [0n, 1_700_000_000_123_456n, null, -1n]),
    ts_tz_ms: fixed(new arrow.Timestamp(TU.MILLISECOND, 'Europe/Paris'), BigInt64Array, [0n, 1_700_000_000_123n, null, -1n]),
    dec: decimal(38, 10, [10n ** 38n - 1n, -(10n ** 38n - 1n), null, 0n]),
    dec_small: decimal(4, 2, [1234n, -5n, null, 0n]),
    dec_mid: decimal(18, 3, [123456789012345678n, -1n, null, 0n]),
  });
}

describe('DuckDBSession', () => {
  let duck: DuckDBSession;
  let dir: string;
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1, memoryLimit: '512MB' });
    dir = mkdtempSync(join(tmpdir(), 'joinlab-duck-'));
  });
  afterAll(() => {
    duck.close();
    duck.close(); // idempotent
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates tables with the exact DuckDB equivalents of the Arrow types', async () => {
    await duck.loadTable('every', everyTypeTable());
    const described = Object.fromEntries((await duck.queryRows('DESCRIBE every')).map((r) => [r[0], r[1]]));
    expect(described).toEqual({
      i8: 'TINYINT',
      i16: 'SMALLINT',
      i32: 'INTEGER',
      i64: 'BIGINT',
      u8: 'UTINYINT',
      u16: 'USMALLINT',
      u32: 'UINTEGER',
      u64: 'UBIGINT',
      f32: 'FLOAT',
      f64: 'DOUBLE',
      b: 'BOOLEAN',
      s: 'VARCHAR',
      ls: 'VARCHAR',
      ds: 'VARCHAR',
      bin: 'BLOB',
      d32: 'DATE',
      d64: 'DATE',
      ts_s: 'TIMESTAMP_S',
      ts_ms: 'TIMESTAMP_MS',
      ts_us: 'TIMESTAMP',
      ts_ns: 'TIMESTAMP_NS',
      ts_tz: 'TIMESTAMP WITH TIME ZONE',
      ts_tz_ms: 'TIMESTAMP WITH TIME ZONE',
      dec: 'DECIMAL(38,10)',
      dec_small: 'DECIMAL(4,2)',
      dec_mid: 'DECIMAL(18,3)',
    });
  });

  it('round-trips every type: Arrow -> DuckDB -> Arrow', async () => {
    const input = everyTypeTable();
    await duck.loadTable('every', input);
    const output = await duck.query('SELECT * FROM every');
    const cmp = compareResults(output, input);
    expect(cmp.equal, formatComparison(cmp)).toBe(true);

    const types = Object.fromEntries(output.schema.fields.map((f) => [f.name, String(f.type)]));
    expect(types).toMatchObject({
      i8: 'Int8',
      i64: 'Int64',
      u64: 'Uint64',
      f32: 'Float32',
      f64: 'Float64',
      b: 'Bool',
      s: 'Utf8',
      ds: 'Utf8',
      bin: 'Binary',
      d32: 'Date32<DAY>',
      ts_s: 'Timestamp<SECOND>',
      ts_ms: 'Timestamp<MILLISECOND>',
      ts_us: 'Timestamp<MICROSECOND>',
      ts_ns: 'Timestamp<NANOSECOND>',
      ts_tz: 'Timestamp<MICROSECOND, UTC>',
    });
    const decType = (c: string) => {
      const t = output.schema.fields.find((f) => f.name === c)!.type as arrow.Decimal;
      return [t.precision, t.scale, t.bitWidth];
    };
    expect(decType('dec')).toEqual([38, 10, 128]);
    expect(decType('dec_small')).toEqual([4, 2, 128]);
    expect(decType('dec_mid')).toEqual([18, 3, 128]);

    // Values that a lossy bridge would get wrong, checked directly (not only via compareResults).
    const get = (c: string, i: number) => output.getChild(c)!.get(i);
    expect(get('i64', 0)).toBe(I64_MIN);
    expect(get('i64', 1)).toBe(I64_MAX);
    expect(get('u64', 1)).toBe(U64_MAX);
    expect(Number.isNaN(get('f64', 0))).toBe(true);
    expect(Object.is(get('f64', 1), -0)).toBe(true);
    expect(Object.is(get('f32', 1), -0)).toBe(true);
    expect(Number.isNaN(get('f32', 0))).toBe(true);
    expect(get('f64', 2)).toBe(null);
    expect(get('s', 0)).toBe('héllo wörld ✓ 😀');
    expect(get('s', 1)).toBe('');
    expect(get('s', 2)).toBe(null);
    expect(get('ds', 3)).toBe('x');
    expect([...(get('bin', 0) as Uint8Array)]).toEqual([0, 255, 1]);
    expect((get('bin', 1) as Uint8Array).length).toBe(0);
    expect(get('bin', 2)).toBe(null);
    const tsNs = output.getChild('ts_ns')!.data[0]!.values as BigInt64Array;
    expect(tsNs[1]).toBe(1_700_000_000_123_456_789n);
    const tsUs = output.getChild('ts_us')!.data[0]!.values as BigInt64Array;
    expect(tsUs[1]).toBe(1_700_000_000_123_456n);

    // NULL is NULL in DuckDB, NaN and -0.0 are values.
    const [[nulls, nans, negZero]] = (await duck.queryRows(
      "SELECT count(*) FILTER (f64 IS NULL), count(*) FILTER (isnan(f64)), count(*) FILTER (signbit(f64) AND f64 = 0) FROM every",
    )) as [[bigint, bigint, bigint]];
    expect([nulls, nans, negZero]).toEqual([1n, 1n, 1n]);
  });

  it('appends in 2048-row chunks across record-batch boundaries and sliced data', async () => {
    const n = 5000;
    const ids = Array.from({ length: n }, (_, i) => BigInt(i));
    const flags = Array.from({ length: n }, (_, i) => (i % 7 === 0 ? null : i % 3 === 0));
    const names = Array.from({ length: n }, (_, i) => (i % 11 === 0 ? null : `n${i % 5}`));
    const whole = new arrow.Table({
      id: arrow.vectorFromArray(ids, new arrow.Int64()),
      flag: arrow.vectorFromArray(flags, new arrow.Bool()),
      name: arrow.vectorFromArray(names, new arrow.Dictionary(new arrow.Utf8(), new arrow.Int16())),
    });
    // Uneven batches, one starting at an odd offset (bits of the Bool column are not byte-aligned).
    const parts = [whole.slice(0, 3), whole.slice(3, 1000), whole.slice(1000, 4093), whole.slice(4093, n)];
    const table = new arrow.Table(parts.flatMap((p) => p.batches));
    expect(table.batches.length).toBeGreaterThan(1);
    await duck.loadTable('big', table);
    const [[count, sum, trues, nullNames]] = (await duck.queryRows(
      'SELECT count(*), sum(id), count(*) FILTER (flag), count(*) FILTER (name IS NULL) FROM big',
    )) as [[bigint, bigint, bigint, bigint]];
    expect(count).toBe(BigInt(n));
    expect(sum).toBe(BigInt((n * (n - 1)) / 2));
    expect(trues).toBe(BigInt(flags.filter((f) => f === true).length));
    expect(nullNames).toBe(BigInt(names.filter((s) => s === null).length));
    const back = await duck.query('SELECT * FROM big');
    const cmp = compareResults(back, table);
    expect(cmp.equal, formatComparison(cmp)).toBe(true);
  });

  it('loads an empty table and returns empty results with the right schema', async () => {
    const empty = new arrow.Table({ a: arrow.vectorFromArray([], new arrow.Int32()), s: arrow.vectorFromArray([], new arrow.Utf8()) });
    await duck.loadTable('empty', empty);
    const out = await duck.query('SELECT * FROM empty');
    expect(out.numRows).toBe(0);
    expect(out.schema.fields.map((f) => `${f.name}:${f.type}`)).toEqual(['a:Int32', 's:Utf8']);
  });

  it('loads tables while PRAGMA enable_verification is on (the appender fails under the verifier)', async () => {
    // issue 31: DuckDB's appender flushes through an INSERT over a ColumnDataRef, which the
    // statement verifier re-parses from its ToString() — a table dump: "syntax error at or near "-""
    const verified = await DuckDBSession.open({ threads: 1 });
    try {
      await verified.run('PRAGMA enable_verification');
      const t = new arrow.Table({ a: arrow.vectorFromArray([1, 2, null], new arrow.Int32()), s: arrow.vectorFromArray(['x', null, 'z'], new arrow.Utf8()) });
      await verified.loadTable('v1', t);
      await verified.loadTable('v2', t);
      expect(await verified.queryRows('SELECT count(*), count(a), count(s) FROM (SELECT * FROM v1 UNION ALL SELECT * FROM v2)')).toEqual([[6n, 4n, 4n]]);
    } finally {
      verified.close();
    }
  });

  it('converts HUGEINT results to Decimal128(38, 0) and DECIMAL results exactly', async () => {
    const out = await duck.query(
      'SELECT 170141183460469231731687303715884105727::HUGEINT AS h, (-12345678901234567890123)::HUGEINT AS h2, ' +
        "sum(x) AS s, 123.4500::DECIMAL(9,4) AS d, NULL::HUGEINT AS hn FROM (VALUES (9223372036854775807::BIGINT), (1::BIGINT)) t(x)",
    );
    const h = out.schema.fields[0]!.type as arrow.Decimal;
    expect([h.typeId, h.precision, h.scale, h.bitWidth]).toEqual([arrow.Type.Decimal, 38, 0, 128]);
    const expected = new arrow.Table({
      h: decimal(38, 0, [2n ** 127n - 1n]),
      h2: decimal(38, 0, [-12345678901234567890123n]),
      s: decimal(38, 0, [2n ** 63n]),
      d: decimal(9, 4, [1234500n]),
      hn: decimal(38, 0, [null]),
    });
    const cmp = compareResults(out, expected);
    expect(cmp.equal, formatComparison(cmp)).toBe(true);
    await expect(duck.query('SELECT (2::UHUGEINT ** 127)::UHUGEINT AS u')).rejects.toThrow(UnsupportedTypeError);
  });

  it('names the column when a type is unsupported, either way', async () => {
    const duration = new arrow.Table({
      ok: arrow.vectorFromArray([1], new arrow.Int32()),
      d: fixed(new arrow.DurationMillisecond(), BigInt64Array, [1000n]),
    });
    await expect(duck.loadTable('bad', duration)).rejects.toThrow(UnsupportedTypeError);
    await expect(duck.loadTable('bad', duration)).rejects.toThrow(/column 'd'/);
    const fsl = new arrow.Table({ l: arrow.vectorFromArray([[1, 2]], new arrow.FixedSizeList(2, new arrow.Field('item', new arrow.Int32()))) });
    await expect(duck.loadTable('bad', fsl)).rejects.toThrow(/column 'l'/);
    // A refused type inside a list is named by its path.
    const durations = new arrow.Table({ l: arrow.vectorFromArray([[1n]], new arrow.List(new arrow.Field('item', new arrow.DurationSecond()))) });
    await expect(duck.loadTable('bad', durations)).rejects.toThrow(/column 'l\.item'/);
    await expect(duck.query('SELECT 1 AS ok, [1, 2]::INTEGER[2] AS arr')).rejects.toThrow(/column 'arr'/);
    await expect(duck.query('SELECT MAP {1: 2} AS m')).rejects.toThrow(UnsupportedTypeError);
    await expect(duck.query("SELECT [TIMETZ '12:00:00+02'] AS l")).rejects.toThrow(/column 'l\.item'/);
  });

  // --- INTERVAL -------------------------------------------------------------------------------

  it('round-trips intervals exactly: MONTH_DAY_NANO, DAY_TIME and YEAR_MONTH -> INTERVAL -> MONTH_DAY_NANO', async () => {
    const maxNs = (I64_MAX / 1000n) * 1000n; // the largest whole-microsecond nanosecond count
    const input = new arrow.Table({
      mdn: intervals([[1, 2, 1_500_000_000n], [-5, -(2 ** 31), -1000n], null, [2 ** 31 - 1, 2 ** 31 - 1, maxNs], [0, 0, -maxNs], [0, 0, 0n]]),
      dt: fixed(new arrow.IntervalDayTime(), Int32Array, [0, 0, 0, 0, 0, 0]), // overwritten below
      ym: fixed(new arrow.IntervalYearMonth(), Int32Array, [14, -(2 ** 31), null, 2 ** 31 - 1, -1, 0]),
    });
    // DAY_TIME: (days, millis) pairs, with a NULL in row 2.
    const dtWords = new Int32Array([3, 1500, -1, -1, 0, 0, 2 ** 31 - 1, 2 ** 31 - 1, -(2 ** 31), -(2 ** 31), 0, 0]);
    const dt = arrow.makeData({ type: new arrow.IntervalDayTime(), length: 6, ...bitmap([true, true, false, true, true, true]), data: dtWords });
    const table = withColumn(input, 'dt', dt);
    await duck.loadTable('iv', table);
    const described = Object.fromEntries((await duck.queryRows('DESCRIBE iv')).map((r) => [r[0], r[1]]));
    expect(described).toEqual({ mdn: 'INTERVAL', dt: 'INTERVAL', ym: 'INTERVAL' });
    const text = (await duck.queryRows('SELECT mdn::VARCHAR, dt::VARCHAR FROM iv')) as [string | null, string | null][];
    expect(text[0]).toEqual(['1 month 2 days 00:00:01.5', '3 days 00:00:01.5']);
    expect(text[1]![0]).toBe('-5 months -2147483648 days -00:00:00.000001');
    expect(text[2]).toEqual([null, null]);

    const out = await duck.query('SELECT * FROM iv');
    for (const f of out.schema.fields) expect(String(f.type), f.name).toBe(String(new arrow.IntervalMonthDayNano()));
    expect(intervalWords(out, 'mdn')).toEqual([[1, 2, 1_500_000_000n], [-5, -(2 ** 31), -1000n], null, [2 ** 31 - 1, 2 ** 31 - 1, maxNs], [0, 0, -maxNs], [0, 0, 0n]]);
    expect(intervalWords(out, 'dt')).toEqual([
      [0, 3, 1_500_000_000n],
      [0, -1, -1_000_000n],
      null,
      [0, 2 ** 31 - 1, BigInt(2 ** 31 - 1) * 1_000_000n],
      [0, -(2 ** 31), BigInt(-(2 ** 31)) * 1_000_000n],
      [0, 0, 0n],
    ]);
    expect(intervalWords(out, 'ym')).toEqual([[14, 0, 0n], [-(2 ** 31), 0, 0n], null, [2 ** 31 - 1, 0, 0n], [-1, 0, 0n], [0, 0, 0n]]);
    const cmp = compareResults(out, table);
    expect(cmp.equal, formatComparison(cmp)).toBe(true);
    // Sliced data (a non-zero offset into the 16-byte rows).
    await duck.loadTable('iv_sliced', table.slice(3));
    const sliced = compareResults(await duck.query('SELECT * FROM iv_sliced'), table.slice(3));
    expect(sliced.equal, formatComparison(sliced)).toBe(true);
  });

  it('converts DuckDB INTERVAL literals to MONTH_DAY_NANO and refuses what is not exact', async () => {
    const out = await duck.query("SELECT INTERVAL '1 month 2 days 1.5 seconds' AS a, INTERVAL '-3 years 4 hours' AS b, NULL::INTERVAL AS c");
    expect(intervalWords(out, 'a')).toEqual([[1, 2, 1_500_000_000n]]);
    expect(intervalWords(out, 'b')).toEqual([[-36, 0, 4n * 3600n * 1_000_000_000n]]);
    expect(intervalWords(out, 'c')).toEqual([null]);
    // 2^63 - 1 microseconds do not fit Int64 nanoseconds.
    await expect(duck.query('SELECT to_microseconds(9223372036854775807) AS big')).rejects.toThrow(/column 'big'.*INTERVAL/);
    // Sub-microsecond nanoseconds cannot be stored by DuckDB: refused, not rounded.
    await expect(duck.loadTable('bad', new arrow.Table({ iv: intervals([[0, 0, 1000n], [0, 0, 1500n]]) }))).rejects.toThrow(/column 'iv'.*1500 ns/);
  });

  // --- UUID -----------------------------------------------------------------------------------

  it('round-trips UUIDs (FixedSizeBinary(16) + arrow.uuid) through DuckDB UUID, other fixed-size binary through BLOB', async () => {
    const ids = ['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', null, '550e8400-e29b-41d4-a716-446655440000', '80000000-0000-0000-0000-000000000000', '7fffffff-ffff-ffff-ffff-ffffffffffff'];
    const table = tableOf(
      new arrow.Schema([uuidField('u'), new arrow.Field('raw', new arrow.FixedSizeBinary(16), true), new arrow.Field('b3', new arrow.FixedSizeBinary(3), true)]),
      [
        recordBatch(6, [
          fixedBinary(16, ids.map((s) => (s === null ? null : uuidBytes(s)))),
          fixedBinary(16, ids.map((s) => (s === null ? null : uuidBytes(s)))),
          fixedBinary(3, [new Uint8Array([1, 2, 3]), new Uint8Array([0, 0, 0]), null, new Uint8Array([255, 0, 255]), new Uint8Array([9, 9, 9]), new Uint8Array([7, 8, 9])]),
        ]),
      ],
    );
    await duck.loadTable('uu', table);
    const described = Object.fromEntries((await duck.queryRows('DESCRIBE uu')).map((r) => [r[0], r[1]]));
    expect(described).toEqual({ u: 'UUID', raw: 'BLOB', b3: 'BLOB' });
    expect((await duck.queryRows('SELECT u::VARCHAR FROM uu')).map((r) => r[0])).toEqual(ids);
    // DuckDB orders UUIDs as their text: the bytes went in big-endian, unflipped.
    expect((await duck.queryRows('SELECT u::VARCHAR FROM uu WHERE u IS NOT NULL ORDER BY u')).map((r) => r[0])).toEqual(
      ids.filter((s) => s !== null).sort(),
    );
    expect((await duck.queryRows('SELECT hex(b3) FROM uu')).map((r) => r[0])).toEqual(['010203', '000000', null, 'FF00FF', '090909', '070809']);

    const out = await duck.query('SELECT u FROM uu');
    const f = out.schema.fields[0]!;
    expect(String(f.type)).toBe('FixedSizeBinary[16]');
    expect(f.metadata.get('ARROW:extension:name')).toBe('arrow.uuid');
    expect(uuidTexts(out, 'u')).toEqual(ids);
    const cmp = compareResults(out, table.select(['u']));
    expect(cmp.equal, formatComparison(cmp)).toBe(true);
    await duck.loadTable('uu_sliced', table.slice(3));
    expect(uuidTexts(await duck.query('SELECT u FROM uu_sliced'), 'u')).toEqual(ids.slice(3));
  });

  it('converts DuckDB UUID literals to FixedSizeBinary(16)', async () => {
    const out = await duck.query(
      "SELECT '550e8400-e29b-41d4-a716-446655440000'::UUID AS a, '00000000-0000-0000-0000-000000000000'::UUID AS nil, " +
        "'ffffffff-ffff-ffff-ffff-ffffffffffff'::UUID AS max, NULL::UUID AS n",
    );
    expect(uuidTexts(out, 'a')).toEqual(['550e8400-e29b-41d4-a716-446655440000']);
    expect(uuidTexts(out, 'nil')).toEqual(['00000000-0000-0000-0000-000000000000']);
    expect(uuidTexts(out, 'max')).toEqual(['ffffffff-ffff-ffff-ffff-ffffffffffff']);
    expect(uuidTexts(out, 'n')).toEqual([null]);
  });

  // --- TIME -----------------------------------------------------------------------------------

  it('round-trips times: Time32/Time64 -> TIME (us) or TIME_NS, UTC-adjusted -> TIMETZ', async () => {
    const dayUs = 86_400_000_000n;
    const table = tableOf(
      new arrow.Schema([
        new arrow.Field('us', new arrow.TimeMicrosecond(), true),
        new arrow.Field('ms', new arrow.TimeMillisecond(), true),
        new arrow.Field('s', new arrow.TimeSecond(), true),
        new arrow.Field('ns', new arrow.TimeNanosecond(), true),
        new arrow.Field('tz', new arrow.TimeMicrosecond(), true, new Map([['adjusted_to_utc', '']])),
      ]),
      [
        recordBatch(4, [
          fixed(new arrow.TimeMicrosecond(), BigInt64Array, [0n, dayUs - 1n, null, dayUs]).data[0]!,
          fixed(new arrow.TimeMillisecond(), Int32Array, [0, 86_399_999, null, 45_296_789]).data[0]!,
          fixed(new arrow.TimeSecond(), Int32Array, [0, 86_399, null, 1]).data[0]!,
          fixed(new arrow.TimeNanosecond(), BigInt64Array, [0n, dayUs * 1000n - 1n, null, 1n]).data[0]!,
          fixed(new arrow.TimeMicrosecond(), BigInt64Array, [0n, dayUs - 1n, null, 45_296_789_000n]).data[0]!,
        ]),
      ],
    );
    await duck.loadTable('tm', table);
    const described = Object.fromEntries((await duck.queryRows('DESCRIBE tm')).map((r) => [r[0], r[1]]));
    expect(described).toEqual({ us: 'TIME', ms: 'TIME', s: 'TIME', ns: 'TIME_NS', tz: 'TIME WITH TIME ZONE' });
    const text = await duck.queryRows('SELECT us::VARCHAR, ms::VARCHAR, s::VARCHAR, ns::VARCHAR, tz::VARCHAR FROM tm');
    expect(text[0]).toEqual(['00:00:00', '00:00:00', '00:00:00', '00:00:00', '00:00:00+00']);
    expect(text[1]).toEqual(['23:59:59.999999', '23:59:59.999', '23:59:59', '23:59:59.999999999', '23:59:59.999999+00']);
    expect(text[3]).toEqual(['24:00:00', '12:34:56.789', '00:00:01', '00:00:00.000000001', '12:34:56.789+00']);

    const out = await duck.query('SELECT * FROM tm');
    const types = Object.fromEntries(out.schema.fields.map((f) => [f.name, String(f.type)]));
    expect(types).toEqual({ us: 'Time64<MICROSECOND>', ms: 'Time64<MICROSECOND>', s: 'Time64<MICROSECOND>', ns: 'Time64<NANOSECOND>', tz: 'Time64<MICROSECOND>' });
    expect(out.schema.fields[4]!.metadata.has('adjusted_to_utc')).toBe(true);
    expect(out.schema.fields[0]!.metadata.size).toBe(0);
    expect(raw64(out, 'us')).toEqual([0n, dayUs - 1n, null, dayUs]);
    expect(raw64(out, 'ms')).toEqual([0n, 86_399_999_000n, null, 45_296_789_000n]);
    expect(raw64(out, 's')).toEqual([0n, 86_399_000_000n, null, 1_000_000n]);
    expect(raw64(out, 'ns')).toEqual([0n, dayUs * 1000n - 1n, null, 1n]);
    expect(raw64(out, 'tz')).toEqual([0n, dayUs - 1n, null, 45_296_789_000n]);
    const cmp = compareResults(out, table);
    expect(cmp.equal, formatComparison(cmp)).toBe(true);
  });

  it('converts DuckDB TIME literals and refuses times it cannot hold exactly', async () => {
    const out = await duck.query(
      "SELECT TIME '12:34:56.789' AS t, TIME '23:59:59.999999' AS late, TIME_NS '01:02:03.123456789' AS tn, TIMETZ '10:00:00+00' AS tz, NULL::TIME AS n",
    );
    expect(raw64(out, 't')).toEqual([45_296_789_000n]);
    expect(raw64(out, 'late')).toEqual([86_399_999_999n]);
    expect(raw64(out, 'tn')).toEqual([3_723_123_456_789n]);
    expect(raw64(out, 'tz')).toEqual([36_000_000_000n]);
    expect(raw64(out, 'n')).toEqual([null]);
    // A TIMETZ offset has no place in Arrow's UTC-adjusted time: refused, not normalised.
    await expect(duck.query("SELECT TIMETZ '12:00:00+02' AS tz")).rejects.toThrow(/column 'tz'.*only \+00/);
    const utc = new Map([['adjusted_to_utc', '']]);
    const one = (type: arrow.DataType, values: bigint[], metadata?: Map<string, string>) =>
      tableOf(new arrow.Schema([new arrow.Field('t', type, true, metadata)]), [recordBatch(values.length, [fixed(type, BigInt64Array, values).data[0]!])]);
    await expect(duck.loadTable('bad', one(new arrow.TimeNanosecond(), [1000n, 1001n], utc))).rejects.toThrow(/column 't'.*1001 ns/);
    await expect(duck.loadTable('bad', one(new arrow.TimeMicrosecond(), [-1n]))).rejects.toThrow(/column 't'.*outside/);
    await expect(duck.loadTable('bad', one(new arrow.TimeNanosecond(), [86_400_000_000_001n]))).rejects.toThrow(/column 't'.*outside/);
  });

  // --- LIST / STRUCT --------------------------------------------------------------------------

  it('round-trips lists and structs of the supported types, nested, with NULLs at every level', async () => {
    const int64s = new arrow.List(new arrow.Field('item', new arrow.Int64(), true));
    const strings = new arrow.List(new arrow.Field('item', new arrow.Utf8(), true));
    const nested = new arrow.List(new arrow.Field('item', new arrow.List(new arrow.Field('item', new arrow.Int32(), true)), true));
    const stFields = [new arrow.Field('a', new arrow.Int32(), true), uuidField('u'), new arrow.Field('iv', new arrow.IntervalMonthDayNano(), true)];
    const st = arrow.makeData({
      type: new arrow.Struct(stFields),
      length: 4,
      ...bitmap([true, true, false, true]),
      children: [
        fixed(new arrow.Int32(), Int32Array, [1, null, 0, -7]).data[0]!,
        fixedBinary(16, [uuidBytes('550e8400-e29b-41d4-a716-446655440000'), uuidBytes('ffffffff-ffff-ffff-ffff-ffffffffffff'), null, null]),
        intervals([[1, 2, 3000n], null, null, [-1, -2, -3000n]]).data[0]!,
      ],
    });
    const schema = new arrow.Schema([
      new arrow.Field('li', int64s, true),
      new arrow.Field('ls', strings, true),
      new arrow.Field('nested', nested, true),
      new arrow.Field('st', st.type, true),
    ]);
    const table = tableOf(schema, [
      recordBatch(4, [
        arrow.vectorFromArray([[1n, I64_MIN], [], null, [null, I64_MAX]], int64s).data[0]!,
        arrow.vectorFromArray([['a', ''], null, ['😀'], []], strings).data[0]!,
        arrow.vectorFromArray([[[1], [], null], null, [[2, null, 3]], []], nested).data[0]!,
        st,
      ]),
    ]);
    await duck.loadTable('nest', table);
    const described = Object.fromEntries((await duck.queryRows('DESCRIBE nest')).map((r) => [r[0], r[1]]));
    expect(described).toEqual({ li: 'BIGINT[]', ls: 'VARCHAR[]', nested: 'INTEGER[][]', st: 'STRUCT(a INTEGER, u UUID, iv INTERVAL)' });
    const text = (await duck.queryRows('SELECT li::VARCHAR, ls::VARCHAR, nested::VARCHAR, st::VARCHAR FROM nest')).map((r) => r.map(String));
    expect(text[0]).toEqual(['[1, -9223372036854775808]', "[a, '']", '[[1], [], NULL]', "{'a': 1, 'u': 550e8400-e29b-41d4-a716-446655440000, 'iv': '1 month 2 days 00:00:00.000003'}"]);
    expect(text[2]).toEqual(['null', '[😀]', '[[2, NULL, 3]]', 'null']);
    expect(text[3]![0]).toBe('[NULL, 9223372036854775807]');

    const out = await duck.query('SELECT * FROM nest');
    expect(out.schema.fields.map((f) => String(f.type))).toEqual(schema.fields.map((f) => String(f.type)));
    const outSt = out.schema.fields[3]!.type as arrow.Struct;
    expect(outSt.children[1]!.metadata.get('ARROW:extension:name')).toBe('arrow.uuid');
    const cmp = compareResults(out, table);
    expect(cmp.equal, formatComparison(cmp)).toBe(true);
    // Exact values, read from the buffers of the result.
    const li = out.getChild('li')!.data[0]!;
    expect([...(li.valueOffsets as Int32Array)]).toEqual([0, 2, 2, 2, 4]);
    expect([...(li.children[0]!.values as BigInt64Array)].filter((_, k) => li.children[0]!.getValid(k))).toEqual([1n, I64_MIN, I64_MAX]);
    const stOut = out.getChild('st')!.data[0]!;
    expect([0, 1, 2, 3].map((i) => stOut.getValid(i))).toEqual([true, true, false, true]);
    const ivOut = new arrow.Table({ iv: arrow.makeVector(stOut.children[2]!) });
    expect(intervalWords(ivOut, 'iv')).toEqual([[1, 2, 3000n], null, null, [-1, -2, -3000n]]);
    const uOut = new arrow.Table({ u: arrow.makeVector(stOut.children[1]!) });
    expect(uuidTexts(uOut, 'u')).toEqual(['550e8400-e29b-41d4-a716-446655440000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', null, null]);

    await duck.loadTable('nest_sliced', table.slice(1));
    const sliced = compareResults(await duck.query('SELECT * FROM nest_sliced'), table.slice(1));
    expect(sliced.equal, formatComparison(sliced)).toBe(true);
  });

  it('converts DuckDB LIST and STRUCT literals', async () => {
    const out = await duck.query(
      "SELECT [1, 2, NULL]::BIGINT[] AS l, {'a': 1, 'b': 'x', 't': TIME '00:00:01'} AS s, [INTERVAL 1 DAY, NULL] AS li, " +
        "[{'u': '00000000-0000-0000-0000-000000000001'::UUID}] AS lu, NULL::INTEGER[] AS n, [[1], [2, 3]] AS nested, []::VARCHAR[] AS e",
    );
    const types = Object.fromEntries(out.schema.fields.map((f) => [f.name, String(f.type)]));
    expect(types).toEqual({
      l: 'List<Int64>',
      s: 'Struct<{a:Int32, b:Utf8, t:Time64<MICROSECOND>}>',
      li: 'List<Interval<MONTH_DAY_NANO>>',
      lu: 'List<Struct<{u:FixedSizeBinary[16]}>>',
      n: 'List<Int32>',
      nested: 'List<List<Int32>>',
      e: 'List<Utf8>',
    });
    const row = out.get(0)!.toJSON() as Record<string, any>;
    expect([...row['l']]).toEqual([1n, 2n, null]);
    expect(row['s'].toJSON()).toMatchObject({ a: 1, b: 'x' });
    expect(raw64(new arrow.Table({ t: arrow.makeVector(out.getChild('s')!.data[0]!.children[2]!) }), 't')).toEqual([1_000_000n]);
    expect(intervalWords(new arrow.Table({ iv: arrow.makeVector(out.getChild('li')!.data[0]!.children[0]!) }), 'iv')).toEqual([[0, 1, 0n], null]);
    const lu = out.getChild('lu')!.data[0]!.children[0]!.children[0]!;
    expect(uuidTexts(new arrow.Table({ u: arrow.makeVector(lu) }), 'u')).toEqual(['00000000-0000-0000-0000-000000000001']);
    expect(row['n']).toBe(null);
    expect([...row['nested']].map((x: arrow.Vector) => [...x])).toEqual([[1], [2, 3]]);
    expect([...row['e']]).toEqual([]);
  });

  it('compares nested results element by element with the scalar rules', async () => {
    const ints = new arrow.List(new arrow.Field('item', new arrow.Int32(), true));
    const mine = new arrow.Table({ l: arrow.vectorFromArray([[1, 2], null, [null]], ints) });
    const duckList = await duck.query('SELECT * FROM (VALUES ([1::BIGINT, 2]), (NULL), ([NULL])) t(l)');
    const same = compareResults(mine, duckList);
    expect(same.equal, formatComparison(same)).toBe(true); // Int32 items == BIGINT items
    // One nanosecond apart inside a list is a difference (no lossy getter in the key).
    const tsList = new arrow.List(new arrow.Field('item', new arrow.Timestamp(arrow.TimeUnit.NANOSECOND), true));
    const child = fixed(new arrow.Timestamp(arrow.TimeUnit.NANOSECOND), BigInt64Array, [1_700_000_000_123_456_788n]).data[0]!;
    const ts = new arrow.Table({ l: arrow.makeVector(arrow.makeData({ type: tsList, length: 1, nullCount: 0, valueOffsets: new Int32Array([0, 1]), child } as never)) });
    const off = compareResults(ts, await duck.query("SELECT [TIMESTAMP_NS '2023-11-14 22:13:20.123456789'] AS l"));
    expect([off.equal, off.schemaProblems, off.missingCount]).toEqual([false, [], 1]);
    const exact = compareResults(ts, await duck.query("SELECT [TIMESTAMP_NS '2023-11-14 22:13:20.123456788'] AS l"));
    expect(exact.equal, formatComparison(exact)).toBe(true);
    // Struct field names are part of the type.
    const renamed = compareResults(await duck.query("SELECT {'a': 1} AS s"), await duck.query("SELECT {'b': 1} AS s"));
    expect(renamed.schemaProblems.length).toBe(1);
  });

  it('compares a joinlab join carrying interval, uuid and time columns equal to DuckDB\'s answer', async () => {
    const ids = ['550e8400-e29b-41d4-a716-446655440000', null, 'ffffffff-ffff-ffff-ffff-ffffffffffff', '00000000-0000-0000-0000-000000000000'];
    const left = tableOf(
      new arrow.Schema([new arrow.Field('k', new arrow.Int32(), true), new arrow.Field('iv', new arrow.IntervalMonthDayNano(), true), uuidField('u')]),
      [
        recordBatch(4, [
          fixed(new arrow.Int32(), Int32Array, [1, 2, 2, 3]).data[0]!,
          intervals([[1, 2, 1_500_000_000n], [-1, 0, -1000n], null, [0, 0, 0n]]).data[0]!,
          fixedBinary(16, ids.map((s) => (s === null ? null : uuidBytes(s)))),
        ]),
      ],
    );
    const right = new arrow.Table({
      k: fixed(new arrow.Int32(), Int32Array, [2, 3, 4, null]),
      t: fixed(new arrow.TimeMicrosecond(), BigInt64Array, [1n, null, 86_399_999_999n, 0n]),
    });
    const engine = await Engine.create();
    await duck.loadTable('l', left);
    await duck.loadTable('r', right);
    for (const type of ['inner', 'left', 'full'] as const) {
      const spec = toJoinSpec({ type, on: 'k=k' });
      const { table } = await engine.join(spec, left, right);
      const expected = await duck.query(joinToSql(spec, { table: 'l', columns: ['k', 'iv', 'u'] }, { table: 'r', columns: ['k', 't'] }));
      expect(expected.numRows, type).toBeGreaterThan(0);
      const cmp = compareResults(table, expected);
      expect(cmp.equal, `${type}\n${formatComparison(cmp)}`).toBe(true);
      expect(cmp.schemaProblems, type).toEqual([]);
    }
    // A changed interval nanosecond is a mismatch, not folded away.
    const { table } = await engine.join(toJoinSpec({ type: 'inner', on: 'k=k' }), left, right);
    const names = table.schema.fields.map((f) => `"${f.name}"`);
    const shifted = await duck.query(
      `SELECT l.k AS ${names[0]}, CASE WHEN l.k = 3 THEN l.iv + INTERVAL '1 microsecond' ELSE l.iv END AS ${names[1]}, ` +
        `l.u AS ${names[2]}, r.k AS ${names[3]}, r.t AS ${names[4]} FROM l JOIN r ON l.k = r.k`,
    );
    const bad = compareResults(table, shifted);
    expect(bad.schemaProblems).toEqual([]);
    expect([bad.equal, bad.missingCount, bad.extraCount]).toEqual([false, 1, 1]);
    expect(formatComparison(bad)).toContain('0 months 0 days 1000 ns');
    await duck.run('DROP TABLE l; DROP TABLE r;');
  });

  it('loads Parquet as a table or a view, with typed errors for missing and corrupt files', async () => {
    const file = join(dir, 'data.parquet');
    await duck.run(`COPY (SELECT range AS id, range % 3 AS g, 'v' || range AS s FROM range(10000)) TO '${file}' (FORMAT parquet)`);
    await duck.loadParquet('pq', file);
    await duck.createViewOnParquet('pqv', file);
    const [[n1, s1]] = (await duck.queryRows('SELECT count(*), sum(id) FROM pq')) as [[bigint, bigint]];
    const [[n2]] = (await duck.queryRows('SELECT count(*) FROM pqv WHERE g = 1')) as [[bigint]];
    expect(n1).toBe(10000n);
    expect(s1).toBe(49995000n);
    expect(n2).toBe(3333n);

    await expect(duck.loadParquet('nope', join(dir, 'missing.parquet'))).rejects.toThrow(FileNotFoundError);
    const junk = join(dir, 'junk.parquet');
    writeFileSync(junk, 'this is not parquet at all');
    await expect(duck.loadParquet('junk', junk)).rejects.toThrow(CorruptFileError);
  });

  it('queryRows returns JS values, queryValues exact DuckDB values', async () => {
    const rows = await duck.queryRows("SELECT 1::BIGINT AS a, 'x' AS b, NULL AS c, 2.5::DOUBLE AS d");
    expect(rows).toEqual([[1n, 'x', null, 2.5]]);
    const values = await duck.queryValues('SELECT 1.25::DECIMAL(10,2) AS d');
    expect(String(values[0]![0])).toBe('1.25');
  });
});
