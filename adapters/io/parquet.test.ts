import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Binary,
  Bool,
  DataType,
  DateDay,
  Decimal,
  Dictionary,
  Field,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  LargeUtf8,
  makeData,
  makeVector,
  Schema,
  Table,
  Timestamp,
  TimeUnit,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
  vectorFromArray,
  type Vector,
} from 'apache-arrow';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorruptFileError, FileNotFoundError, MissingColumnError, UsageError } from '../../core/errors.ts';
import type { ColumnStats } from '../../core/scan/scan.ts';
import { zoneMapOf } from '../../core/scan/zone-map.ts';
import { formatDate, formatDecimal, formatTimestamp } from './csv.ts';
import { encodeParquet, ParquetFileHandle, readParquetFile, writeParquetFile } from './parquet.ts';

let dir: string;
let duck: DuckDBInstance;
let con: DuckDBConnection;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-parquet-'));
  duck = await DuckDBInstance.create(':memory:');
  con = await duck.connect();
});

afterAll(async () => {
  con.closeSync();
  duck.closeSync();
  await rm(dir, { recursive: true, force: true });
});

function bitmap(valid: boolean[]): Uint8Array {
  const bm = new Uint8Array((valid.length + 7) >> 3);
  valid.forEach((v, i) => {
    if (v) bm[i >> 3]! |= 1 << (i & 7);
  });
  return bm;
}

/** A column with NULLs where `valid` is false, built from raw typed values. */
function raw(type: DataType, values: ArrayLike<unknown>, valid: boolean[]): Vector {
  return makeVector(
    makeData({
      type,
      length: valid.length,
      nullCount: valid.filter((v) => !v).length,
      nullBitmap: bitmap(valid),
      data: values,
    } as never),
  );
}

/** Every key type DESIGN.md lists, with NULLs, extremes, NaN, -0.0 and astral strings. */
function allTypes(n: number): Table {
  const valid = Array.from({ length: n }, (_, i) => i % 5 !== 2);
  const pick = <T>(f: (i: number) => T) => Array.from({ length: n }, (_, i) => (valid[i] ? f(i) : null));
  const i64 = BigInt64Array.from({ length: n }, (_, i) => (i === 0 ? -(2n ** 63n) : i === 1 ? 2n ** 63n - 1n : BigInt(i) * 1_000_000_007n - 7n));
  const u64 = BigUint64Array.from({ length: n }, (_, i) => (i === 0 ? 2n ** 64n - 1n : BigInt(i) * 3n));
  const ts = (unit: TimeUnit, tz: string | null) =>
    raw(new Timestamp(unit, tz), BigInt64Array.from({ length: n }, (_, i) => BigInt(i - 7) * 1_234_567_891n), valid);
  const dec = new Uint32Array(n * 4);
  for (let i = 0; i < n; i++) {
    let u = BigInt.asUintN(128, BigInt(i - 9) * 10n ** 30n + BigInt(i));
    for (let w = 0; w < 4; w++) {
      dec[i * 4 + w] = Number(u & 0xffffffffn);
      u >>= 32n;
    }
  }
  return new Table({
    i8: vectorFromArray(pick((i) => ((i * 37) % 256) - 128), new Int8()),
    i16: vectorFromArray(pick((i) => i * 1000 - 16000), new Int16()),
    i32: vectorFromArray(pick((i) => (i % 2 ? -1 : 1) * i * 100_000_000), new Int32()),
    i64: raw(new Int64(), i64, valid),
    u8: vectorFromArray(pick((i) => (i * 11) % 256), new Uint8()),
    u16: vectorFromArray(pick((i) => (i * 4099) % 65536), new Uint16()),
    u32: vectorFromArray(pick((i) => (i * 2_654_435_761) % 2 ** 32), new Uint32()),
    u64: raw(new Uint64(), u64, valid),
    f32: vectorFromArray(pick((i) => (i === 3 ? NaN : i === 4 ? -0 : i / 8)), new Float32()),
    f64: vectorFromArray(pick((i) => (i === 3 ? NaN : i === 4 ? -0 : i === 6 ? -Infinity : i / 3)), new Float64()),
    bool: vectorFromArray(pick((i) => i % 3 === 0), new Bool()),
    utf8: vectorFromArray(pick((i) => (i === 0 ? '' : i % 4 === 1 ? `😀${i}` : `s${i}é`)), new Utf8()),
    large: vectorFromArray(pick((i) => `L${i}`), new LargeUtf8()),
    bin: vectorFromArray(pick((i) => Uint8Array.from({ length: i % 4 }, (_, j) => (i * 31 + j) & 255)), new Binary()),
    date: raw(new DateDay(), Int32Array.from({ length: n }, (_, i) => i * 1000 - 5000), valid),
    ts_s: ts(TimeUnit.SECOND, null),
    ts_ms: ts(TimeUnit.MILLISECOND, null),
    ts_us: ts(TimeUnit.MICROSECOND, null),
    ts_ns: ts(TimeUnit.NANOSECOND, null),
    ts_tz: ts(TimeUnit.MICROSECOND, 'UTC'),
    dec: raw(new Decimal(3, 38, 128), dec, valid),
    dict: vectorFromArray(pick((i) => ['red', 'green', 'blue'][i % 3]!), new Dictionary(new Utf8(), new Int32())),
  });
}

