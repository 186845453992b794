/**
 * Late materialization in the Parquet scan: with it on or off, static filters (SQL WHERE) and
 * dynamic filters (a hash join's) give DuckDB's answer on random data (NULLs, duplicates, row
 * groups the filter empties and ones it keeps, several batch sizes); with it on, a row group the
 * filter's row test empties (min/max could not) has its other columns counted as not decoded.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { Rng } from '../../core/random.ts';
import { compareResults, formatComparison } from '../duckdb/compare.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { runSql } from '../sql/run.ts';
import { Float64, Int32, Int64, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { keptPositions, positionsIn, rowsToRanges, survivorRows } from './late-materialization.ts';
import { writeParquetFile } from './parquet.ts';

let dir: string;
let duck: DuckDBSession;
let fact: string;
let dim: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-late-'));
  duck = await DuckDBSession.open({ threads: 1 });
  fact = join(dir, 'fact.parquet');
  dim = join(dir, 'dim.parquet');
  // v is unsorted but every row group spans its whole range: min/max never prunes on it, the row test does
  await duck.run(`COPY (SELECT i AS k, CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7919) % 1000 END AS v,
      CASE WHEN i % 5000 < 2500 THEN (i * 7919) % 1000 ELSE 0 END AS w, 'payload ' || i AS s, i / 3.0 AS d
      FROM range(20000) t(i)) TO '${fact}' (FORMAT parquet, ROW_GROUP_SIZE 2500)`);
  await duck.run(`COPY (SELECT i * 37 % 1000 AS v FROM range(40) t(i)) TO '${dim}' (FORMAT parquet)`);
  await duck.createViewOnParquet('fact', fact);
  await duck.createViewOnParquet('dim', dim);
});

afterAll(async () => {
  await duck.close();
  await rm(dir, { recursive: true, force: true });
});

async function check(sql: string, mode: 'auto' | 'off', batchSize: number) {
  const engine = await Engine.create({ batchSize, 'scan.lateMaterialization': mode, threads: 1 });
  const r = await runSql(engine, sql, { fact, dim }, { duck });
  const c = compareResults(r.table, await duck.query(sql));
  expect(c.equal, `${mode} ${batchSize}: ${sql}\n${formatComparison(c)}`).toBe(true);
  return r;
}

describe('late materialization', () => {
  it('static filters: the same rows as DuckDB, on and off, at several batch sizes', async () => {
    const rng = new Rng(5);
    for (let i = 0; i < 12; i++) {
      const a = rng.int(0, 999);
      const where = rng.pick([`v = ${a}`, `v BETWEEN ${a} AND ${a + rng.int(0, 30)}`, `v IS NULL`, `w > ${a}`, `v < ${a} AND w <> 0`, `v = ${a} OR w = ${a}`]);
      const sql = `SELECT k, s, d FROM fact WHERE ${where} ORDER BY k`;
      for (const mode of ['auto', 'off'] as const) await check(sql, mode, rng.pick([7, 1000, 65536]));
    }
  });

  it('a dynamic filter (hash join probe): the same rows as DuckDB, on and off', async () => {
    const sql = 'SELECT fact.k, fact.s FROM fact JOIN dim ON fact.v = dim.v ORDER BY fact.k, fact.s';
    for (const mode of ['auto', 'off'] as const) await check(sql, mode, 1000);
  });

  it('row groups the row test empties do not decode their other columns', async () => {
    // a value inside every row group's [min, max] of v that no row holds: min/max keeps them all
    const sql = `SELECT k, s FROM fact WHERE v = 500.5 ORDER BY k`;
    const on = await check(sql, 'auto', 1000);
    const off = await check(sql, 'off', 1000);
    const m = on.scans[0]!.metrics;
    expect(on.table.numRows).toBe(0);
    expect(m.rowsNotDecoded).toBeGreaterThan(0);
    expect(m.bytesNotDecoded).toBeGreaterThan(0);
    expect(m.bytesDecoded).toBeLessThan(off.scans[0]!.metrics.bytesDecoded);
    expect(off.scans[0]!.metrics.rowsNotDecoded).toBe(0);
  });

  it('with a page index, the other columns are read only over the pages that hold survivors', async () => {
    const n = 60000;
    const rng = new Rng(9);
    const v = Array.from({ length: n }, (_, i) => (i % 13 === 0 ? null : rng.int(0, 1_000_000)));
    // a few rows hold the value searched for, all in one stretch of the file
    for (const i of [31000, 31003, 31950, 32500]) v[i] = 424242;
    const t = new Table({
      k: vectorFromArray(Array.from({ length: n }, (_, i) => i), new Int32()),
      v: vectorFromArray(v, new Int32()),
      big: vectorFromArray(Array.from({ length: n }, (_, i) => BigInt(i) * 1000003n), new Int64()),
      s: vectorFromArray(Array.from({ length: n }, (_, i) => (i % 5 === 0 ? null : `payload ${i} ${'x'.repeat(i % 23)}`)), new Utf8()),
      d: vectorFromArray(Array.from({ length: n }, (_, i) => i / 7), new Float64()),
    });
    const path = join(dir, 'paged.parquet');
    await writeParquetFile(path, t, { rowGroupSize: 30000, statistics: 'page', dataPageBytes: 8192, dictionary: false });
    await duck.createViewOnParquet('paged', path);
    for (const where of ['v = 424242', 'v = 424242 OR k < 5', 'v BETWEEN 424000 AND 424300', 'v IS NULL AND k % 1000 = 3']) {
      const sql = `SELECT k, big, s, d FROM paged WHERE ${where} ORDER BY k`;
      const expected = await duck.query(sql);
      for (const mode of ['auto', 'off'] as const) {
        const engine = await Engine.create({ batchSize: 1000, 'scan.lateMaterialization': mode, threads: 1 });
        const r = await runSql(engine, sql, { paged: path }, { duck });
        const c = compareResults(r.table, expected);
        expect(c.equal, `${mode}: ${sql}\n${formatComparison(c)}`).toBe(true);
        if (mode === 'auto' && where === 'v = 424242') {
          const m = r.scans[0]!.metrics;
          expect(m.rowsNotDecoded).toBeGreaterThan(50000); // the other columns of most rows, though no row group was empty
          expect(m.bytesNotDecoded).toBeGreaterThan(0);
        }
      }
    }
  });

  it('positions, survivors and ranges', () => {
    // two row groups covered [0,10) and [20,30)+[40,45) / whole [0,8)
    const cover = [[0, 10], [20, 30, 40, 45]];
    const positions = Int32Array.of(0, 9, 10, 19, 20, 24);
    const s = survivorRows(cover, positions);
    expect([...s[0]!]).toEqual([0, 9]);
    expect([...s[1]!]).toEqual([20, 29, 40, 44]);
    expect(rowsToRanges(Int32Array.of(1, 2, 3, 10, 50), 5)).toEqual([1, 4, 10, 11, 50, 51]);
    expect(rowsToRanges(Int32Array.of(1, 2, 3, 10, 50), 8)).toEqual([1, 11, 50, 51]);
    const out = new Int32Array(4);
    positionsIn([20, 30, 40, 45], s[1]!, 100, out, 0);
    expect([...out]).toEqual([100, 109, 110, 114]);
    const batches = [new Table({ x: vectorFromArray([1, 2, 3], new Int32()) }).batches[0]!, new Table({ x: vectorFromArray([4, 5], new Int32()) }).batches[0]!];
    expect([...keptPositions(batches, [Int32Array.of(0, 2), null], 4)]).toEqual([0, 2, 3, 4]);
  });
});
