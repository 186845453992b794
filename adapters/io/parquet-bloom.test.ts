/**
 * Parquet Bloom-filter pruning against files DuckDB writes (its filters, its hashes), joined
 * through the library API and checked against DuckDB's answer; the encoding rules value by value
 * (no false negative over every column type DuckDB writes filters for); DuckDB's own
 * `parquet_bloom_probe` as a second reader of the same filters; corrupt filter locations.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { Binary, DataType, Decimal, Float64, Int64, Table, TimeUnit, Timestamp, Utf8, vectorFromArray, type RecordBatch } from 'apache-arrow';
import type { SchemaElement } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Engine } from '../../composition.ts';
import { normalizeKeys } from '../../core/keys/normalize.ts';
import { keyKindOf, resolveKeyKind } from '../../core/keys/resolve.ts';
import type { KeyKind, KeyValue } from '../../core/keys/types.ts';
import { keyValueAt } from '../../core/scan/key-stats.ts';
import { DynamicFilter, type ExactValueSet, type ScanPredicate } from '../../core/scan/scan.ts';
import { bloomHashes, mayContainAnyHash, plainEncoder } from './parquet-bloom.ts';
import { footerTail, parseFooter } from './parquet-footer.ts';
import { ParquetFileHandle, readParquetFile } from './parquet.ts';
import { ParquetScan } from './parquet-scan.ts';
import { T_I32, T_I64, T_LIST, T_STRUCT, ThriftWriter, ti64, tlist, tstruct, twith, type TStruct } from './thrift.ts';

const RG_ROWS = 10240;
const ROWS = 200_000; // 20 row groups, the last of 5440 rows
const utf8 = new TextEncoder();

let dir: string;
let duck: DuckDBInstance;
let con: DuckDBConnection;
/** k BIGINT and s VARCHAR, unsorted, ~800 distinct values per row group (dictionary-encoded: DuckDB writes filters). */
let bloomPath: string;
/** The same rows with `WRITE_BLOOM_FILTER false`. */
let plainPath: string;
/** One column per type DuckDB writes filters for (200 distinct values, 3 row groups). */
let typesPath: string;

/**
 * Row i is in row group i // 10240 (one thread, insertion order). A key of row group r is
 * 2 * (r + 20 m), m < 800: even, and found in no other row group; every 5000th row holds 100000
 * (k) / 'everywhere' (s), found in every row group.
 */
const DATA = `SELECT
  (CASE WHEN i % 5000 = 17 THEN 100000 ELSE 2 * ((i // ${RG_ROWS}) + 20 * (hash(i) % 800)) END)::BIGINT AS k,
  CASE WHEN i % 5000 = 17 THEN 'everywhere' ELSE 'v' || ((i // ${RG_ROWS}) + 20 * (hash(i * 31 + 7) % 800))::VARCHAR END AS s,
  i::BIGINT AS id
  FROM range(${ROWS}) t(i) ORDER BY i`;

const TYPES = `SELECT (m - 100)::TINYINT AS i8, (m * 150 - 15000)::SMALLINT AS i16, (m::BIGINT * 20000000 - 2000000000)::INTEGER AS i32,
  (m::HUGEINT * 45000000000000000 - 4000000000000000000)::BIGINT AS i64, (m + 50)::UTINYINT AS u8, (m * 300)::USMALLINT AS u16,
  (m::BIGINT * 20000000)::UINTEGER AS u32, (m::HUGEINT * 90000000000000000)::UBIGINT AS u64,
  CASE WHEN m = 0 THEN '-0.0'::FLOAT ELSE (m / 3.0)::FLOAT END AS f,
  CASE WHEN m = 1 THEN '-0.0'::DOUBLE WHEN m = 2 THEN 0.0 ELSE m / 7.0 - 3 END AS d,
  ('2020-01-01'::DATE + (m - 100) * 37)::DATE AS dt,
  '2020-01-01'::TIMESTAMP + INTERVAL (m * 1234567) SECOND + INTERVAL (m * 13) MICROSECOND AS ts,
  ('2020-01-01'::TIMESTAMP + INTERVAL (m * 1234567) SECOND)::TIMESTAMP_MS AS ts_ms,
  '2020-01-01 00:00:00+00'::TIMESTAMPTZ + INTERVAL (m) HOUR AS tstz,
  (m * 1.37 - 50)::DECIMAL(9,2) AS dec9, (m * 1234567.891 - 9)::DECIMAL(18,3) AS dec18, (m * 1.5)::DECIMAL(4,1) AS dec4,
  'str' || m::VARCHAR || repeat('x', m % 40) AS s, ('blob' || m::VARCHAR)::BLOB AS b, m::HUGEINT * 1000000000000 AS h
  FROM (SELECT (hash(i) % 200)::INTEGER AS m FROM range(30000) t(i))`;