/** Row values of a column, timestamps as raw bigints (get() would round them to ms). */
function cells(t: Table, name: string): unknown[] {
  const v = t.getChild(name)!;
  if (!DataType.isTimestamp(v.type)) return [...v];
  const out: unknown[] = [];
  for (const d of v.data) {
    const vals = d.values as BigInt64Array;
    for (let i = 0; i < d.length; i++) out.push(d.getValid(i) ? vals[i] : null);
  }
  return out;
}

describe('Parquet round trip', () => {
  it('keeps every DESIGN.md type (ints, uints, floats, bool, utf8, binary, date32, timestamps, decimal128, dictionary strings)', async () => {
    const t = allTypes(37);
    const path = join(dir, 'all.parquet');
    await writeParquetFile(path, t, { rowGroupSize: 10 });
    const back = await readParquetFile(path);
    expect(back.numRows).toBe(37);
    expect(back.schema.fields.map((f) => `${f.name}: ${f.type}`)).toEqual(t.schema.fields.map((f) => `${f.name}: ${f.type}`));
    for (const f of t.schema.fields) expect(cells(back, f.name), f.name).toEqual(cells(t, f.name));
    // -0.0 survives bit-exactly
    expect(Object.is(back.getChild('f64')!.get(4), -0)).toBe(true);
  });

  it('documents what other readers see: timestamp[s] is a bare INT64 without the embedded Arrow schema', async () => {
    const path = join(dir, 'all-duck.parquet');
    await writeParquetFile(path, allTypes(10));
    const r = await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${path}')`);
    const types = Object.fromEntries(r.getRowsJson().map((row) => [String(row[0]), String(row[1])]));
    expect(types).toMatchObject({
      ts_s: 'BIGINT', // parquet-rs writes seconds with no TIMESTAMP annotation
      ts_ms: 'TIMESTAMP', // DuckDB widens TIMESTAMP(MILLIS) to microseconds
      ts_us: 'TIMESTAMP',
      ts_ns: 'TIMESTAMP_NS',
      ts_tz: 'TIMESTAMP WITH TIME ZONE',
      dict: 'VARCHAR',
      u64: 'UBIGINT',
      dec: 'DECIMAL(38,3)',
      date: 'DATE',
    });
  });

  it('keeps per-batch dictionaries of a multi-batch table', async () => {
    const type = new Dictionary(new Utf8(), new Int32(), 7);
    const a = new Table({ d: vectorFromArray(['x', 'y', 'x'], type) });
    const b = new Table({ d: vectorFromArray(['q', null, 'x', 'z'], type) });
    const t = new Table([...a.batches, ...b.batches]);
    const path = join(dir, 'dicts.parquet');
    await writeParquetFile(path, t, { rowGroupSize: 2 });
    expect([...(await readParquetFile(path)).getChild('d')!]).toEqual(['x', 'y', 'x', 'q', null, 'x', 'z']);
  });

  it('writes and reads an empty table', async () => {
    const t = new Table(new Schema([new Field('k', new Int32(), true), new Field('s', new Utf8(), true)]));
    const path = join(dir, 'empty.parquet');
    await writeParquetFile(path, t);
    const h = await ParquetFileHandle.open(path);
    expect(h.numRows).toBe(0);
    expect(h.rowGroups).toHaveLength(0);
    const back = await readParquetFile(path);
    expect(back.numRows).toBe(0);
    expect(back.schema.fields.map(String)).toEqual(['k: Int32', 's: Utf8']);
  });

  it.each(['uncompressed', 'snappy', 'gzip', 'brotli', 'lz4', 'zstd'] as const)('compression %s', async (compression) => {
    const t = allTypes(20);
    const path = join(dir, `c-${compression}.parquet`);
    await writeParquetFile(path, t, { compression });
    expect(cells(await readParquetFile(path), 'utf8')).toEqual(cells(t, 'utf8'));
  });
});

