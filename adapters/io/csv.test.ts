import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Binary,
  Bool,
  DateDay,
  Decimal,
  Dictionary,
  Field,
  Float32,
  Float64,
  Int32,
  Int64,
  List,
  makeData,
  makeVector,
  Table,
  Timestamp,
  TimeUnit,
  Uint64,
  Utf8,
  vectorFromArray,
  type DataType,
} from 'apache-arrow';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileNotFoundError, UnsupportedTypeError } from '../../core/errors.ts';
import { csvField, formatDate, formatDecimal, formatTimestamp, tableToCsv, writeCsvFile } from './csv.ts';
import { writeParquetFile } from './parquet.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-csv-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function bitmap(valid: boolean[]): Uint8Array {
  const bm = new Uint8Array((valid.length + 7) >> 3);
  valid.forEach((v, i) => {
    if (v) bm[i >> 3]! |= 1 << (i & 7);
  });
  return bm;
}

function raw(type: DataType, values: ArrayLike<unknown>, valid: boolean[]) {
  return makeVector(
    makeData({ type, length: valid.length, nullCount: valid.filter((v) => !v).length, nullBitmap: bitmap(valid), data: values } as never),
  );
}

function one(type: DataType, values: unknown[]): string {
  return tableToCsv(new Table({ x: vectorFromArray(values, type as never) }), { header: false });
}

describe('CSV quoting (RFC 4180)', () => {
  it('quotes delimiter, quote, CR and LF; doubles quotes; leaves plain text alone', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rx')).toBe('"cr\rx"');
    expect(csvField('a;b', ';')).toBe('"a;b"');
    expect(csvField('a,b', ';')).toBe('a,b');
  });

  it('NULL is an empty field, the empty string is ""', () => {
    expect(one(new Utf8(), ['', null, 'x'])).toBe('""\n\nx\n');
    expect(one(new Int32(), [null, 1])).toBe('\n1\n');
  });

  it('quotes header names', () => {
    const t = new Table({ 'a,b': vectorFromArray([1], new Int32()), 'q"': vectorFromArray(['v'], new Utf8()) });
    expect(tableToCsv(t)).toBe('"a,b","q"""\n1,v\n');
    expect(tableToCsv(t, { delimiter: ';', newline: '\r\n' })).toBe('a,b;"q"""\r\n1;v\r\n');
  });
});

