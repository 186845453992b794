/**
 * Parquet Bloom-filter pruning through the join, on the experiment generator's shape: unsorted
 * keys whose row groups each hold their own values (k mod G = g) while their min/max span the whole
 * range, as BIGINT, INTEGER (joined as BIGINT: a widened kind) and VARCHAR, joined to an IN-list
 * build. Checked: most row groups pruned by Bloom (a DOUBLE key too), min/max none, the same answer
 * as DuckDB; off, on a file written by joinlab's own writer (no Bloom filters), with garbled filter
 * headers: nothing pruned by Bloom and the same answer. (parquet-bloom.test.ts has the encodings,
 * the no-false-negative sweep and the corrupt-location cases.)
 */
import { open as openFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Table, vectorFromArray, Int64, Utf8, Int32, Float64 } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { writeParquetFile } from './parquet.ts';

const ROWS = 20 * 2048;
const RG = 2048; // a multiple of DuckDB's vector size, so its row groups are exactly this long
const G = ROWS / RG;
const D = 50; // distinct values per row group

let dir: string;
let duck: DuckDBSession;
let withBloom: string;
let noBloom: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-bloom-'));
  duck = await DuckDBSession.open({ threads: 1 });
  withBloom = join(dir, 'bloom.parquet');
  noBloom = join(dir, 'plain.parquet');
  const select =
    `SELECT i::BIGINT AS i, ((hash(i) % ${D}) * ${G} + i // ${RG})::BIGINT AS k, ` +
    `((hash(i) % ${D}) * ${G} + i // ${RG})::INTEGER AS ki, ` +
    `'s' || ((hash(i) % ${D}) * ${G} + i // ${RG}) AS s, ` +
    `((hash(i) % ${D}) * ${G} + i // ${RG})::DOUBLE AS d FROM range(${ROWS}) t(i) ORDER BY i`;
  await duck.run(`COPY (${select}) TO '${withBloom}' (FORMAT parquet, ROW_GROUP_SIZE ${RG})`);
  // joinlab's own writer (parquet-wasm) writes no Bloom filters
  await writeParquetFile(noBloom, await duck.query(select), { rowGroupSize: RG });
});

afterAll(async () => {
  await duck.close();
  await rm(dir, { recursive: true, force: true });
});

/** Keys of 3 row groups (1, 7, 13): residues g, value index v. */
const KEYS = [1, 7, 13].map((g, v) => (v * 3 + 1) * G + g);

function buildOf(column: 'k' | 'ki' | 's' | 'd', keys: readonly number[]): Table {
  const values = column === 's' ? keys.map((k) => `s${k}`) : column === 'k' ? keys.map(BigInt) : keys;
  const type = column === 's' ? new Utf8() : column === 'k' ? new Int64() : column === 'ki' ? new Int32() : new Float64();
  return new Table({ [column]: vectorFromArray(values as never[], type as never) });
}

async function joinIds(path: string, column: 'k' | 'ki' | 's' | 'd', keys: readonly number[], config: Record<string, unknown> = {}) {
  const engine = await Engine.create({ join: 'hash', pushdown: 'inlist', 'hash.build': 'right', ...config });
  const { table, metrics } = await engine.join({ type: 'inner', on: `${column}=${column}`, select: 'i' }, path, buildOf(column, keys));
  const ids = [...table.getChild('i')!].map(Number).sort((a, b) => a - b);
  return { ids, scan: metrics.scans.left };
}

async function duckIds(path: string, column: string, keys: readonly number[]): Promise<number[]> {
  const list = column === 's' ? keys.map((k) => `'s${k}'`).join(', ') : keys.join(', ');
  const rows = await duck.queryRows(`SELECT i FROM read_parquet('${path}') WHERE ${column} IN (${list}) ORDER BY i`);
  return rows.map((r) => Number(r[0]));
}