/** Columns of TYPES whose filters the rules cover, with the wider kinds a join may put them in. */
const WIDER: Record<string, DataType[]> = {
  i8: [new Int64()],
  i16: [new Int64()],
  i32: [new Int64()],
  i64: [],
  u8: [new Int64()],
  u16: [new Int64()],
  u32: [new Int64()],
  u64: [new Int64()], // HUGEINT
  f: [new Float64()],
  d: [],
  dt: [new Timestamp(TimeUnit.MICROSECOND)],
  ts: [new Timestamp(TimeUnit.NANOSECOND)],
  ts_ms: [new Timestamp(TimeUnit.MICROSECOND), new Timestamp(TimeUnit.NANOSECOND)],
  tstz: [new Timestamp(TimeUnit.NANOSECOND, 'UTC')],
  dec9: [new Decimal(5, 20, 128)],
  dec18: [new Decimal(6, 30, 128)],
  dec4: [new Int64()], // DECIMAL(19 + 1, 1)
  s: [new Binary()],
  b: [new Utf8()],
  h: [],
};

async function rows(sql: string): Promise<unknown[][]> {
  return (await con.runAndReadAll(sql)).getRowsJS() as unknown[][];
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-pbloom-'));
  duck = await DuckDBInstance.create(':memory:');
  con = await duck.connect();
  await con.run('SET threads TO 1');
  bloomPath = join(dir, 'bloom.parquet');
  plainPath = join(dir, 'plain.parquet');
  typesPath = join(dir, 'types.parquet');
  await con.run(`COPY (${DATA}) TO '${bloomPath}' (FORMAT parquet, ROW_GROUP_SIZE ${RG_ROWS})`);
  await con.run(`COPY (${DATA}) TO '${plainPath}' (FORMAT parquet, ROW_GROUP_SIZE ${RG_ROWS}, WRITE_BLOOM_FILTER false)`);
  await con.run(`COPY (${TYPES}) TO '${typesPath}' (FORMAT parquet, ROW_GROUP_SIZE ${RG_ROWS})`);
});

afterAll(async () => {
  con?.closeSync();
  duck?.closeSync();
  await rm(dir, { recursive: true, force: true });
});

/** Sum of `bloom_filter_length` of `column` over the file's row groups, from DuckDB. */
async function bloomLengths(path: string, column: string): Promise<number> {
  const [[n]] = (await rows(`SELECT coalesce(sum(bloom_filter_length), 0)::BIGINT FROM parquet_metadata('${path}') WHERE path_in_schema = '${column}'`)) as [[bigint]];
  return Number(n);
}

const engines = new Map<string, Promise<Engine>>();
function engine(bloom: boolean): Promise<Engine> {
  const key = String(bloom);
  let e = engines.get(key);
  if (e === undefined) engines.set(key, (e = Engine.create({ join: 'hash', pushdown: 'inlist', 'hash.build': 'left', 'pushdown.parquetBloom': bloom })));
  return e;
}

/** Inner join of a build table `{[column]: keys}` with the Parquet probe; the probe's ids (sorted) and metrics. */
async function joinIds(path: string, column: string, keys: Table, bloom = true) {
  const r = await (await engine(bloom)).join({ type: 'inner', on: `${column}=${column}` }, keys, path);
  const ids = [...r.table.getChild('id')!].map(Number).sort((a, b) => a - b);
  return { ids, scan: r.metrics.scans.right, filter: String(r.metrics.operators.join?.details.dynamicFilter ?? '') };
}

