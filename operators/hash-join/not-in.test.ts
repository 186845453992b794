/**
 * NOT IN with a residual filter in the hash join: each outer row's inner set is the inner rows the
 * filter passes, so a NULL inner key only empties the answer for outer rows whose filter it passes,
 * and a NULL outer key survives exactly when no inner row passes. Named cases for each rule, then a
 * differential run on random tables dense in NULLs — both outer sides, collect-left and partitioned
 * — against the nested-loop oracle and DuckDB.
 */
import { Float64, Int32, Table, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { Rng } from '../../core/random.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { joinToSql } from '../../adapters/duckdb/join-sql.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { rebatch } from '../../adapters/datagen/random-tables.ts';

const table = (k: (number | null)[], v: (number | null)[], batch = 3) =>
  rebatch(new Table({ k: vectorFromArray(k, new Int32()), v: vectorFromArray(v, new Float64()), tag: vectorFromArray(k.map((_, i) => i), new Int32()) }), batch);
const tags = (t: Table) => [...t.getChild('tag')!.toArray()].map(Number).sort((a, b) => a - b);

async function notIn(outerLeft: boolean, build: 'left' | 'right', left: Table, right: Table, filter: string, config: Record<string, unknown> = {}) {
  const engine = await Engine.create({ join: 'hash', 'hash.build': build, ...config });
  const { table: t } = await engine.join({ type: outerLeft ? 'left-anti' : 'right-anti', on: 'k=k', nullAware: true, filter }, left, right);
  return tags(t);
}

describe('NOT IN with a residual filter (hash join)', () => {
  for (const build of ['left', 'right'] as const) {
    it(`a NULL inner key excludes only the outer rows its filter passes (build=${build})`, async () => {
      const outer = table([1, 2, 3], [10, 20, 30]);
      const inner = table([null, 9], [25, 0]); // the NULL row passes l.v > r.v only for outer v = 30
      expect(await notIn(true, build, outer, inner, 'l.v > r.v')).toEqual([0, 1]);
    });
    it(`a NULL outer key survives iff no inner row passes its filter (build=${build})`, async () => {
      const outer = table([null, null, 5], [1, 100, 1]);
      const inner = table([7, 8], [50, 60]); // l.v > r.v: none for v = 1, both for v = 100
      expect(await notIn(true, build, outer, inner, 'l.v > r.v')).toEqual([0, 2]);
    });
    it(`a key match counts only when the filter passes (build=${build})`, async () => {
      const outer = table([1, 1, 2], [5, 50, 5]);
      const inner = table([1, 2], [10, 1]); // l.v > r.v: row 1 matches key 1, row 2 matches key 2
      expect(await notIn(true, build, outer, inner, 'l.v > r.v')).toEqual([0]);
    });
    it(`right-anti: the same rules with the outer side on the right (build=${build})`, async () => {
      const inner = table([null, 9], [25, 0]);
      const outer = table([1, 2, 3, null], [10, 20, 30, -1]); // the NULL key passes with no inner row: kept
      expect(await notIn(false, build, inner, outer, 'r.v > l.v')).toEqual([0, 1, 3]);
    });
  }
});

describe('NOT IN with a residual filter: random NULL-dense tables vs the oracle and DuckDB', () => {
  let duck: DuckDBSession;
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
  });
  afterAll(async () => {
    await duck?.close();
  });

  it('matches on 60 random cases x outer side x build side x mode', async () => {
    const rng = new Rng(2024);
    const FILTERS = ['l.v < r.v', 'l.v + r.v > 5 OR r.v IS NULL', 'l.v = r.v OR l.v IS NULL', 'r.v > 3'];
    const col = (n: number, domain: number, nulls: number) => Array.from({ length: n }, () => (rng.chance(nulls) ? null : rng.int(0, domain)));
    const oracle = await Engine.create({ join: 'nested-loop' });
    for (let c = 0; c < 60; c++) {
      const [nl, nr] = [rng.int(0, 12), rng.int(0, 12)];
      const left = table(col(nl, 5, 0.3), col(nl, 8, 0.2), rng.int(1, 5));
      const right = table(col(nr, 5, 0.3), col(nr, 8, 0.2), rng.int(1, 5));
      const filter = rng.pick(FILTERS);
      for (const type of ['left-anti', 'right-anti'] as const) {
        const spec = { type, on: 'k=k', nullAware: true, filter };
        const expected = (await oracle.join(spec, left, right)).table;
        for (const config of [{ 'hash.build': 'left' }, { 'hash.build': 'right' }, { 'hash.mode': 'partitioned', 'hash.partitions': 3 }]) {
          const got = (await (await Engine.create({ join: 'hash', ...config })).join(spec, left, right)).table;
          const cmp = compareResults(got, expected);
          expect(cmp.equal, `case ${c} ${type} ${filter} ${JSON.stringify(config)}\n${formatComparison(cmp)}`).toBe(true);
        }
        await duck.loadTable('l_t', left);
        await duck.loadTable('r_t', right);
        const sql = joinToSql(toJoinSpec(spec), { table: 'l_t', columns: ['k', 'v', 'tag'] }, { table: 'r_t', columns: ['k', 'v', 'tag'] });
        const cmp = compareResults(expected, await duck.query(sql));
        expect(cmp.equal, `oracle vs DuckDB, case ${c} ${type} ${filter}\n${formatComparison(cmp)}`).toBe(true);
      }
    }
  });
});