describe('Parquet Bloom-filter pruning', () => {
  for (const column of ['k', 'ki', 's'] as const) {
    it(`${column}: prunes the row groups min/max cannot, same answer as DuckDB`, async () => {
      const want = await duckIds(withBloom, column, KEYS);
      expect(want.length).toBeGreaterThan(0);
      const on = await joinIds(withBloom, column, KEYS);
      expect(on.ids).toEqual(want);
      // G - 3 row groups hold none of the keys; a Bloom filter may let a few through (false positives)
      expect(on.scan.containersPrunedByBloom).toBeGreaterThan((G - 3) / 2);
      expect(on.scan.containersPruned).toBe(on.scan.containersPrunedByBloom); // min/max pruned nothing
      expect(on.scan.bloomBytesRead).toBeGreaterThan(0);
      expect(on.scan.bytesRead).toBeGreaterThan(on.scan.bloomBytesRead);
      expect(on.scan.rowsDecoded).toBe(RG * (G - on.scan.containersPruned));

      const off = await joinIds(withBloom, column, KEYS, { 'pushdown.parquetBloom': false });
      expect(off.ids).toEqual(want);
      expect(off.scan.containersPrunedByBloom).toBe(0);
      expect(off.scan.bloomBytesRead).toBe(0);
      expect(off.scan.rowsDecoded).toBe(ROWS);
    });
  }

  it('a file without Bloom filters: nothing pruned by Bloom, no error, same answer', async () => {
    const r = await joinIds(noBloom, 'k', KEYS);
    expect(r.ids).toEqual(await duckIds(noBloom, 'k', KEYS));
    expect(r.scan.containersPrunedByBloom).toBe(0);
    expect(r.scan.bloomBytesRead).toBe(0);
  });

  it('keys within min/max but in no row group: every row group pruned by Bloom; a key in every row group: none', async () => {
    // 's5.5' sorts inside ['s0', 's999'] but is no value of the file
    const absent = await joinIds(withBloom, 's', [5.5, 17.5]);
    expect(absent.ids).toEqual([]);
    expect(absent.scan.containersPrunedByBloom).toBeGreaterThan(G / 2); // the rest: false positives
    // key g (value index 0) lives in row group g: every row group holding one must be read
    const everywhere = Array.from({ length: G }, (_, g) => g);
    const r = await joinIds(withBloom, 'k', everywhere);
    expect(r.ids).toEqual(await duckIds(withBloom, 'k', everywhere));
    const holding = await duck.queryRows(`SELECT count(DISTINCT i // ${RG}) FROM read_parquet('${withBloom}') WHERE k IN (${everywhere.join(', ')})`);
    expect(r.scan.containersTotal - r.scan.containersPruned).toBeGreaterThanOrEqual(Number(holding[0]![0]));
  });

  it('a DOUBLE key: pruned by Bloom too (both zeros hashed), same answer', async () => {
    const r = await joinIds(withBloom, 'd', KEYS);
    expect(r.ids).toEqual(await duckIds(withBloom, 'd', KEYS));
    expect(r.scan.containersPrunedByBloom).toBeGreaterThan((G - 3) / 2);
  });

  it('a damaged Bloom filter costs pruning, never rows or a crash', async () => {
    const damaged = join(dir, 'damaged.parquet');
    await duck.run(`COPY (SELECT * FROM read_parquet('${withBloom}')) TO '${damaged}' (FORMAT parquet, ROW_GROUP_SIZE ${RG})`);
    const meta = await duck.queryRows(`SELECT bloom_filter_offset FROM parquet_metadata('${damaged}') WHERE path_in_schema = 'k' ORDER BY row_group_id`);
    const f = await openFile(damaged, 'r+');
    try {
      for (const [offset] of meta) await f.write(new Uint8Array(8).fill(0xff), 0, 8, Number(offset)); // header garbled
    } finally {
      await f.close();
    }
    const r = await joinIds(damaged, 'k', KEYS);
    expect(r.ids).toEqual(await duckIds(withBloom, 'k', KEYS));
    expect(r.scan.containersPrunedByBloom).toBe(0);
  });
});
