/**
 * The SQL TPC-H needs, end to end through `runSql` against DuckDB on the same tables, at batch
 * sizes 1, 3 and 8192: LIKE / NOT LIKE / ILIKE with and without ESCAPE (in WHERE, SELECT, CASE,
 * on a dictionary column too), extract / date_part / year() (in SELECT, WHERE and GROUP BY),
 * substring / `||` / concat (q22's `substring(c_phone, 1, 2) IN (…)`), date constants with
 * intervals folded at plan time in every spelling TPC-H uses (temporal-fold.test.ts tests the
 * folding itself), and the typed refusals (a non-constant pattern, an interval on a column).
 */
import { Dictionary, Int32, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { ExpressionError, UnsupportedSqlError } from '../../core/errors.ts';
import { compareResults, formatComparison } from '../duckdb/compare.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { runSql } from './run.ts';

let duck: DuckDBSession;
let tables: Record<string, Table>;
const engines: Engine[] = [];

beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
  await duck.run(`CREATE TABLE p AS SELECT i AS k,
      CASE WHEN i % 11 = 0 THEN NULL ELSE ['PROMO BRUSHED TIN', 'STANDARD POLISHED BRASS', 'forest green', 'Forest Lime', 'ECONOMY ANODIZED STEEL', 'special%requests', 'a_b', 'crème brûlée', ''][i % 9 + 1] END AS s,
      CASE WHEN i % 13 = 0 THEN NULL ELSE DATE '1992-01-01' + ((i * 37) % 2500)::INTEGER END AS d,
      CASE WHEN i % 17 = 0 THEN NULL ELSE TIMESTAMP '1995-06-30 12:00:00' + to_minutes(i * 97) END AS ts,
      (10 + i % 25)::VARCHAR || '-' || (100 + i % 900)::VARCHAR || '-555' AS phone,
      (i % 7)::DECIMAL(15,2) / 10 AS disc
    FROM range(400) t(i)`);
  tables = { p: await duck.query('SELECT * FROM p') };
  // the string column dictionary-encoded, as a Parquet reader may hand it over
  const cols: Record<string, unknown> = {};
  for (const f of tables.p.schema.fields) cols[f.name] = tables.p.getChild(f.name);
  cols.s = vectorFromArray([...tables.p.getChild('s')!].map((v) => (v === null ? null : String(v))), new Dictionary(new Utf8(), new Int32()));
  tables.pd = new Table(cols as never);
  await duck.run('CREATE TABLE pd AS SELECT * FROM p');
  for (const batchSize of [1, 3, 8192]) engines.push(await Engine.create({ batchSize }));
});
afterAll(async () => {
  await duck.close();
});

async function same(sql: string): Promise<void> {
  const expected = await duck.query(sql);
  for (const engine of engines) {
    const { table } = await runSql(engine, sql, tables, { duck });
    const r = compareResults(table, expected);
    expect(r.equal, `${sql} (batch ${engine.config.batchSize})\n${formatComparison(r)}`).toBe(true);
  }
}

describe('LIKE and its kin in SQL', () => {
  it('LIKE / NOT LIKE / ILIKE / NOT ILIKE, ESCAPE, on plain and dictionary columns', async () => {
    for (const t of ['p', 'pd']) {
      await same(`SELECT k, s FROM ${t} WHERE s LIKE 'PROMO%'`);
      await same(`SELECT k FROM ${t} WHERE s NOT LIKE '%BRASS'`);
      await same(`SELECT k FROM ${t} WHERE s ILIKE 'forest%'`);
      await same(`SELECT k FROM ${t} WHERE s NOT ILIKE '%E%'`);
      await same(`SELECT k FROM ${t} WHERE s LIKE '%special%requests%'`);
      await same(`SELECT k FROM ${t} WHERE s LIKE '%#%%' ESCAPE '#'`);
      await same(`SELECT k FROM ${t} WHERE s LIKE 'a\\_b' ESCAPE '\\'`);
      await same(`SELECT k FROM ${t} WHERE s LIKE 'cr_me%'`);
      await same(`SELECT k, s LIKE '%O%' AS l, s ^@ 'S' AS st, starts_with(s, 'E') AS e, contains(s, 'TIN') AS c, suffix(s, 'n') AS x FROM ${t}`);
      await same(`SELECT sum(CASE WHEN s LIKE 'PROMO%' THEN k ELSE 0 END) AS promo FROM ${t}`);
    }
  });

  it('a pattern that is not a constant is refused, typed', async () => {
    await expect(runSql(engines[0]!, 'SELECT k FROM p WHERE s LIKE s', tables, { duck })).rejects.toThrow(UnsupportedSqlError);
  });
});