describe('ParquetFileHandle', () => {
  let path: string;
  beforeAll(async () => {
    path = join(dir, 'handle.parquet');
    await writeParquetFile(path, allTypes(50), { rowGroupSize: 10 });
  });

  it('exposes schema, row counts and sizes from the footer', async () => {
    const h = await ParquetFileHandle.open(path);
    expect(h.numRows).toBe(50);
    expect(h.rowGroups.map((r) => r.numRows)).toEqual([10, 10, 10, 10, 10]);
    expect(h.schema.fields.length).toBe(22);
    for (const rg of h.rowGroups) {
      let sum = 0;
      for (const c of h.columnNames) sum += rg.columnBytes(c);
      expect(sum).toBe(rg.uncompressedBytes);
      expect(rg.columnBytes('nope')).toBe(0);
    }
  });

  it('decodes only the requested columns, in the requested order, without fallbacks', async () => {
    const h = await ParquetFileHandle.open(path);
    const d = await h.decodeRowGroups([3, 1], ['dict', 'i64', 'ts_s']);
    expect(d.columns).toEqual(['i64', 'ts_s', 'dict']); // file order
    expect(d.batches.flatMap((b) => b.schema.fields.map((f) => f.name))).toEqual(['i64', 'ts_s', 'dict']);
    const rb = await h.readRowGroups([3, 1], ['dict', 'i64', 'ts_s']);
    expect(rb[0]!.schema.fields.map((f) => `${f.name}: ${f.type}`)).toEqual([
      'dict: Dictionary<Int32, Utf8>',
      'i64: Int64',
      'ts_s: Timestamp<SECOND>',
    ]);
    const all = await readParquetFile(path);
    const got = new Table(rb);
    expect([...got.getChild('i64')!]).toEqual([...all.getChild('i64')!].slice(30, 40).concat([...all.getChild('i64')!].slice(10, 20)));
    expect(h.fallbackDecodes).toBe(0);
  });

  it('zero requested columns still reports the row counts', async () => {
    const h = await ParquetFileHandle.open(path);
    const d = await h.decodeRowGroups([0, 4], []);
    expect(d.columns).toEqual([]);
    expect(d.batches.map((b) => b.numRows)).toEqual([10, 10]);
  });

  it('row-group statistics equal the zone maps of the decoded row group (StatValue convention)', async () => {
    const h = await ParquetFileHandle.open(path);
    for (const rg of h.rowGroups) {
      const [batch] = await h.readRowGroups([rg.index]);
      const zm = zoneMapOf(batch!);
      for (const name of h.columnNames) {
        const s = rg.columnStats(name);
        const z = zm.column(name)!;
        expect(s, `${name} rg ${rg.index}`).toBeDefined();
        if (name === 'f32' || name === 'f64') {
          expect(s!.max).toBeNaN(); // Parquet min/max leave NaN out: the upper bound must stay open
          expect(s!.min).toEqual(Number.isNaN(z.min) ? expect.anything() : z.min);
          expect(s!.nullCount).toBe(z.nullCount);
        } else {
          expect(s, `${name} rg ${rg.index}`).toEqual(z);
        }
      }
    }
  });

  it('stats types follow the StatValue convention', async () => {
    const h = await ParquetFileHandle.open(path);
    const s = (c: string): ColumnStats => h.rowGroups[0]!.columnStats(c)!;
    expect(typeof s('i32').min).toBe('number');
    expect(typeof s('u32').min).toBe('number');
    expect(typeof s('date').min).toBe('number');
    expect(typeof s('i64').min).toBe('bigint');
    expect(s('i64').min).toBe(-(2n ** 63n));
    expect(s('i64').max).toBeGreaterThan(0n);
    expect(s('u64').max).toBe(2n ** 64n - 1n);
    for (const c of ['ts_s', 'ts_ms', 'ts_us', 'ts_ns', 'ts_tz', 'dec']) expect(typeof s(c).min, c).toBe('bigint');
    expect(s('ts_s').min).toBe(-7n * 1_234_567_891n);
    expect(typeof s('utf8').min).toBe('string');
    expect(typeof s('dict').min).toBe('string');
    expect(s('bin').min).toBeInstanceOf(Uint8Array);
    expect(typeof s('bool').min).toBe('boolean');
    expect(h.rowGroups[0]!.columnStats('nope')).toBeUndefined();
  });

  it('missing column -> MissingColumnError; row group out of range -> UsageError', async () => {
    const h = await ParquetFileHandle.open(path);
    await expect(h.decodeRowGroups([0], ['nope'])).rejects.toBeInstanceOf(MissingColumnError);
    await expect(h.decodeRowGroups([5])).rejects.toBeInstanceOf(UsageError);
    await expect(h.decodeRowGroups([-1])).rejects.toBeInstanceOf(UsageError);
    // still usable afterwards
    expect((await h.readRowGroups([4], ['i8']))[0]!.numRows).toBe(10);
  });

  it('readParquetFile selects row groups and columns', async () => {
    const t = await readParquetFile(path, { rowGroups: [2], columns: ['utf8', 'i8'] });
    expect(t.numRows).toBe(10);
    expect(t.schema.fields.map((f) => f.name)).toEqual(['utf8', 'i8']);
  });
});

