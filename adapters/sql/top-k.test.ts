/**
 * `ORDER BY … LIMIT n [OFFSET m]` through the top-k (operators/sort/top-k.ts) on tables with many
 * ties and NULLs, at batch sizes 1, 3 and 8192:
 *  - the answer is exactly the full sort's rows [m, m + n) — the same query without LIMIT, sorted
 *    by the stable full sort over the same input, then sliced: ties in the same order;
 *  - against DuckDB: the ORDER BY columns' sequence is DuckDB's (which tied rows DuckDB keeps is its
 *    own choice, so whole rows are compared only under a total order);
 *  - the plan says top-k, and a large LIMIT over a small input still takes the full sort's path
 *    only when DuckDB's rule says so (`useTopK`).
 */
import { Int32, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { Rng } from '../../core/random.ts';
import { compareResults, formatComparison, orderDifference } from '../duckdb/compare.ts';
import { differentialSession, type DifferentialSession } from './differential.ts';
import { runSql } from './run.ts';
import { useTopK } from './select.ts';

function tiesTable(rng: Rng, n: number): Table {
  const pick = <T>(xs: readonly T[]) => Array.from({ length: n }, () => (rng.chance(0.15) ? null : rng.pick(xs)));
  return new Table({
    k: vectorFromArray(pick([0, 1, 2, 3]), new Int32()),
    g: vectorFromArray(pick([10, 20, 30, 40, 50, 60, 70]), new Int32()),
    x: vectorFromArray(pick(['a', 'b', 'c', '']), new Utf8()),
    v: vectorFromArray(Array.from({ length: n }, (_, i) => i), new Int32()),
  });
}

let s: DifferentialSession<Engine>;
beforeAll(async () => {
  const rng = new Rng(99);
  s = await differentialSession((c) => Engine.create(c), { t: tiesTable(rng, 300), u: tiesTable(rng, 40) });
});
afterAll(() => s.close());

const CASES: [string, string[]][] = [
  ['SELECT k, x, v FROM t ORDER BY k LIMIT 10', ['k']],
  ['SELECT k, x, v FROM t ORDER BY k DESC NULLS FIRST, x LIMIT 25 OFFSET 7', ['k', 'x']],
  ['SELECT x, k FROM t ORDER BY x NULLS FIRST, k DESC LIMIT 0', ['x', 'k']],
  ['SELECT x, v FROM t ORDER BY k + g, x DESC LIMIT 13 OFFSET 290', []],
  ['SELECT t.k, u.v AS uv, t.v FROM t JOIN u ON t.g = u.g ORDER BY uv DESC, t.k LIMIT 40', ['uv', 'k']],
  ['SELECT g, count(*) AS n, sum(v) AS s FROM t GROUP BY g ORDER BY n DESC LIMIT 3', ['n']],
  ['SELECT k, g, v FROM t WHERE x <> \'a\' ORDER BY g NULLS FIRST, k NULLS FIRST LIMIT 1000', ['g', 'k']],
];

describe('ORDER BY … LIMIT as a top-k', () => {
  for (const [sql, columns] of CASES) {
    it(sql, async () => {
      const m = /LIMIT (\d+)(?: OFFSET (\d+))?$/.exec(sql)!;
      const limit = Number(m[1]);
      const offset = Number(m[2] ?? 0);
      const unlimited = sql.slice(0, m.index).trimEnd();
      const expected = await s.duck.query(sql);
      for (const engine of s.engines) {
        const { table, plan } = await runSql(engine, sql, s.tables, { duck: s.duck });
        expect(JSON.stringify(plan), sql).toContain('(top-k)');
        // exactly the full sort's rows [offset, offset + limit), ties in the same order
        const full = (await runSql(engine, unlimited, s.tables, { duck: s.duck })).table.slice(offset, offset + limit);
        const same = compareResults(table, full);
        expect(same.equal, `${sql} (batchSize ${engine.config.batchSize}) vs the full sort\n${formatComparison(same)}`).toBe(true);
        expect(orderDifference(table, full), `${sql} (batchSize ${engine.config.batchSize}) vs the full sort`).toBeNull();
        // DuckDB: the ORDER BY columns in the same sequence (an expression key: the row count)
        expect(table.numRows, sql).toBe(expected.numRows);
        if (columns.length > 0) expect(orderDifference(table, expected, columns), `${sql} (batchSize ${engine.config.batchSize}) vs DuckDB`).toBeNull();
      }
    });
  }

  it('a total order gives DuckDB\'s rows exactly', async () => {
    expect(await s.difference('SELECT k, g, x, v FROM t ORDER BY k NULLS FIRST, g DESC, x, v LIMIT 17 OFFSET 5', { ordered: true })).toBeNull();
    expect(await s.difference('SELECT v FROM t ORDER BY v DESC LIMIT 5', { ordered: true })).toBeNull();
  });

  it("DuckDB's rule for when a full sort is cheaper", () => {
    expect([useTopK(100, 10), useTopK(5000, 1), useTopK(5001, 1e6), useTopK(5001, 1e5), useTopK(2 ** 63, 1e9)]).toEqual([true, true, true, false, false]);
  });
});
