/**
 * A query reads only the columns it names: the scan of a single-table query (no join to project
 * its inputs) is asked for the mentioned columns, so `SELECT count(*)` over a wide Parquet file
 * decodes one column, not all of them — with the same answers as DuckDB.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Float64, Int32, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { compareResults, formatComparison } from '../duckdb/compare.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { writeParquetFile } from '../io/parquet.ts';
import { runSql } from './run.ts';

let dir: string;
let duck: DuckDBSession;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-projection-'));
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(async () => {
  await duck.close();
  await rm(dir, { recursive: true, force: true });
});

it('a single-table query decodes only the columns it mentions', async () => {
  const n = 5000;
  const t = new Table({
    k: vectorFromArray(Array.from({ length: n }, (_x, i) => i), new Int32()),
    v: vectorFromArray(Array.from({ length: n }, (_x, i) => (i % 7 === 0 ? null : i / 3)), new Float64()),
    s: vectorFromArray(Array.from({ length: n }, (_x, i) => `a long string value number ${i}`), new Utf8()),
  });
  const path = join(dir, 't.parquet');
  await writeParquetFile(path, t);
  await duck.createViewOnParquet('t', path);
  const engine = await Engine.create({ batchSize: 1000 });
  const decoded: Record<string, number> = {};
  for (const sql of ['SELECT * FROM t WHERE k < 100', 'SELECT count(*) FROM t', 'SELECT sum(v) FROM t WHERE k > 10', 'SELECT k, s FROM t WHERE v IS NULL ORDER BY k LIMIT 3']) {
    const r = await runSql(engine, sql, { t: path }, { duck });
    const c = compareResults(r.table, await duck.query(sql));
    expect(c.equal, `${sql}\n${formatComparison(c)}`).toBe(true);
    decoded[sql] = r.scans[0]!.metrics.bytesDecoded;
  }
  const all = decoded['SELECT * FROM t WHERE k < 100']!;
  expect(decoded['SELECT count(*) FROM t']!).toBeLessThan(all / 3);
  expect(decoded['SELECT sum(v) FROM t WHERE k > 10']!).toBeLessThan(all / 2);
});
