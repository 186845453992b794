/**
 * `joinlab sql --compare` is honest about what the user gets (issue 31):
 * - with `--out`, the file as written is read back by its format and compared with DuckDB's
 *   answer (a writer that dropped a leading U+FEFF, as csv.ts once did, is a difference);
 * - result columns that share a name (`SELECT 1 AS k, 'x' AS k`, `f64.k, f32.k`) compare, in
 *   memory and through every output format, instead of crashing in the DuckDB -> Arrow bridge;
 * - a cast's column name is DuckDB's (`CAST(id AS "UBIGINT")`), so it is no difference.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Table, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareResults } from '../../adapters/duckdb/compare.ts';
import { readWrittenFile } from '../../adapters/duckdb/read-back.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { runCli } from './test-helpers.ts';

let dir: string; // the tables
let outDir: string; // what the commands write (not a table of --data)
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-cmpout-'));
  outDir = await mkdtemp(join(tmpdir(), 'joinlab-cmpout-files-'));
  const duck = await DuckDBSession.open({ threads: 1 });
  await duck.run(`COPY (SELECT range::INTEGER AS id, range::DOUBLE AS k, ['\uFEFFa', '\uFEFF', '', NULL, 'x\uFEFF'][range + 1] AS s FROM range(5)) TO '${dir}/t.parquet' (FORMAT parquet)`);
  await duck.run(`COPY (SELECT range::INTEGER AS id, range::DOUBLE AS k FROM range(4)) TO '${dir}/f64.parquet' (FORMAT parquet)`);
  await duck.run(`COPY (SELECT range::INTEGER AS id, (range * 0.5)::FLOAT AS k FROM range(4)) TO '${dir}/f32.parquet' (FORMAT parquet)`);
  await duck.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(outDir, { recursive: true, force: true });
});

describe('sql --compare --out compares the file', () => {
  it('U+FEFF values: equal to DuckDB as read back from each format, and the CSV holds them', async () => {
    for (const ext of ['csv', 'parquet', 'arrow']) {
      const out = join(outDir, `bom.${ext}`);
      const r = await runCli(['sql', 'SELECT s, id FROM t ORDER BY id', '--data', dir, '--compare', '--out', out]);
      expect(r.stderr, ext).toBe('');
      expect(r.stdout, ext).toContain(`equal to DuckDB (${out} as read back)`);
      expect(r.code, ext).toBe(0);
    }
    const text = await readFile(join(outDir, 'bom.csv'), 'utf8');
    expect(text).toBe('s,id\n"\uFEFFa",0\n"\uFEFF",1\n"",2\n,3\nx\uFEFF,4\n');
  });

  it('a CSV file as the old writer wrote it (U+FEFF dropped) is a difference', async () => {
    const duck = await DuckDBSession.open({ threads: 1 });
    try {
      const expected = await duck.query(`SELECT chr(65279) || 'a' AS s UNION ALL SELECT chr(65279)`);
      const schema = new Table({ s: vectorFromArray([] as string[], new Utf8()) }).schema;
      const old = join(outDir, 'old.csv');
      await writeFile(old, 's\na\n""\n'); // what csv.ts wrote before: TextDecoder had stripped the U+FEFF
      expect(compareResults(await readWrittenFile(duck, old, schema), expected).equal).toBe(false);
      const fixed = join(outDir, 'fixed.csv');
      await writeFile(fixed, 's\n"\uFEFFa"\n"\uFEFF"\n');
      expect(compareResults(await readWrittenFile(duck, fixed, schema), expected).equal).toBe(true);
    } finally {
      duck.close();
    }
  });

  it('a file that does not hold the result is reported: the comparison reads it back', async () => {
    // NULL written as "" would be the empty string once read back: compared from the file, it shows
    const duck = await DuckDBSession.open({ threads: 1 });
    try {
      const expected = await duck.query(`SELECT NULL::VARCHAR AS s UNION ALL SELECT ''`);
      const schema = new Table({ s: vectorFromArray([] as string[], new Utf8()) }).schema;
      const bad = join(outDir, 'bad-null.csv');
      await writeFile(bad, 's\n""\n""\n');
      expect(compareResults(await readWrittenFile(duck, bad, schema), expected).equal).toBe(false);
    } finally {
      duck.close();
    }
  });
});

describe('sql --compare with result columns that share a name', () => {
  const QUERIES = [
    "SELECT 1 AS k, 'x' AS k FROM t",
    'SELECT k, s AS k, id AS k FROM t',
    'SELECT f64.k, f32.k FROM f64 JOIN f32 ON f64.id = f32.id',
    'SELECT f64.k, f32.k FROM f64 JOIN f32 ON f64.id = f32.id ORDER BY f64.id',
    'SELECT f64.k, f32.k FROM f64 JOIN f32 ON f64.id = f32.id ORDER BY f64.id DESC LIMIT 2',
  ];
  for (const sql of QUERIES) {
    it(`${sql}: in memory and through every --out format`, async () => {
      const r = await runCli(['sql', sql, '--data', dir, '--compare']);
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('equal to DuckDB');
      expect(r.code).toBe(0);
      for (const ext of ['csv', 'parquet', 'arrow']) {
        const out = join(outDir, `dup.${ext}`);
        const w = await runCli(['sql', sql, '--data', dir, '--compare', '--out', out]);
        expect(w.stderr, ext).toBe('');
        expect(w.stdout, ext).toContain(`equal to DuckDB (${out} as read back)`);
        expect(w.code, ext).toBe(0);
      }
    });
  }
});

describe('sql --compare with casts', () => {
  it("CAST(id AS UBIGINT) and CAST(id AS DECIMAL(3,0)) are named as DuckDB names them: equal", async () => {
    const r = await runCli(['sql', 'SELECT CAST(id AS UBIGINT), CAST(id AS DECIMAL(3,0)), id::DOUBLE FROM t', '--data', dir, '--compare']);
    expect(r.stdout).toContain('equal to DuckDB');
    expect(r.code).toBe(0);
  });
});
