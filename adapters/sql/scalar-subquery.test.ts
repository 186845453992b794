/**
 * Uncorrelated scalar subqueries against DuckDB on the same tables (NULLs, duplicates, an empty
 * table; batch sizes 1, 3 and 8192): in WHERE, the select list, HAVING (TPC-H q11), ORDER BY, an
 * ON condition, nested in other subqueries, over a CTE the query also reads (q15); each value of
 * the subquery's own type (BIGINT count, DOUBLE avg, HUGEINT / DECIMAL sums, VARCHAR, DATE);
 * no row is NULL, more than one row is DuckDB's error. A static predicate on the value prunes
 * row groups like a literal does.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { ExpressionError, UnsupportedSqlError, UsageError } from '../../core/errors.ts';
import type { JoinInput } from '../../core/engine.ts';
import type { DuckDBSession } from '../duckdb/session.ts';
import { differentialSession, SMALL_TABLES, type DifferentialSession } from './differential.ts';
import { runSql } from './run.ts';

let s: DifferentialSession<Engine>;
let duck: DuckDBSession;
let engines: readonly Engine[];
let tables: Readonly<Record<string, JoinInput>>;
beforeAll(async () => {
  // decimals and dates made by DuckDB
  s = await differentialSession((c) => Engine.create(c), SMALL_TABLES, { d: "SELECT * FROM (VALUES (1, 12.25::DECIMAL(15,2), DATE '1994-01-01'), (2, 0.10, DATE '1995-06-30'), (2, NULL, NULL), (3, 99999999999.99, DATE '1992-02-29')) t(k, price, day)" });
  ({ duck, engines, tables } = s);
});
afterAll(() => s.close());

async function same(sql: string, ordered = false): Promise<void> {
  expect(await s.difference(sql, { ordered })).toBeNull();
}

describe('uncorrelated scalar subqueries', () => {
  it('in WHERE, the select list, ORDER BY and an ON condition, of the subquery type', async () => {
    await same('SELECT * FROM a WHERE v > (SELECT avg(v) FROM b)');
    await same('SELECT * FROM a WHERE k = (SELECT min(k) FROM b)');
    await same('SELECT k, (SELECT count(*) FROM b) AS n, v + (SELECT sum(v) FROM b) AS s, (SELECT max(y) FROM b) AS m FROM a');
    await same('SELECT k, v FROM a ORDER BY abs(v - (SELECT avg(v) FROM b)), k'.replace('abs(v - (SELECT avg(v) FROM b))', 'v * (SELECT count(*) FROM b) DESC'), true);
    await same('SELECT a.k, b.v FROM a JOIN b ON a.k = b.k AND b.v < (SELECT max(v) FROM a)');
    await same("SELECT x FROM a WHERE x > (SELECT min(x) FROM a) OR k = (SELECT max(k) FROM b) - 4");
    await same('SELECT (SELECT max(v) FROM a) AS top, (SELECT min(y) FROM b) AS low');
  });

  it('no row is a NULL of the subquery type; an empty table too', async () => {
    await same('SELECT k FROM a WHERE v > (SELECT v FROM b WHERE v > 1000)');
    await same('SELECT k, (SELECT v FROM b WHERE v > 1000) AS none FROM a');
    await same('SELECT (SELECT max(k) FROM e) AS m, (SELECT count(*) FROM e) AS n, (SELECT sum(v) FROM e) + 1 AS s');
    await same('SELECT * FROM a WHERE k > (SELECT count(*) FROM e)');
    await same('SELECT * FROM a WHERE k = (SELECT k FROM b WHERE k IS NULL)');
  });

  it('count(DISTINCT …), sum / avg (DISTINCT …) and CASE inside aggregates, in and around subqueries', async () => {
    await same("SELECT count(DISTINCT k) AS dk, sum(DISTINCT v) AS sv, avg(DISTINCT k) AS ak, sum(CASE WHEN x IN ('a', 'b') THEN v ELSE 0 END) / sum(v) AS share FROM a");
    await same('SELECT k, count(DISTINCT v % 20) AS n FROM a WHERE v > (SELECT count(DISTINCT k) FROM b) GROUP BY k');
    await same('SELECT (SELECT count(DISTINCT k) FROM b) AS dk, (SELECT sum(CASE WHEN y > 1 THEN v END) FROM b) AS s');
  });

  it('decimals keep their scale, dates and strings their type', async () => {
    await same('SELECT k, price FROM d WHERE price > (SELECT avg(price) FROM d)');
    await same('SELECT k, (SELECT sum(price) * 0.0001 FROM d) AS tiny, price * (SELECT sum(price) FROM d WHERE k = 2) AS p FROM d');
    await same('SELECT k, day FROM d WHERE day < (SELECT max(day) FROM d)');
    await same("SELECT k FROM a WHERE x >= (SELECT max(x) FROM a WHERE x < 'd')");
    await same('SELECT k, sum(price) AS value FROM d GROUP BY k HAVING sum(price) > (SELECT sum(price) * 0.0001 FROM d) ORDER BY value DESC', true);
  });

  it('--explain shows each one, run once, with its value', async () => {
    const { plan } = await runSql(engines[0]!, 'SELECT k FROM a WHERE v > (SELECT avg(v) FROM b) AND k < (SELECT count(*) FROM b)', tables, { duck });
    const text = JSON.stringify(plan);
    expect(text).toContain("value: CAST('30.0' AS DOUBLE)");
    expect(text).toContain('value: CAST(5 AS BIGINT)');
  });

  it("the value's Arrow type is DuckDB's", async () => {
    const sql = 'SELECT (SELECT count(*) FROM a) AS n, (SELECT avg(v) FROM a) AS m, (SELECT sum(v) FROM a) AS s, (SELECT sum(price) * 0.0001 FROM d) AS t, (SELECT max(day) FROM d) AS dy, (SELECT min(x) FROM a) AS x, (SELECT max(k) FROM e) AS none';
    const { table } = await runSql(engines[0]!, sql, tables, { duck });
    const expected = await duck.query(sql);
    expect(table.schema.fields.map((f) => `${f.name}: ${String(f.type)}`)).toEqual(expected.schema.fields.map((f) => `${f.name}: ${String(f.type)}`));
  });

  it('HAVING, nested subqueries, and a CTE read in FROM and in the subquery (TPC-H q11, q15)', async () => {
    await same('SELECT k, sum(v) AS s FROM a GROUP BY k HAVING sum(v) > (SELECT avg(v) FROM b) ORDER BY k', true);
    await same('SELECT * FROM a WHERE v < (SELECT max(v) FROM b WHERE v < (SELECT max(v) FROM a WHERE k < 3))');
    await same('SELECT * FROM a WHERE k IN (SELECT k FROM b WHERE v > (SELECT avg(v) FROM b))');
    await same('SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.v < (SELECT max(v) FROM a))');
    // a derived table inside a subquery, read by DuckDB's name of an unaliased expression
    await same('SELECT * FROM a WHERE v > (SELECT max("(v + 1)") FROM (SELECT v + 1 FROM b) AS s)');
    await same('SELECT * FROM a WHERE k IN (SELECT "(k * 1)" FROM (SELECT k * 1 FROM b) AS s)');
    await same('WITH r AS (SELECT k, sum(v) AS total FROM a GROUP BY k) SELECT r.k, r.total FROM r WHERE r.total = (SELECT max(total) FROM r) ORDER BY r.k', true);
    await same('WITH r AS (SELECT k, sum(v) AS total FROM a GROUP BY k) SELECT b.k, r.total FROM b, r WHERE b.k = r.k AND r.total >= (SELECT avg(total) FROM r)');
  });

  it("more than one row is DuckDB's error, more than one column its binder error; correlation outside WHERE is refused", async () => {
    for (const sql of ['SELECT * FROM a WHERE v > (SELECT v FROM b)', 'SELECT k FROM e WHERE k > (SELECT k FROM a)']) {
      await expect(duck.query(sql)).rejects.toThrow(/More than one row returned by a subquery/);
      await expect(runSql(engines[0]!, sql, tables, { duck })).rejects.toThrow(ExpressionError);
      await expect(runSql(engines[0]!, sql, tables, { duck })).rejects.toThrow(/More than one row returned by a subquery/);
    }
    await expect(runSql(engines[0]!, 'SELECT * FROM a WHERE v > (SELECT v, k FROM b LIMIT 1)', tables, { duck })).rejects.toThrow(UsageError);
    await expect(runSql(engines[0]!, 'SELECT k, (SELECT count(*) FROM b WHERE b.k = a.k) AS n FROM a', tables, { duck })).rejects.toThrow(UnsupportedSqlError);
  });

  it('a static predicate on the value prunes row groups like a literal', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'joinlab-scalar-'));
    try {
      const path = join(dir, 'big.parquet');
      await duck.run(`COPY (SELECT range::INTEGER AS k, range % 7 AS m FROM range(8192)) TO '${path}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
      const sql = 'SELECT count(*) AS n FROM big WHERE k < (SELECT min(k) + 2047 FROM a)';
      const { table, scans } = await runSql(engines[2]!, sql, { ...tables, big: path }, { duck });
      expect(Number(table.getChildAt(0)!.get(0))).toBe(2048);
      const big = scans.find((s) => s.table === 'big')!;
      expect([big.metrics.containersTotal, big.metrics.containersPruned]).toEqual([4, 3]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('[NOT] EXISTS / IN subqueries in HAVING', () => {
  it('filter the groups (semi / anti / mark joins over them)', async () => {
    await same('SELECT k, sum(v) AS s FROM a GROUP BY k HAVING k IN (SELECT k FROM b)');
    await same('SELECT k, sum(v) AS s FROM a GROUP BY k HAVING k NOT IN (SELECT k FROM b WHERE k IS NOT NULL) ORDER BY k', true);
    await same('SELECT k, sum(v) AS s FROM a GROUP BY k HAVING k NOT IN (SELECT k FROM b)');
    await same('SELECT k, count(*) AS n FROM a GROUP BY k HAVING count(*) > 1 AND EXISTS (SELECT 1 FROM b WHERE b.v > 20)');
    await same('SELECT k, count(*) AS n FROM a GROUP BY k HAVING NOT EXISTS (SELECT 1 FROM e)');
    await same('SELECT k, max(v) AS m FROM a GROUP BY k HAVING max(v) IN (SELECT v + 5 FROM b)');
    await same('SELECT k, count(*) AS n FROM a GROUP BY k HAVING count(*) > 1 OR k IN (SELECT k FROM b WHERE v > 30)');
  });

  it('a correlated one is refused', async () => {
    await expect(runSql(engines[0]!, 'SELECT k, count(*) FROM a GROUP BY k HAVING EXISTS (SELECT 1 FROM b WHERE b.k = a.k)', tables, { duck })).rejects.toThrow(UnsupportedSqlError);
  });
});

describe('correlated scalar subqueries in WHERE (decorrelated: a join with the subquery grouped by its keys)', () => {
  it('sum / avg / min / max: an outer row without a group compares with NULL', async () => {
    await same('SELECT * FROM a WHERE v > (SELECT avg(v) FROM b WHERE b.k = a.k)');
    await same('SELECT * FROM a WHERE v < (SELECT 2 * max(v) FROM b WHERE a.k = b.k)');
    await same('SELECT * FROM a WHERE v > (SELECT min(v) FROM b WHERE b.k = a.k AND b.v > 20)');
    await same('SELECT a.x FROM a WHERE a.v * 2 >= (SELECT sum(b.v) FROM b WHERE b.k = a.k) + 1');
    await same('SELECT * FROM a WHERE v < 20 OR v > (SELECT max(v) FROM b WHERE b.k = a.k)');
    await same('SELECT * FROM a WHERE (SELECT sum(v) FROM b WHERE b.k = a.k) IS NULL');
    await same('SELECT * FROM a WHERE coalesce((SELECT sum(v) FROM b WHERE b.k = a.k), 0) < 30');
    await same('SELECT * FROM a WHERE v > (SELECT max(v) FROM e WHERE e.k = a.k)');
  });

  it('count: an outer row without a group counts 0 (the COUNT bug)', async () => {
    await same('SELECT * FROM a WHERE (SELECT count(*) FROM b WHERE b.k = a.k) = 0');
    await same('SELECT * FROM a WHERE v >= (SELECT count(b.v) FROM b WHERE b.k = a.k) * 20');
    await same('SELECT * FROM a WHERE (SELECT count(*) FROM e WHERE e.k = a.k) = 0');
    await same('SELECT * FROM a WHERE (SELECT count(*) + 1 FROM b WHERE b.k = a.k AND b.v > 20) > 1');
    await same('SELECT * FROM a WHERE (SELECT count(DISTINCT i.v) FROM a AS i WHERE i.k = a.k) < 2');
    await same("SELECT * FROM a WHERE v >= (SELECT sum(CASE WHEN b.y > 1 THEN b.v ELSE 0 END) FROM b WHERE b.k = a.k)");
  });

  it('several keys, two subqueries in one conjunct, outer columns in the select expression, joins, aggregates above', async () => {
    await same('SELECT * FROM a WHERE x = (SELECT max(i.x) FROM a AS i WHERE i.k = a.k AND i.v = a.v)');
    await same('SELECT * FROM a WHERE (SELECT count(*) FROM a AS i WHERE a.k = i.k AND i.v = a.v) = 1');
    await same('SELECT * FROM a WHERE (SELECT min(v) FROM b WHERE b.k = a.k) < (SELECT max(v) - 10 FROM b WHERE b.k = a.k)');
    await same('SELECT * FROM a WHERE v > (SELECT max(b.v) - a.k FROM b WHERE b.k = a.k)');
    await same('SELECT a.k, b.v FROM a JOIN b ON a.k = b.k WHERE b.v < (SELECT avg(i.v) FROM a AS i WHERE i.k = b.k)');
    await same('SELECT a.k, count(*) AS n FROM a WHERE v <= (SELECT avg(v) FROM a AS i WHERE i.k = a.k) GROUP BY a.k ORDER BY a.k NULLS FIRST', true);
    await same('SELECT * FROM a WHERE v > (SELECT avg(v) FROM b WHERE b.k = a.k) AND v < (SELECT sum(v) FROM b WHERE b.k = a.k)');
    await same('SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.v < (SELECT max(i.v) FROM a AS i WHERE i.k = b.k))');
  });

  it("few outer rows: the subquery reads only their keys (DuckDB's duplicate-eliminated join); many: replayed", async () => {
    const reduced = [
      'SELECT * FROM b WHERE b.k = 3 AND v > (SELECT avg(v) FROM a WHERE a.k = b.k)',
      'SELECT * FROM b WHERE b.v > 40 AND (SELECT count(*) FROM a WHERE a.k = b.k) = 0',
      'SELECT * FROM b WHERE b.k IS NULL AND (SELECT count(*) FROM a WHERE a.k = b.k) = 0',
      'SELECT * FROM e WHERE v > (SELECT min(v) FROM a WHERE a.k = e.k)',
    ];
    const replayed = ['SELECT * FROM a WHERE v > (SELECT avg(v) FROM b WHERE b.k = a.k)', 'SELECT * FROM a WHERE (SELECT count(*) FROM b WHERE b.k = a.k AND b.v > 20) = 0'];
    for (const [sqls, label] of [
      [reduced, "over the outer rows' keys only"],
      [replayed, 'grouped by its correlated columns)'],
    ] as const) {
      for (const sql of sqls) {
        await same(sql);
        for (const engine of engines) expect(JSON.stringify((await runSql(engine, sql, tables, { duck })).plan), sql).toContain(label);
      }
    }
  });

  it('what cannot be decorrelated exactly is refused, typed', async () => {
    const cases = [
      'SELECT * FROM a WHERE v > (SELECT max(v) FROM b WHERE b.k < a.k)',
      'SELECT * FROM a WHERE v > (SELECT min(b.v) FROM b WHERE b.k = a.k AND b.v = a.v - 5)',
      'SELECT * FROM a WHERE v > (SELECT v FROM b WHERE b.k = a.k)',
      'SELECT * FROM a WHERE v > (SELECT max(v) FROM b WHERE b.k = a.k LIMIT 1)',
      'SELECT * FROM a WHERE v > (SELECT max(v) FROM b WHERE b.k = a.k GROUP BY b.v)',
      'SELECT * FROM a WHERE v > (SELECT max(v + a.k) FROM b WHERE b.k = a.k)',
      'SELECT * FROM a WHERE v > (SELECT max(v) FROM b WHERE b.k = a.k OR b.v > 1)',
      'SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.v > (SELECT max(v) FROM e WHERE e.k = a.k))',
    ];
    for (const sql of cases) await expect(runSql(engines[0]!, sql, tables, { duck }), sql).rejects.toThrow(UnsupportedSqlError);
  });
});