/** DuckDB's ids of the probe rows whose `column` is in `sqlValues`. */
async function duckIds(path: string, column: string, sqlValues: string): Promise<number[]> {
  return (await rows(`SELECT id FROM read_parquet('${path}') WHERE ${column} IN (${sqlValues}) ORDER BY id`)).map((r) => Number(r[0]));
}

const int64Keys = (xs: bigint[]) => new Table({ k: vectorFromArray(xs, new Int64()) });
const stringKeys = (xs: string[]) => new Table({ s: vectorFromArray(xs, new Utf8()) });

describe('DuckDB writes Bloom filters for dictionary-encoded chunks', () => {
  it('by default, every chunk of k and s (and none with WRITE_BLOOM_FILTER false)', async () => {
    const with_ = await rows(`SELECT path_in_schema, count(*)::INTEGER, count(bloom_filter_offset)::INTEGER FROM parquet_metadata('${bloomPath}') GROUP BY ALL ORDER BY 1`);
    expect(with_).toEqual([
      ['id', 20, 0], // 10240 distinct ids per row group: over DICTIONARY_SIZE_LIMIT (1024), so PLAIN, no filter
      ['k', 20, 20],
      ['s', 20, 20],
    ]);
    const [[none]] = (await rows(`SELECT count(bloom_filter_offset)::INTEGER FROM parquet_metadata('${plainPath}')`)) as [[number]];
    expect(none).toBe(0);
  });
});

