/**
 * FROM-clause syntax against DuckDB on the same tables (NULLs, duplicates, an empty table; batch
 * sizes 1, 3 and 8192): column aliases on a table reference (`t AS x(a, b)`, a prefix when fewer
 * than the columns, on base tables, derived tables and CTEs: TPC-H q13's `AS c_orders (c_custkey,
 * c_count)`; `WITH c(a, b) AS …`), and DuckDB's `SEMI JOIN` / `ANTI JOIN` (ON, USING, NATURAL; only the left side's
 * columns come out, the right side is visible to the ON condition only).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { MissingColumnError, UsageError } from '../../core/errors.ts';
import type { JoinInput } from '../../core/engine.ts';
import type { DuckDBSession } from '../duckdb/session.ts';
import { differentialSession, SMALL_TABLES, type DifferentialSession } from './differential.ts';
import { runSql } from './run.ts';

let s: DifferentialSession<Engine>;
let duck: DuckDBSession;
let engines: readonly Engine[];
let T: Readonly<Record<string, JoinInput>>;
beforeAll(async () => {
  s = await differentialSession((c) => Engine.create(c), SMALL_TABLES);
  ({ duck, engines, tables: T } = s);
});
afterAll(() => s.close());

async function same(sql: string, ordered = false): Promise<void> {
  expect(await s.difference(sql, { ordered })).toBeNull();
}

describe('column aliases on a table reference', () => {
  it('rename the first columns of base tables, derived tables and CTEs', async () => {
    await same('SELECT * FROM a AS t(p, q, r)');
    await same('SELECT * FROM a AS t(p)');
    await same('SELECT t.p, t.x, p + v AS s FROM a t(p) WHERE p > 1 AND x IS NOT NULL');
    await same('SELECT t.p, u.v FROM a AS t(p, q) JOIN b AS u(p) ON t.p = u.p');
    await same('SELECT * FROM a t(kk) JOIN b USING (k)'.replace('USING (k)', 'ON t.kk = b.k'));
    await same('SELECT c_count, count(*) AS custdist FROM (SELECT k, count(v) FROM a GROUP BY k) AS c_orders (c_key, c_count) GROUP BY c_count ORDER BY custdist DESC, c_count DESC', true);
    await same('WITH w AS (SELECT k, v * 2 FROM a) SELECT d.kk, d.dbl FROM w AS d(kk, dbl) WHERE d.dbl > 30');
    await same('SELECT * FROM a x(k2) NATURAL JOIN b');
    // CTE column aliases: a prefix; more names than columns are ignored (DuckDB's rule for CTEs)
    await same('WITH c(p) AS (SELECT k, v FROM a) SELECT * FROM c WHERE p > 1');
    await same('WITH c(p) AS (SELECT k, v FROM a) SELECT d.* FROM c AS d(q)');
    await same('WITH c(p, q, r) AS (SELECT k, v FROM a) SELECT q, p FROM c');
  });

  it('more aliases than columns, or the old name after renaming, are errors as in DuckDB', async () => {
    await expect(runSql(engines[0]!, 'SELECT * FROM b AS t(p, q, r, s)', T, { duck })).rejects.toThrow(UsageError);
    await expect(runSql(engines[0]!, 'SELECT * FROM b AS t(p, q, r, s)', T, { duck })).rejects.toThrow(/has 3 columns available but 4 columns specified/);
    await expect(runSql(engines[0]!, 'SELECT t.k FROM a AS t(p)', T, { duck })).rejects.toThrow(MissingColumnError);
  });
});

describe('SEMI JOIN / ANTI JOIN', () => {
  it('keep the left rows with (without) a match, the left columns only', async () => {
    for (const j of ['SEMI', 'ANTI']) {
      await same(`SELECT * FROM a ${j} JOIN b ON a.k = b.k`);
      await same(`SELECT a.x FROM a ${j} JOIN b ON a.k = b.k AND b.v > a.v`);
      await same(`SELECT * FROM a ${j} JOIN b USING (k)`);
      await same(`SELECT * FROM a NATURAL ${j} JOIN b`);
      await same(`SELECT * FROM a ${j} JOIN e ON a.k = e.k`);
      await same(`SELECT * FROM e ${j} JOIN a ON a.k = e.k`);
      await same(`SELECT a.k, count(*) AS n FROM a ${j} JOIN b ON a.v < b.v WHERE a.x <> 'b' GROUP BY a.k`);
      await same(`SELECT a.k, c.v FROM a ${j} JOIN b ON a.k = b.k JOIN b AS c ON c.k = a.k`);
      await same(`SELECT b.v AS bv, a.* FROM b JOIN (a ${j} JOIN b AS c ON a.k = c.k) ON b.k = a.k`);
    }
  });

  it('the right side is visible to the ON condition only (DuckDB: table not found)', async () => {
    for (const sql of ['SELECT b.v FROM a SEMI JOIN b ON a.k = b.k', 'SELECT a.x FROM a ANTI JOIN b ON a.k = b.k WHERE b.v > 3']) {
      await expect(duck.query(sql)).rejects.toThrow();
      await expect(runSql(engines[0]!, sql, T, { duck }), sql).rejects.toThrow(MissingColumnError);
    }
  });
});
