/**
 * Date and interval arithmetic of constants, folded at plan time (temporal-fold.ts): random dates
 * (BC to far future, month ends, leap days) plus and minus random intervals of every unit and
 * spelling, nested, each folded by joinlab and computed by DuckDB (`SELECT <expr>`), compared as
 * values and types; then the spellings TPC-H uses compared with DATE and TIMESTAMP columns through
 * `runSql` (batch sizes 1, 3, 8192, a dictionary-encoded table too), and the typed refusals.
 */
import { Dictionary, Int32, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { ExpressionError, UnsupportedSqlError } from '../../core/errors.ts';
import { Rng } from '../../core/random.ts';
import { compareResults, formatComparison } from '../duckdb/compare.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { parseSql } from './parse.ts';
import { runSql } from './run.ts';
import { foldTemporal } from './temporal-fold.ts';

let duck: DuckDBSession;
let tables: Record<string, Table>;
const engines: Engine[] = [];

beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
  await duck.run(`CREATE TABLE p AS SELECT i AS k,
      CASE WHEN i % 11 = 0 THEN NULL ELSE ['a', 'b', 'c'][i % 3 + 1] END AS s,
      CASE WHEN i % 13 = 0 THEN NULL ELSE DATE '1992-01-01' + ((i * 37) % 2500)::INTEGER END AS d,
      CASE WHEN i % 17 = 0 THEN NULL ELSE TIMESTAMP '1995-06-30 12:00:00' + to_minutes(i * 97) END AS ts
    FROM range(400) t(i)`);
  await duck.run('CREATE TABLE pd AS SELECT * FROM p');
  const p = await duck.query('SELECT * FROM p');
  const cols: Record<string, unknown> = {};
  for (const f of p.schema.fields) cols[f.name] = p.getChild(f.name);
  cols.s = vectorFromArray([...p.getChild('s')!].map((v) => (v === null ? null : String(v))), new Dictionary(new Utf8(), new Int32()));
  tables = { p, pd: new Table(cols as never) };
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

function randomDate(rng: Rng): string {
  const y = rng.pick([rng.int(1, 9999), rng.int(1900, 2100), rng.int(1990, 2000), 2000, 2024, 1900]);
  const m = rng.int(1, 12);
  const last = new Date(Date.UTC(2000, 0, 1)).setUTCFullYear(y, m, 0);
  const d = rng.chance(0.4) ? new Date(last).getUTCDate() : rng.int(1, 28);
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

function randomInterval(rng: Rng): string {
  const n = rng.int(-40, 40);
  switch (rng.int(0, 5)) {
    case 0:
      return `interval '${n}' ${rng.pick(['year', 'month', 'day', 'hour', 'minute', 'week', 'quarter'])}`;
    case 1:
      return `interval ${Math.abs(n)} ${rng.pick(['YEAR', 'MONTH', 'DAY', 'HOUR'])}`;
    case 2:
      return `interval '${n} ${rng.pick(['years', 'months', 'days', 'hours', 'mons', 'weeks'])}${rng.chance(0.3) ? ` ${rng.int(0, 30)} days` : ''}${rng.chance(0.2) ? ' ago' : ''}'`;
    case 3:
      return `INTERVAL '${rng.int(0, 5)}.${rng.int(0, 9)}' ${rng.pick(['day', 'year', 'second'])}`;
    case 4:
      return `(interval '${n}' month + interval '${rng.int(-40, 40)}' day)`;
    default:
      return `interval (${rng.int(0, 9)} + ${rng.int(0, 9)}) day`;
  }
}

describe('folding date and interval constants', () => {
  it('random dates ± random intervals, nested, agree with DuckDB in value and type', async () => {
    const rng = new Rng(31337);
    let folded = 0;
    for (let i = 0; i < 300; i++) {
      const date = `${rng.pick(['date', 'DATE', 'CAST(', "'"])}`;
      const text = randomDate(rng);
      const d = date === 'CAST(' ? `CAST('${text}' AS DATE)` : date === "'" ? `'${text}'::date` : `${date} '${text}'`;
      let e = `${d} ${rng.pick(['+', '-'])} ${randomInterval(rng)}`;
      if (rng.chance(0.3)) e = `(${e}) ${rng.pick(['+', '-'])} ${randomInterval(rng)}`;
      if (rng.chance(0.15)) e = `${d} ${rng.pick(['+', '-'])} ${rng.int(-400, 400)}`;
      if (rng.chance(0.1)) e = `${d} - date '${randomDate(rng)}'`;
      const sql = `SELECT ${e} AS v, typeof(${e}) AS t`;
      let want: unknown[];
      try {
        want = (await duck.queryRows(sql))[0]!;
      } catch {
        continue; // out of DuckDB's range: covered below
      }
      const q = await parseSql(duck, `SELECT ${e}`);
      const f = foldTemporal(q.select[0]!.expr);
      expect(f, e).not.toBeNull();
      folded++;
      // the folded constant, run by DuckDB: the same value and type
      const back = f!.kind === 'cast' && f!.arg.kind === 'constant' ? `CAST('${String(f!.arg.constant.value)}' AS ${f!.type})` : '?';
      const got = (await duck.queryRows(`SELECT ${back} AS v, typeof(${back}) AS t`))[0]!;
      expect(got, `${e} -> ${back}`).toEqual(want);
    }
    expect(folded).toBeGreaterThan(250);
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
