/**
 * The decode path against DuckDB for every codec DuckDB writes × both Parquet format versions
 * (V2 turns on DuckDB's DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and BYTE_STREAM_SPLIT
 * encodings) × the physical and logical types of a typical table, with NULLs and small row groups:
 * joinlab reads the file (through the C data path: `ipcDecodes` stays 0) and must give exactly what
 * DuckDB reads from the same file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareResults, formatComparison } from '../duckdb/compare.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { ParquetFileHandle, readParquetFile } from './parquet.ts';

let dir: string;
let duck: DuckDBSession;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-codecs-'));
  duck = await DuckDBSession.open({ threads: 1 });
});

afterAll(async () => {
  await duck.close();
  await rm(dir, { recursive: true, force: true });
});

const nul = (e: string) => `CASE WHEN i % 9 = 4 THEN NULL ELSE ${e} END`;
const SELECT = [
  `${nul('i % 2 = 0')} AS b`,
  `${nul('(i * 37 % 200 - 100)::TINYINT')} AS i8`,
  `${nul('(i * 7919)::INTEGER')} AS i32`,
  `${nul('(i * 1000000007)::BIGINT')} AS i64`,
  `${nul('i::UBIGINT * 3')} AS u64`,
  `${nul('(i / 7)::FLOAT')} AS f32`,
  `${nul('(i / 7)::DOUBLE')} AS f64`,
  `${nul('(i * 1.25)::DECIMAL(9,2)')} AS d9`,
  `${nul('(i * 12345.678)::DECIMAL(18,3)')} AS d18`,
  `${nul('(i::HUGEINT * 98765432109876543)::DECIMAL(38,4)')} AS d38`,
  `${nul("DATE '2000-01-01' + (i % 5000)::INTEGER")} AS dt`,
  `${nul("TIMESTAMP '2020-01-01' + to_microseconds(i * 123456789)")} AS ts`,
  `${nul("'k' || (i % 50)")} AS s_dict`,
  `${nul("md5(i::VARCHAR) || repeat('x', i % 17)")} AS s_long`,
  `${nul("('\\xAB\\x00' || i::VARCHAR)::BLOB")} AS bin`,
].join(', ');

describe('every codec x format version x type, as DuckDB reads it', () => {
  for (const codec of ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4', 'brotli']) {
    for (const version of ['V1', 'V2']) {
      it(`${codec}, ${version}`, async () => {
        const path = join(dir, `${codec}-${version}.parquet`);
        await duck.run(`COPY (SELECT ${SELECT} FROM range(6000) t(i)) TO '${path}' (FORMAT parquet, COMPRESSION ${codec}, PARQUET_VERSION ${version}, ROW_GROUP_SIZE 2048)`);
        const table = await readParquetFile(path);
        const expected = await duck.query(`SELECT * FROM read_parquet('${path}')`);
        const c = compareResults(table, expected);
        expect(c.equal, formatComparison(c)).toBe(true);
        const h = await ParquetFileHandle.open(path);
        await h.readRowGroups(h.rowGroups.map((r) => r.index));
        expect(h.ipcDecodes).toBe(0);
        expect(h.fallbackDecodes).toBe(0);
        if (version === 'V2') {
          // the encodings V2 is here for really are in the file
          const used = (await duck.queryRows(`SELECT DISTINCT encodings FROM parquet_metadata('${path}')`)).map((r) => String(r[0]));
          for (const e of ['DELTA_BINARY_PACKED', 'BYTE_STREAM_SPLIT', 'DELTA_LENGTH_BYTE_ARRAY']) expect(used.join(',')).toContain(e);
        }
      });
    }
  }
});
