/**
 * Stacked dynamic filters in SQL join trees (issue 14): in a star query every dimension join's
 * build side publishes a filter about a fact column, and every one of them reaches the fact scan —
 * through the joins in between — so the fact's row groups are pruned by all three at once. The
 * fact data is laid out so that each dimension's filter rules out row groups the others keep:
 * the pruned counts are exact, and each added dimension prunes more.
 *
 * And the other half of the contract: a filter is never routed through a join that could turn a
 * dropped row into an output row — here a LEFT join's NULL-padded side feeding an
 * `IS NOT DISTINCT FROM` join, where pushing the filter would change the answer.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { compareResults, formatComparison } from '../duckdb/compare.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { runSql } from './run.ts';

const GROUPS = 16;
const GROUP_ROWS = 2048;

let dir: string;
let duck: DuckDBSession;
let tables: Record<string, string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-stacked-'));
  duck = await DuckDBSession.open({ threads: 1 });
  // row group g: date_key = g; cust_key in [100 (g % 4), +99]; prod_key in [100 ((g >> 2) % 4), +49]
  await duck.run(`CREATE TABLE fact AS SELECT r // ${GROUP_ROWS} AS date_key, ((r // ${GROUP_ROWS}) % 4) * 100 + r % 100 AS cust_key,
    (((r // ${GROUP_ROWS}) // 4) % 4) * 100 + r % 50 AS prod_key, r AS amount FROM range(${GROUPS * GROUP_ROWS}) t(r) ORDER BY r`);
  await duck.run(`CREATE TABLE date_dim AS SELECT d AS date_key, d // 4 AS quarter FROM range(${GROUPS}) t(d)`);
  await duck.run(`CREATE TABLE customer AS SELECT c AS cust_key, CASE WHEN c BETWEEN 100 AND 199 THEN 'A' ELSE 'B' END AS region FROM range(400) t(c)`);
  await duck.run(`CREATE TABLE product AS SELECT p AS prod_key, CASE WHEN p BETWEEN 100 AND 149 THEN 'X' ELSE 'Y' END AS cat FROM range(400) t(p)`);
  tables = {};
  for (const t of ['fact', 'date_dim', 'customer', 'product']) {
    const path = join(dir, `${t}.parquet`);
    await duck.run(`COPY ${t} TO '${path}' (FORMAT parquet, ROW_GROUP_SIZE ${GROUP_ROWS})`);
    tables[t] = path;
  }
});
afterAll(async () => {
  await duck?.close();
  await rm(dir, { recursive: true, force: true });
});

const STAR = [
  ['date_dim d', 'f.date_key = d.date_key', 'd.quarter < 2'],
  ['customer c', 'f.cust_key = c.cust_key', "c.region = 'A'"],
  ['product p', 'f.prod_key = p.prod_key', "p.cat = 'X'"],
] as const;

function starQuery(dims: number): string {
  const used = STAR.slice(0, dims);
  return `SELECT f.amount, f.date_key FROM fact f ${used.map(([t, on]) => `JOIN ${t} ON ${on}`).join(' ')} WHERE ${used.map(([, , w]) => w).join(' AND ')}`;
}

describe('stacked dynamic filters', () => {
  // date keeps groups 0..7; region A keeps g % 4 = 1; category X keeps (g >> 2) % 4 = 1 (4..7)
  const expectedRead = [8, 2, 1];
  for (const dims of [1, 2, 3]) {
    it(`a star query with ${dims} dimension(s): every dimension's filter prunes the fact scan`, async () => {
      const engine = await Engine.create({});
      const sql = starQuery(dims);
      const result = await runSql(engine, sql, tables, { duck });
      const expected = await duck.query(sql.replace(/FROM fact f/, `FROM '${tables.fact}' f`).replace(/JOIN (date_dim|customer|product) /g, (_m, t: string) => `JOIN '${tables[t]}' `));
      const r = compareResults(result.table, expected);
      expect(r.equal, formatComparison(r)).toBe(true);
      const fact = result.scans.find((s) => s.table === 'fact')!;
      expect(fact.metrics.containersTotal).toBe(GROUPS);
      expect(fact.metrics.containersTotal - fact.metrics.containersPruned).toBe(expectedRead[dims - 1]);
      // the own join's filter and each one routed down from above
      expect(fact.filters.length).toBe(dims);
    });
  }

  async function run(sql: string) {
    const engine = await Engine.create({});
    const result = await runSql(engine, sql, tables, { duck });
    const onFiles = sql.replace(/FROM (fact|date_dim|customer|product) /g, (_m, t: string) => `FROM '${tables[t]}' `).replace(/JOIN (fact|date_dim|customer|product) /g, (_m, t: string) => `JOIN '${tables[t]}' `);
    const r = compareResults(result.table, await duck.query(onFiles));
    expect(r.equal, `${sql}\n${formatComparison(r)}`).toBe(true);
    return result.scans.find((x) => x.table === 'fact')!;
  }

  it('no filter goes through the side of an outer join that pads, nor from an anti join', async () => {
    // fact is the NULL-padded side of the LEFT join: customer's filter must not reach its scan
    const padded = await run("SELECT d.date_key, f.amount, c.region FROM date_dim d LEFT JOIN fact f ON f.date_key = d.date_key AND d.quarter < 2 JOIN customer c ON f.cust_key = c.cust_key WHERE c.region = 'A'");
    expect(padded.filters.every((f) => !f.includes('100'))).toBe(true);
    // the NOT EXISTS (an anti join) publishes nothing: only the date filter prunes
    const anti = await run("SELECT f.amount FROM fact f JOIN date_dim d ON f.date_key = d.date_key WHERE d.quarter < 2 AND NOT EXISTS (SELECT 1 FROM customer c WHERE c.cust_key = f.cust_key AND c.region = 'A')");
    expect(anti.filters.length).toBe(1);
    expect(anti.metrics.containersTotal - anti.metrics.containersPruned).toBe(8);
    // …while the EXISTS (a semi join) is routed down and prunes with it
    const semi = await run("SELECT f.amount FROM fact f JOIN date_dim d ON f.date_key = d.date_key WHERE d.quarter < 2 AND EXISTS (SELECT 1 FROM customer c WHERE c.cust_key = f.cust_key AND c.region = 'A')");
    expect(semi.filters.length).toBe(2);
    expect(semi.metrics.containersTotal - semi.metrics.containersPruned).toBe(2);
  });

  it('a filter is not routed through the NULL-padded side of an outer join', async () => {
    // b's rows all fail c's filter; pushed into b's scan they would vanish, leaving a's rows
    // NULL-padded, which then match c's NULL key under IS NOT DISTINCT FROM
    await duck.run('CREATE OR REPLACE TABLE ta AS SELECT * FROM (VALUES (1), (2)) t(k)');
    await duck.run('CREATE OR REPLACE TABLE tb AS SELECT * FROM (VALUES (1, 10), (2, 20)) t(k, w)');
    await duck.run('CREATE OR REPLACE TABLE tc AS SELECT * FROM (VALUES (NULL), (99)) t(w)');
    const t = { ta: await duck.query('SELECT * FROM ta'), tb: await duck.query('SELECT * FROM tb'), tc: await duck.query('SELECT * FROM tc') };
    const engine = await Engine.create({});
    const sql = 'SELECT ta.k, tb.w, tc.w AS cw FROM ta LEFT JOIN tb ON ta.k = tb.k AND tb.w > 100 JOIN tc ON tb.w IS NOT DISTINCT FROM tc.w';
    const result = await runSql(engine, sql, t, { duck });
    const r = compareResults(result.table, await duck.query(sql));
    expect(r.equal, formatComparison(r)).toBe(true);
    expect(result.table.numRows).toBe(2);
    expect(result.scans.find((s) => s.table === 'tb')!.filters.length).toBeLessThanOrEqual(1);
  });
});
