/**
 * Every output writer writes exactly what it accepts (issue 31): random tables whose strings mix
 * leading and inner U+FEFF, NUL, CR, LF, CRLF, quotes, separators, tabs, backslashes, U+2028,
 * astral characters, words that look like NULL / numbers / dates / booleans, and the empty string
 * beside NULL — plus Int32, Int64 extremes, doubles (NaN, ±Infinity, -0, subnormals), dates,
 * Decimal(18, 3), booleans and microsecond timestamps — go through each writer (`writeBatches`
 * to .csv, .parquet, .arrow, in several batches) and are read back as DuckDB reads the file
 * (adapters/duckdb/read-back.ts, the reader `--compare` uses): the same values in the same order,
 * NULL still NULL and `""` still `""`. The CSV file is also read back by joinlab's own CSV reader,
 * and the Arrow file is passed through DuckDB's loader too.
 *
 * Strings that cannot be UTF-8: a JS string with a lone surrogate never reaches a writer as such —
 * Arrow JS encodes it with TextEncoder, which writes U+FFFD (asserted below). Bytes that are not
 * UTF-8 in a Utf8 column (from a file, or built by hand) are refused by every writer with an
 * `InvalidUtf8Error` naming column and row, and no file is left behind.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bool, DateDay, Decimal, Field, Float64, Int32, Int64, makeData, RecordBatch, Schema, Struct, Table, TimestampMicrosecond, Utf8, vectorFromArray, type Data, type DataType } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8At } from '../../core/arrow/utf8.ts';
import { InvalidUtf8Error } from '../../core/errors.ts';
import { compareResults, formatComparison, orderDifference } from '../duckdb/compare.ts';
import { readWrittenFile } from '../duckdb/read-back.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { readCsvFile } from './csv-read.ts';
import { readTable, writeBatches } from './index.ts';
import { Rng } from '../../core/random.ts';

let dir: string;
let duck: DuckDBSession;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-exact-'));
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(async () => {
  duck.close();
  await rm(dir, { recursive: true, force: true });
});

/** core/random.ts's seeded generator (mulberry32) as a function, so a failure names its seed. */
function rng(seed: number): () => number {
  const g = new Rng(seed);
  return () => g.next();
}

const PIECES = ['a', 'Z', '0', '7', '-', '.', ' ', '\uFEFF', '\u0000', '\r', '\n', '\r\n', '"', '""', ',', ';', '\t', '\\', 'é', '😀', '\u2028', 'NULL', 'null', 'NaN', 'true', '1e5', '2024-01-01', '\\N'];
/** Values every table starts with: the file's first value, then the edge cases by name. */
const FIRST = ['\uFEFFa', '\uFEFF', '', null, '\uFEFF\uFEFF', 'a\uFEFF', '\u0000', 'a\u0000b', '\r', '\n', '\r\n', '"', ',', ' x ', '"\uFEFF"', '\uFEFF,', '\uFEFF\r\n'];

function randomString(r: () => number): string | null {
  const u = r();
  if (u < 0.1) return null;
  if (u < 0.2) return '';
  let s = '';
  const n = 1 + Math.floor(r() * 6);
  for (let k = 0; k < n; k++) s += PIECES[Math.floor(r() * PIECES.length)]!;
  return s;
}

/** A column of fixed-width values with NULLs (validity bitmap), `put` writing value `v` at row `i`. */
function fixed<T>(type: DataType, values: readonly (T | null)[], make: (n: number) => ArrayLike<unknown> & { buffer: ArrayBufferLike }, put: (a: never, i: number, v: T) => void): Data {
  const n = values.length;
  const a = make(n);
  const bitmap = new Uint8Array(((n + 63) >> 6) << 3);
  let nulls = 0;
  values.forEach((v, i) => {
    if (v === null) nulls++;
    else {
      bitmap[i >> 3]! |= 1 << (i & 7);
      put(a as never, i, v);
    }
  });
  return makeData({ type, length: n, nullCount: nulls, nullBitmap: bitmap, data: a } as never);
}