describe('statistics of DuckDB-written files', () => {
  let path: string;
  beforeAll(async () => {
    path = join(dir, 'duck.parquet');
    await con.run(`COPY (
      SELECT i::BIGINT AS k, (i % 1000 - 500)::INTEGER AS i32, (i * 7 % 10000)::UINTEGER AS u32,
             CASE WHEN i % 5 = 0 THEN NULL ELSE 'v' || (i * 13 % 1000) END AS s,
             DATE '2001-03-04' + (i % 400)::INTEGER AS d,
             TIMESTAMP '2020-01-01 00:00:00' + INTERVAL (i * 37) SECOND AS ts,
             ((i - 5000) / 8)::DECIMAL(18,3) AS dec18, ((i - 5000) * 1234567.891)::DECIMAL(38,4) AS dec38,
             CASE WHEN i = 7 THEN 'NaN'::DOUBLE ELSE i / 3 END AS f, NULL::INTEGER AS nul
      FROM range(10000) t(i)) TO '${path}' (FORMAT parquet, ROW_GROUP_SIZE 100)`);
  });

  it('every row group min/max matches DuckDB parquet_metadata and the decoded data', async () => {
    const h = await ParquetFileHandle.open(path);
    expect(h.rowGroups.length).toBeGreaterThan(1);
    const r = await con.runAndReadAll(
      `SELECT row_group_id, path_in_schema, stats_min_value, stats_max_value, stats_null_count, stats_distinct_count FROM parquet_metadata('${path}')`,
    );
    const meta = r.getRowObjectsJson();
    expect(meta.length).toBe(h.rowGroups.length * 10);
    const fmt = (name: string, v: unknown): string | null => {
      if (v === null) return null;
      switch (name) {
        case 'd':
          return formatDate(v as number);
        case 'ts':
          return formatTimestamp(v as bigint, TimeUnit.MICROSECOND, false).replace('T', ' ');
        case 'dec18':
          return formatDecimal(v as bigint, 3);
        case 'dec38':
          return formatDecimal(v as bigint, 4);
        default:
          return String(v);
      }
    };
    let checked = 0;
    for (const row of meta) {
      const rg = h.rowGroups[Number(row.row_group_id)]!;
      const name = String(row.path_in_schema);
      const s = rg.columnStats(name);
      if (name === 'f') {
        // DuckDB drops min/max of a chunk holding NaN; elsewhere we keep min and open max.
        if (row.stats_min_value === null) expect(s).toBeUndefined();
        else expect(s!.max).toBeNaN();
        continue;
      }
      expect(s, `${name}@${row.row_group_id}`).toBeDefined();
      expect(fmt(name, s!.min)).toBe(row.stats_min_value);
      expect(fmt(name, s!.max)).toBe(row.stats_max_value);
      expect(s!.nullCount).toBe(Number(row.stats_null_count));
      // the footer's distinct count (DuckDB writes one for dictionary-encoded chunks) comes through
      expect(s!.distinctCount ?? null, `${name}@${row.row_group_id} distinct`).toBe(row.stats_distinct_count === null ? null : Number(row.stats_distinct_count));
      checked++;
    }
    expect(checked).toBe(h.rowGroups.length * 9);
    for (const rg of h.rowGroups) {
      const [batch] = await h.readRowGroups([rg.index]);
      const zm = zoneMapOf(batch!);
      for (const name of ['k', 'i32', 'u32', 's', 'd', 'ts', 'dec18', 'dec38', 'nul']) {
        // the zone map has no distinct count (the footer's is checked above)
        const { distinctCount: _, ...footer } = rg.columnStats(name) ?? {};
        expect(footer, `${name}@${rg.index}`).toEqual(zm.column(name) ?? {});
      }
    }
    expect(h.fallbackDecodes).toBe(0);
  });
});

