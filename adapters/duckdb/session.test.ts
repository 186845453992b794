import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as arrow from 'apache-arrow';
import { CorruptFileError, FileNotFoundError, UnsupportedTypeError } from '../../core/errors.ts';
import { DuckDBSession } from './session.ts';
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
    const time = new arrow.Table({
      ok: arrow.vectorFromArray([1], new arrow.Int32()),
      t: arrow.vectorFromArray([1000], new arrow.TimeMillisecond()),
    });
    await expect(duck.loadTable('bad', time)).rejects.toThrow(UnsupportedTypeError);
    await expect(duck.loadTable('bad', time)).rejects.toThrow(/column 't'/);
    await expect(duck.query("SELECT 1 AS ok, INTERVAL 1 DAY AS iv")).rejects.toThrow(/column 'iv'/);
    await expect(duck.query('SELECT [1, 2] AS lst')).rejects.toThrow(UnsupportedTypeError);
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