const DOUBLES = [NaN, Infinity, -Infinity, -0, 0, 5e-324, -1.7976931348623157e308, 0.1, 1 / 3, 123456789.125, -2.5e-7];
const INT64S = [9223372036854775807n, -9223372036854775808n, 0n, -1n, 9007199254740993n];

/** A random table of `rows` rows in batches of `batch` rows, its first rows the edge cases. */
function randomTable(seed: number, rows: number, batch: number): Table {
  const r = rng(seed);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const maybe = <T,>(v: T): T | null => (r() < 0.1 ? null : v);
  const s = Array.from({ length: rows }, (_, i) => (i < FIRST.length ? FIRST[i]! : randomString(r)));
  const s2 = Array.from({ length: rows }, () => randomString(r));
  const i32 = Array.from({ length: rows }, () => maybe(r() < 0.2 ? pick([2147483647, -2147483648, 0]) : Math.floor((r() - 0.5) * 2 ** 32)));
  const i64 = Array.from({ length: rows }, () => maybe(r() < 0.3 ? pick(INT64S) : BigInt(Math.floor((r() - 0.5) * 2 ** 53)) * 1024n + BigInt(Math.floor(r() * 1024))));
  const f64 = Array.from({ length: rows }, () => maybe(r() < 0.4 ? pick(DOUBLES) : (r() - 0.5) * 10 ** Math.floor(r() * 40 - 20)));
  // dates 0001-01-01 .. 9999-12-31 (days since 1970)
  const days = Array.from({ length: rows }, () => maybe(Math.floor(-719162 + r() * (2932896 + 719162))));
  const dec = Array.from({ length: rows }, () => maybe((BigInt(Math.floor((r() - 0.5) * 2 ** 52)) * 1000n + BigInt(Math.floor(r() * 1000))) % 10n ** 18n));
  const flag = Array.from({ length: rows }, () => maybe(r() < 0.5));
  const ts = Array.from({ length: rows }, () => maybe(BigInt(Math.floor((r() - 0.5) * 2e16))));

  const fields = [
    new Field('s', new Utf8(), true),
    new Field('s2', new Utf8(), true),
    new Field('i', new Int32(), true),
    new Field('b', new Int64(), true),
    new Field('f', new Float64(), true),
    new Field('d', new DateDay(), true),
    new Field('dec', new Decimal(3, 18, 128), true),
    new Field('flag', new Bool(), true),
    new Field('ts', new TimestampMicrosecond(), true),
  ];
  const schema = new Schema(fields);
  const batches: RecordBatch[] = [];
  for (let start = 0; start < rows; start += batch) {
    const end = Math.min(rows, start + batch);
    const part = <T,>(xs: readonly T[]): T[] => xs.slice(start, end);
    const bools = part(flag);
    const children: Data[] = [
      vectorFromArray(part(s), new Utf8()).data[0]!,
      vectorFromArray(part(s2), new Utf8()).data[0]!,
      fixed(new Int32(), part(i32), (n) => new Int32Array(n), (a: Int32Array, i, v: number) => (a[i] = v)),
      fixed(new Int64(), part(i64), (n) => new BigInt64Array(n), (a: BigInt64Array, i, v: bigint) => (a[i] = v)),
      fixed(new Float64(), part(f64), (n) => new Float64Array(n), (a: Float64Array, i, v: number) => (a[i] = v)),
      fixed(new DateDay(), part(days), (n) => new Int32Array(n), (a: Int32Array, i, v: number) => (a[i] = v)),
      fixed(new Decimal(3, 18, 128), part(dec), (n) => new Uint32Array(4 * n), (a: Uint32Array, i, v: bigint) => {
        let x = BigInt.asUintN(128, v);
        for (let k = 0; k < 4; k++, x >>= 32n) a[4 * i + k] = Number(x & 0xffffffffn);
      }),
      fixed(new Bool(), bools, (n) => new Uint8Array((n + 7) >> 3), (a: Uint8Array, i, v: boolean) => {
        if (v) a[i >> 3]! |= 1 << (i & 7);
      }),
      fixed(new TimestampMicrosecond(), part(ts), (n) => new BigInt64Array(n), (a: BigInt64Array, i, v: bigint) => (a[i] = v)),
    ];
    batches.push(new RecordBatch(schema, makeData({ type: new Struct(fields), length: end - start, nullCount: 0, children })));
  }
  return new Table(schema, batches);
}