describe('CSV value formats', () => {
  it('integers and bigints as exact digits', () => {
    const i64 = raw(new Int64(), BigInt64Array.from([-(2n ** 63n), 2n ** 63n - 1n, 0n]), [true, true, false]);
    const u64 = raw(new Uint64(), BigUint64Array.from([2n ** 64n - 1n, 1n, 0n]), [true, true, true]);
    expect(tableToCsv(new Table({ a: i64, b: u64 }))).toBe(
      'a,b\n-9223372036854775808,18446744073709551615\n9223372036854775807,1\n,0\n',
    );
  });

  it('floats: NaN, infinities, -0, shortest float32 digits', () => {
    expect(one(new Float64(), [NaN, Infinity, -Infinity, -0, 0.1, 1e21])).toBe('NaN\nInfinity\n-Infinity\n-0\n0.1\n1e+21\n');
    expect(one(new Float32(), [0.1, 1 / 3, -0])).toBe('0.1\n0.33333334\n-0\n');
  });

  it('bool, binary, dictionary', () => {
    expect(one(new Bool(), [true, false, null])).toBe('true\nfalse\n\n');
    expect(one(new Binary(), [new Uint8Array([0x41, 0, 0x5c, 0xff]), new Uint8Array(0)])).toBe('A\\x00\\x5C\\xFF\n""\n');
    expect(one(new Dictionary(new Utf8(), new Int32()), ['x,y', null, 'z'])).toBe('"x,y"\n\nz\n');
  });

  it('dates (proleptic Gregorian, any Int32 day count)', () => {
    expect(formatDate(0)).toBe('1970-01-01');
    expect(formatDate(-1)).toBe('1969-12-31');
    expect(formatDate(11016)).toBe('2000-02-29');
    expect(formatDate(2932896)).toBe('9999-12-31');
    expect(formatDate(2932897)).toBe('10000-01-01'); // DuckDB's read_csv refuses '+010000-01-01'
    expect(formatDate(-719528)).toBe('0000-01-01');
    expect(formatDate(-719529)).toBe('-000001-12-31');
    const d = raw(new DateDay(), Int32Array.from([0, 19000, -5]), [true, true, true]);
    expect(tableToCsv(new Table({ d }), { header: false })).toBe('1970-01-01\n2022-01-08\n1969-12-27\n');
  });

  it('timestamps in every unit, trailing zeros trimmed, Z with a time zone', () => {
    expect(formatTimestamp(0n, TimeUnit.SECOND, false)).toBe('1970-01-01T00:00:00');
    expect(formatTimestamp(-1n, TimeUnit.MILLISECOND, false)).toBe('1969-12-31T23:59:59.999');
    expect(formatTimestamp(1_500_000n, TimeUnit.MICROSECOND, true)).toBe('1970-01-01T00:00:01.5Z');
    expect(formatTimestamp(1_577_836_800_123_456_789n, TimeUnit.NANOSECOND, false)).toBe('2020-01-01T00:00:00.123456789');
    const ts = raw(new Timestamp(TimeUnit.MICROSECOND, 'UTC'), BigInt64Array.from([86_400_000_001n]), [true]);
    expect(tableToCsv(new Table({ ts }), { header: false })).toBe('1970-01-02T00:00:00.000001Z\n');
  });

  it('decimals from the unscaled value', () => {
    expect(formatDecimal(12345n, 2)).toBe('123.45');
    expect(formatDecimal(-5n, 3)).toBe('-0.005');
    expect(formatDecimal(7n, 0)).toBe('7');
    expect(formatDecimal(-(10n ** 37n), 4)).toBe('-1' + '0'.repeat(33) + '.0000');
    const words = new Uint32Array(8);
    words.set([0xfffffffe, 0xffffffff, 0xffffffff, 0xffffffff], 0); // -2
    words.set([1234, 0, 0, 0], 4);
    const dec = raw(new Decimal(2, 38, 128), words, [true, true]);
    expect(tableToCsv(new Table({ dec }), { header: false })).toBe('-0.02\n12.34\n');
  });

  it('nested types are UnsupportedTypeError naming the column', () => {
    const list = makeData({
      type: new List(new Field('item', new Int32())),
      length: 1,
      nullCount: 0,
      valueOffsets: Int32Array.from([0, 1]),
      child: makeData({ type: new Int32(), length: 1, data: Int32Array.from([1]) }),
    });
    const t = new Table({ lst: makeVector(list) });
    expect(() => tableToCsv(t)).toThrow(UnsupportedTypeError);
    expect(() => tableToCsv(t)).toThrow(/'lst'/);
  });
});

