/**
 * Messages that do not mislead (issue 31): an error names the user's expression, never a hidden
 * column (`\u0000a0`), an expression-language side (`l.d`), or a wrong reason (a List column "as a
 * join key" under SELECT DISTINCT, `current_date` "not found" among no columns, "ambiguous" for a
 * column only one scope has); and what DuckDB answers (HAVING without GROUP BY, a correlated NOT IN
 * with a non-equality correlation) is answered the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { ExpressionError, MissingColumnError, UnsupportedSqlError, UnsupportedTypeError } from '../../core/errors.ts';
import { differentialSession, SMALL_TABLES, type DifferentialSession } from './differential.ts';
import { runSql } from './run.ts';

let s: DifferentialSession<Engine>;
beforeAll(async () => {
  s = await differentialSession((c) => Engine.create(c), SMALL_TABLES, {
    dl: "SELECT * FROM (VALUES (1, DATE '2020-01-01', [1, 2]), (2, DATE '2020-01-02', [3])) v(id, d, lst)",
  });
});
afterAll(() => s.close());

async function errorOf(sql: string): Promise<Error> {
  try {
    await runSql(s.engines[1]!, sql, s.tables, { duck: s.duck });
  } catch (e) {
    return e as Error;
  }
  throw new Error(`ran: ${sql}`);
}

describe('error messages name what the user wrote', () => {
  it('an aggregate over a string names its argument, not a hidden column', async () => {
    const e = await errorOf('SELECT sum(x) FROM a');
    expect(e).toBeInstanceOf(ExpressionError);
    expect(e.message).not.toContain('\u0000');
    expect(e.message).toMatch(/sum\(x\): 'x' has type Utf8/);
    const g = await errorOf('SELECT k, sum(x || \'s\') FROM a GROUP BY k');
    expect(g.message).not.toContain('\u0000');
  });

  it('SELECT DISTINCT / GROUP BY of a List column says so, not "join key"', async () => {
    const d = await errorOf('SELECT DISTINCT lst FROM dl');
    expect(d).toBeInstanceOf(UnsupportedTypeError);
    expect(d.message).toMatch(/column 'lst' has type List.*in SELECT DISTINCT/);
    const g = await errorOf('SELECT lst FROM dl GROUP BY lst');
    expect(g.message).toMatch(/column 'lst' .* as a group-by column/);
    expect(g.message).not.toContain('\u0000');
  });

  it('min of a List column, a join of a string with a number, a column no scope has', async () => {
    expect((await errorOf('SELECT min(lst) FROM dl')).message).toMatch(/column 'lst' has type List.* as an argument of min$/);
    const k = await errorOf('SELECT a.k FROM a JOIN dl ON a.x = dl.id');
    expect(k.message).toBe('key types do not match: x (Utf8) and id (Int32) cannot be compared');
    // not "a correlated scalar subquery": no query has the column
    const m = await errorOf('SELECT (SELECT max(nope) FROM b)');
    expect(m).toBeInstanceOf(MissingColumnError);
    expect(m.message).toMatch(/column 'nope' not found .*columns: b\.k, b\.v, b\.y/);
  });

  it('current_date is an unsupported special value, not a missing column', async () => {
    for (const v of ['current_date', 'current_timestamp', 'localtime']) {
      const e = await errorOf(`SELECT ${v}`);
      expect(e).toBeInstanceOf(UnsupportedSqlError);
      expect(e.message).toMatch(new RegExp(`${v} \\(a time- or session-dependent special value`));
    }
    // a column of that name is still read
    expect(await s.difference('SELECT current_date FROM (SELECT 1 AS current_date) t')).toBeNull();
  });

  it("DuckDB's rowid pseudo-column is refused as unsupported, not as a missing column", async () => {
    for (const q of ['SELECT rowid FROM b', 'SELECT b.rowid, b.k FROM b']) {
      const e = await errorOf(q);
      expect(e, q).toBeInstanceOf(UnsupportedSqlError);
      expect(e.message).toMatch(/rowid pseudo-column/);
    }
    expect(await s.difference('SELECT rowid FROM (SELECT 1 AS rowid) t')).toBeNull();
  });

  it('date arithmetic on a column names the SQL expression, not the side l.d', async () => {
    const e = await errorOf('SELECT d + 1 FROM dl');
    expect(e).toBeInstanceOf(UnsupportedSqlError);
    expect(e.message).toContain(': d + 1');
    expect(e.message).not.toMatch(/\bl\.d\b/);
  });

  it('TABLESAMPLE is refused, not ignored', async () => {
    const e = await errorOf('SELECT * FROM a TABLESAMPLE 0%');
    expect(e).toBeInstanceOf(UnsupportedSqlError);
    expect(e.message).toMatch(/TABLESAMPLE .*at character 14/);
  });
});

describe("DuckDB's answer where joinlab refused", () => {
  it('HAVING without GROUP BY or aggregates is one group', async () => {
    for (const sql of ['SELECT 1 FROM a HAVING true', 'SELECT 1 FROM e HAVING true', 'SELECT 2 AS two FROM a HAVING false', 'SELECT 1 FROM a HAVING count(*) > 3']) expect(await s.difference(sql), sql).toBeNull();
  });

  it('a correlated [NOT] IN / EXISTS whose bare column names both scopes have', async () => {
    for (const sql of [
      'SELECT k FROM a WHERE k NOT IN (SELECT k FROM b WHERE b.v > a.v)',
      'SELECT k FROM a WHERE k NOT IN (SELECT k FROM b WHERE v < a.v)',
      'SELECT k, v FROM a WHERE k IN (SELECT k FROM b WHERE v <= a.v + 10)',
      'SELECT k, x FROM a WHERE EXISTS (SELECT 1 FROM b WHERE k = a.k AND v > a.v)',
      'SELECT k FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE k = a.k)',
    ]) {
      expect(await s.difference(sql), sql).toBeNull();
    }
  });

  it('a derived table reading the table beside it is refused as LATERAL', async () => {
    for (const sql of ['SELECT * FROM a, (SELECT a.k + 1 AS z) s', 'SELECT * FROM a, LATERAL (SELECT k + 1 AS z) s']) {
      const e = await errorOf(sql);
      expect(e, sql).toBeInstanceOf(UnsupportedSqlError);
      expect(e.message).toMatch(/LATERAL/);
    }
  });
});