function expectSame(actual: Table, expected: Table, what: string): void {
  const r = compareResults(actual, expected);
  expect(r.equal, `${what}\n${formatComparison(r)}`).toBe(true);
  expect(orderDifference(actual, expected), what).toBeNull();
}

const FORMATS = ['csv', 'parquet', 'arrow'] as const;

describe('every writer writes every value it accepts exactly', () => {
  it('a U+FEFF first value, and the U+FEFF value alone, survive each writer and DuckDB', async () => {
    const t = new Table({ s: vectorFromArray(['\uFEFFa', '\uFEFF', 'b\uFEFFc', '', null], new Utf8()) });
    for (const ext of FORMATS) {
      const path = join(dir, `bom.${ext}`);
      await writeBatches(path, t.schema, t.batches);
      const back = await readWrittenFile(duck, path, t.schema);
      const d = back.getChildAt(0)!.data[0]!;
      // the text as its bytes say (Arrow's own getter would drop the U+FEFF)
      expect(Array.from({ length: d.length }, (_, i) => (d.getValid(i) ? utf8At(d, i) : null)), ext).toEqual(['\uFEFFa', '\uFEFF', 'b\uFEFFc', '', null]);
      expectSame(back, t, ext);
    }
  });

  it('a column name that starts with U+FEFF, first in the file, survives CSV and Parquet', async () => {
    // (Arrow IPC: apache-arrow's reader decodes field names with flatbuffers' TextDecoder, which
    // drops it on read; the file itself holds it)
    const t = new Table({ '\uFEFFs': vectorFromArray(['\uFEFFx', 'y'], new Utf8()) });
    for (const ext of ['csv', 'parquet']) {
      const path = join(dir, `bom-name.${ext}`);
      await writeBatches(path, t.schema, t.batches);
      const back = await readWrittenFile(duck, path, t.schema);
      expect(back.schema.fields[0]!.name, ext).toBe('\uFEFFs');
      expectSame(back, t, ext);
    }
    const own = await readCsvFile(join(dir, 'bom-name.csv'));
    expect(own.schema.fields[0]!.name).toBe('\uFEFFs');
    expectSame(own, t, 'csv read by joinlab');
  });

  for (const seed of [1, 2, 3]) {
    it(`random strings, numbers, dates, decimals, booleans, timestamps (seed ${seed})`, async () => {
      const t = randomTable(seed, 400, 150);
      for (const ext of FORMATS) {
        const path = join(dir, `rand${seed}.${ext}`);
        expect(await writeBatches(path, t.schema, t.batches)).toBe(400);
        expectSame(await readWrittenFile(duck, path, t.schema), t, `${ext}, seed ${seed}, read by DuckDB`);
        if (ext === 'arrow') {
          await duck.loadTable('back', await readTable(path));
          expectSame(await duck.query('SELECT * FROM back'), t, `arrow, seed ${seed}, through DuckDB's loader`);
        }
        if (ext === 'csv') {
          // joinlab's own reader: the types it cannot infer exactly (Decimal) are left out
          const types = { s: 'VARCHAR', s2: 'VARCHAR', i: 'INTEGER', b: 'BIGINT', f: 'DOUBLE', d: 'DATE', flag: 'BOOLEAN', ts: 'TIMESTAMP' } as const;
          const own = await readCsvFile(path, { types, batchSize: 97 });
          const keep = [0, 1, 2, 3, 4, 5, 7, 8];
          expectSame(own.selectAt(keep), t.selectAt(keep), `csv, seed ${seed}, read by joinlab`);
        }
      }
    });
  }
});