describe('extract, date_part and year() in SQL', () => {
  it('in SELECT, WHERE and GROUP BY, on DATE and TIMESTAMP', async () => {
    await same('SELECT k, extract(year FROM d) AS y, extract(month FROM d) AS m, date_part(\'dow\', d) AS w, year(ts) AS yt, extract(hour FROM ts) AS h FROM p');
    await same('SELECT k FROM p WHERE extract(year FROM d) = 1995');
    await same('SELECT extract(year FROM d) AS o_year, count(*) AS n, sum(k) AS s FROM p GROUP BY o_year ORDER BY o_year');
    await same("SELECT year(d) AS y, quarter(d) AS q, count(*) AS n FROM p WHERE d IS NOT NULL GROUP BY year(d), quarter(d)");
  });
});

describe('substring, || and concat in SQL', () => {
  it("q22's substring(c_phone, 1, 2) IN (…), and the other forms", async () => {
    await same("SELECT k, substring(phone, 1, 2) AS cc FROM p WHERE substring(phone, 1, 2) IN ('13', '31', '23', '29', '30', '18', '17')");
    await same("SELECT substring(phone FROM 1 FOR 2) AS cntrycode, count(*) AS numcust FROM p GROUP BY cntrycode");
    await same("SELECT k, substr(s, 2, 3) AS a, substring(s, -3) AS b, s || '!' AS c, concat(s, '-', k, '-', d) AS e, 'x' || k AS f FROM p");
  });
});

describe('dates and intervals folded at plan time, in queries', () => {
  it('every spelling TPC-H uses, compared with DATE and TIMESTAMP columns', async () => {
    for (const t of ['p', 'pd']) {
      await same(`SELECT k FROM ${t} WHERE d >= date '1994-01-01' AND d < date '1994-01-01' + interval '1' year`);
      await same(`SELECT k FROM ${t} WHERE d >= DATE '1994-01-01' AND d < DATE '1994-01-01' + INTERVAL 1 YEAR`);
      await same(`SELECT k FROM ${t} WHERE d <= date '1998-12-01' - interval '90' day`);
      await same(`SELECT k FROM ${t} WHERE d >= date '1993-07-01' AND d < date '1993-07-01' + interval '3' month`);
      await same(`SELECT k FROM ${t} WHERE d BETWEEN CAST('1995-01-01' AS DATE) AND '1996-12-31'::date`);
      await same(`SELECT k FROM ${t} WHERE d > date '1995-01-31' + interval 1 month`);
      await same(`SELECT k FROM ${t} WHERE d < date '1995-03-15' + 10 AND d >= date '1995-03-15' - 10`);
      await same(`SELECT k FROM ${t} WHERE ts < date '1996-01-01' + interval '36' hour AND ts >= timestamp '1995-07-01 06:00:00' - interval '2 days'`);
      await same(`SELECT k FROM ${t} WHERE d < date '1995-01-01' + interval '36' hour`);
      await same(`SELECT k FROM ${t} WHERE d = date '1995-01-01' + interval '12' hour OR d <> date '1996-01-01' + interval '1' minute`);
      await same(`SELECT k FROM ${t} WHERE d >= date '1994-01-01' + interval '1 year 2 months' - interval 3 day`);
    }
    await same("SELECT date '1994-01-01' + interval '1' year AS a, date '1994-01-31' + interval 1 month AS b, date '1995-03-01' - date '1995-01-01' AS c, date '1995-03-01' - 1 AS e, interval '1' day + date '1995-12-31' AS f, 5 + date '1994-01-01' AS g");
    await same("SELECT k, date '2024-02-29' - interval '1' year AS x FROM p WHERE k < 3");
  });

  it('what stays an interval is refused, typed; an out-of-range date is an error', async () => {
    await expect(runSql(engines[0]!, "SELECT k FROM p WHERE d + interval '1' day > date '1995-01-01'", tables, { duck })).rejects.toThrow(UnsupportedSqlError);
    await expect(runSql(engines[0]!, "SELECT interval '1' day AS i FROM p", tables, { duck })).rejects.toThrow(UnsupportedSqlError);
    await expect(runSql(engines[0]!, "SELECT k FROM p WHERE d + 1 > date '1995-01-01'", tables, { duck })).rejects.toThrow(UnsupportedSqlError);
    await expect(runSql(engines[0]!, "SELECT k FROM p WHERE d < date '1995-01-01' + 3000000000", tables, { duck })).rejects.toThrow(ExpressionError);
  });
});
