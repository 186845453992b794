/**
 * Date and interval arithmetic of constants, folded at plan time (temporal-fold.ts): random dates
 * (BC to far future, month ends, leap days) plus and minus random intervals of every unit and
 * spelling, nested, each folded by joinlab and computed by DuckDB (`SELECT <expr>`), compared as
 * values and types. (The folded constants in queries, against DATE and TIMESTAMP columns:
 * expressions.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../core/random.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { parseSql } from './parse.ts';
import { foldTemporal } from './temporal-fold.ts';

let duck: DuckDBSession;

beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(async () => {
  await duck.close();
});

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