describe('dates and timestamps at the ends of their ranges', () => {
  it("years before 0 and past 9999, DuckDB's extremes and the infinities, through every writer", async () => {
    // DuckDB's DATE runs from 5877642-06-25 (BC) to 5881580-07-10, its TIMESTAMP from
    // 290309-12-22 (BC) to 294247-01-10 04:00:54.775806; ±INT32_MAX / ±INT64_MAX are ±infinity
    const days = [-719529, -719163, -800000, 2932896, 2932897, 3000000, -2147483646, 2147483646, 2147483647, -2147483647, 0];
    const us = [-62135596800000001n, 253402300800000000n, -9223372022400000000n, 9223372036854775806n, 9223372036854775807n, -9223372036854775807n, -69119996276500000n, 1n, -1n, 0n, 0n];
    const n = days.length;
    const fields = [new Field('d', new DateDay(), true), new Field('ts', new TimestampMicrosecond(), true)];
    const schema = new Schema(fields);
    const batch = new RecordBatch(schema, makeData({
      type: new Struct(fields),
      length: n,
      nullCount: 0,
      children: [makeData({ type: new DateDay(), length: n, data: Int32Array.from(days) }), makeData({ type: new TimestampMicrosecond(), length: n, data: BigInt64Array.from(us) })],
    }));
    const t = new Table([batch]);
    for (const ext of FORMATS) {
      const path = join(dir, `ends.${ext}`);
      await writeBatches(path, schema, [batch]);
      expectSame(await readWrittenFile(duck, path, schema), t, `${ext}, read by DuckDB`);
    }
    expectSame(await readCsvFile(join(dir, 'ends.csv'), { types: { d: 'DATE', ts: 'TIMESTAMP' } }), t, 'csv, read by joinlab');
  });
});

/** A Utf8 column whose values are the given byte strings (no NULLs). */
function bytesColumn(values: readonly number[][]): Table {
  const offsets = new Int32Array(values.length + 1);
  values.forEach((v, i) => (offsets[i + 1] = offsets[i]! + v.length));
  const data = makeData({ type: new Utf8(), length: values.length, nullCount: 0, valueOffsets: offsets, data: Uint8Array.from(values.flat()) });
  const fields = [new Field('s', new Utf8(), false)];
  return new Table(new Schema(fields), [new RecordBatch(new Schema(fields), makeData({ type: new Struct(fields), length: values.length, nullCount: 0, children: [data] }))]);
}

describe('string bytes that are not UTF-8', () => {
  it('a JS string with a lone surrogate is U+FFFD once in an Arrow vector (it never reaches a writer)', () => {
    const v = vectorFromArray(['a\uD800b', '\uDC00'], new Utf8());
    expect([...v]).toEqual(['a\uFFFDb', '\uFFFD']);
  });

  const CASES: [string, number[][], number][] = [
    ['a UTF-16 surrogate encoded as UTF-8 (WTF-8 / CESU)', [[0x61], [0xed, 0xa0, 0x80]], 1],
    ['a byte that is never UTF-8', [[0x61], [0x62], [0xff]], 2],
    ['a character split across two values', [[0x61, 0xc3], [0xa9, 0x62]], 0],
  ];
  for (const [what, values, row] of CASES) {
    it(`are refused by every writer, typed, leaving no file: ${what}`, async () => {
      const t = bytesColumn(values);
      for (const ext of FORMATS) {
        const path = join(dir, `bad-${row}.${ext}`);
        const err = await writeBatches(path, t.schema, t.batches).catch((e: unknown) => e);
        expect(err, ext).toBeInstanceOf(InvalidUtf8Error);
        expect((err as InvalidUtf8Error).row, ext).toBe(row);
        expect(existsSync(path), ext).toBe(false);
      }
    });
  }
});