describe('writeCsvFile', () => {
  it('DuckDB reads the CSV back to the same values as the Parquet file of the same table', async () => {
    const n = 40;
    const valid = Array.from({ length: n }, (_, i) => i % 6 !== 5);
    const strings = ['', 'a,b', 'say "hi"', 'line\nbreak', 'cr\rx', '😀 é', ' padded ', 'plain'];
    const t = new Table({
      i32: vectorFromArray(Array.from({ length: n }, (_, i) => (valid[i] ? i * 7 - 100 : null)), new Int32()),
      i64: raw(new Int64(), BigInt64Array.from({ length: n }, (_, i) => (i === 0 ? -(2n ** 63n) : BigInt(i) * 10n ** 17n)), valid),
      u64: raw(new Uint64(), BigUint64Array.from({ length: n }, (_, i) => 2n ** 64n - 1n - BigInt(i)), valid),
      f64: vectorFromArray(Array.from({ length: n }, (_, i) => (i === 1 ? NaN : i === 2 ? Infinity : i === 3 ? -0 : i / 7)), new Float64()),
      f32: vectorFromArray(Array.from({ length: n }, (_, i) => i / 3), new Float32()),
      b: vectorFromArray(Array.from({ length: n }, (_, i) => (valid[i] ? i % 2 === 0 : null)), new Bool()),
      s: vectorFromArray(Array.from({ length: n }, (_, i) => (valid[i] ? strings[i % strings.length]! : null)), new Utf8()),
      bin: vectorFromArray(Array.from({ length: n }, (_, i) => Uint8Array.from([i, 0x5c, 255 - i, 0x22, 0x2c])), new Binary()),
      d: raw(new DateDay(), Int32Array.from({ length: n }, (_, i) => i * 5000 - 700_000), valid),
      ts: raw(new Timestamp(TimeUnit.MICROSECOND), BigInt64Array.from({ length: n }, (_, i) => BigInt(i - 20) * 123_456_789_011n), valid),
      ts_ns: raw(new Timestamp(TimeUnit.NANOSECOND), BigInt64Array.from({ length: n }, (_, i) => BigInt(i) * 1_000_000_001n), valid),
      tz: raw(new Timestamp(TimeUnit.MILLISECOND, 'UTC'), BigInt64Array.from({ length: n }, (_, i) => BigInt(i) * 86_400_123n), valid),
      dec: raw(
        new Decimal(3, 38, 128),
        (() => {
          const w = new Uint32Array(n * 4);
          for (let i = 0; i < n; i++) {
            let u = BigInt.asUintN(128, BigInt(i - 20) * 10n ** 25n + BigInt(i));
            for (let q = 0; q < 4; q++) {
              w[i * 4 + q] = Number(u & 0xffffffffn);
              u >>= 32n;
            }
          }
          return w;
        })(),
        valid,
      ),
      dict: vectorFromArray(Array.from({ length: n }, (_, i) => (valid[i] ? ['x', 'y,z'][i % 2]! : null)), new Dictionary(new Utf8(), new Int32())),
    });
    const csv = join(dir, 'all.csv');
    const pq = join(dir, 'all.parquet');
    await writeCsvFile(csv, t);
    await writeParquetFile(pq, t);
    expect((await readdir(dir)).filter((f) => f.includes('.tmp-'))).toEqual([]);
    const duck = await DuckDBInstance.create(':memory:');
    const con = await duck.connect();
    try {
      const desc = await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${pq}')`);
      const cols = desc
        .getRowsJson()
        .map((r) => `'${String(r[0])}': '${String(r[1])}'`)
        .join(', ');
      const fromCsv = `SELECT * FROM read_csv('${csv}', header = true, columns = {${cols}}, allow_quoted_nulls = false, quote = '"', escape = '"')`;
      const fromPq = `SELECT * FROM read_parquet('${pq}')`;
      const count = async (sql: string) => Number((await con.runAndReadAll(sql)).getRowsJS()[0]![0]);
      expect(await count(`SELECT count(*) FROM (${fromCsv})`)).toBe(n);
      expect(await count(`SELECT count(*) FROM ((${fromCsv}) EXCEPT ALL (${fromPq}))`)).toBe(0);
      expect(await count(`SELECT count(*) FROM ((${fromPq}) EXCEPT ALL (${fromCsv}))`)).toBe(0);
      // NULL and '' stay distinct
      expect(await count(`SELECT count(*) FROM (${fromCsv}) WHERE s = ''`)).toBe(
        Array.from({ length: n }, (_, i) => valid[i] && i % strings.length === 0).filter(Boolean).length,
      );
    } finally {
      con.closeSync();
      duck.closeSync();
    }
  });

  it('writes atomically: a failure leaves nothing behind', async () => {
    const sub = await mkdtemp(join(dir, 'fail-'));
    const list = makeData({
      type: new List(new Field('item', new Int32())),
      length: 1,
      nullCount: 0,
      valueOffsets: Int32Array.from([0, 1]),
      child: makeData({ type: new Int32(), length: 1, data: Int32Array.from([1]) }),
    });
    await expect(writeCsvFile(join(sub, 'x.csv'), new Table({ lst: makeVector(list) }))).rejects.toBeInstanceOf(UnsupportedTypeError);
    expect(await readdir(sub)).toEqual([]);
    await expect(writeCsvFile(join(sub, 'no', 'x.csv'), new Table({ a: vectorFromArray([1], new Int32()) }))).rejects.toBeInstanceOf(
      FileNotFoundError,
    );
    await writeCsvFile(join(sub, 'ok.csv'), new Table({ a: vectorFromArray([1, null], new Int32()) }));
    expect(await readFile(join(sub, 'ok.csv'), 'utf8')).toBe('a\n1\n\n');
  });
});