describe('Bloom pruning in a hash join over a Parquet probe', () => {
  it('int64 keys: row groups min/max keeps are pruned by their filters; same answer as DuckDB', async () => {
    const keys = [206n, 4014n, 1n]; // row group 3 only, row group 7 only, absent (odd) but within every row group's min/max
    const got = await joinIds(bloomPath, 'k', int64Keys(keys));
    expect(got.filter).toMatch(/IN \(/);
    expect(got.ids).toEqual(await duckIds(bloomPath, 'k', '206, 4014, 1'));
    expect(got.ids.length).toBeGreaterThan(0);
    const m = got.scan;
    expect(m.containersTotal).toBe(20);
    expect(m.containersPrunedByBloom).toBe(18); // all but row groups 3 and 7
    expect(m.containersPruned).toBe(18);
    expect(m.bloomBytesRead).toBe(await bloomLengths(bloomPath, 'k')); // every row group's filter, once
    expect(m.bloomBytesRead).toBeLessThan(m.bytesRead);
    expect(m.rowsDecoded).toBe(2 * RG_ROWS);
    expect(m.bytesSkipped).toBeGreaterThan(0);
  });

  it('string keys: the same', async () => {
    const got = await joinIds(bloomPath, 's', stringKeys(['v103', 'v2007', 'v1000000']));
    expect(got.filter).toMatch(/IN \(/);
    expect(got.ids).toEqual(await duckIds(bloomPath, 's', "'v103', 'v2007', 'v1000000'"));
    expect(got.ids.length).toBeGreaterThan(0);
    expect(got.scan.containersPrunedByBloom).toBe(18);
    expect(got.scan.bloomBytesRead).toBe(await bloomLengths(bloomPath, 's'));
  });

  it('pushdown.parquetBloom: false reads no filter and prunes nothing by them; same answer', async () => {
    const got = await joinIds(bloomPath, 'k', int64Keys([206n, 4014n, 1n]), false);
    expect(got.ids).toEqual(await duckIds(bloomPath, 'k', '206, 4014, 1'));
    expect(got.scan).toMatchObject({ containersPruned: 0, containersPrunedByBloom: 0, bloomBytesRead: 0, rowsDecoded: ROWS });
  });

  it('a file without filters: nothing changes', async () => {
    const got = await joinIds(plainPath, 'k', int64Keys([206n, 4014n, 1n]));
    expect(got.ids).toEqual(await duckIds(plainPath, 'k', '206, 4014, 1'));
    expect(got.scan).toMatchObject({ containersPruned: 0, containersPrunedByBloom: 0, bloomBytesRead: 0, rowsDecoded: ROWS });
  });

  it('keys absent from the file: every row group is pruned', async () => {
    for (const [column, keys, sql] of [
      ['k', int64Keys([1n, 2001n]), ['1', '2001']], // odd: in no row group, inside every row group's min/max
      ['s', stringKeys(['v1000000', 'u']), ["'v1000000'", "'u'"]], // inside min/max ('everywhere' .. 'v9...')
    ] as const) {
      // (3 would be a false positive of row group 11's filter: DuckDB's probe of the same filter agrees)
      for (const v of sql) {
        const [[excludedEverywhere]] = (await rows(`SELECT bool_and(bloom_filter_excludes) FROM parquet_bloom_probe('${bloomPath}', '${column}', ${v})`)) as [[boolean]];
        expect(excludedEverywhere, v).toBe(true);
      }
      const got = await joinIds(bloomPath, column, keys);
      expect(got.ids).toEqual([]);
      expect(got.scan).toMatchObject({ containersTotal: 20, containersPruned: 20, containersPrunedByBloom: 20, rowsDecoded: 0 });
      expect(got.scan.bloomBytesRead).toBe(await bloomLengths(bloomPath, column));
    }
  });

  it('a value in every row group: none pruned', async () => {
    const got = await joinIds(bloomPath, 'k', int64Keys([100000n]));
    expect(got.ids).toEqual(await duckIds(bloomPath, 'k', '100000'));
    expect(got.scan).toMatchObject({ containersPruned: 0, containersPrunedByBloom: 0, rowsDecoded: ROWS });
    expect(got.scan.bloomBytesRead).toBe(await bloomLengths(bloomPath, 'k'));
    const s = await joinIds(bloomPath, 's', stringKeys(['everywhere', 'v1000000']));
    expect(s.ids).toEqual(await duckIds(bloomPath, 's', "'everywhere', 'v1000000'"));
    expect(s.scan.containersPruned).toBe(0);
  });

  it('an unhandled type combination (BIGINT probe, DOUBLE build key: kind DOUBLE over an INT64 leaf): no Bloom pruning, same answer', async () => {
    const keys = new Table({ k: vectorFromArray([206, 4014, 1], new Float64()) });
    const got = await joinIds(bloomPath, 'k', keys);
    expect(got.filter).toMatch(/IN \(/);
    expect(got.ids).toEqual(await duckIds(bloomPath, 'k', '206, 4014, 1'));
    expect(got.scan).toMatchObject({ containersPrunedByBloom: 0, bloomBytesRead: 0 });
  });
});

/** A predicate that keeps every container and row but offers `set` as its exact set. */
function setPredicate(set: ExactValueSet | null): ScanPredicate & { exactSet: ReturnType<typeof vi.fn> } {
  return {
    description: 'test set',
    columns: set === null ? [] : [set.column],
    mayContain: () => true,
    selectRows: () => null,
    exactSet: vi.fn(() => set),
  };
}

async function drain(it: AsyncIterable<RecordBatch>): Promise<void> {
  for await (const _ of it);
}

describe('ParquetScan Bloom pruning', () => {
  const BIGINT = keyKindOf(new Int64(), 'k');

  it('hashes the set once per published predicate, not per row group', async () => {
    const scan = await ParquetScan.open(bloomPath);
    const filter = new DynamicFilter();
    const p = setPredicate({ column: 'k', kind: BIGINT, values: [206n] });
    filter.publish(p);
    await drain(scan.batches({ filter, columns: ['id'] }));
    expect(p.exactSet).toHaveBeenCalledTimes(1);
    expect(scan.metrics.containersPrunedByBloom).toBe(19);
    const q = setPredicate({ column: 'k', kind: BIGINT, values: [4014n] });
    filter.publish(q);
    await drain(scan.batches({ filter, columns: ['id'] }));
    expect(q.exactSet).toHaveBeenCalledTimes(1);
    expect(p.exactSet).toHaveBeenCalledTimes(1);
  });

  it('reads no filter without an exact set, or with bloomFilters: false', async () => {
    const scan = await ParquetScan.open(bloomPath);
    const filter = new DynamicFilter();
    filter.publish(setPredicate(null));
    await drain(scan.batches({ filter, columns: ['id'] }));
    filter.publish(setPredicate({ column: 'k', kind: BIGINT, values: [206n] }));
    await drain(scan.batches({ filter, columns: ['id'], bloomFilters: false }));
    expect(scan.metrics).toMatchObject({ containersPruned: 0, bloomBytesRead: 0 });
  });

  it('an empty set, or values that cannot be in the column, prune every row group with a filter', async () => {
    const scan = await ParquetScan.open(typesPath);
    const filter = new DynamicFilter();
    filter.publish(setPredicate({ column: 'i8', kind: BIGINT, values: [1000n, -129n] })); // outside TINYINT
    await drain(scan.batches({ filter, columns: ['i8'] }));
    expect(scan.metrics.containersPrunedByBloom).toBe(scan.numContainers);
  });
});

/** Distinct values (in `kind`'s domain) of `column` in row group `rg`, decoded and normalised as a join would. */
async function valuesOf(path: string, rg: number, column: string, kind: KeyKind): Promise<KeyValue[]> {
  const t = await readParquetFile(path, { rowGroups: [rg], columns: [column] });
  const seen = new Map<string, KeyValue>();
  for (const b of t.batches) {
    const [col] = normalizeKeys(b, [column], [kind]);
    for (let r = 0; r < b.numRows; r++) {
      if (col!.nulls?.[r]) continue;
      const v = keyValueAt(col!, r);
      seen.set(v instanceof Uint8Array ? Buffer.from(v).toString('hex') : `${typeof v}:${Object.is(v, -0) ? '-0' : String(v)}`, v);
    }
  }
  return [...seen.values()];
}

describe('no false negatives', () => {
  it('every value of every row group tests "maybe" in that row group\'s filter, for every handled column type and wider join kinds', async () => {
    const h = await ParquetFileHandle.open(typesPath);
    expect(h.rowGroups.length).toBe(3);
    const [[chunks]] = (await rows(`SELECT count(bloom_filter_offset)::INTEGER FROM parquet_metadata('${typesPath}') WHERE path_in_schema IN (${Object.keys(WIDER).map((c) => `'${c}'`).join(', ')})`)) as [[number]];
    expect(chunks).toBe(3 * Object.keys(WIDER).length); // each column's chunks all carry a filter
    let tested = 0;
    for (const [column, wider] of Object.entries(WIDER)) {
      const col = h.bloomColumn(column)!;
      const kinds = [keyKindOf(col.type, column), ...wider.map((w) => resolveKeyKind(col.type, w, column, 'build'))];
      for (let rg = 0; rg < h.rowGroups.length; rg++) {
        const read = h.readBloomFilter(rg, column);
        expect(read?.filter, `${column} rg ${rg}`).toBeTruthy();
        for (const kind of kinds) {
          const values = await valuesOf(typesPath, rg, column, kind);
          expect(values.length).toBeGreaterThan(100);
          for (const v of values) {
            const hashes = bloomHashes(col.element, col.type, { column, kind, values: [v] });
            expect(hashes, `${column} as ${kind.sqlType}: handled`).not.toBeNull();
            expect(mayContainAnyHash(read!.filter!, hashes!), `${column} as ${kind.sqlType} rg ${rg}: ${String(v)}`).toBe(true);
            tested++;
          }
        }
      }
    }
    expect(tested).toBeGreaterThan(10_000);
  });

  it('-0.0 and 0.0: both encodings are tried (DuckDB hashes the raw bits)', async () => {
    const h = await ParquetFileHandle.open(typesPath);
    for (const column of ['f', 'd']) {
      const col = h.bloomColumn(column)!;
      const kind = keyKindOf(col.type, column);
      const hashes = bloomHashes(col.element, col.type, { column, kind, values: [0] })!;
      expect(hashes.length).toBe(4);
      // every row group holds a zero (f: only -0.0); `abs()` keeps DuckDB from probing its filters
      const [[count]] = (await rows(`SELECT count(*)::INTEGER FROM read_parquet('${typesPath}') WHERE abs(${column}) = 0`)) as [[number]];
      expect(count).toBeGreaterThan(0);
      for (let rg = 0; rg < 3; rg++) expect(mayContainAnyHash(h.readBloomFilter(rg, column)!.filter!, hashes)).toBe(true);
    }
    // through a join: a build key 0.0 finds the file's -0.0 rows. (DuckDB 1.5.6's own
    // `WHERE f = 0` on this file returns no row: it probes the filter with +0.0 only — the
    // signed-zero case noted in duckdb/duckdb#23829.)
    const { Float32 } = await import('apache-arrow');
    const r = await (await engine(true)).join({ type: 'inner', on: 'f=f' }, new Table({ f: vectorFromArray([0], new Float32()) }), typesPath);
    const [[zeros]] = (await rows(`SELECT count(*)::INTEGER FROM read_parquet('${typesPath}') WHERE abs(f) = 0`)) as [[number]];
    expect(r.table.numRows).toBe(zeros);
    expect(r.metrics.scans.right.containersPrunedByBloom).toBe(0);
  });

  it('agrees with DuckDB\'s parquet_bloom_probe value by value (the same filters read by a second reader)', async () => {
    const h = await ParquetFileHandle.open(bloomPath);
    const BIGINT = keyKindOf(new Int64(), 'k');
    const VARCHAR = keyKindOf(new Utf8(), 's');
    const probes: [string, KeyKind, KeyValue, string][] = [];
    for (let x = 0; x < 60; x++) {
      const n = x * 97 + 3;
      probes.push(['k', BIGINT, BigInt(n), String(n)]);
      probes.push(['s', VARCHAR, utf8.encode(`v${n}`), `'v${n}'`]);
    }
    let excluded = 0;
    for (const [column, kind, v, sql] of probes) {
      const duckSays = new Map((await rows(`SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe('${bloomPath}', '${column}', ${sql})`)).map((r) => [Number(r[0]), r[1] as boolean]));
      const col = h.bloomColumn(column)!;
      const hashes = bloomHashes(col.element, col.type, { column, kind, values: [v] })!;
      for (let rg = 0; rg < 20; rg++) {
        const ours = !mayContainAnyHash(h.readBloomFilter(rg, column)!.filter!, hashes);
        expect(ours, `${column} = ${sql} in row group ${rg}`).toBe(duckSays.get(rg));
        if (ours) excluded++;
      }
    }
    expect(excluded).toBeGreaterThan(probes.length * 10);
  });
});

describe('encoding rules', () => {
  const el = (e: Partial<SchemaElement>): SchemaElement => ({ name: 'c', ...e }) as SchemaElement;
  const BIGINT = keyKindOf(new Int64(), 'k');
  const hex = (e: Uint8Array[] | 'unknown') => (e === 'unknown' ? e : e.map((b) => Buffer.from(b).toString('hex')));
  it('encodes integers by their bit pattern and drops values outside the column type', async () => {
    const { Int32, Uint32, Int8 } = await import('apache-arrow');
    const u32 = plainEncoder(el({ type: 'INT32', converted_type: 'UINT_32' }), new Uint32(), BIGINT)!;
    expect(hex(u32(3_000_000_000n))).toEqual(['005ed0b2']);
    expect(hex(u32(-1n))).toEqual([]);
    expect(hex(u32(2n ** 32n))).toEqual([]);
    const i8 = plainEncoder(el({ type: 'INT32', converted_type: 'INT_8' }), new Int8(), BIGINT)!;
    expect(hex(i8(-1n))).toEqual(['ffffffff']);
    expect(hex(i8(128n))).toEqual([]);
    const i32 = plainEncoder(el({ type: 'INT32' }), new Int32(), BIGINT)!;
    expect(hex(i32(2n ** 31n))).toEqual([]);
    // an Arrow type that disagrees with the leaf: not handled
    expect(plainEncoder(el({ type: 'INT32' }), new Int64(), BIGINT)).toBeNull();
  });

  it('dates and timestamps rescale exactly or drop the value', async () => {
    const { DateDay } = await import('apache-arrow');
    const tsKind = resolveKeyKind(new DateDay(), new Timestamp(TimeUnit.MICROSECOND), 'a', 'b');
    const dt = plainEncoder(el({ type: 'INT32', converted_type: 'DATE' }), new DateDay(), tsKind)!;
    expect(hex(dt(86_400_000_000n))).toEqual(['01000000']);
    expect(hex(dt(86_400_000_001n))).toEqual([]); // not midnight: no date equals it
    const nsKind = resolveKeyKind(new Timestamp(TimeUnit.MILLISECOND), new Timestamp(TimeUnit.NANOSECOND), 'a', 'b');
    const ms = plainEncoder(el({ type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MILLIS' } }), new Timestamp(TimeUnit.MILLISECOND), nsKind)!;
    expect(hex(ms(1_000_000n))).toEqual(['0100000000000000']);
    expect(hex(ms(1_000_001n))).toEqual([]);
    // a bare INT64 read as a timestamp (its unit only in ARROW:schema): not handled
    expect(plainEncoder(el({ type: 'INT64' }), new Timestamp(TimeUnit.SECOND), keyKindOf(new Timestamp(TimeUnit.SECOND), 'k'))).toBeNull();
  });

  it('floats: 0 as both zeros, a NaN makes the column "maybe", a FLOAT drops what no float32 widens to', async () => {
    const { Float32 } = await import('apache-arrow');
    const DOUBLE = keyKindOf(new Float64(), 'k');
    const f = plainEncoder(el({ type: 'FLOAT' }), new Float32(), DOUBLE)!;
    expect(hex(f(0))).toEqual(['00000000', '00000080']);
    expect(hex(f(0.1))).toEqual([]);
    expect(hex(f(0.5))).toEqual(['0000003f']);
    expect(f(NaN)).toBe('unknown');
    const col = { element: el({ type: 'DOUBLE' }), type: new Float64() };
    expect(bloomHashes(col.element, col.type, { column: 'c', kind: DOUBLE, values: [1, NaN] })).toBeNull();
  });

  it('refuses JSON, BSON, UUID, FLOAT16, INT96, BYTE_ARRAY decimals and mismatched kinds', async () => {
    const { FixedSizeBinary } = await import('apache-arrow');
    const BLOB = keyKindOf(new Binary(), 'k');
    expect(plainEncoder(el({ type: 'BYTE_ARRAY', converted_type: 'JSON' }), new Utf8(), BLOB)).toBeNull();
    expect(plainEncoder(el({ type: 'BYTE_ARRAY', logical_type: { type: 'BSON' } }), new Binary(), BLOB)).toBeNull();
    expect(plainEncoder(el({ type: 'FIXED_LEN_BYTE_ARRAY', type_length: 16, logical_type: { type: 'UUID' } }), new FixedSizeBinary(16), BLOB)).toBeNull();
    expect(plainEncoder(el({ type: 'FIXED_LEN_BYTE_ARRAY', type_length: 2, logical_type: { type: 'FLOAT16' } }), new FixedSizeBinary(2), BLOB)).toBeNull();
    expect(plainEncoder(el({ type: 'INT96' }), new Timestamp(TimeUnit.NANOSECOND), keyKindOf(new Timestamp(TimeUnit.NANOSECOND), 'k'))).toBeNull();
    expect(plainEncoder(el({ type: 'BYTE_ARRAY', converted_type: 'DECIMAL', scale: 2, precision: 10 }), new Decimal(2, 10, 128), keyKindOf(new Decimal(2, 10, 128), 'k'))).toBeNull();
    expect(plainEncoder(el({ type: 'BYTE_ARRAY', converted_type: 'UTF8' }), new Utf8(), BIGINT)).toBeNull();
    const flba = plainEncoder(el({ type: 'FIXED_LEN_BYTE_ARRAY', type_length: 3 }), new FixedSizeBinary(3), BLOB)!;
    expect(hex(flba(new Uint8Array([1, 2])))).toEqual([]);
    expect(hex(flba(new Uint8Array([1, 2, 3])))).toEqual(['010203']);
  });

  it('FIXED_LEN_BYTE_ARRAY decimals: big-endian two\'s complement of exactly type_length bytes', () => {
    const kind = keyKindOf(new Decimal(4, 38, 128), 'k');
    const e = plainEncoder(el({ type: 'FIXED_LEN_BYTE_ARRAY', type_length: 4, converted_type: 'DECIMAL', scale: 4, precision: 9 }), new Decimal(4, 9, 128), kind)!;
    expect(hex(e(-2n))).toEqual(['fffffffe']);
    expect(hex(e(2n ** 31n))).toEqual([]);
  });
});

/** A copy of the file at `path` whose column `leaf`'s ColumnMetaData is rewritten by `patch` in every row group. */
async function withPatchedChunks(path: string, leaf: number, patch: (md: TStruct) => TStruct): Promise<string> {
  const bytes = new Uint8Array(await readFile(path));
  const footer = parseFooter(bytes, bytes.length);
  const rgs = tlist(footer.raw, 4)!;
  const rowGroups = (rgs.items as TStruct[]).map((rg) => {
    const cols = tlist(rg, 1)!;
    const items = (cols.items as TStruct[]).map((chunk, c) => (c === leaf ? twith(chunk, [[3, T_STRUCT, patch(tstruct(chunk, 3)!)]]) : chunk));
    return twith(rg, [[1, T_LIST, { elemType: cols.elemType, items }]]);
  });
  const w = new ThriftWriter();
  w.struct(twith(footer.raw, [[4, T_LIST, { elemType: rgs.elemType, items: rowGroups }]]));
  const out = join(dir, `patched-${Math.random().toString(36).slice(2)}.parquet`);
  const tail = footerTail(w.bytes());
  const file = new Uint8Array(footer.footerStart + tail.length);
  file.set(bytes.subarray(0, footer.footerStart));
  file.set(tail, footer.footerStart);
  await writeFile(out, file);
  return out;
}

describe('corrupt or unusual filter locations', () => {
  it('without bloom_filter_length (older writers): the header is read first, then its numBytes; same pruning', async () => {
    const p = await withPatchedChunks(bloomPath, 0, (md) => twith(md, [[15, T_I32, null]]));
    const got = await joinIds(p, 'k', int64Keys([206n, 4014n, 1n]));
    expect(got.ids).toEqual(await duckIds(bloomPath, 'k', '206, 4014, 1'));
    expect(got.scan.containersPrunedByBloom).toBe(18);
    expect(got.scan.bloomBytesRead).toBeGreaterThan(0);
  });

  it('bad offsets, lengths and headers are "maybe": no crash, no Bloom prune, the same answer', async () => {
    const expected = await duckIds(bloomPath, 'k', '206, 4014, 1');
    const size = (await readFile(bloomPath)).length;
    const cases: [string, (md: TStruct) => TStruct][] = [
      ['offset past the data (in the footer)', (md) => twith(md, [[14, T_I64, BigInt(size - 20)]])],
      ['offset beyond the file', (md) => twith(md, [[14, T_I64, BigInt(size * 4)]])],
      ['negative offset', (md) => twith(md, [[14, T_I64, -8n]])],
      ['offset in the leading magic', (md) => twith(md, [[14, T_I64, 1n]])],
      ['absurd length', (md) => twith(md, [[15, T_I32, 2 ** 31 - 1]])],
      ['negative length', (md) => twith(md, [[15, T_I32, -5]])],
      ['zero length', (md) => twith(md, [[15, T_I32, 0]])],
      ['bitset cut short', (md) => twith(md, [[15, T_I32, Number(ti64(md, 15)) - 32]])],
      ['offset at a data page (a PageHeader is no BloomFilterHeader)', (md) => twith(md, [[14, T_I64, ti64(md, 9)!]])],
      ['offset at a data page, no length', (md) => twith(md, [[14, T_I64, ti64(md, 9)!], [15, T_I32, null]])],
    ];
    for (const [name, patch] of cases) {
      const p = await withPatchedChunks(bloomPath, 0, patch);
      const got = await joinIds(p, 'k', int64Keys([206n, 4014n, 1n]));
      expect(got.ids, name).toEqual(expected);
      expect(got.scan.containersPrunedByBloom, name).toBe(0);
    }
  });
});
