/**
 * The C data interface import (arrow-c-data.ts) against the IPC path it replaces: every column
 * type DuckDB writes to Parquet (flat, nested, with NULLs, several batches), decoded both ways, must
 * give the same Arrow data — and must really take the C data path (`ipcDecodes` stays 0), so the
 * fallback cannot hide a gap. Hand-made C structs check the refusals: a sliced array and an unknown
 * format go to IPC, never through.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBSession } from '../duckdb/session.ts';
import { CDataUnsupported, importBatches } from './arrow-c-data.ts';
import { ParquetFileHandle } from './parquet-file.ts';

let dir: string;
let duck: DuckDBSession;
let file: string;

const nul = (e: string) => `CASE WHEN i % 7 = 3 THEN NULL ELSE ${e} END`;
const COLUMNS: Record<string, string> = {
  b: 'i % 3 = 0',
  i8: '(i % 256 - 128)::TINYINT',
  i16: '(i * 7 % 60000 - 30000)::SMALLINT',
  i32: '(i * 100003)::INTEGER',
  i64: '(i * 1000000007)::BIGINT',
  u8: '(i % 256)::UTINYINT',
  u32: '(i * 2654435761 % 4294967296)::UINTEGER',
  u64: '(i * 3)::UBIGINT',
  f32: '(i / 7)::FLOAT',
  f64: '(i / 7)::DOUBLE',
  d4: '((i % 700) * 1.3)::DECIMAL(4,1)',
  d18: '(i * 12345.678901)::DECIMAL(18,6)',
  d38: '(i::HUGEINT * 1234567890123456789)::DECIMAL(38,2)',
  s: "'v' || (i % 1000)",
  dict: "['AIR', 'MAIL', 'SHIP', 'RAIL'][i % 4 + 1]",
  blob: "('\\xAA\\x00' || i::VARCHAR)::BLOB",
  dt: "DATE '2000-01-01' + (i % 9000)::INTEGER",
  tm: "TIME '00:00:00' + to_microseconds(i * 1234567)",
  ts: "TIMESTAMP '2020-01-01' + to_microseconds(i * 98765432)",
  tsz: "TIMESTAMPTZ '2020-01-01 00:00:00+00' + to_seconds(i)",
  iv: 'to_months(i % 13) + to_days(i % 5)',
  uuid: "('a0eebc99-9c0b-4ef8-bb6d-' || lpad((i % 100000)::VARCHAR, 12, '0'))::UUID",
  list: '[i, NULL, i * 2]',
  st: "{'a': i, 'b': 'x' || i}",
  mp: "MAP {'k' || (i % 10): i}",
};
const ROWS = 5000;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-cdata-'));
  duck = await DuckDBSession.open({ threads: 1 });
  file = join(dir, 'types.parquet');
  const select = Object.entries(COLUMNS)
    .map(([n, e]) => `${nul(e)} AS ${n}`)
    .join(', ');
  await duck.run(`COPY (SELECT ${select} FROM range(${ROWS}) t(i)) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
});

afterAll(async () => {
  await duck.close();
  await rm(dir, { recursive: true, force: true });
});


describe('Arrow C data import', () => {
  it.each(Object.keys(COLUMNS))('%s: the same data as the IPC path, without falling back to it', async (name) => {
    const h = await ParquetFileHandle.open(file);
    const rowGroups = h.rowGroups.map((r) => r.index);
    const fast = await h.readRowGroups(rowGroups, [name], { batchSize: 1000 });
    expect(h.ipcDecodes).toBe(0);
    const slow = await h.readRowGroups(rowGroups, [name], { batchSize: 1000, transfer: 'ipc' });
    const a = fast.flatMap((b) => [...b.getChild(name)!] as unknown[]);
    const b = slow.flatMap((x) => [...x.getChild(name)!] as unknown[]);
    expect(a.length).toBe(ROWS);
    // compare as text: typed arrays, bigints, nested rows
    const text = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : ArrayBuffer.isView(x) ? Array.from(x as unknown as ArrayLike<number>) : x));
    expect(slow.length).toBeGreaterThan(1);
    expect(a.map(text)).toEqual(b.map(text));
    const fastNulls = fast.reduce((n, x) => n + x.getChild(name)!.nullCount, 0);
    expect(fastNulls).toBe(slow.reduce((n, x) => n + x.getChild(name)!.nullCount, 0));
    expect(fastNulls).toBeGreaterThan(0);
  });

  it('a batch bound for workers lands in shared memory', async () => {
    const h = await ParquetFileHandle.open(file);
    const [batch] = await h.readRowGroups([0], ['i64', 's'], { shared: true });
    for (const name of ['i64', 's']) {
      for (const buf of [batch!.getChild(name)!.data[0]!.values, batch!.getChild(name)!.data[0]!.nullBitmap]) expect(buf!.buffer).toBeInstanceOf(SharedArrayBuffer);
    }
  });

  it('refuses what it does not read: a sliced array, an unknown format', () => {
    // one struct batch of one int32 column, built by hand in a plain buffer laid out as wasm32 memory
    const mem = new ArrayBuffer(4096);
    const v = new DataView(mem);
    const bytes = new Uint8Array(mem);
    const str = (at: number, s: string) => {
      bytes.set(new TextEncoder().encode(`${s}\0`), at);
      return at;
    };
    const schema = (at: number, format: number, name: number, children: number, nChildren: number) => {
      v.setUint32(at, format, true);
      v.setUint32(at + 4, name, true);
      v.setBigInt64(at + 16, 2n, true);
      v.setBigInt64(at + 24, BigInt(nChildren), true);
      v.setUint32(at + 32, children, true);
    };
    const array = (at: number, length: number, offset: number, buffers: number, nBuffers: number, children: number, nChildren: number) => {
      v.setBigInt64(at, BigInt(length), true);
      v.setBigInt64(at + 16, BigInt(offset), true);
      v.setBigInt64(at + 24, BigInt(nBuffers), true);
      v.setBigInt64(at + 32, BigInt(nChildren), true);
      v.setUint32(at + 40, buffers, true);
      v.setUint32(at + 44, children, true);
    };
    const build = (format: string, offset: number) => {
      bytes.fill(0);
      schema(100, str(1000, format), str(1010, 'x'), 0, 0);
      v.setUint32(300, 100, true); // children list of the top schema -> the column's schema
      schema(200, str(1020, '+s'), str(1030, ''), 300, 1);
      for (let i = 0; i < 4; i++) v.setInt32(2000 + 4 * i, i * 10, true);
      v.setUint32(500, 0, true); // validity: none
      v.setUint32(504, 2000, true); // values
      array(600, 4, offset, 500, 2, 0, 0);
      v.setUint32(800, 600, true);
      array(700, 4, 0, 510, 1, 800, 1);
      return importBatches(mem, 200, [700], false);
    };
    const [ok] = build('i', 0);
    expect(ok!.getChild('x')!.toArray()).toEqual(new Int32Array([0, 10, 20, 30]));
    expect(() => build('i', 1)).toThrow(CDataUnsupported);
    expect(() => build('vu', 0)).toThrow(CDataUnsupported);
  });
});