describe('bad files', () => {
  let good: Uint8Array;
  beforeAll(async () => {
    good = encodeParquet(allTypes(30), { rowGroupSize: 10 });
  });

  async function put(name: string, bytes: Uint8Array): Promise<string> {
    const p = join(dir, name);
    await writeFile(p, bytes);
    return p;
  }

  it('missing file -> FileNotFoundError', async () => {
    await expect(ParquetFileHandle.open(join(dir, 'nope.parquet'))).rejects.toBeInstanceOf(FileNotFoundError);
    await expect(readParquetFile(join(dir, 'nope', 'x.parquet'))).rejects.toBeInstanceOf(FileNotFoundError);
  });

  it.each([
    ['empty', () => new Uint8Array(0)],
    ['truncated (half)', () => good.subarray(0, good.length >> 1)],
    ['truncated (last byte)', () => good.subarray(0, good.length - 1)],
    ['garbage', () => Uint8Array.from({ length: 5000 }, (_, i) => (i * 7919) & 255)],
    ['CSV text', () => new TextEncoder().encode('a,b\n1,2\n')],
    ['bad start magic', () => Uint8Array.from(good, (b, i) => (i < 4 ? 0 : b))],
    [
      'garbled footer',
      () => {
        const b = good.slice();
        const len = new DataView(b.buffer).getUint32(b.length - 8, true);
        for (let i = b.length - 8 - len; i < b.length - 8; i++) b[i] = (i * 131) & 255;
        return b;
      },
    ],
  ])('%s -> CorruptFileError naming the file', async (name, bytes) => {
    const p = await put(`bad-${name.replace(/\W+/g, '-')}.parquet`, bytes());
    const err = await ParquetFileHandle.open(p).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CorruptFileError);
    expect((err as Error).message).toContain(p);
  });

  it('corrupt column chunks -> CorruptFileError on decode (no wasm crash), file still usable elsewhere', async () => {
    const b = good.slice();
    const len = new DataView(b.buffer).getUint32(b.length - 8, true);
    for (let i = 4; i < b.length - 8 - len; i++) b[i] = 0xff;
    const p = await put('bad-pages.parquet', b);
    const h = await ParquetFileHandle.open(p); // the footer is intact
    expect(h.numRows).toBe(30);
    const err = await h.decodeRowGroups([1], ['i32', 'utf8']).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CorruptFileError);
    expect((err as Error).message).toContain(p);
    expect((err as Error).message).toMatch(/do not decode \(column '\w+' of row group 1\)/);
    // the wasm module survived the failure
    const ok = await ParquetFileHandle.open(await put('ok-after.parquet', good));
    expect((await ok.readRowGroups([2], ['i32']))[0]!.numRows).toBe(10);
  });

  /** Messages that leak decoder internals instead of saying what is wrong with the file. */
  const INTERNALS = /Cannot (read|destructure) propert|is not a function|undefined|\(reading '|must be an instance of/;

  /** Opens `bytes` as a file and decodes every row group: null when that works, else the error. */
  async function openAndDecode(name: string, bytes: Uint8Array): Promise<unknown> {
    const p = await put(name, bytes);
    try {
      const h = await ParquetFileHandle.open(p);
      await h.decodeRowGroups(h.rowGroups.map((_, i) => i));
      return null;
    } catch (e) {
      return e;
    }
  }

  it('a footer length that does not fit says how many bytes precede it (the 8-byte trailer counted)', async () => {
    const b = good.slice();
    const claimed = b.length - 4; // < the file size, but more than fits before the trailer
    new DataView(b.buffer).setUint32(b.length - 8, claimed, true);
    const e = await openAndDecode('bad-footer-length.parquet', b);
    expect(e).toBeInstanceOf(CorruptFileError);
    expect((e as Error).message).toContain(`footer length field claims ${claimed} bytes, but only ${b.length - 8} precede it (${b.length - 12} after the leading PAR1 magic)`);
  });

  /** A small DuckDB-written and a small joinlab-written file (every offset is tried on them). */
  async function smallFile(writer: string): Promise<Uint8Array> {
    if (writer === 'joinlab') return encodeParquet(allTypes(6).select(['i64', 'dict']), { rowGroupSize: 3 });
    const src = join(dir, 'small-duckdb.parquet');
    await con.run(`COPY (SELECT range AS k, 'v' || range AS s, range * 0.5 AS d FROM range(40)) TO '${src}' (FORMAT parquet, ROW_GROUP_SIZE 16)`);
    return new Uint8Array(await readFile(src));
  }

  it.each([['DuckDB'], ['joinlab']])('a %s-written file cut, or missing one byte, at every offset -> CorruptFileError saying what is wrong', async (writer) => {
    const bytes = await smallFile(writer.toLowerCase());
    for (let n = 0; n < bytes.length; n++) {
      for (const [how, b] of [
        ['cut', bytes.subarray(0, n)],
        ['one byte removed', new Uint8Array([...bytes.subarray(0, n), ...bytes.subarray(n + 1)])],
      ] as const) {
        const e = await openAndDecode('cut.parquet', b);
        // Without page checksums a page shifted by one byte can still decode (to other values), and
        // a byte nothing refers to (the page index) can go unnoticed: only a cut must always fail.
        if (e === null && how === 'one byte removed') continue;
        expect(e, `${how} at ${n} of ${bytes.length}`).toBeInstanceOf(CorruptFileError);
        expect((e as Error).message, `${how} at ${n}`).toContain('cut.parquet');
        expect((e as Error).message, `${how} at ${n}`).not.toMatch(INTERNALS);
      }
    }
  });

  it.each([['DuckDB'], ['joinlab']])('a %s-written file with any footer byte changed -> reads, or CorruptFileError naming the footer field or position', async (writer) => {
    const bytes = await smallFile(writer.toLowerCase());
    const len = new DataView(bytes.buffer, bytes.byteOffset).getUint32(bytes.length - 8, true);
    for (let n = bytes.length - 8 - len; n < bytes.length; n++) {
      for (const v of [0x00, 0xff]) {
        const b = bytes.slice();
        b[n] = b[n] === v ? v ^ 0x55 : v;
        const e = await openAndDecode('flip.parquet', b);
        if (e === null) continue; // e.g. a statistics byte: the file is still well-formed
        expect(e, `byte ${n} := ${v}`).toBeInstanceOf(CorruptFileError);
        expect((e as Error).message, `byte ${n} := ${v}`).not.toMatch(INTERNALS);
      }
    }
  });

  it('a directory -> CorruptFileError', async () => {
    const d = join(dir, 'adir.parquet');
    await mkdir(d);
    await expect(ParquetFileHandle.open(d)).rejects.toBeInstanceOf(CorruptFileError);
  });

  it('a failed write leaves no output and no temp file', async () => {
    const sub = join(dir, 'missing-dir', 'out.parquet');
    await expect(writeParquetFile(sub, allTypes(3))).rejects.toBeInstanceOf(FileNotFoundError);
    const before = await readdir(dir);
    await expect(writeParquetFile(join(dir, 'bad-rgs.parquet'), allTypes(3), { rowGroupSize: 0 })).rejects.toBeInstanceOf(
      UsageError,
    );
    const after = await readdir(dir);
    expect(after).toEqual(before);
    expect(after.some((f) => f.includes('.tmp-'))).toBe(false);
  });

  it('a written file is byte-identical to encodeParquet', async () => {
    const t = allTypes(12);
    const p = join(dir, 'same.parquet');
    await writeParquetFile(p, t, { rowGroupSize: 5 });
    expect(new Uint8Array(await readFile(p))).toEqual(encodeParquet(t, { rowGroupSize: 5 }));
  });
});
